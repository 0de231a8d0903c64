// Figure 5's words around the drawing: the French line written so far, the note under the drawing, and the
// two rows of numbers (a cell per English word, a cell per French position a step could read) for the word
// shown. Built once per answer; each view only rewrites their text.

import { element } from "../../lib/dom.js";
import { rowFocus } from "../../lib/row-words.js";
import {
  attentionRow,
  capitalise,
  layerIndex,
  quote,
  START,
  unreadPhrases,
  viewText,
  weightText,
  written,
} from "./view.js";

/** One cell of a number row: the word, its weight and a bar as long as the weight. */
function cell(word) {
  const li = element("li", "gen-cell");
  const value = element("span", "gen-cell__value");
  const bar = element("span", "gen-cell__bar");
  bar.setAttribute("aria-hidden", "true");
  li.append(element("span", "gen-cell__word", word), value, bar);
  return { li, value, bar, word };
}

export class Readout {
  /** `el`: the figure's parts translation, note, readoutTitle, crossRow and selfRow. */
  constructor(el) {
    this.el = el;
    this.crossCells = [];
    this.selfCells = [];
  }

  /** The number rows for `data`'s words. */
  build(data) {
    const { source, target } = data;
    this.crossCells = source.map(cell);
    this.selfCells = [START, ...target.slice(0, -1)].map(cell); // the last word is never read by a later step
    this.el.crossRow.replaceChildren(...this.crossCells.map((c) => c.li));
    this.el.selfRow.replaceChildren(...this.selfCells.map((c) => c.li));
  }

  /**
   * Show the view `state` of `data` with French slot `shown` (or null); `focused`: the reader chose it;
   * `kind`: the drawing's layout, "rows" (English above the French) or "columns" (side by side, on a phone).
   */
  show(data, state, shown, focused, kind = "rows") {
    this.showTranslation(data, state.step);
    this.showNumbers(data, state, shown, focused);
    this.showNote(data, state, shown, focused, kind);
  }

  showTranslation(data, s) {
    const { steps, target, translation } = data;
    const done = s >= steps.length;
    const sofar = `${capitalise(written(target.slice(0, s)))} …`;
    this.el.translation.textContent = done ? translation : s > 0 ? sofar : "";
    // once every word is written: the words no step read, which the French most likely leaves out
    const phrases = done ? unreadPhrases(data) : [];
    const unread = phrases.length
      ? `Not translated: ${phrases.map(quote).join(", ")}. No step looked at ${
          phrases.length > 1 || phrases[0].includes(" ") ? "these words" : "this word"
        } while writing (decoder layer ${data.best_layer + 1}, its heads averaged).`
      : "";
    if (this.el.unread.textContent !== unread) this.el.unread.textContent = unread; // a live region
  }

  showNumbers(data, state, shown, focused) {
    const title = this.el.readoutTitle;
    const mode = state.mode;
    this.el.crossRow.parentElement.classList.toggle("is-current", mode === "cross");
    this.el.selfRow.parentElement.classList.toggle("is-current", mode === "self");
    if (shown === null) {
      title.textContent = "Once a word is written, hover or focus it to read its attention as numbers.";
      for (const c of [...this.crossCells, ...this.selfCells]) {
        c.value.textContent = "";
        c.bar.style.setProperty("--w", "0");
        c.li.hidden = false;
      }
      for (const c of this.selfCells.slice(1)) c.li.hidden = true;
      return;
    }
    const who = focused ? "the word under focus" : "the word just written";
    const where = `${who}, ${shown} of ${data.target.length}`;
    title.textContent = `${quote(data.target[shown - 1])} (${where}): ${viewText(data, state)}.`;
    const fill = (cells, row) =>
      cells.forEach((c, idx) => {
        const inRow = idx < row.length;
        c.li.hidden = !inRow;
        c.value.textContent = inRow ? weightText(row[idx]) : "";
        c.bar.style.setProperty("--w", inRow ? String(row[idx]) : "0");
        c.li.dataset.weight = inRow ? row[idx].toFixed(4) : "";
      });
    fill(this.crossCells, attentionRow(data, state, "cross", shown));
    fill(this.selfCells, attentionRow(data, state, "self", shown));
  }

  showNote(data, state, shown, focused, kind) {
    const { source, target, steps } = data;
    const note = this.el.note;
    if (shown === null) {
      note.textContent = "Press ▶ Generate: the translator writes one French word every 0.4 seconds.";
      return;
    }
    const mode = state.mode;
    const row = attentionRow(data, state, mode, shown);
    const words = mode === "cross" ? source : [START, ...target];
    const focus = rowFocus(row);
    const layer = `layer ${layerIndex(data, state) + 1}`;
    const who =
      state.head === null ? `${layer}, averaged over its ${data.heads} heads,` : `${layer}'s head ${state.head}`;
    const writing = focus.even
      ? `To write ${quote(target[shown - 1])}, ${who} spread its attention evenly ` +
        `(about ${weightText(focus.share)} on each of ${focus.count} words).`
      : `To write ${quote(target[shown - 1])}, ${who} looked most at ${quote(words[focus.j])} ` +
        `(${weightText(focus.w)}).`;
    const how =
      mode === "cross"
        ? `Each arc runs from the French word being written ${kind === "columns" ? "across" : "up"} to an ` +
          "English word it reads; the thicker the arc, the more weight."
        : "Each arc runs from the French word being written back to a word already there (⟨s⟩ is the " +
          "start token every translation begins from). Nothing reaches forward: the later words do not " +
          "exist yet.";
    const done = state.step >= steps.length && !focused ? ` All ${steps.length} words written.` : "";
    note.textContent = `${how} ${writing}${done}`;
  }
}
