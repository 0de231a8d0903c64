// Figure 5's drawing: the English in one row and the French in another (two columns on a narrow screen), laid
// out by arc-rows.js, and the arcs of the French word shown: up into the English in cross mode, back over
// the French already written in self mode, never forward.
//
// Built once per answer and width, each (mode, step) group of arcs the first time it is shown. Stepping, the
// mode, the chips and a hover only rewrite attributes of what was built.

import { drawToken } from "../../lib/arcs.js";
import { twoRowLayout, weighArcs } from "./arc-rows.js";
import { headColour } from "../../lib/colours.js";
import { clear, r1, setAttrs, svg, svgText } from "../../lib/svg.js";
import { attentionRow, MODES, START, weightText, wordLabel } from "./view.js";

const TRAIL_OPACITY = 0.2; // the arcs of the words written before the shown one
const TITLES = { rows: ["English", "French, written so far"], columns: ["English", "French"] };

export class ArcsView {
  /** Draws into `el`; `focus` (lib/token-focus.js) hears of the French word under the pointer or keyboard. */
  constructor(el, focus) {
    this.el = el;
    this.focus = focus;
    this.root = null;
    this.groups = { cross: [], self: [] };
  }

  /** The two rows (or columns) of words, their weight labels and an empty layer for the arcs. */
  build(data, width, font) {
    const src = data.source;
    const tgt = [START, ...data.target];
    const layout = twoRowLayout(width, src, tgt, font);
    this.layout = layout;
    this.data = data;

    const root = svg("svg", {
      class: `gen-svg gen-svg--${layout.kind}`,
      width: r1(width),
      height: r1(layout.height),
      viewBox: `0 0 ${r1(width)} ${r1(layout.height)}`,
      role: "group",
      "aria-label":
        `English: ${src.join(" ")}. French: ${data.target.length} words. ` +
        "Focus a French word to hear where it looked.",
    });
    layout.titles.forEach(({ x, y, anchor }, side) => {
      const text = TITLES[layout.kind][side];
      svgText("text", text, { class: "gen-axis", x, y, "text-anchor": anchor, "aria-hidden": "true" }, root);
    });

    // The arcs layer; each (mode, step) group of arcs is built the first time it is shown (see `group`).
    this.arcsLayer = svg("g", { class: "gen-arcs", fill: "none", "aria-hidden": "true" }, root);
    this.groups = { cross: data.steps.map(() => null), self: data.steps.map(() => null) };

    const word = (parent, pos, text, index, side) =>
      drawToken(parent, {
        word: text,
        ...pos,
        fontSize: layout.fontSize,
        font,
        height: layout.boxH,
        attrs: { class: `token gen-token gen-token--${side}`, "data-index": index },
        tint: "gen-token__tint",
      });
    const srcLayer = svg("g", { class: "gen-row gen-row--source", "aria-hidden": "true" }, root);
    this.srcTokens = src.map((text, j) => word(srcLayer, layout.key(j), text, j, "source"));
    const tgtLayer = svg("g", { class: "gen-row gen-row--target" }, root);
    this.tgtTokens = tgt.map((text, p) => word(tgtLayer, layout.query(p), text, p, "target"));
    this.tgtTokens[0].g.classList.add("gen-token--start");
    this.tgtTokens[0].g.setAttribute("aria-hidden", "true");
    this.tgtTokens.forEach((tok, p) => p > 0 && this.focus.bind(tok.g, p)); // the word in focus stays so

    const weights = svg("g", { class: "gen-weights", "aria-hidden": "true" }, root);
    const label = (place, key) => svgText("text", "", { class: "gen-weight", ...place, "data-key": key }, weights);
    this.srcWeights = this.srcTokens.map((tok, j) => label(layout.keyValue(tok.box), j));
    this.tgtWeights = this.tgtTokens.map((tok, p) => label(layout.queryValue(tok.box), p));

    clear(this.el);
    this.el.appendChild(root);
    this.root = root;
  }

  /** The arcs of step t in `mode` (from French slot t + 1 to every English word, or back to slots 0..t):
   * built once, on first use, so a long translation does not build thousands of arcs nobody looks at. */
  group(mode, t) {
    const existing = this.groups[mode][t];
    if (existing) return existing;
    const q = t + 1; // the French slot this step writes
    const g = svg("g", { class: "gen-arcs__group", "data-mode": mode, "data-step": t }, this.arcsLayer);
    const keys = mode === "cross" ? this.data.source.length : q; // self: the start token and slots 1..t
    const paths = [];
    for (let key = 0; key < keys; key++) {
      const d = mode === "cross" ? this.layout.across(q, key) : this.layout.back(q, key);
      paths.push(svg("path", { class: "gen-arc", d, "data-query": q, "data-key": key }, g));
    }
    const group = { g, paths };
    this.groups[mode][t] = group;
    return group;
  }

  /**
   * Show the view `state` with French slot `shown` (or null) in focus; `focused` when the reader chose it
   * (hover, keyboard) rather than it being the word just written.
   */
  render(state, shown, focused) {
    const data = this.data;
    const s = state.step;
    const mode = state.mode;
    const k = state.head === null ? null : state.head - 1;
    const colour = k === null ? null : headColour(k);
    this.root.dataset.mode = mode;

    // The English words no step read, marked once the translation is written (the answer's `unread`).
    const done = s >= data.steps.length;
    this.srcTokens.forEach((tok, j) => tok.g.classList.toggle("is-unread", done && data.unread?.includes(j)));

    // The French written so far.
    this.tgtTokens.forEach((tok, p) => {
      tok.g.classList.toggle("is-focus", p === shown);
      if (p === 0) return;
      const written = p <= s;
      tok.g.dataset.written = String(written);
      tok.g.classList.toggle("is-new", written && p === s);
      if (written) {
        setAttrs(tok.g, { visibility: null, tabindex: 0, role: "img", "aria-hidden": null });
        tok.g.setAttribute("aria-label", wordLabel(data, state, p));
      } else {
        setAttrs(tok.g, { visibility: "hidden", tabindex: null, role: null, "aria-hidden": "true" });
      }
    });

    // The arcs: the shown word's in full; in cross mode with no word under focus, the earlier words' as a
    // faint trail, so the alignment built so far stays in view. Each visible group is restyled for this view.
    const trail = !focused && mode === "cross";
    for (const m of MODES) {
      this.groups[m].forEach((built, t) => {
        const q = t + 1;
        const current = m === mode && q === shown;
        const past = m === mode && trail && shown !== null && q < shown;
        if (!built && !current && !past) return;
        const group = built ?? this.group(m, t);
        group.g.setAttribute("display", current || past ? "inline" : "none");
        group.g.classList.toggle("is-current", current);
        group.g.classList.toggle("is-trail", past);
        setAttrs(group.g, { opacity: past ? TRAIL_OPACITY : null, stroke: colour });
        if (current || past) weighArcs(group.paths, attentionRow(data, state, m, q), k, this.layout.stroke);
      });
    }

    // Each key's weight, as a number beside it and as a tint of its box.
    const row = shown === null ? null : attentionRow(data, state, mode, shown);
    const keyWeights = (tokens, labels, active) =>
      tokens.forEach((tok, idx) => {
        const w = active && row && idx < row.length ? row[idx] : null;
        labels[idx].textContent = w === null ? "" : weightText(w);
        setAttrs(tok.tint, { "fill-opacity": w === null ? 0 : (0.3 * w).toFixed(3), fill: colour });
      });
    keyWeights(this.srcTokens, this.srcWeights, mode === "cross");
    keyWeights(this.tgtTokens, this.tgtWeights, mode === "self");
  }
}
