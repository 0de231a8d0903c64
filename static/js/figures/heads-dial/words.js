// Figure 1's words about what it draws: counts, percentages, and what a screen reader hears on a word or a head.

export const pct = (w) => `${Math.round(w * 100)}%`;
export { counted as plural } from "../../lib/counts.js";

// A row whose largest weight is within this of 1/n is spread evenly: no word is "looked at most".
export const EVEN_MARGIN = 0.05;

/** The key that query `i` weighs most in `row`, that weight, and whether the row is spread about evenly. */
function strongest(row) {
  const j = row.indexOf(Math.max(...row));
  return { j, w: row[j], even: row[j] - 1 / row.length < EVEN_MARGIN };
}

/** What a screen reader hears on word `i` of the answer `data`: where it is and where each head looks from it. */
export function tokenLabel(data, i) {
  const { tokens, known, weights } = data;
  const parts = weights.map((rows, k) => {
    const { j, w, even } = strongest(rows[i]);
    if (even) return `head ${k + 1} spreads its weight evenly (at most ${pct(w)} on a word)`;
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
      const { j, even } = strongest(weights[k][i]);
      return `${t} → ${even ? "every word alike" : j === i ? "itself" : tokens[j]}`;
    })
    .join(", ");
}
