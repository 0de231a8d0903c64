// Words read in pieces: figure 6's and figure 7's decoders read a word their vocabulary does not hold whole as
// word pieces (app/models/word_pieces.py). An answer lists its tokens and, per token, the word it belongs to.

const quote = (t) => `“${t}”`;
const list = (xs) => (xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);

/** The words of `words` that are read in more than one piece, each with its pieces: [[word, pieces], ...].
 * `tokens[p]` belongs to word `owner[p]` (null for the start token). */
export function splitWords(tokens, owner, words) {
  const byWord = new Map();
  tokens.forEach((t, p) => {
    if (owner[p] !== null && owner[p] !== undefined) byWord.set(owner[p], [...(byWord.get(owner[p]) ?? []), t]);
  });
  return [...byWord].filter(([, pieces]) => pieces.length > 1).map(([w, pieces]) => [words[w], pieces]);
}

/** Which words the decoder reads in pieces, as figure 11 draws them ("“river” as r · ##iver"). */
export function piecesNote(tokens, owner, words) {
  const split = splitWords(tokens, owner, words);
  if (!split.length) return "Every word is one of the decoder's tokens.";
  const told = split.map(([word, pieces]) => `${quote(word)} as ${pieces.join(" · ")}`);
  return `Read in pieces (a piece that continues a word starts with ##): ${list(told)}.`;
}
