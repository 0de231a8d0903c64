// Figure 5, the mask lab: decoder self-attention of the reader's sentence under no mask, −∞ and ×0, a heatmap
// per head with the future outlined, the Future leak meter with its per-row break-down, and why e^0 = 1 leaks.
//
// Data flows one way: state (from the URL) -> one fetch of /api/attention -> draw. A change of mask keeps the
// heatmaps and only rewrites each cell's fill-opacity, so CSS animates the change. The maths is the server's:
// the leak, each row's share of weight on later words, and each head's.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { element } from "../lib/dom.js";
import { headMatrices } from "../lib/figure-tools.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { format, parse } from "../lib/url-state.js";
import { Widget } from "../lib/widget.js";
import { WidthWatch } from "../lib/width-watch.js";

const NAME = "mask-lab";
const MODES = ["none", "neg_inf", "zero"];
const MODE_LABEL = { none: "no mask", neg_inf: "−∞", zero: "×0" };
// The figure's elements marked data-part (the Mask radios, several, are found apart).
const PARTS = [
  ..."sentence heads readout trained drawing meter meter-fill meter-yardstick meter-value".split(" "),
  ..."yardstick rows table explain compare".split(" "),
];

/** A percentage as the page writes it: exact 0 stays "0%", anything above it never rounds down to 0. */
export function formatPercent(p) {
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  if (p < 9.95) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** The meter's aria-valuenow: exactly "0" for no leak, else four significant digits (never rounded to 0). */
export const meterValue = (p) => (p === 0 ? "0" : String(Number(p.toPrecision(4))));

/** The average future share of uniform attention over n tokens: (1/n) Σ_i (n−1−i)/n = (n−1)/(2n). */
export const uniformLeak = (n) => (n - 1) / (2 * n);

const quote = (t) => `“${t}”`;

/** Set `el`'s text, writing each "e^{x}" as e with a superscript x (built as nodes, never parsed as HTML). */
function setWithPowers(el, text) {
  const parts = text.split(/e\^\{([^}]*)\}/);
  el.replaceChildren();
  parts.forEach((part, idx) => {
    if (idx % 2 === 0) el.append(part);
    else el.append("e", element("sup", "", part));
  });
}

