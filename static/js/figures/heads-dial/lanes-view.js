// Figure 1's lanes: one small multiple per head, in one SVG. Each lane is headed by the head's key and name
// and its verdict in words with the score it rests on ("serves meaning · 0.98"); under them the sentence with
// that head's arcs. An arc has one colour: the relation whose pair it joins (when several relations claim the
// pair, the one this head's verdict serves if it is among them, else the first of meaning, grammar, position),
// neutral grey when it joins none; weak arcs are faint (wide lanes) or left out (small lanes), so a head's real
// choices stand out. A relation's wanted pairs ("ghosts") are drawn in every lane but hidden until the reader
// points at or focuses that relation. Chips, hover and focus only restyle (`emphasiseLanes`).

import { arcOpacity, arcWidth, drawToken, MIN_WEIGHT } from "../../lib/arcs.js";
import {
  dashFor,
  headColour,
  isDark,
  markerPath,
  relationColour,
  relationDash,
  RELATION_NAMES,
} from "../../lib/colours.js";
import { r1, svg, svgText } from "../../lib/svg.js";
import { headScores } from "./verdict.js";
import { drawVerdictLine } from "./verdict-line.js";
import { plural, tokenLabel } from "./words.js";

export const FADED_LANE = 0.2; // opacity of the other lanes when a chip isolates one
export const WEAK = 0.1; // an arc lighter than this is no real choice of its head
export const WEAK_OPACITY = 0.12; // ... and is drawn this faint in a wide lane (a small lane leaves it out)
const GHOST_OPACITY = { wide: 0.28, compact: 0.22 }; // faint: a wanted pair is a hint, the ink is the head
const DARK_GHOST = 1.5; // on a dark page a faint stroke needs more opacity to show as much

/** The relations whose target pair (i, j) is, by pair: "i,j" -> [name, ...] in the order meaning, grammar,
 * position. */
export function pairRelations(data) {
  const pairs = new Map();
  const order = (name) => (RELATION_NAMES.includes(name) ? RELATION_NAMES.indexOf(name) : RELATION_NAMES.length);
  for (const r of [...data.relations].sort((a, b) => order(a.name) - order(b.name))) {
    for (const [i, j] of r.targets) {
      const key = `${i},${j}`;
      if (!pairs.has(key)) pairs.set(key, []);
      pairs.get(key).push(r.name);
    }
  }
  return pairs;
}

/** Every target of `pairs` (pairRelations) with one relation that claims it: [{ i, j, relation }], a pair two
 * relations claim once for each, in the relations' order. */
export function pairTargets(pairs) {
  return [...pairs].flatMap(([key, names]) => {
    const [i, j] = key.split(",").map(Number);
    return names.map((relation) => ({ i, j, relation }));
  });
}

/** The one relation an arc on a pair claimed by `names` is drawn in, for a head with verdict `verdict`: the
 * relation the verdict serves when it is among them, else the first claimant; null for no claimant. */
export function arcRelation(names, verdict) {
  if (!names.length) return null;
  const serving = verdict.kind === "serves" || verdict.kind === "shares";
  return (serving && verdict.relations.find((r) => names.includes(r))) || names[0];
}

/** A stroke in relation `name`'s colour and dash (a dotted one with round caps); grey and solid for null. */
export function relationStroke(name, width) {
  return {
    stroke: relationColour(name),
    "stroke-width": r1(width),
    "stroke-dasharray": relationDash(name, width),
    "stroke-linecap": name === "position" ? "round" : "butt",
  };
}

/**
 * Draw the answer `data` as lanes laid out by `layout` (lanes-layout.js) into `container`, with each head's
 * verdict from `verdicts` (verdict.js); `bindToken(el, i)` makes word i's element answer to pointer and focus
 * (the first lane's words are also keyboard stops). Returns what `emphasiseLanes` restyles.
 */
