// Figure 11's relations: for each relation of figure 1, the head of the 72 that scores best in the reader's
// sentence as a button that opens it, its score, and a strip of every head's score; folded under them, each
// best head's score in words, against the bar and with the other version (`relationVerdicts`). Every score is on the
// weights drawn: with [CLS] and [SEP] shown, the server's `scores_with_markers` (a share of a word's whole
// row); with them hidden, its `scores` (the words alone, rows renormalised). The other version is given in
// brackets and named. A head is said to track a relation only when its drawn score reaches TRACKS_AT.

import { relationInfo, relationItem } from "../../lib/relations.js";
import { r1, svg } from "../../lib/svg.js";
import { headSwatch } from "../../lib/swatch.js";

const PAIRS_SHOWN = 6; // the relation's word pairs written out; the rest are counted (all in the tooltip)

/**
 * The score a head needs, on the weights drawn, before the page says it "tracks" a relation: half of the
 * weight its words give lands on their partners. Below it the page names the best head as the closest any
 * head comes, with its score.
 */
export const TRACKS_AT = 0.5;

const f2 = (x) => x.toFixed(2);

/** `relation`'s scores as drawn (`hide`: [CLS] and [SEP] hidden), and the other version: `{ scores, best,
 *  other }`, `other` the other version's [layer][head]; null when the sentence has no pair for it. */
export function drawnFit(relation, hide) {
  const scores = hide ? relation.scores : relation.scores_with_markers;
  const best = hide ? relation.best : relation.best_with_markers;
  const other = hide ? relation.scores_with_markers : relation.scores;
  if (!scores || !best || best.score === null || !relation.targets?.length) return null;
  return { scores, best, other };
}

/** A score to two decimals, or to as many more as tell a score under TRACKS_AT from it ("0.498", never a
 *  "0.50" said to fall short of 0.50). */
export function scoreText(score) {
  let digits = 2;
  while (digits < 6 && score < TRACKS_AT && score.toFixed(digits) === TRACKS_AT.toFixed(digits)) digits++;
  return score.toFixed(digits);
}

/** "0.14 of its weight" (markers drawn) or "0.44 of what it gives the words" (markers hidden). */
export const drawnShare = (score, hide) =>
  `${scoreText(score)} ${hide ? "of what it gives the words" : "of its weight"}`;

/** The other version of a score, named: what the reader would see with the markers' checkbox flipped. */
export const otherShare = (score, hide) =>
  hide
    ? `${f2(score)} of its whole row, [CLS] and [SEP] included`
    : `${f2(score)} of what it gives the words, leaving out [CLS] and [SEP]`;

/** One relation's best head in words: `{ name, layer, head, score, other, tracks }` (0-based), or null. */
function bestOf(relation, hide) {
  const fit = drawnFit(relation, hide);
  if (!fit) return null;
  const { layer, head, score } = fit.best;
  const other = fit.other?.[layer]?.[head] ?? null;
  return { name: relation.name, layer, head, score, other, tracks: score >= TRACKS_AT };
}

/** "0.14 of its weight on the partners (0.44 of what it gives the words, leaving out [CLS] and [SEP])". */
export function scorePhrase(best, hide) {
  const other = best.other === null ? "" : ` (${otherShare(best.other, hide)})`;
  return `${drawnShare(best.score, hide)} on the partners${other}`;
}

