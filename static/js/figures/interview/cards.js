// Figure 7's model cards: per model, the share of its recorded sentences the grammar accepts, a button that has
// it write sentences (each checked by the grammar), and its attention on the reader's sentence, one heatmap per
// head with the future (above the diagonal) outlined, in a row that scrolls sideways on a narrow screen. The
// cards' one note says once what every card shares.

import { element } from "../../lib/dom.js";
import { Heatmap, labelRoom } from "../../lib/heatmap.js";
import { clear } from "../../lib/svg.js";
import { modelColour, modelName, pct } from "./names.js";

const LABEL_PX = 11; // the smallest text the page draws; a heatmap's labels are 0.8 of its cell
const MAX_CELL = 16; // px: a card's maps grow no bigger than this on a wide screen
const GAP_PX = 12; // between two maps (interview.css .fingerprint__maps)

/**
 * Fill `list` with a card per model of `models` (the /api/lm answer `lm`'s), and `note` with what every card
 * shares; a press of a card's button calls `generate(mask)`. Returns the cards by mask: {section, button,
 * status, samples, share, fingerprint, leak, maps, busy}.
 */
export function buildCards(list, note, lm, models, generate) {
  clear(list);
  const counts = new Set(models.map((d) => d.samples_measured));
  const oneCount = counts.size === 1 ? [...counts][0] : null; // said once in the note when every model shares it
  const cards = new Map();
  for (const d of models) {
    const id = `interview-model-${d.mask}`;
    const section = element("section", "lm-model");
    section.dataset.model = d.mask;
    section.setAttribute("aria-labelledby", `${id}-title`);
    const title = element("h4", "lm-model__title");
    title.id = `${id}-title`;
    const swatch = element("span", "lm-model__swatch");
    swatch.style.setProperty("--colour", modelColour(d.mask));
    swatch.setAttribute("aria-hidden", "true");
    title.append(swatch, d.label);
    const recorded = oneCount === null ? `Its ${d.samples_measured} recorded sentences` : "Its recorded sentences";
    const stats = element("p", "lm-model__stats", `${recorded}: ${pct(d.grammatical_share)} grammatical.`);

    const row = element("div", "lm-model__generate");
    const button = element("button", "button button--primary", `Generate samples (${modelName(d.mask)})`);
    button.type = "button";
    button.dataset.model = d.mask;
    button.addEventListener("click", () => generate(d.mask));
    const status = element("span", "lm-model__status");
    status.setAttribute("role", "status");
    row.append(button, status);

    const samples = element("ul", "samples");
    samples.setAttribute("aria-label", `Sentences written by the ${modelName(d.mask)} model`);
    const share = element("p", "samples__share");
    const fingerprint = element("div", "fingerprint");
    const leak = element("p", "fingerprint__title", "Future leak");
    const maps = element("div", "heatmaps fingerprint__maps");
    maps.setAttribute("role", "group");
    maps.setAttribute("aria-label", `The ${modelName(d.mask)} model's attention, one map per head`);
    fingerprint.append(leak, maps);
    section.append(title, stats, row, samples, share, fingerprint);
    list.appendChild(section);
    cards.set(d.mask, { section, button, status, samples, share, fingerprint, leak, maps, busy: false });
  }
  const written = oneCount === null ? "sentences" : `${oneCount} sentences`;
  note.textContent =
    `After training, each model sampled ${written} from “${lm.prompt}”. Its maps are its attention on the ` +
    "sentence, one per head: a row is a word reading, a column a word read; the outlined triangle is the future.";
  return cards;
}

/** Mark `card` as writing (or done writing): its section busy, its status saying so. */
export function setCardBusy(card, busy) {
  card.busy = busy;
  if (busy) card.section.setAttribute("aria-busy", "true");
  else card.section.removeAttribute("aria-busy");
  card.status.textContent = busy ? "writing…" : "";
}

