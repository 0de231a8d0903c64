// How figure 7 names, colours and writes things: the models (by the mask each was trained with), shares,
// counts and lists.

import { headColour } from "../../lib/colours.js";

// The models' order and names come from the server, in the page data's `lmModels` ([{ mask, name }]: the
// honest model first, then the leaks from the quietest to the loudest, app/models/tiny_lm.py MODEL_ORDER; each
// named by app/routes/pages.py model_name), taken once at start. next_word is the off-by-one triu(ones, 2).
const NAMES = new Map();

/** Take the models' order and names from the page data's `lmModels`. */
export function useModelNames(lmModels = []) {
  NAMES.clear();
  for (const { mask, name } of lmModels) NAMES.set(mask, name);
}

/** The masks of the models figure 7 compares, in the order it compares them. */
export const modelOrder = () => [...NAMES.keys()];

/** The name of the model trained with `mask` (−∞, off-by-one, …); the mask itself for a model not listed. */
export const modelName = (mask) => NAMES.get(mask) ?? mask;
// Okabe–Ito blue, orange, reddish purple (further from orange than vermillion), bluish green.
const COLOUR_INDEX = { neg_inf: 0, zero: 1, next_word: 4, none: 2 };

/** The colour of the model trained with `mask`. */
export const modelColour = (mask) => headColour(COLOUR_INDEX[mask] ?? 0);

/** A count with thousands separators: 2,048. */
export const grouped = (x) => x.toLocaleString("en-US");

/** A share as a percentage: one decimal below 10% ("<0.1%" for a sliver), whole numbers above. */
export function pct(x) {
  const p = x * 100;
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  return p < 9.95 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** A count in words up to ten ("three"), in figures past it. */
export const countWord = (n) => COUNT_WORDS[n] ?? String(n);

/** Items as prose: "a", "a and b", "a, b and c". */
export function listed(items) {
  if (items.length < 2) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
