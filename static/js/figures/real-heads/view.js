// Figure 11's view options, applied in the browser to the answer it already has (no new request): whole words
// instead of WordPiece pieces, and [CLS]/[SEP] left out with every row spread back to one.

/**
 * The answer's attention as the reader asked to see it: [layer][head][i][j] over `labels`.
 *
 * `hide`: [CLS] and [SEP] rows and columns are dropped and each remaining row is divided by its sum.
 * `words`: the pieces of a word become one token; a word receives the sum of the weight given to its pieces
 * (key side) and gives the mean of its pieces' rows (query side), so every row still sums to 1.
 */
export function viewOf(data, { words = false, hide = false } = {}) {
  const n = data.tokens.length;
  const keep = [];
  for (let p = 0; p < n; p++) if (!(hide && data.special[p])) keep.push(p);
  // Units: the tokens drawn. A special token is always its own unit; a word's pieces share one when `words`.
  const units = [];
  const unitOfWord = new Map();
  for (const p of keep) {
    const w = data.word_index[p];
    if (words && !data.special[p] && w !== null && w !== undefined) {
      if (!unitOfWord.has(w)) {
        unitOfWord.set(w, units.length);
        units.push({ label: data.words[w] ?? data.tokens[p], special: false, pieces: [] });
      }
      units[unitOfWord.get(w)].pieces.push(p);
    } else {
      units.push({ label: data.tokens[p], special: Boolean(data.special[p]), pieces: [p] });
    }
  }
  const m = units.length;
  const unitOf = new Int32Array(n).fill(-1); // piece -> its unit
  units.forEach((u, a) => u.pieces.forEach((p) => (unitOf[p] = a)));

  const layers = [];
  data.attention.forEach((layer, x) => {
    layers[data.layer_indices?.[x] ?? x] = layer.map((A) => {
      const M = Array.from({ length: m }, () => new Array(m).fill(0));
      for (let a = 0; a < m; a++) {
        const qs = units[a].pieces;
        for (const p of qs) {
          const row = A[p];
          let total = 0;
          if (hide) for (const q of keep) total += row[q];
          const scale = (hide ? (total > 0 ? 1 / total : 0) : 1) / qs.length;
          for (const q of keep) M[a][unitOf[q]] += row[q] * scale;
        }
      }
      return M;
    });
  });
  return {
    labels: units.map((u) => u.label),
    special: units.map((u) => u.special),
    layers,
  };
}
