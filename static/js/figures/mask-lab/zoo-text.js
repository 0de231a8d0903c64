// What each of the mask bug zoo's five per-row bugs does, told with the decoder's own numbers on the reader's
// sentence: one function per bug, from the answer to a sentence in words (e^{x} marks a power).

import { formatPercent, leakiestRow, mapName, maxOf, num, pct, quote, sum, weightedRows } from "./numbers.js";

/** hides_self: the first row sees nothing, and NaN spreads to every row that reads its output. */
function hidesSelfText(data) {
  const { tokens, nan_rows: nan, weights } = data;
  const n = tokens.length;
  const counts = nan.map((heads) => heads.map((rows) => rows.length));
  const layers = counts.map((heads, l) =>
    heads.every((c) => c === heads[0])
      ? `layer ${l + 1}, ${heads[0]} of ${n} in each head`
      : `layer ${l + 1}, ${heads.join(", ")} of ${n} in heads 1–${heads.length}`,
  );
  const spread = counts.slice(1).some((heads) => Math.max(...heads) > Math.max(...counts[0]));
  const kept = weightedRows(weights).length;
  const total = weights.length * weights[0].length * n;
  return (
    "Off by one: the diagonal is hidden with the future, so each word loses itself. The first row has " +
    "nothing to see: all its scores are −∞, and its softmax divides 0 by 0: NaN. " +
    `NaN rows: ${layers.join("; ")}.` +
    (spread
      ? " Position 0's output is NaN, so in the next layer its key and value are NaN, and every row that " +
        "looks at it is NaN too."
      : "") +
    ` The meter averages the ${kept} of ${total} rows that have weights: none looks ahead, and the decoder is ` +
    "broken all the same."
  );
}

/** next_word: each row sees exactly one later word, the next. */
function nextWordText(data) {
  const { tokens, weights } = data;
  const n = tokens.length;
  const rows = weightedRows(weights).filter((r) => r.i < n - 1);
  const next = (r) => r.row[r.i + 1];
  const beyond = Math.max(0, ...rows.map((r) => sum(r.row.slice(r.i + 2))));
  const top = maxOf(rows, next);
  const mean = sum(rows.map(next)) / rows.length;
  return (
    "Off by one: the mask starts two words ahead, so each row i still sees word i+1, the very word it is " +
    `meant to predict. Here row i puts ${formatPercent(mean * 100)} on word i+1 on ` +
    `average (at most ${formatPercent(next(top) * 100)}, in the row of ${quote(tokens[top.i])} in ` +
    `${mapName(top.l, top.h)}, on ${quote(tokens[top.i + 1])}) and ` +
    `${beyond === 0 ? "exactly 0" : `at most ${num(beyond)}`} on any word beyond it: the quiet cheat.`
  );
}

/** transposed: the past hidden instead of the future. */
function transposedText(data) {
  const { tokens, weights, future_shares: shares } = data;
  const n = tokens.length;
  const rows = weightedRows(weights);
  const past = Math.max(0, ...rows.map((r) => sum(r.row.slice(0, r.i))));
  const last = Math.min(...rows.filter((r) => r.i === n - 1).map((r) => r.row[n - 1]));
  const { l, h, i, share } = leakiestRow(shares, n);
  return (
    "Transposed: the past is hidden instead of the future. Every word sees only itself and the words after " +
    `it (${past === 0 ? "exactly 0" : `at most ${num(past)}`} on earlier ones); the last word sees only itself, ` +
    `with weight ${num(last)}. The row of ${quote(tokens[i])} in ${mapName(l, h)} puts ${pct(share)} on later words.`
  );
}

/** after_softmax: no future weight, but rows that no longer sum to 1. */
function afterSoftmaxText(data) {
  const { tokens, weights } = data;
  const n = tokens.length;
  const rows = weightedRows(weights);
  const total = (r) => sum(r.row);
  const early = rows.filter((r) => r.i < n - 1);
  const least = maxOf(early, (r) => -total(r));
  const lo = total(least);
  const hi = Math.max(...early.map(total));
  return (
    "Masked after the softmax: the future's weights are set to 0 but the row is not renormalised, so the " +
    `rows with later positions sum to ${num(lo)}–${num(hi)}, not 1 (the row sums). Nothing is read from ` +
    `the future, but each word's output shrinks with its row: the row of ${quote(tokens[least.i])} in ` +
    `${mapName(least.l, least.h)} keeps ${formatPercent(lo * 100)} of its attention.`
  );
}

/** additive: the future's scores raised by 1, so its weights multiplied by e next to the past's. */
function additiveText(data) {
  const { tokens, weights, scaled, future_shares: shares } = data;
  const n = tokens.length;
  const { l, h, i, share } = leakiestRow(shares, n);
  const j = i + 1;
  const w = weights[l][h][i];
  const s = scaled[l][h][i];
  const unmasked = Math.exp(s[j] - s[i]); // e^{s_j − s_i}: what no mask makes of w_j / w_i
  const here = w[j] / w[i];
  return (
    "Added, not filled: True adds as 1, so each future score goes up by 1 instead of down to −∞, and " +
    "e^{s+1} = e · e^{s}. In the row of " +
    `${quote(tokens[i])} in ${mapName(l, h)}, the next word ${quote(tokens[j])} scores ${s[j].toFixed(2)} ` +
    `and ${quote(tokens[i])} itself ${s[i].toFixed(2)}: no mask would weigh them e^{${(s[j] - s[i]).toFixed(2)}} = ` +
    `${num(unmasked)} to 1; here they get ${num(here)} to 1, ${num(here / unmasked, 4)} times as much. Every ` +
    `later word gets e times its unmasked weight, next to the earlier ones: ${pct(share)} of this row.`
  );
}

/** The explanation of each bug, by the mode's name. */
export const ZOO_TEXT = {
  hides_self: hidesSelfText,
  next_word: nextWordText,
  transposed: transposedText,
  after_softmax: afterSoftmaxText,
  additive: additiveText,
};
