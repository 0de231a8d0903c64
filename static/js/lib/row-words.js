// A row of attention in words: the key it weighs most, or, when no key stands out (every weight it gives is
// close to an even share), that it spreads its attention evenly. A uniform head does not "look most at" a word.

export const EVEN_WITHIN = 0.1; // a row is even when every weight it gives is within 10% of an even share

/**
 * Where `row` looks: `{ even: true, share, count }` when the `count` keys it gives any weight (a masked key
 * gets exactly 0) each get about `share` = 1/count, with count >= 2; else `{ even: false, j, w }`, the key it
 * weighs most and that weight.
 */
export function rowFocus(row, within = EVEN_WITHIN) {
  const given = row.filter((w) => w > 0);
  const share = 1 / given.length;
  if (given.length >= 2 && given.every((w) => Math.abs(w - share) <= within * share)) {
    return { even: true, share, count: given.length };
  }
  const w = Math.max(...row);
  return { even: false, j: row.indexOf(w), w };
}