export function drawLanesView(container, data, { layout, font, verdicts, bindToken }) {
  const { tokens, weights } = data;
  const h = weights.length;
  const width = layout.columns * layout.laneW + (layout.columns - 1) * layout.gap;
  const root = svg("svg", {
    class: `lanes${layout.compact ? " lanes--compact" : ""}`,
    width,
    height: layout.height,
    viewBox: `0 0 ${width} ${layout.height}`,
    role: "group",
    "aria-label": `${plural(h, "head")}, a lane each, over ${plural(tokens.length, "word")}.`,
  });
  const pairs = pairRelations(data);
  const drawn = { root, lanes: [], arcs: [], ghosts: [], tokens: [] };
  for (let k = 0; k < h; k++) drawLane(root, drawn, { data, k, layout, font, verdict: verdicts[k], pairs, bindToken });
  container.appendChild(root);
  return drawn;
}

function drawLane(root, drawn, { data, k, layout, font, verdict, pairs, bindToken }) {
  const { tokens, known } = data;
  const { lane, laneW, compact } = layout;
  const n = tokens.length;
  const at = layout.origin(k);
  const spoken = headScores(data, k)
    .map((s) => `${s.relation} ${s.score.toFixed(2)}`)
    .join(", ");
  // The outer group takes the chip's fade and the morph's transform; the inner one places the lane.
  const outer = svg(
    "g",
    {
      class: "lane arcs__head",
      "data-head": k,
      "data-verdict": verdict.kind,
      "data-relations": verdict.relations.join(" "),
      stroke: headColour(k),
      role: "group",
      "aria-label": `Head ${k + 1} ${verdict.texts[0]}${spoken ? ` (scores: ${spoken})` : ""}`,
    },
    root,
  );
  const g = svg("g", { transform: `translate(${at.x} ${at.y})` }, outer);
  svg("rect", { class: "lane__bg", x: 0, y: 0, width: laneW, height: lane.height, rx: 6, stroke: "none" }, g);
  drawHeader(g, { k, laneW, compact, font, verdict });

  // Ghosts: every relation's wanted pairs, faint and wide, hidden until the reader asks for that relation.
  const ghosts = svg("g", { class: "lane__ghosts", fill: "none", "aria-hidden": "true" }, g);
  const ghostOpacity = r1(GHOST_OPACITY[compact ? "compact" : "wide"] * (isDark() ? DARK_GHOST : 1) * 100) / 100;
  for (const { i, j, relation } of pairTargets(pairs)) {
    const el = svg(
      "path",
      {
        class: "lane__ghost",
        d: lane.path(i, j),
        ...relationStroke(relation, compact ? 5 : 7),
        opacity: ghostOpacity,
        visibility: "hidden",
        "data-query": i,
        "data-key": j,
        "data-relation": relation,
      },
      ghosts,
    );
    drawn.ghosts.push({ el, i, relation });
  }

  // Ink: the head's own arcs, the weakest first so the strongest lie on top; grey ones under coloured ones.
  const ink = svg("g", { class: "lane__ink", fill: "none", "aria-hidden": "true" }, g);
  const list = [];
  const row = data.weights[k];
  const least = compact ? WEAK : MIN_WEIGHT;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (row[i][j] >= least) list.push({ i, j, w: row[i][j] });
  }
  const rank = (a) => (a.w < WEAK ? 0 : pairs.has(`${a.i},${a.j}`) ? 2 : 1);
  list.sort((a, b) => rank(a) - rank(b) || a.w - b.w);
  for (const { i, j, w } of list) {
    const names = pairs.get(`${i},${j}`) ?? [];
    const relation = arcRelation(names, verdict);
    const weak = w < WEAK;
    const base = weak ? WEAK_OPACITY : arcOpacity(w);
    const stroke = weak
      ? { stroke: relationColour(relation), "stroke-width": 0.8 }
      : relationStroke(relation, arcWidth(w, lane.strokeScale));
    const el = svg(
      "path",
      {
        class: weak ? "arc arc--weak" : "arc",
        d: lane.path(i, j),
        ...stroke,
        "data-head": k,
        "data-query": i,
        "data-key": j,
        "data-weight": w.toFixed(3),
        "data-relation": relation ?? "none",
        "data-relations": names.join(" ") || "none",
        opacity: base.toFixed(3),
      },
      ink,
    );
    drawn.arcs.push({ el, i, base });
  }

  const words = svg("g", { class: "lane__words" }, g);
  if (k > 0) words.setAttribute("aria-hidden", "true");
  for (let i = 0; i < n; i++) {
    const attrs = {
      class: known[i] ? "token" : "token token--unknown",
      "data-index": i,
      "data-known": String(known[i]),
    };
    if (k === 0) Object.assign(attrs, { tabindex: 0, role: "img", "aria-label": tokenLabel(data, i) });
    const { g: word } = drawToken(words, {
      word: tokens[i],
      x: lane.x(i),
      y: lane.yMid,
      fontSize: layout.fontSize,
      font,
      maxWidth: compact ? lane.slot : lane.slot - 4,
      height: lane.boxH,
      attrs,
      title: known[i] ? null : "not in the lexicon",
    });
    bindToken(word, i);
    drawn.tokens.push({ el: word, i });
  }
  drawn.lanes.push({ el: outer, k, box: { x: at.x, y: at.y, w: laneW } });
}

