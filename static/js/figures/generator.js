// Figure 4, the generator: a small English-to-French translator (trained here) writes its French one word at
// a time. In cross mode each new word's arcs reach up into the English; in self mode they reach back over the
// French already written, never forward. Layer and head chips choose which attention is drawn.
//
// Data flows one way: state (from the URL) -> one POST of /api/translate -> one build of the drawing (each
// word's arcs built once, when first shown). Playing, stepping, the Attention mode, the chips and a hover
// only rewrite attributes of what was built; the maths is all the server's.

import { dashFor, headColour, isDark, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { isAbort, JsonFetcher } from "../lib/fetcher.js";
import { fitLabel, measure } from "../lib/heatmap.js";
import { MemoPoster } from "../lib/memo-post.js";
import { clear, r1, setAttrs, svg, svgText } from "../lib/svg.js";
import { headSwatch } from "../lib/swatch.js";
import { parse, readState, writeState } from "../lib/url-state.js";

const STEP_MS = 400; // one French word every 0.4 s
const MIN_WEIGHT = 0.02; // arcs below this weight are not drawn (the numbers still show them)
const MIN_SLOT = 58; // px per word below which the two rows turn into two columns
const START = "⟨s⟩"; // the start token the decoder begins from (decoder position 0)
const MODES = ["cross", "self"];
const TRAIL_OPACITY = 0.2; // the arcs of the words written before the shown one
const MAX_STEP = 999; // the URL's step is clamped to the translation's length once it is known

const clamp = (lo, hi, x) => Math.max(lo, Math.min(hi, x));
const quote = (t) => `“${t}”`;
const capitalise = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const spoken = (t) => (t === START ? "the start token" : t);

/** A weight as the figure writes it: two decimals, "0" only for an exact zero, "<0.01" for a trace. */
export function weightText(w) {
  if (w === 0) return "0";
  if (w < 0.005) return "<0.01";
  return w.toFixed(2);
}

/** A share as a percentage with one decimal (99.2%). */
const pct = (x) => `${(x * 100).toFixed(1)}%`;

/** The mean of the rows `heads` ([head][key]), key by key. */
export function averageRows(heads) {
  return heads[0].map((_, j) => heads.reduce((sum, row) => sum + row[j], 0) / heads.length);
}

// ---- layouts: where the words sit and how an arc runs ----------------------------------------------------

/** English on top, French below; cross arcs run up between the rows, self arcs rise from the French row. */
function rowsLayout(width, src, tgt, font) {
  const count = Math.max(src.length, tgt.length);
  const slot = width / count;
  const longest = Math.max(...[...src, ...tgt].map((w) => measure(w, `16px ${font}`)));
  const fontSize = r1(clamp(11, 16, Math.min(slot / 5.2, (16 * (slot - 12)) / longest)));
  const boxH = Math.round(fontSize * 1.5 + 4);
  const gap = clamp(130, 210, width * 0.2);
  const ySrc = 28 + boxH / 2;
  const yTgt = ySrc + gap;
  const height = yTgt + boxH / 2 + 44;
  const xs = (j) => (width - src.length * slot) / 2 + slot * (j + 0.5);
  const xt = (p) => (width - tgt.length * slot) / 2 + slot * (p + 0.5);
  const srcEdge = ySrc + boxH / 2;
  const tgtEdge = yTgt - boxH / 2;
  // Half the width of each French word's box, so every arc leaves and lands within its word.
  const fontSpec = `${fontSize}px ${font}`;
  const half = tgt.map((w) => (measure(fitLabel(w, slot - 8, fontSpec), fontSpec) + 10) / 2);
  const spread = (q, i, n) => (n > 1 ? (i / (n - 1) - 0.5) * Math.min(slot * 0.3, 22, 2 * half[q] - 6) : 0);
  const room = tgtEdge - srcEdge - 14; // self arcs stay under the English row
  const nudge = (p) => Math.min(slot * 0.1, 6, half[p] - 3);
  return {
    kind: "rows",
    stroke: clamp(0.6, 1, slot / 120), // thinner strokes when the words sit close together
    height,
    fontSize,
    boxH,
    titles: [
      { text: "English", x: 0, y: 11, anchor: "start" },
      { text: "French, written so far", x: 0, y: height - 3, anchor: "start" },
    ],
    src: (j) => ({ x: xs(j), y: ySrc, anchor: "middle", maxWidth: slot - 8 }),
    tgt: (p) => ({ x: xt(p), y: yTgt, anchor: "middle", maxWidth: slot - 8 }),
    crossPath(q, j) {
      const x1 = r1(xt(q) + spread(q, j, src.length));
      const x2 = r1(xs(j));
      const ym = r1((tgtEdge + srcEdge) / 2);
      return `M${x1} ${r1(tgtEdge)}C${x1} ${ym} ${x2} ${ym} ${x2} ${r1(srcEdge)}`;
    },
    selfPath(q, p) {
      // Out of the word's left half: arcs to the farthest words leave nearest its middle, so they nest.
      const x1 = r1(xt(q) - (half[q] - 3) * (q > 1 ? 0.2 + (0.6 * p) / (q - 1) : 0.5));
      const x2 = r1(xt(p) + nudge(p));
      const rise = room * (0.3 + (0.7 * (q - p - 1)) / Math.max(1, tgt.length - 2));
      const c = r1(tgtEdge - rise / 0.75);
      return `M${x1} ${r1(tgtEdge)}C${x1} ${c} ${x2} ${c} ${x2} ${r1(tgtEdge)}`;
    },
    srcWeight: (j, box) => ({ x: r1(box.x + box.w / 2), y: r1(box.y - 6), "text-anchor": "middle" }),
    tgtWeight: (p, box) => ({ x: r1(box.x + box.w / 2), y: r1(box.y + box.h + 14), "text-anchor": "middle" }),
  };
}

/** English in a column on the left, French on the right (phones, long sentences); arcs run between them. */
function columnsLayout(width, src, tgt, font) {
  const fontSize = 14;
  const boxH = 25;
  const rowH = 30;
  const valueW = 38; // room for a weight beside each word
  const longest = (words) => Math.max(...words.map((w) => measure(w, `${fontSize}px ${font}`))) + 12;
  // Each column as wide as its longest word, within limits that leave the arcs at least a fifth of the width.
  let srcW = Math.min(width * 0.34, longest(src));
  let tgtW = Math.min(width * 0.38, longest(tgt));
  const room = width - 2 * valueW - width * 0.2;
  if (srcW + tgtW > room) {
    const scale = room / (srcW + tgtW);
    srcW *= scale;
    tgtW *= scale;
  }
  const xsR = valueW + srcW; // right edge of the English words
  const xtL = width - valueW - tgtW; // left edge of the French words
  const top = 24;
  const y = (i) => top + rowH * (i + 0.5);
  const height = top + rowH * Math.max(src.length, tgt.length) + 4;
  const gap = xtL - xsR;
  const fan = Math.min(rowH * 0.3, 8);
  const spread = (i, n) => (n > 1 ? (i / (n - 1) - 0.5) * fan : 0);
  return {
    kind: "columns",
    stroke: 0.6,
    height,
    fontSize,
    boxH,
    titles: [
      { text: "English", x: xsR, y: 11, anchor: "end" },
      { text: "French", x: xtL, y: 11, anchor: "start" },
    ],
    src: (j) => ({ x: xsR - 5, y: y(j), anchor: "end", maxWidth: srcW - 10 }),
    tgt: (p) => ({ x: xtL + 5, y: y(p), anchor: "start", maxWidth: tgtW - 10 }),
    crossPath(q, j) {
      const y1 = r1(y(q) + spread(j, src.length));
      const y2 = r1(y(j));
      const xm = r1((xtL + xsR) / 2);
      return `M${r1(xtL)} ${y1}C${xm} ${y1} ${xm} ${y2} ${r1(xsR)} ${y2}`;
    },
    selfPath(q, p) {
      const y1 = r1(y(q) - 3 - (q > 1 ? ((q - 1 - p) / (q - 1)) * 5 : 0));
      const y2 = r1(y(p) + 3);
      const rise = gap * 0.85 * (0.3 + (0.7 * (q - p - 1)) / Math.max(1, tgt.length - 2));
      const c = r1(xtL - rise / 0.75);
      return `M${r1(xtL)} ${y1}C${c} ${y1} ${c} ${y2} ${r1(xtL)} ${y2}`;
    },
    srcWeight: (j, box) => ({ x: r1(box.x - 4), y: r1(box.y + box.h / 2), "text-anchor": "end" }),
    tgtWeight: (p, box) => ({ x: r1(box.x + box.w + 4), y: r1(box.y + box.h / 2), "text-anchor": "start" }),
  };
}

function makeLayout(width, src, tgt, font) {
  const slot = width / Math.max(src.length, tgt.length);
  return slot >= MIN_SLOT ? rowsLayout(width, src, tgt, font) : columnsLayout(width, src, tgt, font);
}

// ---- the widget ------------------------------------------------------------------------------------------

export class Generator {
  constructor(figure, pageData, fetcher = new JsonFetcher()) {
    this.figure = figure;
    this.fetcher = fetcher;
    this.poster = new MemoPoster("/api/translate");
    this.maxChars = pageData.maxChars ?? 500;
    this.schema = {
      sentence: {
        param: "gen_sentence",
        fallback: pageData.defaultSentence ?? "the river bank was steep",
        parse: parse.text(this.maxChars),
      },
      mode: { param: "gen_mode", fallback: "cross", parse: (t) => (MODES.includes(t) ? t : undefined) },
      step: { param: "gen_step", fallback: 0, parse: parse.integer(0, MAX_STEP) },
      layer: { param: "gen_layer", fallback: null, parse: parse.integer(1, 64) }, // null: the last layer
      head: { param: "gen_head", fallback: null, parse: parse.integer(1, 64) }, // null: average of the heads
    };
    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      sentence: part("sentence"),
      generate: part("generate"),
      pause: part("pause"),
      step: part("step"),
      progress: part("progress"),
      progressText: part("progress-text"),
      translation: part("translation"),
      modes: [...figure.querySelectorAll('[data-part="mode"]')],
      layers: part("layers"),
      layerHint: part("layer-hint"),
      chips: part("chips"),
      drawing: part("drawing"),
      note: part("note"),
      readoutTitle: part("readout-title"),
      crossRow: part("cross-row"),
      selfRow: part("self-row"),
      aboutText: part("about-text"),
    };
    this.errors = new ErrorBox(part("error"));
    this.state = readState(this.schema);
    this.data = null; // the translation currently drawn
    this.about = null; // the model's record, once fetched
    this.run = false; // a generation is under way (playing or paused)
    this.paused = false;
    this.timer = null;
    this.loading = false; // a translation is being fetched
    this.focus = null; // French slot (1..step) under the pointer or keyboard focus, or null
    this.width = 0;
    this.groups = { cross: [], self: [] };
    this.srcTokens = [];
    this.tgtTokens = [];
  }

  start() {
    const { sentence, generate, pause, step, modes, layers, chips } = this.el;
    sentence.value = this.state.sentence;
    sentence.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.generate();
      }
    });
    generate.addEventListener("click", () => this.generate());
    pause.addEventListener("click", () => this.togglePause());
    step.addEventListener("click", () => this.stepOnce());
    for (const radio of modes) {
      radio.addEventListener("change", () => radio.checked && this.update({ mode: radio.value }));
    }
    layers.addEventListener("change", (event) => {
      const l = Number(event.target.value);
      this.update({ layer: l === this.data?.layers ? null : l });
    });
    chips.addEventListener("click", (event) => {
      const chip = event.target.closest("button[data-head]");
      if (!chip) return;
      const k = chip.dataset.head === "mean" ? null : Number(chip.dataset.head) + 1;
      this.update({ head: k === this.state.head ? null : k });
    });

    this.width = this.el.drawing.clientWidth;
    new ResizeObserver(() => {
      const width = this.el.drawing.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => this.data && this.rebuild());
    }).observe(this.el.drawing);
    onSchemeChange(() => {
      if (!this.data) return;
      this.buildChoices(); // the chips' swatches are drawn in the scheme's colours
      this.rebuild();
    });

    this.showControls();
    this.showPlayback();
    this.loadAbout();
    this.load({ play: false });
  }

  // ---- state -------------------------------------------------------------------------------------------

  /** Apply a change of view (mode, step, layer, head), mirror it in the URL, rewrite attributes. */
  update(patch) {
    this.state = { ...this.state, ...patch };
    writeState(this.schema, this.state);
    this.showControls();
    this.render();
  }

  /** ▶ Generate: (re)translate the sentence in the box if it changed, then write it from the first word. */
  generate() {
    const text = this.el.sentence.value.trim();
    if (!text) {
      this.errors.show("Type a sentence: at least one English word.");
      return;
    }
    this.stop();
    this.focus = null;
    this.state = { ...this.state, sentence: text, step: 0 };
    writeState(this.schema, this.state);
    this.load({ play: true });
  }

  layerIndex() {
    const layers = this.data?.layers ?? 1;
    return this.state.layer === null ? layers - 1 : this.state.layer - 1;
  }

  // ---- playback ----------------------------------------------------------------------------------------

  play() {
    const n = this.data.steps.length;
    if (!n) return;
    this.run = true;
    this.paused = false;
    this.tick();
  }

  /** Write the next word; schedule the one after it, or end the run after the last. */
  tick() {
    clearTimeout(this.timer);
    const n = this.data.steps.length;
    if (this.state.step < n) this.setStep(this.state.step + 1);
    if (this.state.step >= n) {
      this.stop();
      return;
    }
    this.timer = setTimeout(() => this.tick(), STEP_MS);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.run = false;
    this.paused = false;
    this.showPlayback();
  }

  togglePause() {
    if (!this.run) return;
    if (this.paused) {
      this.paused = false;
      this.tick();
    } else {
      clearTimeout(this.timer);
      this.paused = true;
    }
    this.showPlayback();
  }

  /** One word on; a running generation pauses first, so the reader takes over. */
  stepOnce() {
    if (!this.data || this.loading || this.state.step >= this.data.steps.length) return;
    if (this.run && !this.paused) {
      clearTimeout(this.timer);
      this.paused = true;
    }
    this.setStep(this.state.step + 1);
    if (this.state.step >= this.data.steps.length) this.stop();
  }

  setStep(step) {
    this.state = { ...this.state, step };
    writeState(this.schema, this.state);
    this.render();
  }

  // ---- data --------------------------------------------------------------------------------------------

  async load({ play }) {
    const body = { sentence: this.state.sentence };
    this.setBusy(true);
    let data;
    try {
      data = await this.poster.post(body);
    } catch (error) {
      if (isAbort(error) || body.sentence !== this.state.sentence) return;
      this.setBusy(false);
      this.stop();
      this.errors.show(error.message);
      this.el.drawing.classList.add("is-stale");
      return;
    }
    if (body.sentence !== this.state.sentence) return;
    this.setBusy(false);
    this.show(data);
    if (play) this.play();
  }

  setBusy(busy) {
    this.loading = busy;
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  show(data) {
    this.errors.clear();
    this.el.drawing.classList.remove("is-stale");
    const n = data.steps.length;
    const patch = {};
    if (this.state.step > n) patch.step = n;
    if (this.state.layer !== null && this.state.layer >= data.layers) patch.layer = null;
    if (this.state.head !== null && this.state.head > data.heads) patch.head = null;
    if (Object.keys(patch).length) {
      this.state = { ...this.state, ...patch };
      writeState(this.schema, this.state);
    }
    if (data === this.data && this.root) {
      this.showControls();
      this.render(); // the same answer (memoised): nothing to rebuild
      return;
    }
    this.data = data;
    this.buildChoices();
    this.rebuild();
  }

  loadAbout() {
    this.fetcher.get("/api/translate/about").then(
      (about) => {
        this.about = about;
        this.showAbout(about);
        this.showLayerHint();
      },
      (error) => {
        if (isAbort(error)) return;
        const p = document.createElement("p");
        p.className = "panel-text";
        p.textContent = `The model's record could not be loaded: ${error.message}`;
        this.el.aboutText.replaceChildren(p);
      },
    );
  }

  // ---- building (once per answer, or per width) --------------------------------------------------------

  /** The layer radios and head chips: rebuilt only when the model's shape or the colour scheme changes. */
  buildChoices() {
    const { layers, heads, best_layer: best } = this.data;
    const box = this.el.layers;
    if (box.childElementCount !== layers || box.dataset.best !== String(best)) {
      box.dataset.best = String(best);
      clear(box);
      for (let l = 1; l <= layers; l++) {
        const label = document.createElement("label");
        label.className = "segmented__option";
        const input = document.createElement("input");
        input.type = "radio";
        input.name = "generator-layer";
        input.value = String(l);
        input.dataset.part = "layer";
        const span = document.createElement("span");
        span.textContent = `layer ${l}`;
        if (l - 1 === best) {
          const mark = document.createElement("small");
          mark.className = "gen-best";
          mark.setAttribute("aria-hidden", "true");
          mark.textContent = " ★";
          span.appendChild(mark);
        }
        label.append(input, span);
        box.appendChild(label);
      }
    }
    const chips = this.el.chips;
    const scheme = isDark() ? "dark" : "light";
    if (chips.childElementCount !== heads + 1 || chips.dataset.scheme !== scheme) {
      chips.dataset.scheme = scheme;
      clear(chips);
      const mean = document.createElement("button");
      mean.type = "button";
      mean.className = "head-chip gen-chip--mean";
      mean.dataset.head = "mean";
      mean.textContent = "Average";
      chips.appendChild(mean);
      for (let k = 0; k < heads; k++) {
        const chip = document.createElement("button");
        chip.type = "button";
        chip.className = "head-chip";
        chip.dataset.head = String(k);
        chip.append(headSwatch(k), `Head ${k + 1}`);
        chips.appendChild(chip);
      }
    }
    this.showControls();
    this.showLayerHint();
  }

  rebuild() {
    this.buildDrawing();
    this.buildReadout();
    this.render();
  }

  font() {
    this.fontFamily ??= getComputedStyle(this.el.drawing).fontFamily || "sans-serif"; // read once
    return this.fontFamily;
  }

  /** The two rows (or columns) of words and, hidden, an arc for every (step, key) pair in both modes. */
  buildDrawing() {
    const data = this.data;
    const src = data.source;
    const tgt = [START, ...data.target];
    const width = Math.max(240, this.width || 640);
    const font = this.font();
    const layout = makeLayout(width, src, tgt, font);
    this.layout = layout;

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
    for (const title of layout.titles) {
      svgText(
        "text",
        title.text,
        { class: "gen-axis", x: title.x, y: title.y, "text-anchor": title.anchor, "aria-hidden": "true" },
        root,
      );
    }

    // The arcs layer; each (mode, step) group of arcs is built the first time it is shown (see `group`).
    this.arcsLayer = svg("g", { class: "gen-arcs", fill: "none", "aria-hidden": "true" }, root);
    this.groups = { cross: data.steps.map(() => null), self: data.steps.map(() => null) };

    const srcLayer = svg("g", { class: "gen-row gen-row--source", "aria-hidden": "true" }, root);
    this.srcTokens = src.map((word, j) => this.drawToken(srcLayer, layout, layout.src(j), word, j, "source"));
    const tgtLayer = svg("g", { class: "gen-row gen-row--target" }, root);
    this.tgtTokens = tgt.map((word, p) => this.drawToken(tgtLayer, layout, layout.tgt(p), word, p, "target"));
    this.tgtTokens[0].g.classList.add("gen-token--start");
    this.tgtTokens[0].g.setAttribute("aria-hidden", "true");

    const weights = svg("g", { class: "gen-weights", "aria-hidden": "true" }, root);
    this.srcWeights = this.srcTokens.map((tok, j) =>
      svgText("text", "", { class: "gen-weight", ...layout.srcWeight(j, tok.box), "data-key": j }, weights),
    );
    this.tgtWeights = this.tgtTokens.map((tok, p) =>
      svgText("text", "", { class: "gen-weight", ...layout.tgtWeight(p, tok.box), "data-key": p }, weights),
    );

    clear(this.el.drawing);
    this.el.drawing.appendChild(root);
    this.root = root;
  }

  /** The arcs of step t in `mode` (from French slot t + 1 to every English word, or back to slots 0..t):
   * built once, on first use, so a long translation does not build thousands of arcs nobody looks at. */
  group(mode, t) {
    const existing = this.groups[mode][t];
    if (existing) return existing;
    const q = t + 1; // the French slot this step writes
    const layout = this.layout;
    const g = svg("g", { class: "gen-arcs__group", "data-mode": mode, "data-step": t }, this.arcsLayer);
    const keys = mode === "cross" ? this.data.source.length : q; // self: the start token and slots 1..t
    const paths = [];
    for (let key = 0; key < keys; key++) {
      const d = mode === "cross" ? layout.crossPath(q, key) : layout.selfPath(q, key);
      paths.push(svg("path", { class: "gen-arc", d, "data-query": q, "data-key": key }, g));
    }
    const group = { g, paths };
    this.groups[mode][t] = group;
    return group;
  }

  /** One word: its box, a tint that shows the weight it receives, and its (possibly shortened) text. */
  drawToken(parent, layout, pos, word, index, side) {
    const fontSpec = `${layout.fontSize}px ${this.font()}`;
    const label = fitLabel(word, pos.maxWidth, fontSpec);
    const w = measure(label, fontSpec) + 10;
    const h = layout.boxH;
    const x = pos.anchor === "middle" ? pos.x - w / 2 : pos.anchor === "end" ? pos.x + 5 - w : pos.x - 5;
    const box = { x, y: pos.y - h / 2, w, h };
    const g = svg("g", { class: `token gen-token gen-token--${side}`, "data-index": index }, parent);
    if (label !== word) svgText("title", word, {}, g);
    const rect = { x: r1(box.x), y: r1(box.y), width: r1(w), height: r1(h), rx: 4 };
    svg("rect", { class: "token__box", ...rect }, g);
    const tint = svg("rect", { class: "gen-token__tint", ...rect, "fill-opacity": 0 }, g);
    svgText(
      "text",
      label,
      {
        class: "token__text",
        x: r1(pos.x),
        y: r1(pos.y),
        "dominant-baseline": "central",
        "text-anchor": pos.anchor,
        "font-size": layout.fontSize,
      },
      g,
    );
    if (side === "target" && index > 0) this.bindToken(g, index);
    return { g, tint, box };
  }

  bindToken(g, p) {
    g.addEventListener("pointerenter", () => this.setFocus(p));
    g.addEventListener("pointerleave", () => {
      if (document.activeElement !== g) this.setFocus(null);
    });
    g.addEventListener("focus", () => this.setFocus(p));
    g.addEventListener("blur", () => this.setFocus(null));
  }

  setFocus(p) {
    if (this.focus === p) return;
    this.focus = p;
    this.render();
  }

  /** The number rows under the drawing: a cell per English word, a cell per French position to be read. */
  buildReadout() {
    const cell = (word) => {
      const li = document.createElement("li");
      li.className = "gen-cell";
      const w = document.createElement("span");
      w.className = "gen-cell__word";
      w.textContent = word;
      const value = document.createElement("span");
      value.className = "gen-cell__value";
      const bar = document.createElement("span");
      bar.className = "gen-cell__bar";
      bar.setAttribute("aria-hidden", "true");
      li.append(w, value, bar);
      return { li, value, bar, word };
    };
    const { source, target } = this.data;
    this.crossCells = source.map(cell);
    this.selfCells = [START, ...target.slice(0, -1)].map(cell); // the last word is never read by a later step
    this.el.crossRow.replaceChildren(...this.crossCells.map((c) => c.li));
    this.el.selfRow.replaceChildren(...this.selfCells.map((c) => c.li));
  }

  // ---- rendering (attributes and text only) ------------------------------------------------------------

  /** The weights of French slot q's step (q >= 1) in `mode`, for the chosen layer and head (or average). */
  row(mode, q) {
    const maps = this.data.steps[q - 1][mode][this.layerIndex()]; // [head][key]
    return this.state.head === null ? averageRows(maps) : maps[this.state.head - 1];
  }

  viewText() {
    const { heads } = this.data;
    const layer = `layer ${this.layerIndex() + 1}`;
    if (this.state.head === null) return `${layer}, average of the ${heads} heads`;
    return `${layer}, head ${this.state.head}`;
  }

  render() {
    const data = this.data;
    this.showPlayback();
    if (!data) return;
    const s = this.state.step;
    if (this.focus !== null && this.focus > s) this.focus = null;
    const shown = this.focus ?? (s >= 1 ? s : null); // the French slot whose attention is drawn
    const mode = this.state.mode;
    const k = this.state.head === null ? null : this.state.head - 1;
    const colour = k === null ? null : headColour(k);
    this.root.dataset.mode = mode;

    // The French written so far.
    this.tgtTokens.forEach((tok, p) => {
      tok.g.classList.toggle("is-focus", p === shown);
      if (p === 0) return;
      const written = p <= s;
      tok.g.dataset.written = String(written);
      tok.g.classList.toggle("is-new", written && p === s);
      if (written) {
        setAttrs(tok.g, { visibility: null, tabindex: 0, role: "img", "aria-hidden": null });
        tok.g.setAttribute("aria-label", this.wordLabel(p));
      } else {
        setAttrs(tok.g, { visibility: "hidden", tabindex: null, role: null, "aria-hidden": "true" });
      }
    });

    // The arcs: the shown word's in full; in cross mode with no word under focus, the earlier words' as a
    // faint trail, so the alignment built so far stays in view. Each visible group is restyled for this view.
    const trail = this.focus === null && mode === "cross";
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
        if (current || past) this.styleArcs(group, this.row(m, q), k);
      });
    }
    const row = shown === null ? null : this.row(mode, shown);

    // Each key's weight, as a number beside it and as a tint of its box.
    const keyWeights = (tokens, labels, active) =>
      tokens.forEach((tok, idx) => {
        const w = active && row && idx < row.length ? row[idx] : null;
        labels[idx].textContent = w === null ? "" : weightText(w);
        setAttrs(tok.tint, { "fill-opacity": w === null ? 0 : (0.3 * w).toFixed(3), fill: colour });
      });
    keyWeights(this.srcTokens, this.srcWeights, mode === "cross");
    keyWeights(this.tgtTokens, this.tgtWeights, mode === "self");

    this.showTranslation();
    this.showReadout(shown);
    this.showNote(shown, row);
  }

  /** Stroke width, opacity and dash of each arc in `group` for the weights `row` (head k; null: average). */
  styleArcs(group, row, k) {
    group.paths.forEach((path, idx) => {
      const w = row[idx];
      const drawn = w >= MIN_WEIGHT;
      const width = 1 + 7 * w * this.layout.stroke;
      setAttrs(path, {
        "data-weight": w.toFixed(4),
        "data-drawn": String(drawn),
        visibility: drawn ? null : "hidden",
        opacity: drawn ? (0.3 + 0.7 * w).toFixed(3) : 0,
        "stroke-width": r1(width),
        "stroke-dasharray": k === null ? null : dashFor(k, width),
      });
    });
  }

  /** What a screen reader hears on a French word: where it is and where it looked, in the current view. */
  wordLabel(p) {
    const { source, target } = this.data;
    const tgt = [START, ...target];
    const top = (row, words) =>
      row
        .map((w, j) => ({ w, word: spoken(words[j]) }))
        .sort((a, b) => b.w - a.w)
        .filter((e, i) => i === 0 || e.w >= 0.05)
        .map((e) => `${e.word} ${weightText(e.w)}`)
        .join(", ");
    return (
      `${target[p - 1]}, French word ${p} of ${target.length}. ${capitalise(this.viewText())}. ` +
      `Into the English: ${top(this.row("cross", p), source)}. ` +
      `Back over the French: ${top(this.row("self", p), tgt)}.`
    );
  }

  showTranslation() {
    const { steps, target, translation } = this.data;
    const s = this.state.step;
    const out = this.el.translation;
    const sofar = `${capitalise(target.slice(0, s).join(" "))} …`;
    out.textContent = s >= steps.length ? translation : s > 0 ? sofar : "";
  }

  showReadout(shown) {
    const { target } = this.data;
    const title = this.el.readoutTitle;
    const mode = this.state.mode;
    this.el.crossRow.parentElement.classList.toggle("is-current", mode === "cross");
    this.el.selfRow.parentElement.classList.toggle("is-current", mode === "self");
    if (shown === null) {
      title.textContent = "Once a word is written, hover or focus it to read its attention as numbers.";
      for (const c of [...this.crossCells, ...this.selfCells]) {
        c.value.textContent = "";
        c.bar.style.setProperty("--w", "0");
        c.li.hidden = false;
      }
      for (const c of this.selfCells.slice(1)) c.li.hidden = true;
      return;
    }
    const who = this.focus === null ? "the word just written" : "the word under focus";
    const where = `${who}, ${shown} of ${target.length}`;
    title.textContent = `${quote(target[shown - 1])} (${where}): ${this.viewText()}.`;
    const fill = (cells, row) =>
      cells.forEach((c, idx) => {
        const inRow = idx < row.length;
        c.li.hidden = !inRow;
        c.value.textContent = inRow ? weightText(row[idx]) : "";
        c.bar.style.setProperty("--w", inRow ? String(row[idx]) : "0");
        c.li.dataset.weight = inRow ? row[idx].toFixed(4) : "";
      });
    fill(this.crossCells, this.row("cross", shown));
    fill(this.selfCells, this.row("self", shown));
  }

  showNote(shown, row) {
    const { source, target, steps } = this.data;
    const s = this.state.step;
    const note = this.el.note;
    if (shown === null) {
      note.textContent = "Press ▶ Generate: the translator writes one French word every 0.4 seconds.";
      return;
    }
    const mode = this.state.mode;
    const words = mode === "cross" ? source : [START, ...target];
    const best = row.indexOf(Math.max(...row));
    const layer = `layer ${this.layerIndex() + 1}`;
    const who =
      this.state.head === null
        ? `${layer}, averaged over its ${this.data.heads} heads,`
        : `${layer}'s head ${this.state.head}`;
    const writing =
      `To write ${quote(target[shown - 1])}, ${who} looked most at ${quote(words[best])} ` +
      `(${weightText(row[best])}).`;
    const how =
      mode === "cross"
        ? "Each arc runs from the French word being written up to an English word it reads; the thicker " +
          "the arc, the more weight."
        : "Each arc runs from the French word being written back to a word already there (⟨s⟩ is the " +
          "start token every translation begins from). Nothing reaches forward: the later words do not " +
          "exist yet.";
    const done = s >= steps.length && this.focus === null ? ` All ${steps.length} words written.` : "";
    note.textContent = `${how} ${writing}${done}`;
  }

  showPlayback() {
    const n = this.data?.steps.length ?? 0;
    const s = this.state.step;
    const { pause, step, progress, progressText } = this.el;
    pause.setAttribute("aria-disabled", String(!this.run));
    pause.setAttribute("aria-pressed", String(this.run && this.paused));
    step.setAttribute("aria-disabled", String(!this.data || s >= n));
    setAttrs(progress, {
      "aria-valuemax": n,
      "aria-valuenow": Math.min(s, n),
      "aria-valuetext": `step ${Math.min(s, n)} of ${n}`,
    });
    progress.style.setProperty("--done", n ? String(Math.min(s, n) / n) : "0");
    progressText.textContent = this.data
      ? `step ${Math.min(s, n)} of ${n}${this.run && this.paused ? " · paused" : ""}`
      : "";
  }

  /** Radios and chips from the state: cheap, done on every change. */
  showControls() {
    for (const radio of this.el.modes) radio.checked = radio.value === this.state.mode;
    const layer = this.layerIndex() + 1;
    for (const radio of this.el.layers.querySelectorAll("input")) {
      radio.checked = Number(radio.value) === layer;
    }
    for (const chip of this.el.chips.querySelectorAll("button[data-head]")) {
      const k = chip.dataset.head === "mean" ? null : Number(chip.dataset.head) + 1;
      chip.setAttribute("aria-pressed", String(k === this.state.head));
    }
  }

  showLayerHint() {
    if (!this.data) return;
    const best = this.data.best_layer;
    const byLayer = this.about?.alignment_by_layer;
    let text = `★ layer ${best + 1}: the best aligned with the English`;
    if (byLayer?.length === this.data.layers) {
      const scores = byLayer.map((a, l) => `layer ${l + 1} ${pct(a)}`).join(", ");
      text = `★ best aligned with the English: ${scores}`;
    }
    this.el.layerHint.textContent = text;
  }

  /** The drawn attention of every word written so far, in the current view, as two matrices (or null). */
  exportData() {
    const data = this.data;
    if (!data || this.state.step < 1) return null;
    const written = data.target.slice(0, this.state.step);
    const slots = written.map((_, t) => t + 1);
    const keys = [START, ...written.slice(0, -1)]; // what the words written so far could read
    const selfRows = slots.map((q) => {
      const row = this.row("self", q);
      return keys.map((_, p) => (p < row.length ? row[p] : 0)); // the future: exactly 0, the mask's work
    });
    const view = this.viewText();
    return {
      note:
        `Decoder attention, ${view}: row = the French word being written, column = the word it read. ` +
        "Self-attention columns after the row's own step are 0: those words were not written yet.",
      sentence: data.source.join(" "),
      translation: data.translation,
      layer: this.layerIndex() + 1,
      head: this.state.head ?? "average",
      matrices: [
        {
          name: `Cross-attention (${view})`,
          rows: written,
          columns: data.source,
          values: slots.map((q) => this.row("cross", q)),
        },
        { name: `Self-attention (${view})`, rows: written, columns: keys, values: selfRows },
      ],
    };
  }

  /** The "about this model" note: how it was built, trained and measured, all from the model's record. */
  showAbout(a) {
    const para = (text, cls = "panel-text") => {
      const p = document.createElement("p");
      p.className = cls;
      p.textContent = text;
      return p;
    };
    const num = (x) => x.toLocaleString("en");
    const seconds = a.training_seconds;
    const took = seconds >= 90 ? `${Math.round(seconds / 60)} minutes` : `${Math.round(seconds)} seconds`;
    const others = (a.alignment_by_layer ?? [])
      .map((x, l) => (l === a.best_layer ? null : `layer ${l + 1}: ${pct(x)}`))
      .filter(Boolean);
    const layerNote = others.length ? ` (${others.join(", ")})` : "";
    const parts = [
      para(
        `The model: an ${a.architecture}; ${a.encoder_layers} encoder and ${a.layers} decoder layers, ` +
          `${a.heads} heads, width ${a.d_model}, ${num(a.parameters)} parameters. It was trained here, ` +
          `from scratch, in about ${took}, on ${num(a.training_pairs)} English–French sentence pairs ` +
          `written by the project's own little grammar (${num(a.lexicon_entries)} dictionary entries). ` +
          "The page runs it in numpy, one step per French word.",
      ),
      para(
        `On ${num(a.heldout_pairs)} held-out pairs, whose English it never saw in training, it writes the ` +
          `reference translation exactly ${pct(a.exact_match)} of the time. For the ` +
          `${num(a.aligned_words)} French words there whose English source is known, the cross-attention ` +
          `of decoder layer ${a.best_layer + 1}, averaged over its heads, peaks on the right English word ` +
          `${pct(a.alignment)} of the time${layerNote}. That is how the page picks the layer it names best ` +
          "aligned.",
      ),
      para(
        "Attention was never a training target: the model was only ever asked for the next French word. " +
          "Where it looks is what it learned it needed in order to answer.",
      ),
    ];
    const miss = a.misses?.[0];
    if (miss) {
      const wrote = `${quote(miss.source)} came out as ${quote(miss.translation)}`;
      parts.push(para(`It is not perfect. ${wrote}; the reference is ${quote(miss.reference)}.`));
    }
    if (a.vocabulary?.length) {
      const details = document.createElement("details");
      details.className = "gen-vocab";
      const summary = document.createElement("summary");
      summary.textContent = `The ${num(a.vocabulary.length)} English words it knows`;
      details.append(summary, para(a.vocabulary.join(", "), "gen-vocab__list"));
      parts.push(details);
    }
    this.el.aboutText.replaceChildren(...parts);
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Generator(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => widget.exportData();
  return widget;
}
