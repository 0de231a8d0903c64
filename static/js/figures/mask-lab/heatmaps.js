// Figure 6's drawing: a heatmap per layer and head with the future outlined (each row's sum beside it when the
// mask leaves rows that do not sum to 1), and the per-row list of the leak meter's fold, both built for one
// sentence's tokens and then only rewritten as the mask changes.

import { headColour } from "../../lib/colours.js";
import { counted as plural } from "../../lib/counts.js";
import { element } from "../../lib/dom.js";
import { fitCells, Heatmap, labelRoom } from "../../lib/heatmap.js";

const START = "<s>"; // the start token the decoder reads before the first word

/** Whether the heatmaps write each row's sum: only where the mask leaves rows that do not sum to 1 (a NaN row
 * is written NaN in its cells). */
const sumsShown = (data) => data.mask === "after_softmax";

/** A heatmap of the figure: every weight written in its cell, the future (each key after its query) outlined;
 * `options` are the Heatmap's own (tokens, cell, colour, title, font, rowSums, label). */
export const maskHeatmap = (options) =>
  new Heatmap({ ...options, outlineFuture: true, values: true, className: "heatmap--mask" });

/** What the heatmaps were built for: a new shape asks for new heatmaps. */
export const drawingShape = (data) =>
  `${data.weights.length}|${data.weights[0].length}|${sumsShown(data)}|${data.tokens.join(" ")}`;

/** Build the heatmaps (in `el.drawing`, `width` px wide) and the per-row list (`el.rows`) for the answer's
 * tokens; returns the heatmaps, a layer's heads after each other, and the list's items. */
export function buildDrawing(el, data, width) {
  const { tokens, weights } = data;
  const n = tokens.length;
  const heads = weights[0].length;
  const font = getComputedStyle(el.drawing).fontFamily || "sans-serif";
  const rowSums = sumsShown(data);
  const extra = labelRoom(tokens, 12, font) + (rowSums ? 40 : 8); // row labels and the row-sum column
  // A line per layer, its heads side by side while their cells stay big enough to write each weight in
  // (26 px); on a phone, one heatmap across the full width rather than two at half of it.
  const { cell } = fitCells(width, n, heads, { extra, maxCell: 40, minCell: 5, prefer: 26 });
  const grid = element("div", "heatmaps");
  const maps = [];
  weights.forEach((layer, l) =>
    layer.forEach((_, h) => {
      const map = maskHeatmap({
        tokens,
        cell,
        colour: headColour(h),
        title: `Layer ${l + 1}, head ${h + 1}`,
        font,
        rowSums,
        label: `Layer ${l + 1}, head ${h + 1}: a row per query position, a column per key position`,
      });
      map.root.dataset.layer = String(l);
      map.root.dataset.head = String(h);
      grid.appendChild(map.root);
      maps.push(map);
    }),
  );
  const start = tokens[0] === START ? ` ${START} is the start token.` : "";
  const legend = element("p", "heatmap-axes", `Dashed: the future, every key after its query.${start}`);
  el.drawing.replaceChildren(legend, grid);
  el.rowsFoot.textContent =
    `Mean over the ${plural(weights.length, "layer")} × ${plural(heads, "head")} (${maps.length} maps). Thin ` +
    "mark: uniform attention's share, (n−1−i)/n for position i of n.";

  // The per-row list: one item per query position, rebuilt with the heatmaps. The thin mark on each bar is
  // the share uniform attention would give position i of n: (n−1−i)/n.
  el.rows.replaceChildren();
  const rowItems = tokens.map((token, i) => {
    const bar = element("span", "row-leak__bar");
    bar.setAttribute("aria-hidden", "true");
    const fill = element("span", "row-leak__fill");
    const mark = element("span", "row-leak__uniform");
    mark.style.setProperty("--share", String((n - 1 - i) / n));
    bar.append(fill, mark);
    const value = element("span", "row-leak__value");
    const li = element("li", "row-leak__item");
    li.append(element("span", "row-leak__word", token), bar, value);
    el.rows.appendChild(li);
    return { li, fill, value, token };
  });
  return { maps, rowItems };
}
