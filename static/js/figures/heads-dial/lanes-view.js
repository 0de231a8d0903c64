// Figure 1's lanes: one small multiple per head, in one SVG. Each lane is headed by the head's key and name,
// three small bars (its score on each relation) and its verdict in words; under them the sentence with that
// head's arcs. An arc is coloured by the relation whose target pair it is (two strokes when two relations
// share the pair), neutral grey when it serves none; under the ink, every target pair is a faint ghost arc in
// its relation's colour, so a head's hits and misses both show. Chips, hover and focus only restyle
// (`emphasiseLanes`).

import { arcOpacity, arcWidth, drawToken, MIN_WEIGHT } from "../../lib/arcs.js";
import { dashFor, headColour, isDark, markerPath, relationColour, relationDash } from "../../lib/colours.js";
import { measure } from "../../lib/measure.js";
import { relationInfo } from "../../lib/relations.js";
import { r1, svg, svgText } from "../../lib/svg.js";
import { headScores } from "./verdict.js";
import { plural, tokenLabel } from "./words.js";

export const FADED_LANE = 0.2; // opacity of the other lanes when a chip isolates one
const GHOST_OPACITY = { wide: 0.2, compact: 0.13 }; // faint: a wanted pair is a hint, the ink is the head
const DARK_GHOST = 1.6; // on a dark page a faint stroke needs more opacity to show as much

/** The relations whose target pair (i, j) is, by pair: "i,j" -> [name, ...] in the answer's order. */
export function pairRelations(data) {
  const pairs = new Map();
  for (const r of data.relations) {
    for (const [i, j] of r.targets) {
      const key = `${i},${j}`;
      if (!pairs.has(key)) pairs.set(key, []);
      pairs.get(key).push(r.name);
    }
  }
  return pairs;
}

/** A stroke in relation `name`'s colour and dash (a dotted one with round caps). */
function relationStroke(name, width) {
  return {
    stroke: relationColour(name),
    "stroke-width": r1(width),
    "stroke-dasharray": relationDash(name, width),
    "stroke-linecap": name === "position" ? "round" : "butt",
  };
}

