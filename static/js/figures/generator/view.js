// Figure 5's view of one translation: which attention the reader chose (mode, layer, head, step) and the words
// the figure uses to say it. Pure functions of the answer and the state; every weight is the server's, the
// heads' average included (each step's `cross_mean` and `self_mean`).

export const START = "⟨s⟩"; // the start token the decoder begins from (decoder position 0)
export const MODES = ["cross", "self"];

export const quote = (t) => `“${t}”`;
export const capitalise = (text) => text.charAt(0).toUpperCase() + text.slice(1);
/** French tokens as French is written: an elided word (l', d', j') joins the next, as the server's
 * translation does ("l' arbre" -> "l'arbre"). `words`: a list of tokens or a space-joined string of them. */
export const written = (words) => (Array.isArray(words) ? words.join(" ") : words).replaceAll("' ", "'");
const spoken = (t) => (t === START ? "the start token" : t);

/** A share as a percentage with one decimal (99.2%). */
/** A share as a percentage to one decimal, a tie to the even digit as Python's format writes it (the article's
 * figures are Python's): 0.9825 -> "98.2%", where toFixed would give "98.3%". */
export function pct(x) {
  const tenths = x * 1000;
  const floor = Math.floor(tenths);
  const rounded = tenths - floor === 0.5 ? floor + (floor % 2) : Math.round(tenths);
  return `${(rounded / 10).toFixed(1)}%`;
}

/** A weight as the figure writes it: two decimals, "0" only for an exact zero, "<0.01" for a trace. */
export function weightText(w) {
  if (w === 0) return "0";
  if (w < 0.005) return "<0.01";
  return w.toFixed(2);
}

/** The decoder layer drawn, from 0: the one chosen, or the last. */
export function layerIndex(data, state) {
  const layers = data?.layers ?? 1;
  return state.layer === null ? layers - 1 : state.layer - 1;
}

/** The weights of French slot q's step (q >= 1) in `mode`, in the chosen layer: the chosen head's, or the
 * heads' average. */
export function attentionRow(data, state, mode, q) {
  const step = data.steps[q - 1];
  const layer = layerIndex(data, state);
  return state.head === null ? step[`${mode}_mean`][layer] : step[mode][layer][state.head - 1];
}

/** "layer 2, average of the 4 heads" or "layer 1, head 3". */
export function viewText(data, state) {
  const layer = `layer ${layerIndex(data, state) + 1}`;
  if (state.head === null) return `${layer}, average of the ${data.heads} heads`;
  return `${layer}, head ${state.head}`;
}

/** What a screen reader hears on French word p: where it is and where it looked, in the current view. */
export function wordLabel(data, state, p) {
  const { source, target } = data;
  const tgt = [START, ...target];
  const top = (row, words) =>
    row
      .map((w, j) => ({ w, word: spoken(words[j]) }))
      .sort((a, b) => b.w - a.w)
      .filter((e, i) => i === 0 || e.w >= 0.05)
      .map((e) => `${e.word} ${weightText(e.w)}`)
      .join(", ");
  return (
    `${target[p - 1]}, French word ${p} of ${target.length}. ${capitalise(viewText(data, state))}. ` +
    `Into the English: ${top(attentionRow(data, state, "cross", p), source)}. ` +
    `Back over the French: ${top(attentionRow(data, state, "self", p), tgt)}.`
  );
}

/** The drawn attention of every word written so far, in the current view, as two matrices (or null). */
export function exportView(data, state) {
  if (!data || state.step < 1) return null;
  const written = data.target.slice(0, state.step);
  const slots = written.map((_, t) => t + 1);
  const keys = [START, ...written.slice(0, -1)]; // what the words written so far could read
  const selfRows = slots.map((q) => {
    const row = attentionRow(data, state, "self", q);
    return keys.map((_, p) => (p < row.length ? row[p] : 0)); // the future: exactly 0, the mask's work
  });
  const view = viewText(data, state);
  return {
    note:
      `Decoder attention, ${view}: row = the French word being written, column = the word it read. ` +
      "Self-attention columns after the row's own step are 0: those words were not written yet.",
    sentence: data.source.join(" "),
    translation: data.translation,
    layer: layerIndex(data, state) + 1,
    head: state.head ?? "average",
    matrices: [
      {
        name: `Cross-attention (${view})`,
        rows: written,
        columns: data.source,
        values: slots.map((q) => attentionRow(data, state, "cross", q)),
      },
      { name: `Self-attention (${view})`, rows: written, columns: keys, values: selfRows },
    ],
  };
}

/** The words no step read (the answer's `unread` positions), each run of neighbours as one phrase:
 * ["has two dogs"] for "the girl who sings here has two dogs" read as "la fille qui chante ici". */
export function unreadPhrases({ source, unread }) {
  const phrases = [];
  (unread ?? []).forEach((i, k) => {
    if (k > 0 && unread[k - 1] === i - 1) phrases[phrases.length - 1].push(source[i]);
    else phrases.push([source[i]]);
  });
  return phrases.map((words) => words.join(" "));
}
