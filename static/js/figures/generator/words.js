// Figure 5's list of the English words the translator knows, by kind, with a box that narrows it: what a
// reader can type is in view before the translator refuses a word (the kinds are the record's,
// /api/translate/about's vocabulary_kinds).

import { element } from "../../lib/dom.js";
import { quote } from "./view.js";

// The record's kinds, gathered as a reader looks for a word; every kind not named here goes under "Other words"
// (determiners, prepositions, pronouns, conjunctions, "not", and any kind a later record adds).
const GROUPS = [
  ["Nouns", ["noun"]],
  ["Verbs", ["verb", "be", "auxiliary"]],
  ["Adjectives", ["adjective"]],
  ["Numbers", ["number"]],
];

export class WordList {
  /** `el`: the figure's parts words, words-summary, find, find-count and word-groups. */
  constructor(el) {
    this.el = el;
    this.items = []; // {li, word}
    this.groups = []; // {section, items}
    this.total = 0;
    el.find.addEventListener("input", () => this.filter());
  }

  /** List `about`'s words by kind; a record without kinds lists them in one group. */
  show(about) {
    const kinds = about.vocabulary_kinds ?? { word: about.vocabulary ?? [] };
    const named = new Set(GROUPS.flatMap(([, names]) => names));
    const others = Object.keys(kinds).filter((k) => !named.has(k));
    const groups = about.vocabulary_kinds ? [...GROUPS, ["Other words", others]] : [["Words", ["word"]]];
    this.total = about.vocabulary?.length ?? 0;
    this.el.wordsSummary.textContent = `The ${this.total.toLocaleString("en")} English words it knows, by kind`;
    this.groups = groups
      .map(([name, names]) => {
        const words = [...new Set(names.flatMap((k) => kinds[k] ?? []))].sort();
        const list = element("ul", "gen-words__list");
        list.setAttribute("aria-label", name);
        const items = words.map((word) => ({ li: element("li", "gen-words__word", word), word }));
        list.append(...items.map((i) => i.li));
        const section = element("div", "gen-words__group");
        section.append(element("p", "gen-words__kind", `${name} (${words.length})`), list);
        return { section, items };
      })
      .filter((g) => g.items.length);
    this.el.wordGroups.replaceChildren(...this.groups.map((g) => g.section));
    this.filter();
  }

  /** Keep the words that contain what the Find box holds, and say how many. */
  filter() {
    const wanted = this.el.find.value.trim().toLowerCase();
    let found = 0;
    for (const group of this.groups) {
      let shown = 0;
      for (const { li, word } of group.items) {
        li.hidden = Boolean(wanted) && !word.includes(wanted);
        shown += !li.hidden;
      }
      group.section.hidden = shown === 0;
      found += shown;
    }
    const count = !wanted
      ? ""
      : found
        ? `${found.toLocaleString("en")} of ${this.total.toLocaleString("en")} contain ${quote(wanted)}.`
        : `None of its words contains ${quote(wanted)}.`;
    if (this.el.findCount.textContent !== count) this.el.findCount.textContent = count;
  }

  /** Say that the list could not be had. */
  fail(message) {
    this.el.wordGroups.replaceChildren(element("p", "panel-text", `The word list could not be loaded: ${message}`));
  }
}
