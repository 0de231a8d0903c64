// Figure 6, the mask lab: a real decoder's self-attention over the reader's sentence under no mask, −∞ and ×0,
// and under the five per-row bugs of the mask bug zoo (off by one either way, transposed, masked after the
// softmax, added as +1). The decoder is figure 7's language model trained with −∞; the chosen mask replaces its
// own in every layer. A heatmap per layer and head with the future outlined, the Future leak meter with its
// per-row break-down (folded), and what the mask does, told with this decoder's own numbers. In a fold below,
// the zoo's two bugs that are not a mask mode: a padded batch's NaN rows, and finite mask values in low
// precision, fetched once the fold is opened.
//
// Data flows one way: state (from the URL) -> one fetch of /api/lm/attention/masks (the decoder under every
// mask, for the sentence) -> draw. A change of mask asks nothing new: it keeps
// the heatmaps and only rewrites each cell's fill-opacity, so CSS animates the change. The maths is the
// server's: the weights, the scores the mask acts on, the leak, each row's share of weight on later positions.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { counted as plural } from "../lib/counts.js";
import { element } from "../lib/dom.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { piecesNote, splitWords } from "../lib/pieces.js";
import { parse } from "../lib/url-state.js";
import { Widget } from "../lib/widget.js";
import { WidthWatch } from "../lib/width-watch.js";

const NAME = "mask-lab";
const MODEL = "neg_inf"; // the decoder: figure 7's model trained with −∞
const MODES = ["none", "neg_inf", "zero", "hides_self", "next_word", "transposed", "after_softmax", "additive"];
const MODE_LABEL = {
  none: "no mask",
  neg_inf: "−∞",
  zero: "×0",
  hides_self: "hides itself",
  next_word: "next word",
  transposed: "transposed",
  after_softmax: "after softmax",
  additive: "+1 added",
};
// How a sentence names the mask a decoder of figure 7 was trained with.
const TRAINED_WITH = {
  none: "with no mask",
  zero: "with ×0",
  next_word: "with the off-by-one mask that shows the next word",
};
// The line of code each mode is (what the radio's name stands for), shown under the radios.
const MODE_CODE = {
  none: "scores",
  neg_inf: "scores.masked_fill(triu(ones, diagonal=1), -inf)",
  zero: "scores.masked_fill(triu(ones, diagonal=1), 0)",
  hides_self: "scores.masked_fill(triu(ones, diagonal=0), -inf)",
  next_word: "scores.masked_fill(triu(ones, diagonal=2), -inf)",
  transposed: "scores.masked_fill(tril(ones, diagonal=-1), -inf)",
  after_softmax: "softmax(scores).masked_fill(triu(ones, diagonal=1), 0)",
  additive: "scores + triu(ones, diagonal=1)",
};
const START = "<s>"; // the start token the decoder reads before the first word
// The figure's elements marked data-part (the Mask radios, several, are found apart).
const PARTS = [
  ..."sentence pieces dock-leak drawing meter meter-fill meter-yardstick meter-value meter-learned learned".split(" "),
  ..."yardstick rows rows-foot table explain compare code".split(" "),
  ..."zoo pad-about pad-count pad-maps pad-explain precision-about precision precision-explain".split(" "),
];

/** A percentage as the page writes it: exact 0 stays "0%", anything above it never rounds down to 0; a share
 * that is not a number (a NaN row's, sent as null) is "NaN". */
export function formatPercent(p) {
  if (p === null || Number.isNaN(p)) return "NaN";
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  if (p < 9.95) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** The meter's aria-valuenow: exactly "0" for no leak, else four significant digits (never rounded to 0). */
export const meterValue = (p) => (p === 0 ? "0" : String(Number(p.toPrecision(4))));

/** The average future share of uniform attention over n tokens: (1/n) Σ_i (n−1−i)/n = (n−1)/(2n). */
export const uniformLeak = (n) => (n - 1) / (2 * n);

/** A number to `digits` significant digits (three by default), never written as 0 when it is not. */
const num = (x, digits = 3) =>
  x !== 0 && Math.abs(x) < 0.001 ? x.toExponential(digits - 1) : String(Number(x.toPrecision(digits)));
const quote = (t) => `“${t}”`;
/** A share (0..1, or null for a NaN row) as a percentage. */
const pct = (share) => (share === null ? "NaN" : formatPercent(share * 100));
const mapName = (l, h) => `layer ${l + 1}, head ${h + 1}`;

/** Set `el`'s text, writing each "e^{x}" as e with a superscript x (built as nodes, never parsed as HTML). */
function setWithPowers(el, text) {
  const parts = text.split(/e\^\{([^}]*)\}/);
  el.replaceChildren();
  parts.forEach((part, idx) => {
    if (idx % 2 === 0) el.append(part);
    else el.append("e", element("sup", "", part));
  });
}

