// Figure 5's close-word suggestions: when the translator refuses words it does not know, a button for each
// close known word the server suggested (its refusal's `suggestions` field, {word: [close words]}) puts that
// word in the Sentence box in place of the unknown one. Every word reaches the page as text.

import { element } from "../../lib/dom.js";
import { quote } from "./view.js";

// A word as the server reads it (app/words.py): letters or digits, with inner apostrophes.
const WORD = /[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*/gu;

const capitalised = (w) => w.charAt(0) !== w.charAt(0).toLowerCase();

/** `text` with every word that is `word` (the server lower-cases) replaced by `by`, capitalised where the
 * word was. */
export function replaceWord(text, word, by) {
  return text.replace(WORD, (w) => {
    if (w.toLowerCase() !== word) return w;
    return capitalised(w) ? by.charAt(0).toUpperCase() + by.slice(1) : by;
  });
}

export class Suggestions {
  /** `el`: the figure's (hidden) suggestion group; `choose(word, by)`: the reader picked `by` for `word`. */
  constructor(el, choose) {
    this.el = el;
    this.choose = choose;
  }

  /** Show a row of buttons per unknown word that has close known words in the refusal `body`; none when
   * the refusal has no suggestions (a sentence too long, no words, an unreachable server). */
  show(body) {
    const suggestions = body?.suggestions;
    const rows = [];
    if (suggestions && typeof suggestions === "object") {
      for (const [word, close] of Object.entries(suggestions)) {
        if (!Array.isArray(close) || !close.length) continue;
        const row = element("p", "gen-suggest__row");
        row.append(element("span", "gen-suggest__word", `Instead of ${quote(word)}:`));
        for (const by of close) {
          const button = element("button", "button gen-suggest__button", String(by));
          button.type = "button";
          button.setAttribute("aria-label", `Replace ${word} with ${by}`);
          button.addEventListener("click", () => this.choose(word, String(by)));
          row.append(" ", button);
        }
        rows.push(row);
      }
    }
    this.el.replaceChildren(...rows);
    this.el.hidden = !rows.length;
  }

  clear() {
    this.el.replaceChildren();
    this.el.hidden = true;
  }
}