export class MaskLab extends Widget {
  constructor(figure, pageData) {
    const validHeads = pageData.validHeads ?? [1, 2, 3, 4, 6, 8, 12, 24];
    const maxChars = pageData.maxChars ?? 500;
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: { param: "mask_sentence", fallback: pageData.defaultSentence, parse: parse.text(maxChars) },
        mask: { param: "mask", fallback: "none", parse: parse.choice(MODES) },
        heads: { param: "mask_heads", fallback: 3, parse: parse.oneOf(validHeads) },
        trained: { param: "mask_trained", fallback: true, parse: parse.boolean, format: format.boolean },
      },
      parts: PARTS,
      staleOn: "drawing",
    });
    this.validHeads = validHeads;
    this.dModel = pageData.capacity?.d_model ?? 24; // figure 1's layer, for the Heads readout
    this.modes = [...figure.querySelectorAll('[data-part="mode"]')];
    this.maps = []; // one Heatmap per head, kept while the tokens and head count stay the same
    this.shape = ""; // the tokens and head count the heatmaps were built for
    this.rowItems = [];
    this.width = null; // the drawing's width, watched from start()
  }

  start() {
    const { sentence, heads, trained } = this.el;
    trained.checked = this.state.trained;
    this.showControls();

    this.watchSentence(sentence, (text) => this.update({ sentence: text }));
    for (const radio of this.modes) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ mask: radio.value });
      });
    }
    heads.addEventListener("input", () => this.update({ heads: this.validHeads[Number(heads.value)] }));
    trained.addEventListener("change", () => this.update({ trained: trained.checked }));

    this.width = new WidthWatch(this.el.drawing, () => this.data && this.draw(this.data, true));
    onSchemeChange(() => this.data && this.draw(this.data, true));
    this.fetch();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    this.setState(patch);
    this.showControls();
    this.fetch();
  }

  /** Radios, the Heads slider and its readout, the explanation table's highlighted column: cheap, done on every
   * change. */
  showControls() {
    const h = this.state.heads;
    const heads = `${h} ${h === 1 ? "head" : "heads"}`;
    this.el.heads.value = String(this.validHeads.indexOf(h));
    this.el.heads.setAttribute("aria-valuetext", heads);
    this.el.readout.textContent = `${heads} × ${this.dModel / h} wide`;
    for (const radio of this.modes) radio.checked = radio.value === this.state.mask;
    for (const cell of this.el.table.querySelectorAll("[data-mode]")) {
      cell.classList.toggle("is-current", cell.dataset.mode === this.state.mask);
    }
  }

  url(mask = this.state.mask) {
    const { sentence, heads, trained } = this.state;
    const params = new URLSearchParams({ sentence, heads: String(heads), mask, trained: String(trained) });
    return `/api/attention?${params}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask for the answer to the current state (at once when it was seen before) and draw it. */
  fetch() {
    this.load(this.url(), (data) => this.show(data));
  }

  show(data) {
    this.draw(data, false);
    // The other two masks of this view, so a switch animates at once instead of waiting on the network.
    for (const mode of MODES) {
      if (mode !== this.state.mask) this.api.get(this.url(mode)).then(() => this.showCompare(), () => {});
    }
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Build the heatmaps when the shape changed (or `rebuild`), then write this answer's numbers into them. */
  draw(data, rebuild) {
    const shape = `${data.heads}|${data.tokens.join(" ")}`;
    if (rebuild || shape !== this.shape) this.build(data);
    this.shape = shape;
    data.weights.forEach((w, k) => this.maps[k].update(w));
    this.el.drawing.dataset.mask = data.mask;
    this.showMeter(data);
    this.showExplanation(data);
    this.showCompare();
  }

  build(data) {
    const { tokens, weights } = data;
    const n = tokens.length;
    const h = weights.length;
    const width = this.width?.px || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    const extra = labelRoom(tokens, 12, font) + 40; // row labels and the row-sum column
    // As many heatmaps a line as keep their cells big enough to write each weight in (26 px): on a phone, one
    // heatmap across the full width rather than two at half of it.
    const { cell } = fitCells(width, n, h, { extra, maxCell: 44, minCell: 5, prefer: 26 });
    const grid = element("div", "heatmaps");
    this.maps = weights.map(
      (_, k) =>
        new Heatmap({
          tokens,
          cell,
          colour: headColour(k),
          title: `Head ${k + 1}`,
          font,
          outlineFuture: true,
          rowSums: true,
          values: true,
          className: "heatmap--mask",
          label: `Head ${k + 1}: a row per query word, a column per key word`,
        }),
    );
    for (const [k, map] of this.maps.entries()) {
      map.root.dataset.head = String(k);
      grid.appendChild(map.root);
    }
    const legend = element(
      "p",
      "heatmap-axes",
      "Rows: the word asking (query). Columns: the word looked at (key). Each row sums to 1. " +
        "Dashed outline: the future, every key after its query.",
    );
    this.el.drawing.replaceChildren(legend, grid);

    // The per-row list: one item per query word, rebuilt with the heatmaps. The thin mark on each bar is the
    // share uniform attention would give word i of n: (n−1−i)/n.
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
    const percent = data.future_leak * 100;
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
    const uniform = uniformLeak(n);
    this.el.meterYardstick.style.setProperty("--share", String(uniform));
    this.el.yardstick.textContent =
      `Yardstick: if every word spread its attention evenly over all n = ${n} words, the average share on ` +
      `later words would be (n−1)/(2n) = ${n - 1}/${2 * n} = ${formatPercent(uniform * 100)}: the thin mark ` +
      "on the meter.";

    data.row_future_shares.forEach((share, i) => {
      const item = this.rowItems[i];
      if (!item) return;
      item.fill.style.setProperty("--share", String(share));
      item.value.textContent = formatPercent(share * 100);
      item.li.dataset.share = String(share);
      item.li.setAttribute(
        "aria-label",
        `${item.token}: ${formatPercent(share * 100)} on later words` +
          (i === n - 1 ? " (the last word has no later words)" : ""),
      );
    });
  }

  /** The live explanation: a concrete row of the current answer, in words. */
  showExplanation(data) {
    const { tokens, weights, future_shares: shares, mask, trained } = data;
    const n = tokens.length;
    let text;
    if (n === 1) {
      text = "A single word has no future to look at: every mask gives the same 1. Add a few words.";
    } else if (mask === "neg_inf") {
      text =
        "−∞: each future score becomes −∞ before the softmax, and e^{−∞} = 0, so every cell above the diagonal " +
        "is exactly 0 and each row shares its 1 among the words so far. Nothing leaks.";
    } else {
      // The row (and head) that puts the most weight on later words.
      let best = { k: 0, i: 0, share: -1 };
      shares.forEach((rows, k) => {
        for (let i = 0; i < n - 1; i++) if (rows[i] > best.share) best = { k, i, share: rows[i] };
      });
      const { k, i, share } = best;
      const later = n - 1 - i;
      const where = `the row of ${quote(tokens[i])} in head ${k + 1}`;
      if (mask === "none") {
        text =
          `No mask: every word may look at every other word, later ones included. In ${where}, ` +
          `${formatPercent(share * 100)} of the weight sits on later words: a model trained like this ` +
          "can read the very word it is asked to predict.";
      } else {
        const w = weights[k][i][i + 1];
        const each = w < 0.0001 ? w.toExponential(1) : w.toPrecision(2);
        text =
          "×0: the future scores are set to 0, not removed. The softmax turns a 0 into e^{0} = 1, so every " +
          `later word still gets a share, and the same share: in ${where}, each of the ${later} later ` +
          `word${later === 1 ? "" : "s"} gets ${each}. Only e^{−∞} = 0 removes them.` +
          (trained
            ? " These trained heads give the words they want large scores, so the 1s look small beside them;" +
              " switch Trained off (scores near 0) and ×0 leaks about as much as no mask at all."
            : " These untrained scores are all near 0, so a future word gets about as much as a past one" +
              " and the leak sits near the yardstick.");
      }
    }
    setWithPowers(this.el.explain, text);
  }

  /** One line comparing the three masks on this sentence, once all three answers are here. */
  showCompare() {
    const parts = [];
    for (const mode of MODES) {
      const answer = this.api.cached(this.url(mode));
      if (!answer) {
        this.el.compare.textContent = "";
        return;
      }
      parts.push(`${MODE_LABEL[mode]} ${formatPercent(answer.future_leak * 100)}`);
    }
    this.el.compare.textContent = `Future leak on this sentence: ${parts.join(" · ")}.`;
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new MaskLab(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    const matrices = headMatrices(d.weights, d.tokens, (k) => `Head ${k + 1}, mask ${d.mask}`);
    const note = "Attention weights: row = query word, column = key word; columns after the row's word are the future.";
    return { note, mask: d.mask, future_leak: d.future_leak, sentence: d.tokens.join(" "), matrices };
  };
  return widget;
}