/** The (layer, head, row) whose row puts the most weight on later positions, preferring a row that sees a
 * word besides the start token; `shares` is the answer's future_shares [layer][head][row]. */
function leakiestRow(shares, n) {
  let best = null;
  shares.forEach((heads, l) =>
    heads.forEach((rows, h) =>
      rows.forEach((share, i) => {
        if (share === null) return; // a NaN row has no share
        const rank = [i >= 1 && i < n - 1 ? 1 : 0, share];
        if (!best || rank[0] > best.rank[0] || (rank[0] === best.rank[0] && share > best.share)) {
          best = { l, h, i, share, rank };
        }
      }),
    ),
  );
  return best;
}

/** Every row of an answer's weights [layer][head][i] that has weights (no NaN), with where it is. */
function weightedRows(weights) {
  const rows = [];
  weights.forEach((heads, l) =>
    heads.forEach((map, h) =>
      map.forEach((row, i) => {
        if (!row.some((w) => w === null)) rows.push({ l, h, i, row });
      }),
    ),
  );
  return rows;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
/** Whether the heatmaps write each row's sum: only where the mask leaves rows that do not sum to 1 (a NaN row
 * is written NaN in its cells). */
const sumsShown = (data) => data.mask === "after_softmax";
const maxOf = (rows, f) => rows.reduce((best, r) => (!best || f(r) > f(best) ? r : best), null);
const list = (xs) => (xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);

/** hides_self: the first row sees nothing, and NaN spreads to every row that reads its output. */
function hidesSelfText(data) {
  const { tokens, nan_rows: nan, weights } = data;
  const n = tokens.length;
  const counts = nan.map((heads) => heads.map((rows) => rows.length));
  const layers = counts.map((heads, l) =>
    heads.every((c) => c === heads[0])
      ? `layer ${l + 1}, ${heads[0]} of ${n} in each head`
      : `layer ${l + 1}, ${heads.join(", ")} of ${n} in heads 1–${heads.length}`,
  );
  const spread = counts.slice(1).some((heads) => Math.max(...heads) > Math.max(...counts[0]));
  const kept = weightedRows(weights).length;
  const total = weights.length * weights[0].length * n;
  return (
    "Off by one: the diagonal is hidden with the future, so each word loses itself. The first row has " +
    "nothing to see: all its scores are −∞, and its softmax divides 0 by 0: NaN. " +
    `NaN rows: ${layers.join("; ")}.` +
    (spread
      ? " Position 0's output is NaN, so in the next layer its key and value are NaN, and every row that " +
        "looks at it is NaN too."
      : "") +
    ` The meter averages the ${kept} of ${total} rows that have weights: none looks ahead, and the decoder is ` +
    "broken all the same."
  );
}

/** next_word: each row sees exactly one later word, the next. */
function nextWordText(data) {
  const { tokens, weights } = data;
  const n = tokens.length;
  const rows = weightedRows(weights).filter((r) => r.i < n - 1);
  const next = (r) => r.row[r.i + 1];
  const beyond = Math.max(0, ...rows.map((r) => sum(r.row.slice(r.i + 2))));
  const top = maxOf(rows, next);
  const mean = sum(rows.map(next)) / rows.length;
  return (
    "Off by one: the mask starts two words ahead, so each row i still sees word i+1, the very word it is " +
    `meant to predict. Here row i puts ${formatPercent(mean * 100)} on word i+1 on ` +
    `average (at most ${formatPercent(next(top) * 100)}, in the row of ${quote(tokens[top.i])} in ` +
    `${mapName(top.l, top.h)}, on ${quote(tokens[top.i + 1])}) and ` +
    `${beyond === 0 ? "exactly 0" : `at most ${num(beyond)}`} on any word beyond it: the quiet cheat.`
  );
}

/** transposed: the past hidden instead of the future. */
function transposedText(data) {
  const { tokens, weights, future_shares: shares } = data;
  const n = tokens.length;
  const rows = weightedRows(weights);
  const past = Math.max(0, ...rows.map((r) => sum(r.row.slice(0, r.i))));
  const last = Math.min(...rows.filter((r) => r.i === n - 1).map((r) => r.row[n - 1]));
  const { l, h, i, share } = leakiestRow(shares, n);
  return (
    "Transposed: the past is hidden instead of the future. Every word sees only itself and the words after " +
    `it (${past === 0 ? "exactly 0" : `at most ${num(past)}`} on earlier ones); the last word sees only itself, ` +
    `with weight ${num(last)}. The row of ${quote(tokens[i])} in ${mapName(l, h)} puts ${pct(share)} on later words.`
  );
}

/** after_softmax: no future weight, but rows that no longer sum to 1. */
function afterSoftmaxText(data) {
  const { tokens, weights } = data;
  const n = tokens.length;
  const rows = weightedRows(weights);
  const total = (r) => sum(r.row);
  const early = rows.filter((r) => r.i < n - 1);
  const least = maxOf(early, (r) => -total(r));
  const lo = total(least);
  const hi = Math.max(...early.map(total));
  return (
    "Masked after the softmax: the future's weights are set to 0 but the row is not renormalised, so the " +
    `rows with later positions sum to ${num(lo)}–${num(hi)}, not 1 (the row sums). Nothing is read from ` +
    `the future, but each word's output shrinks with its row: the row of ${quote(tokens[least.i])} in ` +
    `${mapName(least.l, least.h)} keeps ${formatPercent(lo * 100)} of its attention.`
  );
}

/** additive: the future's scores raised by 1, so its weights multiplied by e next to the past's. */
function additiveText(data) {
  const { tokens, weights, scaled, future_shares: shares } = data;
  const n = tokens.length;
  const { l, h, i, share } = leakiestRow(shares, n);
  const j = i + 1;
  const w = weights[l][h][i];
  const s = scaled[l][h][i];
  const unmasked = Math.exp(s[j] - s[i]); // e^{s_j − s_i}: what no mask makes of w_j / w_i
  const here = w[j] / w[i];
  return (
    "Added, not filled: True adds as 1, so each future score goes up by 1 instead of down to −∞, and " +
    "e^{s+1} = e · e^{s}. In the row of " +
    `${quote(tokens[i])} in ${mapName(l, h)}, the next word ${quote(tokens[j])} scores ${s[j].toFixed(2)} ` +
    `and ${quote(tokens[i])} itself ${s[i].toFixed(2)}: no mask would weigh them e^{${(s[j] - s[i]).toFixed(2)}} = ` +
    `${num(unmasked)} to 1; here they get ${num(here)} to 1, ${num(here / unmasked, 4)} times as much. Every ` +
    `later word gets e times its unmasked weight, next to the earlier ones: ${pct(share)} of this row.`
  );
}

const ZOO_TEXT = {
  hides_self: hidesSelfText,
  next_word: nextWordText,
  transposed: transposedText,
  after_softmax: afterSoftmaxText,
  additive: additiveText,
};

export class MaskLab extends Widget {
  constructor(figure, pageData) {
    const decoder = pageData.maskLab ?? {};
    const maxChars = pageData.lmMaxChars ?? 200;
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: {
          param: "mask_sentence",
          fallback: decoder.defaultSentence,
          parse: parse.text(maxChars),
        },
        mask: { param: "mask", fallback: "none", parse: parse.choice(MODES) },
      },
      parts: PARTS,
      staleOn: ["leak", "dock-leak", "drawing", "panels"], // the meters and the panels' numbers are the answer's too
    });
    this.maxChars = maxChars;
    this.maxWords = decoder.maxWords;
    this.el.pieces.setAttribute("aria-live", "polite"); // the Sentence's hint says which words are read in pieces
    this.trainedWith = decoder.trainedWith ?? []; // the masks a model of figure 7 was trained with
    this.modes = [...figure.querySelectorAll('[data-part="mode"]')];
    this.maps = []; // one Heatmap per layer and head, kept while the tokens stay the same
    this.shape = ""; // the tokens the heatmaps were built for
    this.rowItems = [];
    this.width = null; // the drawing's width, watched from start()
  }

  start() {
    this.showControls();
    this.watchSentence(this.el.sentence, (text) => this.update({ sentence: text }));
    for (const radio of this.modes) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ mask: radio.value });
      });
    }
    this.width = new WidthWatch(this.el.drawing, () => this.data && this.draw(this.data, true));
    onSchemeChange(() => {
      if (this.data) this.draw(this.data, true);
      if (this.zoo) this.showZoo(this.zoo);
    });
    this.el.zoo.addEventListener("toggle", () => this.el.zoo.open && this.fetchZoo());
    this.fetch();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    const before = this.setState(patch);
    this.showControls();
    this.fetch();
    if (before.sentence !== this.state.sentence && this.el.zoo.open) this.fetchZoo();
  }

  /** The radios and the explanation table's highlighted column (a bug's column shown only while it is
   * chosen): cheap, done on every change. */
  showControls() {
    for (const radio of this.modes) radio.checked = radio.value === this.state.mask;
    for (const cell of this.el.table.querySelectorAll("[data-mode]")) {
      const current = cell.dataset.mode === this.state.mask;
      cell.classList.toggle("is-current", current);
      if ("bug" in cell.dataset) cell.hidden = !current;
    }
    this.el.code.textContent = MODE_CODE[this.state.mask];
  }

  /** The decoder's attention on the sentence under every mask, in one answer: a switch of mask draws at once,
   * and the comparison line has every mask's leak. */
  url() {
    const params = new URLSearchParams({ model: MODEL, sentence: this.state.sentence });
    return `/api/lm/attention/masks?${params}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask for the answers to the current sentence (at once when they were seen before) and draw the mask's. */
  fetch() {
    this.load(this.url(), (all) => {
      this.data = all.answers[this.state.mask]; // what a redraw draws again
      this.draw(this.data, false);
    });
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Build the heatmaps when the tokens changed (or `rebuild`), then write this answer's numbers into them. */
  draw(data, rebuild) {
    const shape = `${data.weights.length}|${data.weights[0].length}|${sumsShown(data)}|${data.tokens.join(" ")}`;
    if (rebuild || shape !== this.shape) this.build(data);
    this.shape = shape;
    let k = 0;
    for (const heads of data.weights) for (const w of heads) this.maps[k++].update(w); // null: NaN, drawn grey
    this.el.drawing.dataset.mask = data.mask;
    // The Sentence's hint: the decoder's limit, and which words it reads in pieces when any is.
    const split = splitWords(data.tokens, data.word_index, data.words).length;
    const note = split ? ` ${piecesNote(data.tokens, data.word_index, data.words)}` : "";
    this.el.pieces.textContent = `Up to ${this.maxWords} words.${note}`;
    this.showMeter(data);
    this.showLearned();
    this.showExplanation(data);
    this.showCompare();
  }

  /** Beside a leaky mask's leak on the −∞ decoder, what the decoder trained with that mask (figure 7's) puts on
   * the future of the same sentence: it has learnt to read what leaks (the dotted mark on the meter). The line
   * is always written, so that the figure never grows when an answer arrives. */
  showLearned() {
    const { mask, sentence } = this.state;
    const line = this.el.learned;
    const mark = this.el.meterLearned;
    const figure = `figure ${this.figureNumber("interview")}`;
    line.hidden = false;
    mark.hidden = true;
    if (mask === MODEL) {
      line.textContent = `This decoder was trained with −∞ (${figure}): its own mask, with nothing to leak.`;
      return;
    }
    if (!this.trainedWith.includes(mask)) {
      const trained = this.trainedWith.map((m) => MODE_LABEL[m]);
      line.textContent =
        `No decoder was trained with this bug; ${figure} trains one with each of ` +
        `${trained.slice(0, -1).join(", ")} and ${trained.at(-1)}.`;
      return;
    }
    const said = (share) =>
      `Dotted mark: a decoder trained ${TRAINED_WITH[mask]} (${figure}) reads the leak: ${share} of its attention ` +
      "here.";
    line.textContent = said("…");
    const params = new URLSearchParams({ model: mask, sentence });
    this.api.get(`/api/lm/attention?${params}`).then(
      (answer) => {
        if (this.state.mask !== mask || this.state.sentence !== sentence) return; // the view moved on
        mark.style.setProperty("--share", String(answer.future_leak ?? 0));
        mark.hidden = false;
        line.textContent = said(pct(answer.future_leak));
      },
      () => {
        if (this.state.mask === mask && this.state.sentence === sentence) line.textContent = said("(not known)");
      },
    );
  }

  build(data) {
    const { tokens, weights } = data;
    const n = tokens.length;
    const heads = weights[0].length;
    const width = this.width?.px || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    const rowSums = sumsShown(data);
    const extra = labelRoom(tokens, 12, font) + (rowSums ? 40 : 8); // row labels and the row-sum column
    // A line per layer, its heads side by side while their cells stay big enough to write each weight in
    // (26 px); on a phone, one heatmap across the full width rather than two at half of it.
    const { cell } = fitCells(width, n, heads, { extra, maxCell: 40, minCell: 5, prefer: 26 });
    const grid = element("div", "heatmaps");
    this.maps = [];
    weights.forEach((layer, l) =>
      layer.forEach((_, h) => {
        const map = new Heatmap({
          tokens,
          cell,
          colour: headColour(h),
          title: `Layer ${l + 1}, head ${h + 1}`,
          font,
          outlineFuture: true,
          rowSums,
          values: true,
          className: "heatmap--mask",
          label: `Layer ${l + 1}, head ${h + 1}: a row per query position, a column per key position`,
        });
        map.root.dataset.layer = String(l);
        map.root.dataset.head = String(h);
        grid.appendChild(map.root);
        this.maps.push(map);
      }),
    );
    const start = tokens[0] === START ? ` ${START} is the start token.` : "";
    const legend = element("p", "heatmap-axes", `Dashed: the future, every key after its query.${start}`);
    this.el.drawing.replaceChildren(legend, grid);
    const maps = weights.length * heads;
    this.el.rowsFoot.textContent =
      `Mean over the ${plural(weights.length, "layer")} × ${plural(heads, "head")} (${maps} maps). Thin ` +
      "mark: uniform attention's share, (n−1−i)/n for position i of n.";

    // The per-row list: one item per query position, rebuilt with the heatmaps. The thin mark on each bar is
    // the share uniform attention would give position i of n: (n−1−i)/n.
    this.el.rows.replaceChildren();
    this.rowItems = tokens.map((token, i) => {
      const bar = element("span", "row-leak__bar");
      bar.setAttribute("aria-hidden", "true");
      const fill = element("span", "row-leak__fill");
      const mark = element("span", "row-leak__uniform");
      mark.style.setProperty("--share", String((n - 1 - i) / n));
      bar.append(fill, mark);
      const value = element("span", "row-leak__value");
      const li = element("li", "row-leak__item");
      li.append(element("span", "row-leak__word", token), bar, value);
      this.el.rows.appendChild(li);
      return { li, fill, value, token };
    });
  }

  showMeter(data) {
    const n = data.tokens.length;
    const percent = (data.future_leak ?? 0) * 100; // null only when no row has weights
    const text = formatPercent(percent);
    const meter = this.el.meter;
    meter.setAttribute("aria-valuenow", meterValue(percent));
    meter.setAttribute(
      "aria-valuetext",
      `${percent > 0 && percent < 0.1 ? "less than 0.1%" : text} of attention goes to the future`,
    );
    meter.dataset.leak = String(data.future_leak);
    this.el.meterFill.style.setProperty("--share", String(data.future_leak));
    this.el.meterValue.textContent = text;
    this.el.dockLeak.textContent = `· future leak ${text}`;
    const uniform = uniformLeak(n);
    this.el.meterYardstick.style.setProperty("--share", String(uniform));
    this.el.yardstick.textContent =
      `Share of attention on later positions. Thin mark: even attention over n = ${n} positions, ` +
      `(n−1)/(2n) = ${n - 1}/${2 * n} = ${formatPercent(uniform * 100)}.`;

    data.row_future_shares.forEach((share, i) => {
      const item = this.rowItems[i];
      if (!item) return;
      item.fill.style.setProperty("--share", String(share ?? 0));
      item.value.textContent = pct(share);
      item.li.dataset.share = String(share ?? NaN);
      item.li.setAttribute(
        "aria-label",
        `${item.token}: ${share === null ? "NaN in every map, no share" : pct(share)} on later positions` +
          (i === n - 1 ? " (the last position has nothing after it)" : ""),
      );
    });
  }

  /** The live explanation: a concrete row of the current answer, in words, with its own numbers. */
  showExplanation(data) {
    const { tokens, weights, scaled, future_shares: shares, mask } = data;
    const n = tokens.length;
    const maps = weights.length * weights[0].length;
    let text;
    if (ZOO_TEXT[mask]) {
      text = ZOO_TEXT[mask](data);
    } else if (mask === "neg_inf") {
      const most = Math.max(...shares.flat(2));
      const cells = most === 0 ? `exactly 0 in all ${maps} maps` : `at most ${num(most)}`;
      text =
        `−∞: e^{−∞} = 0, so every cell above the diagonal is ${cells}, and each row shares its 1 among the ` +
        "positions so far.";
    } else {
      const { l, h, i, share } = leakiestRow(shares, n);
      const later = n - 1 - i;
      const where = `the row of ${quote(tokens[i])} in ${mapName(l, h)}`;
      if (mask === "none") {
        text =
          "No mask: in training, −∞ hid later words, so their scores never counted; unmasked, they take " +
          `${formatPercent(share * 100)} of ${where}: its guess at the next word can read that word.`;
      } else {
        // The row's own numbers: the scores of the keys it may see, and the sum Σ that each later e^0 = 1
        // is divided by (the softmax of the masked row: e^s for each visible key, 1 for each later one).
        const seen = scaled[l][h][i].slice(0, i + 1);
        const top = Math.max(...seen);
        const total = seen.reduce((sum, s) => sum + Math.exp(s), 0) + later;
        const each = weights[l][h][i][i + 1];
        const visible = i === 0 ? "its only visible key (itself) scores" : `its ${i + 1} visible keys score up to`;
        const score = top.toFixed(2); // to two decimals: e^score below, at three digits, is as written
        text =
          "×0: the future scores become 0, not −∞, and e^{0} = 1, so every later position gets the same share. " +
          `In ${where}, ${visible} ${score}, and e^{${score}} = ${num(Math.exp(top))}; each of its ` +
          `${plural(later, "later position")} adds e^{0} = 1 to the row's sum Σ = ${num(total)} and gets 1/Σ = ` +
          `${num(each)}, ${formatPercent(share * 100)} together. Larger visible scores shrink that share, never ` +
          `to 0: were they 0 as well, the later positions would get ${later}/${n} = ` +
          `${formatPercent((later / n) * 100)}.`;
      }
    }
    setWithPowers(this.el.explain, text);
  }

  // ---- the zoo's panels ----------------------------------------------------------------------------------

  zooUrl() {
    return `/api/lm/mask-zoo?${new URLSearchParams({ sentence: this.state.sentence })}`;
  }

  /** The padded batch and the precision table for the current sentence (a refusal is already told above). */
  fetchZoo() {
    const panels = this.el.padMaps.closest(".mask-zoo");
    this.api.load(this.zooUrl(), {
      channel: `${NAME}-zoo`,
      show: (zoo) => {
        panels.classList.remove("is-stale");
        this.zoo = zoo;
        this.showZoo(zoo);
      },
      fail: () => panels.classList.add("is-stale"),
    });
  }

  showZoo(zoo) {
    const [own, padded] = zoo.batch;
    const p = padded.pads;
    const words = padded.tokens.slice(p + 1); // after the padding and the start token
    const half = words.length ? `its first half, ${quote(words.join(" "))}` : "the start token alone";
    const rowsInBatch = own.tokens.length + padded.tokens.length;
    const where = `layer ${zoo.layer}, head ${zoo.head}`;
    this.el.padAbout.textContent =
      `A batch of two: your sentence, and ${half}, left-padded with ${plural(p, "<pad> token")} to the same ` +
      `${own.tokens.length} positions. Two masks, both −∞: the padding mask hides the <pad> keys and the causal ` +
      `mask the future. The scores are the decoder's own (${where}).`;
    const naive = own.naive_nan_rows.length + padded.naive_nan_rows.length;
    const safe = own.safe_nan_rows.length + padded.safe_nan_rows.length;
    this.el.padCount.textContent =
      `NaN rows in the batch: ${naive} of ${rowsInBatch} with the softmax · ${safe} with the safe softmax`;
    this.el.padCount.dataset.nanRows = String(naive);

    const width = this.el.padMaps.clientWidth || 320;
    const font = getComputedStyle(this.el.padMaps).fontFamily || "sans-serif";
    const n = padded.tokens.length;
    const extra = labelRoom(padded.tokens, 12, font) + 40;
    const { cell } = fitCells(width, n, 2, { extra, maxCell: 30, minCell: 5, prefer: 26 });
    const maps = [
      ["softmax", padded.naive],
      ["safe softmax", padded.safe],
    ].map(([title, weights]) => {
      const map = new Heatmap({
        tokens: padded.tokens,
        cell,
        colour: headColour(0),
        title,
        font,
        outlineFuture: true,
        rowSums: true,
        values: true,
        className: "heatmap--mask",
        label: `The padded sequence under the padding and causal masks, ${title}: a row per query, a column per key`,
      });
      map.update(weights);
      return map.root;
    });
    this.el.padMaps.replaceChildren(...maps);
    const named = (rows, tokens) => rows.map((i) => `${i} (${tokens[i]})`);
    const grads = padded.naive_gradient_nan_rows.length + own.naive_gradient_nan_rows.length;
    this.el.padExplain.textContent =
      `A padding row sees neither a <pad> key nor a later one: all its scores are −∞, and the softmax divides 0 ` +
      `by 0. Rows ${list(named(padded.naive_nan_rows, padded.tokens))} of the padded sequence are NaN, and ` +
      `the softmax's gradient is NaN in ${plural(grads, "row")} of the batch; summed into a weight's update, ` +
      `a NaN makes that weight NaN. Your sentence's own rows: ${own.naive_nan_rows.length} NaN. The safe ` +
      "softmax (PyTorch's fix) gives a row with no key zeros instead: " +
      `${plural(safe, "NaN row")} and ${plural(padded.safe_gradient_nan_rows.length, "NaN gradient row")}.`;

    this.el.precisionAbout.textContent =
      "Code that avoids −∞ masks with a large finite number m instead, computed in each dtype (bfloat16: " +
      "float32 rounded to the nearest even at 16 bits): m as the dtype stores it; a score of 0 under two " +
      "masks added (padding and causal); a weight of a row whose " +
      `${zoo.fully_masked_keys} keys are all masked twice; and the future's weight in a row of one visible ` +
      `score 0 and one future score ${sentinelText(zoo.future_score)}, masked once.`;
    precisionTable(this.el.precision, zoo.precision);
    this.el.precisionExplain.textContent = precisionSummary(zoo.precision, zoo.future_score);
  }

  /** One line comparing the masks on this sentence, from the answers drawn. */
  showCompare() {
    const answers = this.api.cached(this.url())?.answers;
    if (!answers) {
      this.el.compare.textContent = "";
      return;
    }
    const parts = MODES.map((mode) => `${MODE_LABEL[mode]} ${pct(answers[mode].future_leak)}`);
    this.el.compare.textContent = `Future leak on this sentence: ${parts.join(" · ")}.`;
  }
}

