// Figure 1's words about what it draws: counts, percentages, and what a screen reader hears on a word or a head.

export const pct = (w) => `${Math.round(w * 100)}%`;
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The key that query `i` weighs most in `row`, and that weight. */
function strongest(row) {
  const j = row.indexOf(Math.max(...row));
  return { j, w: row[j] };
}

/** What a screen reader hears on word `i` of the answer `data`: where it is and where each head looks from it. */
export function tokenLabel(data, i) {
  const { tokens, known, weights } = data;
  const parts = weights.map((rows, k) => {
    const { j, w } = strongest(rows[i]);
    return `head ${k + 1} looks most at ${j === i ? "itself" : tokens[j]} (${pct(w)})`;
  });
  const unknown = known[i] ? "" : ", not in the lexicon";
  return `${tokens[i]}, word ${i + 1} of ${tokens.length}${unknown}: ${parts.join("; ")}`;
}

/** Head `k` in words: from each word, the word it looks at most ("bank → river, …"). */
export function headSummary(data, k) {
  const { tokens, weights } = data;
  return tokens
    .map((t, i) => {
      const { j } = strongest(weights[k][i]);
      return `${t} → ${j === i ? "itself" : tokens[j]}`;
    })
    .join(", ");
}