/** The list items of `data.relations` as drawn (`hide`); a best-head button carries data-layer, data-head. */
export function relationItems(data, hide = false) {
  return data.relations.map((relation) => {
    const info = relationInfo(relation.name);
    const li = relationItem(relation.name);
    const result = document.createElement("div");
    result.className = "relation__result";
    const best = bestOf(relation, hide);
    if (!best) {
      result.classList.add("relation__result--none");
      result.textContent = "No such pair in this sentence.";
      li.appendChild(result);
      return li;
    }
    const at = `layer ${best.layer + 1}, head ${best.head + 1}`;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button real-best";
    button.dataset.layer = String(best.layer);
    button.dataset.head = String(best.head);
    button.append(headSwatch(best.head), best.tracks ? `${at} ${info.does} here` : `${at} comes closest`);
    const score = document.createElement("span");
    score.className = "relation__score";
    score.textContent = scoreText(best.score);
    result.append(scoreStrip(relation, info.label, hide), score, button);
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

/**
 * Each relation's best head in a sentence, for the fold under the list (the list shows the score and the
 * button; this says it with the other version in brackets and against the bar): a <p class="relation__verdict"
 * data-relation> per relation that has pairs.
 */
export function relationVerdicts(data, hide = false) {
  return data.relations.flatMap((relation) => {
    const best = bestOf(relation, hide);
    if (!best) return [];
    const info = relationInfo(relation.name);
    const at = `layer ${best.layer + 1}, head ${best.head + 1}`;
    const bar = `the ${f2(TRACKS_AT)} that tracking takes`;
    const verdict = document.createElement("p");
    verdict.className = "relation__verdict";
    verdict.dataset.relation = relation.name;
    verdict.textContent = best.tracks
      ? `${info.label}: ${at} puts ${scorePhrase(best, hide)}, at least ${bar}.`
      : `${info.label}: no head ${info.does} here; the closest, ${at}, puts ${scorePhrase(best, hide)}, ` +
        `short of ${bar}.`;
    return [verdict];
  });
}

/** What a relation's scores are a share of, for the strip's name. */
const stripOf = (hide) =>
  hide ? "on the words alone, [CLS] and [SEP] left out" : "as a share of the whole row, [CLS] and [SEP] included";

/** A relation's drawn score for every head: a cell per head, a row per layer, darker for higher; best outlined. */
function scoreStrip(relation, name, hide) {
  const { scores, best } = drawnFit(relation, hide);
  const cell = 6; // 72 x 36 px: small enough that the figure's SVG export leaves the strips out
  const width = (scores[0]?.length ?? 0) * cell;
  const height = scores.length * cell;
  const byLayer = scores.map((row, l) => `layer ${l + 1}: ${row.map(f2).join(", ")}`);
  const label = `${name} score of every head (${stripOf(hide)}), by layer: ${byLayer.join("; ")}`;
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
  const at = { x: r1(best.head * cell + 0.5), y: r1(best.layer * cell + 0.5), width: cell - 1, height: cell - 1 };
  svg("rect", { class: "real-strip__best", ...at }, root);
  return root;
}

/** The footnote under the relations: what the scores are, on exactly the weights drawn; `dial` is the heads
 *  dial's figure number, whose rules find the pairs. */
export function scoreNote(data, { hide = false, words = false, dial } = {}) {
  const drawn = hide
    ? "on the weights drawn, [CLS] and [SEP] left out and each row spread back to one"
    : "on the weights drawn: a share of the word's whole row, [CLS] and [SEP] included";
  const other = hide
    ? "In brackets, the same share of the whole row with the two markers in it (untick Hide [CLS] and [SEP] " +
      "to draw those weights)."
    : "In brackets, the same with [CLS] and [SEP] left out and each row spread back to one (tick Hide [CLS] " +
      "and [SEP] to draw those weights).";
  const split = !words && splitWords(data);
  const pieces = split
    ? " A word cut into pieces gives the mean of its pieces' rows and receives the sum over its partner's " +
      "pieces (Whole words draws exactly that)."
    : "";
  return (
    `Score: over the sentence's pairs (the same rules as figure ${dial}), the mean weight a word puts on its ` +
    `partner, ${drawn}. ${other}${pieces} A head is said to track a relation only when its score is at ` +
    `least ${f2(TRACKS_AT)}. Each strip has a cell per head, a row per layer; the best is outlined.`
  );
}

/** Whether some word of the answer is cut into more than one piece. */
function splitWords(data) {
  const seen = new Set();
  for (const w of data.word_index) {
    if (w === null || w === undefined) continue;
    if (seen.has(w)) return true;
    seen.add(w);
  }
  return false;
}

/** The relations of `data` that have a best head in this sentence, as drawn (`hide`): `{ name, layer, head,
 *  score, other, tracks }` (0-based). */
export function bestHeads(data, hide = false) {
  return data.relations.map((r) => bestOf(r, hide)).filter(Boolean);
}

/** The best head of the relation it scores highest on (as drawn), or null when no relation has pairs. */
export function strongestHead(data, hide = false) {
  return bestHeads(data, hide).reduce((top, b) => (top === null || b.score > top.score ? b : top), null);
}
