// Figure 1's relation list: for meaning, grammar and position, the head that serves the relation best, its
// score as a number and a bar, every head's score, the relation's pairs in this sentence, and, when the server
// finds the score borrowed from pairs another relation claims too, a note that says so. Pointing at an item, or
// focusing its name (a button), shows the relation's pairs in the drawing.

import { headColour, relationColour, relationDash } from "../../lib/colours.js";
import { relationInfo, relationItem } from "../../lib/relations.js";
import { clear, r1, svg } from "../../lib/svg.js";
import { headSwatch } from "../../lib/swatch.js";
import { plural } from "./words.js";

const PAIRS_SHOWN = 6; // the rest are counted ("and 17 more") and listed in the tooltip

/** Fill the list `list` with one item per relation of the answer `data`; `bindRelation(area, name, control)`
 * makes the item show the relation's pairs while pointed at, and its name while focused. */
export function drawRelations(list, data, { bindRelation, hintId }) {
  clear(list);
  const { tokens } = data;
  const pairText = ([i, j]) => `${tokens[i]} → ${tokens[j]}`;
  for (const relation of data.relations) {
    const li = relationItem(relation.name, { control: true });
    li.querySelector(".relation__name").prepend(relationKey(relation.name));
    const label = li.querySelector(".relation__label");
    if (hintId) label.setAttribute("aria-describedby", hintId);
    bindRelation(li, relation.name, label);
    const result = document.createElement("div");
    result.className = "relation__result";
    li.appendChild(result);
    if (relation.best_head === null || relation.score === null) {
      result.classList.add("relation__result--none");
      result.textContent =
        relation.name === "meaning"
          ? "No such pair in this sentence: it needs a word with two senses (listed below)."
          : "No such pair in this sentence.";
      list.appendChild(li);
      continue;
    }
    const k = relation.best_head;
    const head = document.createElement("span");
    head.className = "relation__head";
    head.dataset.head = String(k);
    head.append(headSwatch(k), `Head ${k + 1}`);
    const score = document.createElement("span");
    score.className = "relation__score";
    score.textContent = relation.score.toFixed(2);
    result.append(head, score, scoreBars(relation, data.heads));

    const targets = document.createElement("p");
    targets.className = "relation__targets";
    const pairs = relation.targets.map(pairText);
    const more = pairs.length - PAIRS_SHOWN;
    targets.textContent = pairs.slice(0, PAIRS_SHOWN).join(", ") + (more > 0 ? `, and ${more} more` : "");
    targets.title = pairs.join(", ");
    li.appendChild(targets);
    if (relation.borrowed) li.appendChild(borrowedNote(relation, pairText));
    list.appendChild(li);
  }
}

/** The relation's colour and dash, as its arcs are drawn (aria-hidden: the name says it). */
function relationKey(name) {
  const size = { width: 24, height: 10, viewBox: "0 0 24 10" };
  const root = svg("svg", { class: "relation__key", ...size, "aria-hidden": "true" });
  svg(
    "path",
    {
      d: "M2 5H22",
      fill: "none",
      stroke: relationColour(name),
      "stroke-width": 3,
      "stroke-dasharray": relationDash(name, 3),
      "stroke-linecap": name === "position" ? "round" : "butt",
    },
    root,
  );
  return root;
}

/** A borrowed score explained (in "the river bank was steep" at one head, bank → river is meaning as well as
 * position, was → bank grammar as well): the shared pairs, and the best head's score on the own pairs alone.
 * The server decides when a score is borrowed (app/core/borrowing.py). */
function borrowedNote(relation, pairText) {
  const p = document.createElement("p");
  p.className = "relation__shared";
  const named = relation.shared_pairs.map(
    ({ pair, also }) => `${pairText(pair)} (also ${relationInfo(also).label.toLowerCase()})`,
  );
  const own = relation.targets.length - relation.shared_pairs.length;
  p.textContent =
    `Borrowed: ${named.join(", ")} count here too. On its ${plural(own, "own pair")} alone, ` +
    `Head ${relation.best_head + 1} scores ${relation.own_score.toFixed(2)}.`;
  return p;
}

/** For one relation: a bar for the best score and a small column per head (the best one solid). */
function scoreBars(relation, h) {
  const width = 120;
  const scores = relation.head_scores ?? [];
  const root = svg("svg", {
    class: "relation__bars",
    width,
    height: 26,
    viewBox: `0 0 ${width} 26`,
    role: "img",
    "aria-label":
      `score ${relation.score.toFixed(2)}` +
      (relation.head_scores ? `; every head: ${scores.map((s) => s.toFixed(2)).join(", ")}` : ""),
  });
  svg("rect", { class: "bar__track", x: 0, y: 0, width, height: 7, rx: 2 }, root);
  const best = { x: 0, y: 0, width: r1(width * Math.min(1, relation.score)), height: 7, rx: 2 };
  svg("rect", { ...best, fill: headColour(relation.best_head) }, root);
  const colW = width / Math.max(h, 1);
  scores.forEach((s, k) => {
    const hgt = Math.max(1, 15 * Math.min(1, s));
    svg(
      "rect",
      {
        x: r1(k * colW + (colW > 4 ? 0.6 : 0)),
        y: r1(26 - hgt),
        width: r1(Math.max(1, colW - (colW > 4 ? 1.2 : 0.3))),
        height: r1(hgt),
        fill: headColour(k),
        opacity: k === relation.best_head ? 1 : 0.45,
      },
      root,
    );
  });
  return root;
}
