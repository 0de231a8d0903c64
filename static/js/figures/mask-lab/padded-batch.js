// The mask bug zoo's padded batch, a panel of figure 6's fold: the reader's sentence and its first half
// left-padded to the same length, under the padding and causal masks, with the softmax and the safe softmax;
// the NaN rows each leaves, and the gradient's, from GET /api/lm/mask-zoo.

import { headColour } from "../../lib/colours.js";
import { counted as plural } from "../../lib/counts.js";
import { fitCells, labelRoom } from "../../lib/heatmap.js";
import { maskHeatmap } from "./heatmaps.js";
import { list, quote } from "./numbers.js";

/** Write the zoo's padded batch into the panel's parts of `el`. */
export function showPaddedBatch(el, zoo) {
  const [own, padded] = zoo.batch;
  const p = padded.pads;
  const words = padded.tokens.slice(p + 1); // after the padding and the start token
  const half = words.length ? `its first half, ${quote(words.join(" "))}` : "the start token alone";
  const rowsInBatch = own.tokens.length + padded.tokens.length;
  const where = `layer ${zoo.layer}, head ${zoo.head}`;
  el.padAbout.textContent =
    `A batch of two: your sentence, and ${half}, left-padded with ${plural(p, "<pad> token")} to the same ` +
    `${own.tokens.length} positions. Two masks, both −∞: the padding mask hides the <pad> keys and the causal ` +
    `mask the future. The scores are the decoder's own (${where}).`;
  const naive = own.naive_nan_rows.length + padded.naive_nan_rows.length;
  const safe = own.safe_nan_rows.length + padded.safe_nan_rows.length;
  el.padCount.textContent =
    `NaN rows in the batch: ${naive} of ${rowsInBatch} with the softmax · ${safe} with the safe softmax`;
  el.padCount.dataset.nanRows = String(naive);

  const width = el.padMaps.clientWidth || 320;
  const font = getComputedStyle(el.padMaps).fontFamily || "sans-serif";
  const n = padded.tokens.length;
  const extra = labelRoom(padded.tokens, 12, font) + 40;
  const { cell } = fitCells(width, n, 2, { extra, maxCell: 30, minCell: 5, prefer: 26 });
  const maps = [
    ["softmax", padded.naive],
    ["safe softmax", padded.safe],
  ].map(([title, weights]) => {
    const map = maskHeatmap({
      tokens: padded.tokens,
      cell,
      colour: headColour(0),
      title,
      font,
      rowSums: true,
      label: `The padded sequence under the padding and causal masks, ${title}: a row per query, a column per key`,
    });
    map.update(weights);
    return map.root;
  });
  el.padMaps.replaceChildren(...maps);
  const named = (rows, tokens) => rows.map((i) => `${i} (${tokens[i]})`);
  const grads = padded.naive_gradient_nan_rows.length + own.naive_gradient_nan_rows.length;
  el.padExplain.textContent =
    `A padding row sees neither a <pad> key nor a later one: all its scores are −∞, and the softmax divides 0 ` +
    `by 0. Rows ${list(named(padded.naive_nan_rows, padded.tokens))} of the padded sequence are NaN, and ` +
    `the softmax's gradient is NaN in ${plural(grads, "row")} of the batch; summed into a weight's update, ` +
    `a NaN makes that weight NaN. Your sentence's own rows: ${own.naive_nan_rows.length} NaN. The safe ` +
    "softmax (PyTorch's fix) gives a row with no key zeros instead: " +
    `${plural(safe, "NaN row")} and ${plural(padded.safe_gradient_nan_rows.length, "NaN gradient row")}.`;
}
