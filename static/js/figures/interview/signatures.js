// How figure 7's diagnosis names what it draws: a head (counted from 1), each fingerprint the server finds (its
// mark on the grid, its words from the page's data), each verdict's colour, and a measured number.

let texts = {};
let marks = {};

/** What each fingerprint the server finds means, and its mark on the grid, in the legend's order: from the
 * server's one table (app/core/head_signatures.py), in the page's data. */
export function useSignatures(pageData) {
  texts = pageData.signatureTexts ?? {};
  marks = pageData.signatureMarks ?? {};
}

/** Signature `s`'s mark on the grid ("" for none). */
export const signatureMark = (s) => marks[s] ?? "";
/** Every signature and its mark, in the legend's order. */
export const signatureMarks = () => Object.entries(marks);

export const VERDICT_COLOUR = { causal: 0, leaks: 3, broken: 4 }; // blue, vermillion, reddish purple

/** A head as the reader names it, counted from 1 (the answer's layer and head are array indices, from 0). */
export const headName = (layer, head) => `layer ${layer + 1}, head ${head + 1}`;
/** What signature `s` means, or its own name when the page's data does not say. */
export const signatureText = (s) => texts[s] ?? s;
/** A measured number in three significant figures, a tiny one in exponent form. */
export const num = (x) =>
  x === 0 ? "0" : Math.abs(x) < 0.001 ? x.toExponential(1) : String(Number(x.toPrecision(3)));
