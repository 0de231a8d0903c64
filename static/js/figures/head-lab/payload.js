// The head lab's request: the typed matrices as the body of POST /api/attention/custom, once every cell is a
// number; otherwise the cells that are not, and the sentence that names the first of them.

import { parseCell } from "./matrix.js";

export const ENDPOINT = "/api/attention/custom";

/**
 * The request for `model` (model.js) with the `mask` and `scale` options: `{ request, invalid }`, where
 * `request` is an Api request `{ url, body }` and `invalid` lists the cells `{ key, i, j, text }` that are
 * not numbers (the request is null then).
 */
export function labRequest(model, { mask, scale }) {
  const invalid = [];
  const numbers = (key) =>
    model.matrix(key).map((row, i) =>
      row.map((text, j) => {
        const x = parseCell(text);
        if (x === null) invalid.push({ key, i, j, text });
        return x;
      }),
    );
  const body = {
    embeddings: numbers("x"),
    heads: model.heads.map((_, k) => ({
      w_q: numbers(`h${k}.wq`),
      w_k: numbers(`h${k}.wk`),
      w_v: numbers(`h${k}.wv`),
    })),
    w_o: model.wo ? numbers("wo") : null,
    mask,
    scale,
    tokens: model.names(),
  };
  return { request: invalid.length ? null : { url: ENDPOINT, body }, invalid };
}

/** What the error box says about `invalid` cells: the first by name, and how many more. */
export function invalidText(model, invalid) {
  const { key, i, j, text } = invalid[0];
  const where = model.cellLabel(key, i, j);
  const more = invalid.length > 1 ? ` (and ${invalid.length - 1} more)` : "";
  const typed = text.trim();
  return typed ? `${where}: “${typed}” is not a number${more}.` : `${where} is empty: type a number${more}.`;
}
