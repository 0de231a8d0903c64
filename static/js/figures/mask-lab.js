// Figure 5, the mask lab: decoder self-attention of the reader's sentence under no mask, −∞ and ×0, a heatmap
// per head with the future outlined, the Future leak meter with its per-row break-down, and why e^0 = 1 leaks.
//
// Data flows one way: state (from the URL) -> one fetch of /api/attention -> draw. A change of mask keeps the
// heatmaps and only rewrites each cell's fill-opacity, so CSS animates the change; the maths is the server's.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { JsonFetcher } from "../lib/fetcher.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { watchSentence } from "../lib/sentence-box.js";
import { format, parse, readState, writeState } from "../lib/url-state.js";

const NAME = "mask-lab";
const MODES = ["none", "neg_inf", "zero"];
const MODE_LABEL = { none: "no mask", neg_inf: "−∞", zero: "×0" };
const DEBOUNCE_MS = 250;

/** A percentage as the page writes it: exact 0 stays "0%", anything above it never rounds down to 0. */
export function formatPercent(p) {
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  if (p < 9.95) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** The meter's aria-valuenow: exactly "0" for no leak, else four significant digits (never rounded to 0). */
export const meterValue = (p) => (p === 0 ? "0" : String(Number(p.toPrecision(4))));

/** For each query row i: the mean over heads of the weight on keys j > i. `weights` is [head][i][j]. */
export function rowFutureShares(weights) {
  const h = weights.length;
  const n = weights[0]?.length ?? 0;
  const shares = new Array(n).fill(0);
  for (const rows of weights) {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = i + 1; j < n; j++) s += rows[i][j];
      shares[i] += s / h;
    }
  }
  return shares;
}

/** The average future share of uniform attention over n tokens: (1/n) Σ_i (n−1−i)/n = (n−1)/(2n). */
export const uniformLeak = (n) => (n - 1) / (2 * n);

const quote = (t) => `“${t}”`;

/** Set `el`'s text, writing each "e^{x}" as e with a superscript x (built as nodes, never parsed as HTML). */
function setWithPowers(el, text) {
  const parts = text.split(/e\^\{([^}]*)\}/);
  el.replaceChildren();
  parts.forEach((part, idx) => {
    if (idx % 2 === 0) el.append(part);
    else {
      const sup = document.createElement("sup");
      sup.textContent = part;
      el.append("e", sup);
    }
  });
}

