// Figure 1's arc view (lib/arcs.js): the words in a row, each head's arcs above (looking back) and below
// (looking ahead). Used while the sentence is short enough and the screen wide enough for arcs to stay apart.

import { drawArcs } from "../../lib/arcs.js";
import { plural, tokenLabel } from "./words.js";

/**
 * Draw the answer `data` as arcs into `container`, `width` px wide in the font family `font`; `bindToken(el,
 * i)` makes word i's group focusable. Returns the arcs (for emphasiseArcs) and the weight below which arcs
 * were left out.
 */
export function drawArcsView(container, data, { width, font, bindToken }) {
  const { tokens, known, weights } = data;
  const drawing = drawArcs({
    tokens,
    weights,
    width,
    font,
    label: `${plural(tokens.length, "word")}, ${plural(weights.length, "head")}. Focus a word to see only its arcs.`,
    tokenInfo: (i) => ({
      className: known[i] ? "token" : "token token--unknown",
      attrs: { "data-known": String(known[i]), "aria-label": tokenLabel(data, i) },
      title: known[i] ? null : "not in the lexicon",
    }),
  });
  drawing.tokens.forEach((g, i) => bindToken(g, i));
  container.appendChild(drawing.root);
  return { arcs: drawing.arcs, threshold: drawing.threshold };
}