// ---- the zoo's two panels: a padded batch, and finite mask values in low precision ----------------------

/** A number of the precision table: "-inf" and "nan" (JSON has neither) as −∞ and NaN, integers in full with
 * thin-space groups (so bfloat16's rounding of −1e9 shows), huge ones in exponent form. */
export function sentinelText(v) {
  if (v === "nan") return "NaN";
  if (v === "-inf") return "−∞";
  if (v === "inf") return "∞";
  const sign = v < 0 ? "−" : "";
  const a = Math.abs(v);
  if (a >= 1e12) {
    const [m, e] = a.toExponential(3).split("e");
    return `${sign}${m}e${Number(e)}`;
  }
  if (Number.isInteger(a)) return sign + String(a).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
  return sign + String(Number(a.toPrecision(3)));
}

const PRECISION_COLUMNS = [
  ["stored", "m as stored"],
  ["twice", "0 + m + m"],
  ["fully_masked", "fully masked row"],
  ["leak", "future weight left"],
];

/** The low-precision table: a row per dtype and mask value, every cell the server's. */
function precisionTable(table, rows) {
  const head = element("thead");
  const tr = element("tr");
  tr.append(element("th", "", "mask value m"));
  for (const [, name] of PRECISION_COLUMNS) tr.append(element("th", "", name));
  for (const th of tr.children) th.setAttribute("scope", "col");
  head.append(tr);
  const body = element("tbody");
  rows.forEach((r, k) => {
    if (k === 0 || rows[k - 1].dtype !== r.dtype) {
      // A heading row per dtype, across the table: one column fewer for a phone's width.
      const group = element("tr", "precision-table__group");
      const th = element("th", "", r.dtype);
      th.setAttribute("scope", "rowgroup");
      th.colSpan = PRECISION_COLUMNS.length + 1;
      group.append(th);
      body.append(group);
    }
    const row = element("tr");
    row.dataset.dtype = r.dtype;
    row.dataset.sentinel = r.sentinel;
    const name = element("th", "", r.sentinel);
    name.setAttribute("scope", "row");
    row.append(name);
    for (const [key] of PRECISION_COLUMNS) {
      const v = r[key];
      const cell = element("td", "", sentinelText(v));
      cell.dataset.column = key;
      cell.dataset.value = String(v);
      const broken = v === "nan" || (v === "-inf" && key !== "fully_masked") || (key === "leak" && v > 0);
      cell.classList.toggle("is-broken", broken);
      row.append(cell);
    }
    body.append(row);
  });
  table.replaceChildren(head, body);
}

