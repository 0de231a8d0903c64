// Figure 1, the heads dial: a lane of arcs per head over a sentence, the relation scores, the capacity curve.
//
// Data flows one way: state (from the URL) -> one fetch of /api/attention -> one full redraw. A head chip, a
// hover or a focus only rewrites attributes (opacity, visibility, aria-pressed); the maths and the verdicts all
// happen on the server. The drawing is a lane per head (lanes-layout.js, lanes-view.js) with each head's verdict
// in words (verdict.js) or, for long sentences and narrow screens, a heatmap per head (heatmaps-view.js); over
// it the story in one line and the key (legend.js), whose relations show their wanted pairs while pointed at or
// focused (relation-focus.js); under it the relation list (relations-list.js) and the capacity curve
// (capacity-curve.js). The caption's "Try:" line is worded from the answers too (try-line.js).

import { ARC_TOKEN_LIMIT, arcsFit } from "../../lib/arcs.js";
import { onSchemeChange } from "../../lib/colours.js";
import { HeadChips } from "../../lib/head-chips.js";
import { headMatrices } from "../../lib/figure-numbers.js";
import { fontFamily } from "../../lib/measure.js";
import { clear } from "../../lib/svg.js";
import { TokenFocus } from "../../lib/token-focus.js";
import { format, parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { CapacityCurve } from "./capacity-curve.js";
import { drawHeatmapsView, showTargets } from "./heatmaps-view.js";
import { lanesLayout } from "./lanes-layout.js";
import { drawLanesView, emphasiseLanes, morphFrom } from "./lanes-view.js";
import { drawLegend } from "./legend.js";
import { RelationFocus } from "./relation-focus.js";
import { drawRelations } from "./relations-list.js";
import { tryLine } from "./try-line.js";
import { story, verdicts } from "./verdict.js";
import { plural } from "./words.js";

const NAME = "heads-dial";
const DEFAULT_HEADS = 3; // also the count where the story has a head per relation
const PREFETCHED_SENTENCES = 50; // sentences whose every head count has been asked for, remembered
// The figure's elements marked data-part: its controls, drawing, relation list and capacity panel.
const PARTS = [
  ..."try sentence heads readout trained chips".split(" "), // the caption's Try: line, the controls
  ..."story legend hint drawing note".split(" "), // the drawing, with its story line and key over it
  ..."relations capacity capacity-text spread capacity-method".split(" "), // the panels under it
];

export class HeadsDial extends Widget {
  constructor(figure, pageData) {
    const validHeads = pageData.validHeads; // the served layer's (app/models/heads.py), never a copy
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: { fallback: pageData.defaultSentence, parse: parse.text(pageData.maxChars ?? 500) },
        heads: { fallback: DEFAULT_HEADS, parse: parse.oneOf(validHeads) },
        head: { fallback: null, parse: parse.integer(1, Math.max(...validHeads)) },
        trained: { fallback: true, parse: parse.boolean, format: format.boolean },
      },
      parts: PARTS,
      staleOn: "drawing",
    });
    this.validHeads = validHeads;
    this.capacity = pageData.capacity ?? null;
    this.curve = new CapacityCurve(
      { box: this.el.capacity, text: this.el.capacityText, spread: this.el.spread, method: this.el.capacityMethod },
      this.capacity,
    );
    if (this.state.head !== null && this.state.head > this.state.heads) this.state.head = null;
    this.focus = new TokenFocus(() => this.applyEmphasis()); // the hovered or focused word
    this.relation = new RelationFocus(() => this.applyEmphasis()); // the relation whose wanted pairs show
    this.chips = new HeadChips(this.el.chips, (k) => this.update({ head: this.state.head === k + 1 ? null : k + 1 }));
    this.lanes = null; // the drawn lanes (lanes-view.js): their groups, arcs, ghosts and words, for restyling
    this.heatmaps = []; // the drawn heatmaps (lib/heatmap.js), each with its head k
    this.prefetched = new Set();
    this.width = 0;
  }

  /** Wire up the controls, draw the capacity curve and ask for the first answer. */
  start() {
    const { sentence, heads, trained } = this.el;
    heads.value = String(this.validHeads.indexOf(this.state.heads));
    trained.checked = this.state.trained;
    this.showDial();

    this.watchSentence(sentence, (text) => this.update({ sentence: text }));
    heads.addEventListener("input", () => this.update({ heads: this.validHeads[Number(heads.value)], head: null }));
    trained.addEventListener("change", () => this.update({ trained: trained.checked }));
    this.figure.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.relation.name !== null) this.relation.escape();
    });

    this.drawCapacity();
    this.width = this.el.drawing.clientWidth;
    new ResizeObserver(() => {
      const width = this.el.drawing.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.resizeFrame);
      this.resizeFrame = requestAnimationFrame(() => {
        if (this.data) this.redraw();
        this.drawCapacity();
      });
    }).observe(this.el.drawing);
    onSchemeChange(() => {
      if (this.data) this.redraw();
      this.drawCapacity();
    });
    this.fetch();
  }

  // ---- state -------------------------------------------------------------------------------------------

  /** Apply a change of state, mirror it in the URL, then either fetch (data changed) or restyle (view changed). */
  update(patch) {
    const before = this.setState(patch);
    this.showDial();
    const dataChanged = ["sentence", "heads", "trained"].some((key) => before[key] !== this.state[key]);
    if (dataChanged) this.fetch();
    else this.applyEmphasis();
  }

  /** The slider's readout, valuetext and the chips' pressed and faded states: cheap, so done on every change. */
  showDial() {
    const h = this.state.heads;
    const d = this.data?.d_model ?? Math.max(...this.validHeads); // every width divides itself
    this.el.heads.setAttribute("aria-valuetext", plural(h, "head"));
    this.el.readout.textContent = `${plural(h, "head")} × ${d / h} wide`;
    this.chips.isolate(this.state.head === null ? null : this.state.head - 1);
    this.curve.highlight(h);
  }

  /** The answer for `heads`: packed (three bytes a weight, a seventh of the JSON at 64 words), or the JSON
   *  form in full float64 precision (`format` "json"), which the export asks for. */
  url(heads = this.state.heads, format = "packed") {
    const { sentence, trained } = this.state;
    const params = new URLSearchParams({ sentence, heads: String(heads), mask: "none", trained: String(trained) });
    return `/api/attention?${params}&format=${format}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask for the answer to the current state (at once when the dial has seen it) and draw it. */
  fetch() {
    this.load(this.url(), (data) => this.show(data));
  }

  show(data) {
    if (this.state.head !== null && this.state.head > data.heads) this.setState({ head: null });
    this.redraw();
    this.showTry();
    this.prefetch();
  }

  /** The caption's "Try:" line, from the answer drawn and the one at the count it suggests (try-line.js). */
  async showTry() {
    const { heads, trained } = this.state;
    const request = this.url();
    const storyHeads = this.validHeads.includes(DEFAULT_HEADS) ? DEFAULT_HEADS : null;
    const count = heads === storyHeads ? 1 : storyHeads;
    let other = null;
    if (trained && count !== null && this.validHeads.includes(count)) {
      other = await this.api.get(this.url(count)).catch(() => null);
    }
    if (this.url() !== request || !this.data) return; // the view moved on meanwhile
    const words = this.pageData.ambiguousWords ?? [];
    const twoSenses = new Set(words.map((w) => w.word));
    const example = words[0]?.word;
    const view = { heads, trained, storyHeads: storyHeads ?? heads, data: this.data, other, example, twoSenses };
    const parts = tryLine(view);
    const line = this.el.try;
    line.replaceChildren(
      ...parts.map((part) => {
        if (typeof part === "string") return part;
        const b = document.createElement("b");
        b.textContent = part.bold;
        return b;
      }),
    );
  }

  /** After an answer, fetch every other head count for this sentence so the dial never waits on the network. */
  prefetch() {
    const key = `${this.state.trained}|${this.state.sentence}`;
    if (this.prefetched.has(key)) return;
    this.prefetched.add(key);
    if (this.prefetched.size > PREFETCHED_SENTENCES) this.prefetched.delete(this.prefetched.values().next().value);
    for (const h of this.validHeads) {
      if (h !== this.state.heads) this.api.get(this.url(h)).catch(() => {});
    }
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Rebuild the figure's drawing from `this.data`: chips, story, key, lanes or heatmaps, relation scores. */
  redraw() {
    performance.mark(`${NAME}:redraw:start`);
    const data = this.data;
    this.focus.reset();
    this.relation.reset();
    this.chips.draw(data.heads);
    const width = this.width || 640; // kept current by the ResizeObserver: reading layout here would force it
    const n = data.tokens.length;
    this.font ??= fontFamily(this.el.drawing); // read once: it forces a style calculation
    const layout = arcsFit(n, width) ? lanesLayout(width, data.tokens, data.heads, this.font) : null;
    // The lanes drawn before, to morph from when only the head count changed.
    const before = this.lanes && this.lanes.heads !== data.heads && layout ? this.lanes.lanes.map((l) => l.box) : null;
    this.lanes = null;
    this.heatmaps = [];
    clear(this.el.drawing);
    const all = verdicts(data);
    const view = { width, font: this.font, verdicts: all, bindToken: (el, i) => this.focus.bind(el, i) };
    if (layout) {
      this.lanes = drawLanesView(this.el.drawing, data, { ...view, layout });
      this.lanes.heads = data.heads;
      morphFrom(this.lanes, before);
    } else {
      this.heatmaps = drawHeatmapsView(this.el.drawing, data, view);
    }
    const mode = layout ? "lanes" : "heatmap";
    this.el.drawing.dataset.mode = mode;
    this.el.story.textContent = story(data, all);
    const bindRelation = (area, name, control) => this.relation.bind(area, name, control);
    const hintId = this.el.hint.id || null;
    drawLegend(this.el.legend, data, mode, { bindRelation, hintId });
    this.el.hint.textContent =
      `Point at or tab to a word for its ${layout ? "arcs" : "row"} alone, a relation for its pairs.`;
    this.el.note.textContent = layout
      ? ""
      : `${n > ARC_TOKEN_LIMIT ? `${n} words are too many for arcs` : "On a narrow screen arcs turn to mush"}, so ` +
        "each head is a grid; darker means more weight.";
    this.el.note.hidden = !this.el.note.textContent;
    drawRelations(this.el.relations, data, { bindRelation, hintId });
    this.showDial();
    this.applyEmphasis();
    performance.measure(`${NAME}:redraw`, `${NAME}:redraw:start`);
    performance.clearMarks(`${NAME}:redraw:start`);
  }

  /** The capacity curve, redrawn to the panel's width, with the current head count marked. */
  drawCapacity() {
    this.curve.draw();
    this.curve.highlight(this.state.heads);
  }

  // ---- emphasis (attributes only) ----------------------------------------------------------------------

  /** Fade the heads that are not isolated, hide the arcs (or dim the rows) of words that are not in focus, and
   *  show the wanted pairs of the relation pointed at or focused, if any. */
  applyEmphasis() {
    const iso = this.state.head === null ? null : this.state.head - 1;
    const focus = this.focus.index;
    const shown = this.relation.name;
    if (this.lanes) emphasiseLanes(this.lanes, iso, focus, shown);
    for (const map of this.heatmaps) {
      map.root.setAttribute("opacity", iso !== null && map.k !== iso ? "0.25" : "1");
      map.focusRow(focus);
      showTargets(map, shown, focus);
    }
    this.focus.mark();
    this.relation.mark();
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new HeadsDial(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  const numbers = (d) => {
    const matrices = headMatrices(d.weights, d.tokens, (k) => `Head ${k + 1} of ${d.heads}`);
    const note = "Attention weights: row = the word attending (query), column = the word attended to (key).";
    return { note, sentence: d.tokens.join(" "), heads: d.heads, trained: d.trained, relations: d.relations, matrices };
  };
  figure.exportData = () => (widget.data ? numbers(widget.data) : null);
  // The files carry every weight in full: the drawing's answer is the packed one, within 1.6e-5 of it.
  figure.exportFullData = async () =>
    widget.data ? numbers(await widget.api.get(widget.url(widget.data.heads, "json"))) : null;
  return widget;
}
