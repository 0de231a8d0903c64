// Figure 10, order: self-attention without positions cannot tell word order apart. A sentence and a shuffle of
// it go through figure 1's trained layer; the server undoes the shuffle and reports how far the two attention
// patterns are apart (0, up to rounding, without positions; far apart with them).
//
// Shuffle draws a new order; Restore order puts the words back as written (the identity, so every panel is the
// same), from where Shuffle starts again.
//
// Data flows one way: state (from the URL) -> one fetch of /api/order -> draw. The maths is the server's.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { headMatrices } from "../lib/figure-numbers.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { format, parse } from "../lib/url-state.js";
import { Widget } from "../lib/widget.js";

/** "2,0,1" -> [2, 0, 1]; anything that is not a list of small integers -> undefined. */
const parsePermutation = (text) => (/^\d{1,3}(,\d{1,3})*$/.test(text) ? text.split(",").map(Number) : undefined);

/** A random order of 0..n-1 that differs from `avoid` (when n > 1 allows it). */
export function shuffle(n, avoid = [], random = Math.random) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [p[i], p[j]] = [p[j], p[i]];
    }
    if (n < 2 || p.join() !== avoid.join()) return p;
  }
  return Array.from({ length: n }, (_, i) => n - 1 - i);
}

/** Whether `p` leaves every word where it was. */
export const isIdentity = (p) => p.every((original, k) => original === k);

/** The difference as the page writes it: "0.0" when it is rounding (below the tolerance), else 3 decimals. */
export const formatDifference = (d, tolerance) => (d <= tolerance ? "0.0" : d.toFixed(3));

export class Order extends Widget {
  constructor(figure, pageData) {
    const maxChars = pageData.maxChars ?? 500;
    super(figure, pageData, {
      name: "order",
      schema: {
        sentence: { param: "order_sentence", fallback: "dog bites man", parse: parse.text(maxChars) },
        positional: { param: "order_positional", fallback: false, parse: parse.boolean, format: format.boolean },
        permutation: { param: "order_perm", fallback: null, parse: parsePermutation, format: (p) => p.join(",") },
      },
      parts: ["sentence", "shuffle", "restore", "positional", "difference", "verdict-text", "drawing", "rows"],
      staleOn: "drawing",
    });
  }

  start() {
    const { sentence, shuffle: button, restore, positional } = this.el;
    positional.checked = this.state.positional;
    // A new sentence starts from its reversal (the server's default), not from the old sentence's shuffle.
    this.watchSentence(sentence, (text) => {
      if (text !== this.state.sentence) this.update({ sentence: text, permutation: null });
    });
    button.addEventListener("click", () => {
      const n = this.data?.tokens.length ?? 0;
      if (n) this.update({ permutation: shuffle(n, this.data.permutation) });
    });
    restore.addEventListener("click", () => {
      const n = this.data?.tokens.length ?? 0;
      if (n && !isIdentity(this.data.permutation)) this.update({ permutation: Array.from({ length: n }, (_, i) => i) });
    });
    positional.addEventListener("change", () => this.update({ positional: positional.checked }));
    onSchemeChange(() => this.data && this.draw(this.data));
    this.update({});
  }

  update(patch) {
    this.setState(patch);
    this.load(this.url(), (data) => this.draw(data));
  }

  url() {
    const { sentence, positional, permutation } = this.state;
    const params = new URLSearchParams({ sentence, positional: String(positional) });
    if (permutation) params.set("permutation", permutation.join(","));
    return `/api/order?${params}`;
  }

  draw(data) {
    const { tokens, permuted_tokens: shuffled } = data;
    const n = tokens.length;
    const width = this.el.drawing.clientWidth || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    const { cell } = fitCells(width, n, 3, {
      extra: labelRoom(tokens, 12, font) + 8,
      maxCell: 44,
      minCell: 6,
      prefer: 24,
    });
    const colour = headColour(0);
    const panels = [
      { tokens, weights: data.mean_weights, title: "as written", label: `Attention of “${tokens.join(" ")}”` },
      {
        tokens: shuffled,
        weights: data.permuted_mean_weights,
        key: "shuffled",
        title: isIdentity(data.permutation) ? "shuffled (back as written)" : "shuffled",
        label: `Attention of the shuffled sentence “${shuffled.join(" ")}”`,
      },
      {
        tokens,
        weights: data.unpermuted_mean_weights,
        title: "shuffled, put back",
        label: "Attention of the shuffled sentence with its rows and columns put back in the written order",
      },
    ];
    const grid = document.createElement("div");
    grid.className = "heatmaps";
    for (const p of panels) {
      const map = new Heatmap({ tokens: p.tokens, cell, colour, title: p.title, font, values: true, label: p.label });
      map.update(p.weights);
      map.root.dataset.panel = p.key ?? p.title;
      grid.append(map.root);
    }
    this.el.drawing.replaceChildren(grid);

    const difference = formatDifference(data.max_difference, data.tolerance);
    this.el.difference.textContent = difference;
    this.el.difference.dataset.value = String(data.max_difference);
    this.figure.dataset.equivariant = String(data.equivariant);
    const unmoved = isIdentity(data.permutation);
    this.el.restore.setAttribute("aria-disabled", String(unmoved));
    this.el.verdictText.textContent = unmoved
      ? `: “${tokens.join(" ")}” is in its written order, so the three panels are the same. Press Shuffle.`
      : data.equivariant
        ? `: “${shuffled.join(" ")}” gets the same attention as “${tokens.join(" ")}”, just permuted.`
        : `: with positions, “${shuffled.join(" ")}” and “${tokens.join(" ")}” attend differently.`;

    const items = tokens.map((t, i) => {
      const li = document.createElement("li");
      li.className = "order-rows__item";
      li.dataset.token = t;
      li.dataset.difference = String(data.row_differences[i]);
      const name = document.createElement("b");
      name.textContent = t;
      li.append(name, ` ${formatDifference(data.row_differences[i], data.tolerance)}`);
      return li;
    });
    this.el.rows.replaceChildren(...items);
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Order(figure, pageData);
  // The numbers behind the figure, for the toolbar's JSON/CSV export and the screen-reader table.
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    const heads = (weights, rows, order) => headMatrices(weights, rows, (k) => `Head ${k + 1}, ${order}`);
    return {
      note: "Attention weights: row = query word, column = key word.",
      positional: d.positional,
      permutation: d.permutation,
      max_difference: d.max_difference,
      matrices: [
        ...heads(d.weights, d.tokens, "as written"),
        ...heads(d.permuted_weights, d.permuted_tokens, "shuffled"),
      ],
    };
  };
  widget.start();
  return widget;
}
