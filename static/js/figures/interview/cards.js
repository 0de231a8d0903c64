// Figure 7's model cards: per model, its final losses and grammatical share, a button that has it write
// sentences (each checked by the grammar), and its attention on the reader's sentence, one heatmap per head
// with the future (above the diagonal) outlined.

import { element } from "../../lib/dom.js";
import { fitCells, Heatmap, labelRoom } from "../../lib/heatmap.js";
import { formatLoss } from "../../lib/log-axis.js";
import { clear } from "../../lib/svg.js";
import { modelColour, pct, SHORT } from "./names.js";

const LABEL_PX = 11; // the smallest text the page draws; a heatmap's labels are 0.8 of its cell

/**
 * Fill `list` with a card per model of `models` (the /api/lm answer `lm`'s); a press of a card's button calls
 * `generate(mask)`. Returns the cards by mask: {section, button, status, samples, share, fingerprint, leak,
 * maps, busy}.
 */
export function buildCards(list, lm, models, generate) {
  clear(list);
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
    const stats = element(
      "p",
      "lm-model__stats",
      `Recorded in training: final loss ${formatLoss(d.final_train)} (training), ` +
        `${formatLoss(d.final_validation)} (validation); ${pct(d.grammatical_share)} of ` +
        `${d.samples_measured} sampled sentences grammatical.`,
    );
    section.append(title, stats);

    const row = element("div", "lm-model__generate");
    const button = element("button", "button button--primary", `Generate samples (${SHORT[d.mask]})`);
    button.type = "button";
    button.dataset.model = d.mask;
    button.addEventListener("click", () => generate(d.mask));
    const status = element("span", "lm-model__status");
    status.setAttribute("role", "status");
    row.append(button, status);

    const samples = element("ul", "samples");
    samples.setAttribute("aria-label", `Sentences written by the ${SHORT[d.mask]} model`);
    const share = element("p", "samples__share");
    const fingerprint = element("div", "fingerprint");
    const leak = element("p", "fingerprint__title", "Its attention on the sentence");
    const key = element(
      "p",
      "fingerprint__key",
      "In each map a row is a word reading, a column a word it reads; the outlined triangle is the future.",
    );
    const maps = element("div", "heatmaps fingerprint__maps");
    fingerprint.append(leak, key, maps);
    section.append(row, samples, share, fingerprint);
    list.appendChild(section);
    cards.set(d.mask, { section, button, status, samples, share, fingerprint, leak, maps, busy: false });
  }
  const note = element(
    "p",
    "lm-models__note",
    `Each model: ${lm.layers} layers of ${lm.heads} heads, width ${lm.d_model}, ${lm.vocab_size} words. ` +
      `Every sentence starts from the prompt “${lm.prompt}”.`,
  );
  list.prepend(note);
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

/** The /api/lm/attention answer `data` of model `mask` in `card`: a heatmap per layer and head, and its leak. */
export function drawFingerprint(card, mask, data, font) {
  const { tokens, weights } = data;
  const maps = weights.flatMap((heads, l) => heads.map((w, h) => ({ l, h, w })));
  const width = card.maps.clientWidth || 280;
  // Cells of at least 14 px keep every word's label at 11 px or more; wide cards put fewer maps on a line
  // rather than shrink them.
  const extra = labelRoom(tokens, 12, font) + 4;
  const narrow = width < 500;
  const minCell = Math.ceil(LABEL_PX / 0.8);
  const fit = { extra, gap: 12, minCell, maxCell: narrow ? minCell : 18, prefer: narrow ? minCell : 20 };
  const { cell } = fitCells(width, tokens.length, maps.length, fit);
  const colour = modelColour(mask);
  clear(card.maps);
  for (const { l, h, w } of maps) {
    const map = new Heatmap({
      tokens,
      cell,
      colour,
      title: `layer ${l + 1}, head ${h + 1}`,
      font,
      outlineFuture: true,
      axes: false, // the card's key says which way rows and columns read
      className: "heatmap--small",
      label: `${SHORT[mask]} model, layer ${l + 1}, head ${h + 1}: attention over the sentence`,
    });
    map.update(w);
    map.root.dataset.layer = String(l);
    map.root.dataset.head = String(h);
    card.maps.appendChild(map.root);
  }
  const next = nextWordShare(weights);
  const where = next === null ? "" : ` (${pct(next)} of it on the very next word)`;
  card.leak.textContent = `Its attention on the sentence: future leak ${pct(data.future_leak)}${where}`;
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