/** What the table shows, in words built from its own rows. */
function precisionSummary(rows, score) {
  const where = (pred) => {
    const found = new Map();
    for (const r of rows) if (pred(r)) found.set(r.sentinel, [...(found.get(r.sentinel) ?? []), r.dtype]);
    return [...found];
  };
  const parts = [];
  for (const [m, dtypes] of where((r) => r.stored === "-inf")) {
    parts.push(`${m} is already −∞ once ${list(dtypes)} stores it`);
  }
  for (const [m, dtypes] of where((r) => r.twice === "-inf" && r.stored !== "-inf")) {
    parts.push(`${m} + ${m} overflows to −∞ in ${list(dtypes)}`);
  }
  const nan = rows.filter((r) => r.fully_masked === "nan").length;
  let text = parts.length ? `Here ${parts.join("; ")}. ` : "";
  text +=
    `A row whose every key is −∞ has no softmax: NaN, in ${nan} of the table's ${rows.length} rows; while ` +
    "the masked scores stay finite and equal, a fully masked row is merely uniform.";
  for (const [m, dtypes] of where((r) => r.leak !== "nan" && r.leak > 0)) {
    const values = [...new Set(rows.filter((r) => r.sentinel === m && r.leak > 0).map((r) => r.leak))];
    text +=
      ` ${m} is finite everywhere, but against a future score of ${sentinelText(score)} it leaves the future ` +
      `${values.map(sentinelText).join(" or ")} of its row in ${list(dtypes)}: a mask value must lie far below ` +
      "every score, not merely be large.";
  }
  return text;
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new MaskLab(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    const matrices = d.weights.flatMap((heads, l) =>
      heads.map((values, h) => ({
        name: `Layer ${l + 1}, head ${h + 1}, mask ${d.mask}`,
        rows: d.tokens,
        columns: d.tokens,
        values,
        missing: "NaN", // a row the mask left with nothing to attend to
      })),
    );
    const note =
      `Attention weights of figure ${widget.figureNumber("interview")}'s decoder trained with −∞, run with this ` +
      "mask in every layer: row = query position, column = key position; columns after the row's position are " +
      "the future.";
    return { note, mask: d.mask, future_leak: d.future_leak, sentence: d.tokens.slice(1).join(" "), matrices };
  };
  return widget;
}
