// Figure 1's "Try:" line in the caption, from data: what to do with the dial next and what the reader will
// see, stated from the server's answers for the reader's own sentence (its meaning pair, if it has one, and
// the verdicts at one head and at the story's head count). Never fixed text: every clause is read off the
// answer it speaks of.

import { relationInfo } from "../../lib/relations.js";
import { listWords, ownHead, verdicts } from "./verdict.js";

const name = (relation) => relationInfo(relation).label.toLowerCase();
const DIAL = { bold: "Heads" };

/** The first pair of relation `relation` in the answer `data`, as "bank → river" ("river ↔ bank" when the two
 * words point at each other), or null when the relation has no pair. */
export function firstPair(data, relation) {
  const targets = data.relations.find((x) => x.name === relation)?.targets ?? [];
  if (!targets.length) return null;
  const [i, j] = targets[0];
  const mutual = targets.some(([a, b]) => a === j && b === i);
  return `${data.tokens[i]} ${mutual ? "↔" : "→"} ${data.tokens[j]}`;
}

/** The relations with pairs in the answer `data`, by their names. */
const present = (data) => data.relations.filter((r) => Array.isArray(r.head_scores)).map((r) => r.name);

/** Those of them that have a head of their own. */
const ownedRelations = (data) => present(data).filter((r) => ownHead(data, r) !== null);

/** "Try: drag Heads" and the rest of the sentence `rest`, as parts. */
const drag = (rest) => ["Try: drag ", DIAL, rest];

/**
 * The caption's line as parts (strings, and {bold} for a control's name) for the view: `heads` and `trained`
 * as drawn, `storyHeads` (the count where the story says each relation gets a head, 3), `data` the answer
 * drawn, `other` the answer at the count the line suggests (`storyHeads`, or 1 when the dial is already at
 * `storyHeads`; null when it could not be had), `example` a word with two senses the meaning relation knows,
 * `twoSenses` the set of all of them.
 */
export function tryLine({ heads, trained, storyHeads, data, other, example, twoSenses = new Set() }) {
  if (!trained) return ["Try: switch ", { bold: "Trained" }, " back on and compare the lanes."];
  const pair = firstPair(data, "meaning");
  const unsettled = data.tokens.find((t) => twoSenses.has(t.toLowerCase())); // a word of two senses, no cue
  const none = pair
    ? []
    : unsettled
      ? [
          `This sentence has no meaning pair: ${unsettled} has two senses, but no word here settles which ` +
            "(its senses are listed under the relation scores). ",
        ]
      : [
          "This sentence has no meaning pair: that needs a word with two senses",
          example
            ? `, such as ${example} (all are listed under the relation scores). `
            : " (listed under the relation scores). ",
        ];
  if (!other) return pair ? drag(` and watch ${pair}.`) : none;
  const all = verdicts(other);
  const ownHere = pair !== null && ownHead(data, "meaning") !== null;
  const ownThere = pair !== null && ownHead(other, "meaning") !== null;

  if (heads === storyHeads) {
    // Already at the story's count: suggest one head, and say what that head does on this sentence.
    if (ownThere) {
      // The one head serves meaning alone, so every other relation the sentence has goes unserved.
      const others = present(data).filter((r) => r !== "meaning");
      const rest = others.length ? ` and no head serves ${listWords(others.map(name), "or")}` : "";
      return drag(` down to 1, where the one head serves ${pair}${rest}.`);
    }
    const tail = !pair
      ? "."
      : ownHere
        ? `, and ${pair} has no head of its own.`
        : `. No head serves ${pair} alone at either count.`;
    return [...none, ...drag(` down to 1, where the one head ${all[0].predicate}${tail}`)];
  }

  const to = heads === 1 ? ` from 1 up to ${storyHeads}` : ` to ${storyHeads}`;
  if (pair) {
    const k = ownHead(other, "meaning");
    if (k === null) return drag(`${to}: even there no head serves ${pair} alone on this sentence.`);
    if (heads === 1 && !ownHere) return drag(`${to} and watch ${pair} get a head of its own (Head ${k + 1}).`);
    return drag(`${to}, where ${pair} has a head of its own (Head ${k + 1}).`);
  }
  const owned = ownedRelations(other);
  const said = !owned.length
    ? ": no relation gets a head of its own on this sentence."
    : owned.length === 1
      ? `, where ${name(owned[0])} has a head of its own.`
      : `, where ${listWords(owned.map(name))} have heads of their own.`;
  return [...none, ...drag(`${to}${said}`)];
}