export class MaskLab {
  constructor(figure, pageData, fetcher = new JsonFetcher()) {
    this.figure = figure;
    this.fetcher = fetcher;
    this.validHeads = pageData.validHeads ?? [1, 2, 3, 4, 6, 8, 12, 24];
    this.maxChars = pageData.maxChars ?? 500;
    this.schema = {
      sentence: {
        param: "mask_sentence",
        fallback: pageData.defaultSentence ?? "the river bank was steep",
        parse: parse.text(this.maxChars),
      },
      mask: { param: "mask", fallback: "none", parse: (t) => (MODES.includes(t) ? t : undefined) },
      heads: { param: "mask_heads", fallback: 3, parse: parse.oneOf(this.validHeads) },
      trained: { param: "mask_trained", fallback: true, parse: parse.boolean, format: format.boolean },
    };
    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      sentence: part("sentence"),
      modes: [...figure.querySelectorAll('[data-part="mode"]')],
      heads: part("heads"),
      trained: part("trained"),
      drawing: part("drawing"),
      meter: part("meter"),
      meterFill: part("meter-fill"),
      meterYardstick: part("meter-yardstick"),
      meterValue: part("meter-value"),
      yardstick: part("yardstick"),
      rows: part("rows"),
      table: part("table"),
      explain: part("explain"),
      compare: part("compare"),
    };
    this.errors = new ErrorBox(part("error"));
    this.state = readState(this.schema);
    this.data = null;
    this.maps = []; // one Heatmap per head, kept while the tokens and head count stay the same
    this.shape = ""; // the tokens and head count the heatmaps were built for
    this.rowItems = [];
    this.width = 0;
  }

  start() {
    const { sentence, modes, heads, trained } = this.el;
    sentence.value = this.state.sentence;
    heads.value = String(this.state.heads);
    trained.checked = this.state.trained;
    this.showControls();

    watchSentence(sentence, (text) => this.onSentence(text), DEBOUNCE_MS);
    for (const radio of modes) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ mask: radio.value });
      });
    }
    heads.addEventListener("change", () => this.update({ heads: Number(heads.value) }));
    trained.addEventListener("change", () => this.update({ trained: trained.checked }));

    this.width = this.el.drawing.clientWidth;
    new ResizeObserver(() => {
      const width = this.el.drawing.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => this.data && this.draw(this.data, true));
    }).observe(this.el.drawing);
    onSchemeChange(() => this.data && this.draw(this.data, true));
    this.load();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    this.state = { ...this.state, ...patch };
    writeState(this.schema, this.state);
    this.showControls();
    this.load();
  }

  /** The Sentence box's text, once the reader pauses or presses Enter (lib/sentence-box.js). */
  onSentence(text) {
    if (!text) {
      this.errors.show("Type a sentence: at least one word.");
      this.el.drawing.classList.add("is-stale");
      return;
    }
    if (text === this.state.sentence && this.data) {
      this.errors.clear();
      this.el.drawing.classList.remove("is-stale");
    }
    this.update({ sentence: text });
  }

  /** Radios, the explanation table's highlighted column: cheap, done on every change. */
  showControls() {
    for (const radio of this.el.modes) radio.checked = radio.value === this.state.mask;
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

  load() {
    this.fetcher.load(this.url(), {
      channel: NAME,
      current: () => this.url(),
      busy: (busy) => this.setBusy(busy),
      show: (data) => this.show(data),
      fail: (message) => {
        this.errors.show(message);
        this.el.drawing.classList.add("is-stale");
      },
    });
  }

  setBusy(busy) {
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  show(data) {
    this.errors.clear();
    this.el.drawing.classList.remove("is-stale");
    this.data = data;
    this.draw(data, false);
    // The other two masks of this view, so a switch animates at once instead of waiting on the network.
    for (const mode of MODES) {
      if (mode !== this.state.mask) this.fetcher.get(this.url(mode)).then(() => this.showCompare(), () => {});
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
    const width = this.width || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    const extra = labelRoom(tokens, 12, font) + 40; // row labels and the row-sum column
    const { cell } = fitCells(width, n, h, { extra, maxCell: 44, minCell: 5 });
    const grid = document.createElement("div");
    grid.className = "heatmaps";
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
    const legend = document.createElement("p");
    legend.className = "heatmap-axes";
    legend.textContent =
      "Rows: the word asking (query). Columns: the word looked at (key). Each row sums to 1. " +
      "Dashed outline: the future, every key after its query.";
    this.el.drawing.replaceChildren(legend, grid);

    // The per-row list: one item per query word, rebuilt with the heatmaps.
    this.el.rows.replaceChildren();
    this.rowItems = tokens.map((token, i) => {
      const li = document.createElement("li");
      li.className = "row-leak__item";
      const word = document.createElement("span");
      word.className = "row-leak__word";
      word.textContent = token;
      const bar = document.createElement("span");
      bar.className = "row-leak__bar";
      bar.setAttribute("aria-hidden", "true");
      const fill = document.createElement("span");
      fill.className = "row-leak__fill";
      const mark = document.createElement("span");
      mark.className = "row-leak__uniform";
      mark.style.setProperty("--share", String((n - 1 - i) / n));
      bar.append(fill, mark);
      const value = document.createElement("span");
      value.className = "row-leak__value";
      li.append(word, bar, value);
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

    const shares = rowFutureShares(data.weights);
    shares.forEach((share, i) => {
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
    const { tokens, weights, mask, trained } = data;
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
      weights.forEach((rows, k) => {
        for (let i = 0; i < n - 1; i++) {
          const share = rows[i].slice(i + 1).reduce((a, b) => a + b, 0);
          if (share > best.share) best = { k, i, share };
        }
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
      const answer = this.fetcher.cached(this.url(mode));
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
    const matrices = d.weights.map((w, k) => ({
      name: `Head ${k + 1}, mask ${d.mask}`,
      rows: d.tokens,
      columns: d.tokens,
      values: w,
    }));
    const note = "Attention weights: row = query word, column = key word; columns after the row's word are the future.";
    return { note, mask: d.mask, future_leak: d.future_leak, sentence: d.tokens.join(" "), matrices };
  };
  return widget;
}
