// Figure 6's numbers as the page writes them (percentages, significant digits, the meter's value), and the
// rows of an answer its sentences are about. Every number is the server's; these only choose and format.

/** A percentage as the page writes it: exact 0 stays "0%", anything above it never rounds down to 0; a share
 * that is not a number (a NaN row's, sent as null) is "NaN". */
export function formatPercent(p) {
  if (p === null || Number.isNaN(p)) return "NaN";
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  if (p < 9.95) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** The meter's aria-valuenow: exactly "0" for no leak, else four significant digits (never rounded to 0). */
export const meterValue = (p) => (p === 0 ? "0" : String(Number(p.toPrecision(4))));

/** The average future share of uniform attention over n tokens: (1/n) Σ_i (n−1−i)/n = (n−1)/(2n). */
export const uniformLeak = (n) => (n - 1) / (2 * n);

/** A number to `digits` significant digits (three by default), never written as 0 when it is not. */
export const num = (x, digits = 3) =>
  x !== 0 && Math.abs(x) < 0.001 ? x.toExponential(digits - 1) : String(Number(x.toPrecision(digits)));
export const quote = (t) => `“${t}”`;
/** A share (0..1, or null for a NaN row) as a percentage. */
export const pct = (share) => (share === null ? "NaN" : formatPercent(share * 100));
export const mapName = (l, h) => `layer ${l + 1}, head ${h + 1}`;
export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
export const maxOf = (rows, f) => rows.reduce((best, r) => (!best || f(r) > f(best) ? r : best), null);
export const list = (xs) => (xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);

/** The (layer, head, row) whose row puts the most weight on later positions, preferring a row that sees a
 * word besides the start token; `shares` is the answer's future_shares [layer][head][row]. */
export function leakiestRow(shares, n) {
  let best = null;
  shares.forEach((heads, l) =>
    heads.forEach((rows, h) =>
      rows.forEach((share, i) => {
        if (share === null) return; // a NaN row has no share
        const rank = [i >= 1 && i < n - 1 ? 1 : 0, share];
        if (!best || rank[0] > best.rank[0] || (rank[0] === best.rank[0] && share > best.share)) {
          best = { l, h, i, share, rank };
        }
      }),
    ),
  );
  return best;
}

/** Every row of an answer's weights [layer][head][i] that has weights (no NaN), with where it is. */
export function weightedRows(weights) {
  const rows = [];
  weights.forEach((heads, l) =>
    heads.forEach((map, h) =>
      map.forEach((row, i) => {
        if (!row.some((w) => w === null)) rows.push({ l, h, i, row });
      }),
    ),
  );
  return rows;
}
