// Figure 6, the mask lab: a real decoder's self-attention over the reader's sentence under no mask, −∞ and ×0.
// The decoder is figure 7's language model trained with −∞; the chosen mask replaces its own in every layer.
// A heatmap per layer and head with the future outlined, the Future leak meter with its per-row break-down,
// and why e^0 = 1 leaks, told with this decoder's own scores.
//
// Data flows one way: state (from the URL) -> one fetch of /api/lm/attention -> draw. A change of mask keeps
// the heatmaps and only rewrites each cell's fill-opacity, so CSS animates the change. The maths is the
// server's: the weights, the scores the mask acts on, the leak, each row's share of weight on later positions.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { element } from "../lib/dom.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { parse } from "../lib/url-state.js";
import { Widget } from "../lib/widget.js";
import { WidthWatch } from "../lib/width-watch.js";

const NAME = "mask-lab";
const MODEL = "neg_inf"; // the decoder: figure 7's model trained with −∞
const MODES = ["none", "neg_inf", "zero"];
const MODE_LABEL = { none: "no mask", neg_inf: "−∞", zero: "×0" };
const START = "<s>"; // the start token the decoder reads before the first word
// The figure's elements marked data-part (the Mask radios, several, are found apart).
const PARTS = [
  ..."sentence drawing meter meter-fill meter-yardstick meter-value".split(" "),
  ..."yardstick rows rows-foot table explain compare".split(" "),
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

/** A number to `digits` significant digits (three by default), never written as 0 when it is not. */
const num = (x, digits = 3) =>
  x !== 0 && Math.abs(x) < 0.001 ? x.toExponential(digits - 1) : String(Number(x.toPrecision(digits)));
const quote = (t) => `“${t}”`;
const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
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
        const rank = [i >= 1 && i < n - 1 ? 1 : 0, share];
        if (!best || rank[0] > best.rank[0] || (rank[0] === best.rank[0] && share > best.share)) {
          best = { l, h, i, share, rank };
        }
      }),
    ),
  );
  return best;
}

export class MaskLab extends Widget {
  constructor(figure, pageData) {
    const decoder = pageData.maskLab ?? {};
    const maxChars = pageData.lmMaxChars ?? 200;
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: {
          param: "mask_sentence",
          fallback: decoder.defaultSentence ?? "the old fox chased the goose",
          parse: parse.text(maxChars),
        },
        mask: { param: "mask", fallback: "none", parse: parse.choice(MODES) },
      },
      parts: PARTS,
      staleOn: "drawing",
    });
    this.maxChars = maxChars;
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
    onSchemeChange(() => this.data && this.draw(this.data, true));
    this.fetch();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    this.setState(patch);
    this.showControls();
    this.fetch();
  }

  /** The radios and the explanation table's highlighted column: cheap, done on every change. */
  showControls() {
    for (const radio of this.modes) radio.checked = radio.value === this.state.mask;
    for (const cell of this.el.table.querySelectorAll("[data-mode]")) {
      cell.classList.toggle("is-current", cell.dataset.mode === this.state.mask);
    }
  }

  url(mask = this.state.mask) {
    const params = new URLSearchParams({ model: MODEL, mask, sentence: this.state.sentence });
    return `/api/lm/attention?${params}`;
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

  /** Build the heatmaps when the tokens changed (or `rebuild`), then write this answer's numbers into them. */
  draw(data, rebuild) {
    const shape = `${data.weights.length}|${data.weights[0].length}|${data.tokens.join(" ")}`;
    if (rebuild || shape !== this.shape) this.build(data);
    this.shape = shape;
    let k = 0;
    for (const heads of data.weights) for (const w of heads) this.maps[k++].update(w);
    this.el.drawing.dataset.mask = data.mask;
    this.showMeter(data);
    this.showExplanation(data);
    this.showCompare();
  }

  build(data) {
    const { tokens, weights } = data;
    const n = tokens.length;
    const heads = weights[0].length;
    const width = this.width?.px || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    const extra = labelRoom(tokens, 12, font) + 40; // row labels and the row-sum column
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
          rowSums: true,
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
    const start = tokens[0] === START ? ` ${START} is the start token the decoder reads before your first word.` : "";
    const legend = element(
      "p",
      "heatmap-axes",
      "Rows: the position asking (query). Columns: the position looked at (key). Each row sums to 1. " +
        `Dashed outline: the future, every key after its query.${start}`,
    );
    this.el.drawing.replaceChildren(legend, grid);
    const maps = weights.length * heads;
    this.el.rowsFoot.textContent =
      `Mean over the ${plural(weights.length, "layer")} × ${plural(heads, "head")} (${maps} maps). The thin ` +
      "mark on each bar is the share uniform attention would give: position i of n would put (n−1−i)/n on " +
      "later positions.";

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
    const words = data.tokens[0] === START ? ` (the start token and your ${plural(n - 1, "word")})` : "";
    this.el.yardstick.textContent =
      `Yardstick: if every position spread its attention evenly over all n = ${n} positions${words}, the ` +
      `average share on later ones would be (n−1)/(2n) = ${n - 1}/${2 * n} = ${formatPercent(uniform * 100)}: ` +
      "the thin mark on the meter.";

    data.row_future_shares.forEach((share, i) => {
      const item = this.rowItems[i];
      if (!item) return;
      item.fill.style.setProperty("--share", String(share));
      item.value.textContent = formatPercent(share * 100);
      item.li.dataset.share = String(share);
      item.li.setAttribute(
        "aria-label",
        `${item.token}: ${formatPercent(share * 100)} on later positions` +
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
    if (mask === "neg_inf") {
      const most = Math.max(...shares.flat(2));
      const cells = most === 0 ? `exactly 0 in all ${maps} maps` : `at most ${num(most)}`;
      text =
        "−∞: each future score becomes −∞ before the softmax, and e^{−∞} = 0, so every cell above the " +
        `diagonal is ${cells}, and each row shares its 1 among the positions so far. This is the mask the ` +
        "decoder was trained with, and the one it writes with.";
    } else {
      const { l, h, i, share } = leakiestRow(shares, n);
      const later = n - 1 - i;
      const where = `the row of ${quote(tokens[i])} in ${mapName(l, h)}`;
      if (mask === "none") {
        text =
          "No mask: every position may look at the ones after it. This decoder was trained with −∞, so the " +
          `scores it gives later words never counted in training; unmasked, they still take ` +
          `${formatPercent(share * 100)} of ${where}, and each position's guess at the next word can now ` +
          "read that very word.";
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
          "×0: the future scores are set to 0, not removed. The softmax turns a 0 into e^{0} = 1, so every " +
          `later position still gets a share, and the same share. In ${where}, ${visible} ${score}, and ` +
          `e^{${score}} = ${num(Math.exp(top))}; each of its ${plural(later, "later position")} adds e^{0} = ` +
          `1 to the row's sum Σ = ${num(total)} and gets 1/Σ = ${num(each)}, ${formatPercent(share * 100)} ` +
          "together. The larger a decoder's scores for what it may see, the smaller that share, but never 0: " +
          `were those scores 0 as well, the later positions would get ${later}/${n} = ` +
          `${formatPercent((later / n) * 100)}. Only e^{−∞} = 0 removes them.`;
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
    const matrices = d.weights.flatMap((heads, l) =>
      heads.map((values, h) => ({
        name: `Layer ${l + 1}, head ${h + 1}, mask ${d.mask}`,
        rows: d.tokens,
        columns: d.tokens,
        values,
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