/**
 * Draw the answer `data` as lanes laid out by `layout` (lanes-layout.js) into `container`, with each head's
 * verdict from `verdicts`; `bindToken(el, i)` makes word i's element answer to pointer and focus (the first
 * lane's words are also keyboard stops). Returns what `emphasiseLanes` restyles.
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
  const scores = headScores(data, k);
  const spoken = scores.map((s) => `${s.relation} ${s.score.toFixed(2)}`).join(", ");
  // The outer group takes the chip's fade and the morph's transform; the inner one places the lane.
  const outer = svg(
    "g",
    {
      class: "lane arcs__head",
      "data-head": k,
      "data-verdict": verdict.kind,
      stroke: headColour(k),
      role: "group",
      "aria-label": `Head ${k + 1} ${verdict.texts[0]}${spoken ? ` (scores: ${spoken})` : ""}`,
    },
    root,
  );
  const g = svg("g", { transform: `translate(${at.x} ${at.y})` }, outer);
  svg("rect", { class: "lane__bg", x: 0, y: 0, width: laneW, height: lane.height, rx: 6, stroke: "none" }, g);
  drawHeader(g, { k, laneW, compact, font, verdict, scores });

  // Ghosts: every target pair of every relation, faint and wide, under the ink.
  const ghosts = svg("g", { class: "lane__ghosts", fill: "none", "aria-hidden": "true" }, g);
  for (const [key, names] of pairs) {
    const [i, j] = key.split(",").map(Number);
    const d = lane.path(i, j);
    names.forEach((name, idx) => {
      const wide = (compact ? 5 : 7) - idx * 2;
      const el = svg(
        "path",
        {
          class: "lane__ghost",
          d,
          ...relationStroke(name, wide),
          opacity: r1(GHOST_OPACITY[compact ? "compact" : "wide"] * (isDark() ? DARK_GHOST : 1) * 100) / 100,
          "data-query": i,
          "data-key": j,
          "data-relation": name,
        },
        ghosts,
      );
      drawn.ghosts.push({ el, i });
    });
  }

  // Ink: the head's own arcs, the weakest first so the strongest lie on top; grey ones under coloured ones.
  const ink = svg("g", { class: "lane__ink", fill: "none", "aria-hidden": "true" }, g);
  const list = [];
  const row = data.weights[k];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (row[i][j] >= MIN_WEIGHT) list.push({ i, j, w: row[i][j] });
  }
  const rank = (a) => (pairs.has(`${a.i},${a.j}`) ? 1 : 0);
  list.sort((a, b) => rank(a) - rank(b) || a.w - b.w);
  for (const { i, j, w } of list) {
    const names = pairs.get(`${i},${j}`) ?? [];
    const width = arcWidth(w, lane.strokeScale);
    const base = arcOpacity(w);
    const attrs = { d: lane.path(i, j), "data-head": k, "data-query": i, "data-key": j, "data-weight": w.toFixed(3) };
    const strokes = names.length
      ? names.map((name, idx) => {
          // A shared pair: the first relation solid underneath, the second in its own dash on top.
          const solid = idx === 0 && names.length > 1 ? { "stroke-dasharray": null, "stroke-linecap": "butt" } : {};
          return { ...relationStroke(name, width), ...solid };
        })
      : [{ stroke: relationColour(null), "stroke-width": r1(width) }];
    const els = strokes.map((stroke, idx) =>
      svg(
        "path",
        {
          class: idx ? "arc arc--second" : "arc",
          ...attrs,
          ...stroke,
          "data-relations": names.join(" ") || "none",
          opacity: base.toFixed(3),
        },
        ink,
      ),
    );
    drawn.arcs.push({ els, i, base });
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

/** The lane's header: key and name, three bars (the head's relation scores) and the verdict in words. */
function drawHeader(g, { k, laneW, compact, font, verdict, scores }) {
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

  // Three bars, right-aligned: each relation's score, in its colour.
  const barW = Math.max(20, Math.min(compact ? 36 : 64, laneW - 110)); // clear of the head's name
  const barH = compact ? 4 : 5;
  const x0 = laneW - barW - 8;
  scores.forEach((s, idx) => {
    const by = 5 + idx * (barH + 2);
    const bar = svg("g", { class: "lane__bar", "data-relation": s.relation, stroke: "none" }, head);
    svgText("title", `${relationInfo(s.relation).label}: ${s.score.toFixed(2)}`, {}, bar);
    svg("rect", { class: "bar__track", x: x0, y: by, width: barW, height: barH, rx: 1 }, bar);
    const fill = { x: x0, y: by, width: r1(Math.max(0.5, barW * Math.min(1, s.score))), height: barH, rx: 1 };
    svg("rect", { ...fill, fill: relationColour(s.relation) }, bar);
  });

  const size = compact ? 11 : 12;
  const room = laneW - 16;
  const text = verdict.texts.find((t) => measure(t, `600 ${size}px ${font}`) <= room) ?? verdict.texts.at(-1);
  const single = verdict.kind === "serves" ? verdict.relations[0] : null;
  svgText(
    "text",
    text,
    {
      class: `lane__verdict lane__verdict--${verdict.kind}`,
      x: 8,
      y: y + (compact ? 18 : 20),
      "font-size": size,
      stroke: "none",
      ...(single ? { fill: relationColour(single) } : {}),
    },
    head,
  );
}

/**
 * Restyle the lanes (attributes only): with head `isolated` (0-based, or null) the other lanes fade; with word
 * `focus` (or null) only that word's arcs and target pairs stay, in every lane.
 */
export function emphasiseLanes(drawn, isolated, focus) {
  for (const lane of drawn.lanes) {
    lane.el.setAttribute("opacity", isolated !== null && lane.k !== isolated ? String(FADED_LANE) : "1");
  }
  for (const arc of drawn.arcs) {
    const o = focus !== null && arc.i !== focus ? "0" : arc.base.toFixed(3);
    for (const el of arc.els) el.setAttribute("opacity", o);
  }
  for (const ghost of drawn.ghosts) {
    ghost.el.setAttribute("visibility", focus !== null && ghost.i !== focus ? "hidden" : "visible");
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
