// How figure 7 names, colours and writes things: the three models (by the mask each was trained with), shares
// and counts, and a small helper for the HTML it builds.

import { headColour } from "../../lib/colours.js";

export const ORDER = ["neg_inf", "zero", "none"]; // the honest model first
export const SHORT = { neg_inf: "−∞", zero: "×0", none: "no mask" };
const COLOUR_INDEX = { neg_inf: 0, zero: 1, none: 2 }; // Okabe–Ito blue, orange, bluish green

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
