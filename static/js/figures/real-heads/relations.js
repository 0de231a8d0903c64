// Figure 10's relations: for each relation of figure 1, the best of the 72 heads in the reader's sentence as a
// button that opens it, its score (the server's), and a strip of every head's score.

import { relationInfo, relationItem } from "../../lib/relations.js";
import { r1, svg } from "../../lib/svg.js";
import { headSwatch } from "../../lib/swatch.js";

const PAIRS_SHOWN = 6; // the relation's word pairs written out; the rest are counted (all in the tooltip)

/** The list items of `data.relations`; a best-head button carries data-layer and data-head (0-based). */
export function relationItems(data) {
  return data.relations.map((relation) => {
    const info = relationInfo(relation.name);
    const li = relationItem(relation.name);
    const result = document.createElement("div");
    result.className = "relation__result";
    const best = relation.best;
    if (!best || best.score === null || !relation.targets?.length) {
      result.classList.add("relation__result--none");
      result.textContent = "No such pair in this sentence.";
      li.appendChild(result);
      return li;
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button real-best";
    button.dataset.layer = String(best.layer);
    button.dataset.head = String(best.head);
    button.append(headSwatch(best.head), `layer ${best.layer + 1}, head ${best.head + 1} ${info.does} here`);
    const score = document.createElement("span");
    score.className = "relation__score";
    score.textContent = best.score.toFixed(2);
    result.append(scoreStrip(relation, info.label), score, button);
    li.appendChild(result);

    const targets = document.createElement("p");
    targets.className = "relation__targets";
    const pairs = relation.targets.map(([i, j]) => `${data.words[i]} → ${data.words[j]}`);
    const more = pairs.length - PAIRS_SHOWN;
    targets.textContent = pairs.slice(0, PAIRS_SHOWN).join(", ") + (more > 0 ? `, and ${more} more` : "");
    targets.title = pairs.join(", ");
    li.appendChild(targets);
    return li;
  });
}

/** A relation's score for every head: a cell per head, a row per layer, darker for higher; the best outlined. */
function scoreStrip(relation, name) {
  const { scores, best } = relation;
  const cell = 6; // 72 x 36 px: small enough that the figure's SVG export leaves the strips out
  const width = (scores[0]?.length ?? 0) * cell;
  const height = scores.length * cell;
  const byLayer = scores.map((row, l) => `layer ${l + 1}: ${row.map((s) => s.toFixed(2)).join(", ")}`);
  const label = `${name} score of every head, by layer: ${byLayer.join("; ")}`;
  const viewBox = `0 0 ${width} ${height}`;
  const root = svg("svg", { class: "real-strip", width, height, viewBox, role: "img", "aria-label": label });
  svg("rect", { class: "real-strip__bg", width, height }, root);
  scores.forEach((row, l) =>
    row.forEach((s, k) => {
      const opacity = Math.max(0.04, Math.min(1, s)).toFixed(2);
      const at = { x: k * cell + 0.5, y: l * cell + 0.5, width: cell - 1, height: cell - 1 };
      svg("rect", { class: "real-strip__cell", ...at, "fill-opacity": opacity }, root);
    }),
  );
  if (best) {
    const at = { x: r1(best.head * cell + 0.5), y: r1(best.layer * cell + 0.5), width: cell - 1, height: cell - 1 };
    svg("rect", { class: "real-strip__best", ...at }, root);
  }
  return root;
}

/** The relations of `data` that have a best head in this sentence: `{ name, layer, head, score }` (0-based). */
export function bestHeads(data) {
  return data.relations
    .filter((r) => r.best && r.best.score !== null && r.targets?.length)
    .map((r) => ({ name: r.name, layer: r.best.layer, head: r.best.head, score: r.best.score }));
}

/** The best head of the relation it tracks most clearly (the highest score), or null when none has pairs. */
export function strongestHead(data) {
  return bestHeads(data).reduce((top, b) => (top === null || b.score > top.score ? b : top), null);
}