/** The sentences of a /api/lm/generate `answer` (with its `strategy`) in `card`, each marked ✓ or ✗. */
export function drawSamples(card, answer, prompt) {
  const list = clear(card.samples);
  for (const sample of answer.samples) {
    const li = element("li", `sample ${sample.grammatical ? "sample--good" : "sample--bad"}`);
    li.dataset.grammatical = String(sample.grammatical);
    const mark = element("span", "sample__mark", sample.grammatical ? "✓" : "✗");
    mark.setAttribute("role", "img");
    mark.setAttribute("aria-label", sample.grammatical ? "grammatical" : "not grammatical");
    const text = sample.text.trim();
    li.append(mark, element("span", "sample__text", text || "(nothing)"));
    if (text === prompt.trim()) li.appendChild(element("span", "sample__note", " (stopped at once)"));
    list.appendChild(li);
  }
  const good = answer.samples.filter((s) => s.grammatical).length;
  card.share.textContent =
    `${answer.strategy === "greedy" ? "Greedy" : "Sampled"}: ${good} of ${answer.samples.length} grammatical ` +
    `(${pct(answer.grammatical_share)}).`;
}

/**
 * The /api/lm/attention answer `data` of model `mask` in `card`: a heatmap per layer and head, in one row, and
 * its leak. The maps share their rows and columns, so only the first is labelled: the others' labels are
 * hidden (interview.css) and the room they took is cut off, small multiples on one axis.
 */
export function drawFingerprint(card, mask, data, font) {
  const { tokens, weights } = data;
  const maps = weights.flatMap((heads, l) => heads.map((w, h) => ({ l, h, w })));
  const width = card.maps.clientWidth || 280;
  // Cells of at least 14 px keep every word's label at 11 px or more; a row too long for the card scrolls
  // sideways (interview.css) rather than shrink them. Only the first map has labels: the row needs their room
  // once, then n cells (and a little slack) per map.
  const extra = labelRoom(tokens, 12, font) + 4 + (maps.length - 1) * (GAP_PX + 6);
  const minCell = Math.ceil(LABEL_PX / 0.8);
  const cell = Math.max(minCell, Math.min(MAX_CELL, Math.floor((width - extra) / (maps.length * tokens.length))));
  const colour = modelColour(mask);
  clear(card.maps);
  maps.forEach(({ l, h, w }, k) => {
    const map = new Heatmap({
      tokens,
      cell,
      colour,
      font,
      outlineFuture: true,
      axes: false, // the cards' note says which way rows and columns read
      className: "heatmap--small",
      label: `${modelName(mask)} model, layer ${l + 1}, head ${h + 1}: attention over the sentence`,
    });
    map.update(w);
    map.root.dataset.layer = String(l);
    map.root.dataset.head = String(h);
    const box = element("div", "fingerprint__map");
    box.append(element("p", "fingerprint__map-title", `layer ${l + 1}, head ${h + 1}`), map.root);
    if (k > 0) {
      // Crop the room of the hidden labels: left of the grid, and the slanted labels' overhang right of it.
      const { left, n, width: drawn } = map.geometry;
      box.classList.add("fingerprint__map--bare");
      map.root.style.setProperty("margin-left", `${-Math.floor(left - 2)}px`);
      map.root.style.setProperty("margin-right", `${-Math.floor(drawn - left - n * cell - 2)}px`);
    }
    card.maps.appendChild(box);
  });
  // A row that scrolls sideways takes the focus, so the keyboard scrolls it too.
  if (card.maps.scrollWidth > card.maps.clientWidth + 1) card.maps.tabIndex = 0;
  else card.maps.removeAttribute("tabindex");
  const next = nextWordShare(weights);
  const where = next === null ? "" : ` (${pct(next)} of it on the very next word)`;
  card.leak.textContent = `Future leak ${pct(data.future_leak)}${where}`;
  card.fingerprint.dataset.leak = String(data.future_leak);
}

/**
 * Of all the attention weight on later words (j > i) in `weights` (layers, heads, T, T), the share on the next
 * word (j = i + 1): 1 for the off-by-one mask, which hides every later word but that one. Null when no weight
 * reaches the future.
 */
function nextWordShare(weights) {
  let future = 0;
  let next = 0;
  for (const w of weights.flat()) {
    w.forEach((row, i) => {
      for (let j = i + 1; j < row.length; j++) future += row[j];
      if (i + 1 < row.length) next += row[i + 1];
    });
  }
  return future > 0 ? next / future : null;
}