/** The lane's header: the head's key and name, and under them its verdict with its scores, fitted to the lane. */
function drawHeader(g, { k, laneW, compact, font, verdict }) {
  const head = svg("g", { class: "lane__header", "aria-hidden": "true" }, g);
  const nameSize = compact ? 12 : 13;
  const y = 15;
  svg(
    "path",
    { d: `M8 ${y - 4}h16`, stroke: headColour(k), "stroke-width": 2.5, "stroke-dasharray": dashFor(k, 2.5) },
    head,
  );
  svg("path", { d: markerPath(k, 16, y - 4, 3.5), fill: headColour(k), stroke: "none" }, head);
  svgText("text", `Head ${k + 1}`, { class: "lane__name", x: 30, y, "font-size": nameSize, stroke: "none" }, head);

  const size = compact ? 11 : 12;
  const at = { x: 8, y: y + (compact ? 18 : 20), size, room: laneW - 14, font, attrs: { stroke: "none" } };
  drawVerdictLine(head, verdict, at);
}

/**
 * Restyle the lanes (attributes only): with head `isolated` (0-based, or null) the other lanes fade; with word
 * `focus` (or null) only that word's arcs stay, in every lane; with relation `shown` (or null) that relation's
 * wanted pairs appear (only the focused word's, when one is).
 */
export function emphasiseLanes(drawn, isolated, focus, shown = null) {
  for (const lane of drawn.lanes) {
    lane.el.setAttribute("opacity", isolated !== null && lane.k !== isolated ? String(FADED_LANE) : "1");
  }
  for (const arc of drawn.arcs) {
    arc.el.setAttribute("opacity", focus !== null && arc.i !== focus ? "0" : arc.base.toFixed(3));
  }
  for (const ghost of drawn.ghosts) {
    const visible = ghost.relation === shown && (focus === null || ghost.i === focus);
    ghost.el.setAttribute("visibility", visible ? "visible" : "hidden");
  }
  for (const t of drawn.tokens) t.el.classList.toggle("is-focus", t.i === focus);
}

const calm = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

/**
 * Morph from the lanes of the previous head count (`before`: their boxes {x, y, w}) to the new ones: each new
 * lane starts on the old lane it came out of (head k of h out of head ⌊k·h'/h⌋ of h'), at that lane's scale, and
 * slides to its place in about 300 ms (the CSS transition). Nothing moves under prefers-reduced-motion.
 */
export function morphFrom(drawn, before) {
  if (!before?.length || calm()) return;
  const lanes = drawn.lanes;
  for (const lane of lanes) {
    const from = before[Math.floor((lane.k * before.length) / lanes.length)];
    const s = from.w / lane.box.w;
    lane.el.style.transition = "none";
    lane.el.style.transform =
      `translate(${r1(from.x - s * lane.box.x)}px, ${r1(from.y - s * lane.box.y)}px) scale(${s.toFixed(3)})`;
  }
  getComputedStyle(lanes[0].el).transform; // commit the starting place before the transition is restored
  requestAnimationFrame(() => {
    for (const lane of lanes) {
      lane.el.style.transition = "";
      lane.el.style.transform = "";
    }
  });
}
