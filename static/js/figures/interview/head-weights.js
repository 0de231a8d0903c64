// One head of figure 7's diagnosis drawn: its weights with the page's heatmap (past 128 positions, the mean of
// each block of positions, and a note that says so) and, when the upload named its tokens and they fit, arcs.

import { arcsFit, drawArcs } from "../../lib/arcs.js";
import { headColour } from "../../lib/colours.js";
import { element } from "../../lib/dom.js";
import { Heatmap } from "../../lib/heatmap.js";
import { grouped } from "./names.js";
import { VERDICT_COLOUR, headName, num, signatureText } from "./signatures.js";

const MOST_CELLS = 128; // past this many positions a heatmap shows blocks of positions, averaged

/** `rows` (n × n, NaN allowed) averaged over blocks of `size` positions, a NaN counted as 0. */
export function blocks(rows, size) {
  const n = rows.length;
  const m = Math.ceil(n / size);
  const out = Array.from({ length: m }, () => new Float64Array(m));
  for (let bi = 0; bi < m; bi++) {
    for (let bj = 0; bj < m; bj++) {
      let sum = 0;
      let count = 0;
      for (let i = bi * size; i < Math.min(n, (bi + 1) * size); i++) {
        for (let j = bj * size; j < Math.min(n, (bj + 1) * size); j++) {
          const w = rows[i][j];
          if (!Number.isNaN(w)) sum += w;
          count += 1;
        }
      }
      out[bi][bj] = sum / count;
    }
  }
  return out;
}

/** Head (`layer`, `head`)'s weights `rows` (n × n), with its `figures` (verdict, signature), into `part`:
 * `tokens` label them when given, `boxWidth` is the room there is. */
export function drawHeadWeights(part, rows, { figures, layer, head, tokens, boxWidth, font }) {
  const n = rows.length;
  const size = Math.ceil(n / MOST_CELLS);
  const drawn = size > 1 ? blocks(rows, size) : rows; // a NaN cell is drawn grey, "NaN" (lib/heatmap.js)
  const m = drawn.length;
  const labels =
    size > 1
      ? Array.from({ length: m }, (_, b) => `${b * size + 1}–${Math.min(n, (b + 1) * size)}`)
      : (tokens ?? Array.from({ length: n }, (_, i) => String(i + 1)));
  const width = Math.max(240, boxWidth - 4);
  const cell = Math.max(2, Math.min(28, Math.floor((width - 90) / m)));
  const colour = headColour(VERDICT_COLOUR[figures.verdict] ?? 0);
  // A long sequence spreads each row thin (a uniform row of 512 is 0.002 a key): shade by √(w / largest),
  // so the structure shows however many positions share the weight; an exact 0 stays empty.
  const known = (w) => (w === null || Number.isNaN(w) ? 0 : w); // a NaN (null in JSON) weighs nothing
  const top = Math.max(...drawn.map((r) => Math.max(...Array.from(r, known))));
  const strength = (w) => (w <= 0 || top <= 0 ? 0 : Math.min(1, 0.05 + 0.95 * Math.sqrt(w / top)));
  const map = new Heatmap({
    tokens: labels,
    cell,
    colour,
    strength,
    font,
    outlineFuture: true,
    className: "upload-head__map",
    label: `${headName(layer, head)}: ${figures.verdict}, ${signatureText(figures.signature)}`,
  });
  map.update(drawn);
  const wrap = element("div", "upload-head__drawing");
  wrap.appendChild(map.root);
  part.appendChild(wrap);
  const shading = `Shade: the square root of the weight over the largest drawn (${num(top)}), so faint rows show.`;
  const pooled =
    size > 1
      ? `${grouped(n)} positions are too many to draw one by one: each cell is the mean weight of a block of ` +
        `${size} × ${size} positions, so blocks on the diagonal mix past and future. `
      : "";
  part.appendChild(element("p", "panel-foot upload-head__foot", `${pooled}${shading}`));
  if (tokens && arcsFit(n, width)) {
    const clean = rows.map((r) => Array.from(r, known));
    const arcs = drawArcs({
      tokens,
      weights: [clean],
      width,
      font,
      label: `${headName(layer, head)} as arcs from each word to the words it reads`,
      headIds: [VERDICT_COLOUR[figures.verdict] ?? 0],
    });
    const box = element("div", "upload-head__arcs");
    box.appendChild(arcs.root);
    part.appendChild(box);
  }
}
