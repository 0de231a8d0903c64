// Figure 1, the heads dial: attention arcs of h heads over a sentence, the relation scores, the capacity curve.
//
// Data flows one way: state (from the URL) -> one fetch of /api/attention -> one full redraw. A head chip, a
// hover or a focus only rewrites attributes (opacity, aria-pressed); the maths all happens on the server.

import { drawArcs as drawArcDiagram, emphasiseArcs, MIN_WEIGHT } from "../lib/arcs.js";
import { headColour, isDark, markerPath, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { JsonFetcher } from "../lib/fetcher.js";
import { relationInfo, relationItem } from "../lib/relations.js";
import { watchSentence } from "../lib/sentence-box.js";
import { clear, r1, setAttrs, svg, svgText } from "../lib/svg.js";
import { headSwatch } from "../lib/swatch.js";
import { format, parse, readState, writeState } from "../lib/url-state.js";

const NAME = "heads-dial";
const DEFAULT_HEADS = 3;
const ARC_TOKEN_LIMIT = 16; // past this many tokens, arcs turn to mush: draw a heatmap per head
const MIN_ARC_SLOT = 44; // px per token below which arcs turn to mush on a narrow screen
const DEBOUNCE_MS = 250;

// A relation's score is called borrowed when its own pairs alone score this much less.
const BORROWED = 0.15;

const pct = (w) => `${Math.round(w * 100)}%`;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Width of `text` in px in the figure's font, measured on an offscreen canvas. */
const measure = (() => {
  let ctx = null;
  return (text, font) => {
    ctx ??= document.createElement("canvas").getContext("2d");
    ctx.font = font;
    return ctx.measureText(text).width;
  };
})();

export class HeadsDial {
  constructor(figure, pageData, fetcher = new JsonFetcher()) {
    this.figure = figure;
    this.fetcher = fetcher;
    this.validHeads = pageData.validHeads ?? [1, 2, 3, 4, 6, 8, 12, 24];
    this.maxChars = pageData.maxChars ?? 500;
    this.capacity = pageData.capacity ?? null;
    this.schema = {
      sentence: { fallback: pageData.defaultSentence, parse: parse.text(this.maxChars) },
      heads: { fallback: DEFAULT_HEADS, parse: parse.oneOf(this.validHeads) },
      head: { fallback: null, parse: parse.integer(1, Math.max(...this.validHeads)) },
      trained: { fallback: true, parse: parse.boolean, format: format.boolean },
    };

    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      sentence: part("sentence"),
      heads: part("heads"),
      readout: part("readout"),
      trained: part("trained"),
      chips: part("chips"),
      drawing: part("drawing"),
      note: part("note"),
      relations: part("relations"),
      capacity: part("capacity"),
      capacityText: part("capacity-text"),
      spread: part("spread"),
    };
    this.errors = new ErrorBox(part("error"));

    this.state = readState(this.schema);
    if (this.state.head !== null && this.state.head > this.state.heads) this.state.head = null;
    this.data = null; // the answer currently drawn
    this.focus = null; // index of the hovered or focused token, or null
    this.arcs = []; // drawn arc paths with their head, query and base opacity, for attribute-only updates
    this.heatmaps = []; // per drawn heatmap: its group and the two dimming rects
    this.tokenEls = [];
    this.prefetched = new Set();
    this.width = 0;
  }

  /** Wire up the controls, draw the capacity curve and ask for the first answer. */
  start() {
    const { sentence, heads, trained } = this.el;
    sentence.value = this.state.sentence;
    heads.value = String(this.validHeads.indexOf(this.state.heads));
    trained.checked = this.state.trained;
    this.showDial();

    watchSentence(sentence, (text) => this.onSentence(text), DEBOUNCE_MS);
    heads.addEventListener("input", () => {
      const h = this.validHeads[Number(heads.value)];
      this.update({ heads: h, head: null });
    });
    trained.addEventListener("change", () => this.update({ trained: trained.checked }));
    this.el.chips.addEventListener("click", (event) => {
      const chip = event.target.closest("button[data-head]");
      if (!chip) return;
      const k = Number(chip.dataset.head) + 1;
      this.update({ head: this.state.head === k ? null : k });
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
    this.load();
  }

  // ---- state -------------------------------------------------------------------------------------------

  /** Apply a change of state, mirror it in the URL, then either fetch (data changed) or restyle (view changed). */
  update(patch) {
    const before = this.state;
    this.state = { ...before, ...patch };
    writeState(this.schema, this.state);
    this.showDial();
    const dataChanged = ["sentence", "heads", "trained"].some((key) => before[key] !== this.state[key]);
    if (dataChanged) this.load();
    else this.applyEmphasis();
  }

  /** The Sentence box's text, once the reader pauses or presses Enter (lib/sentence-box.js). */
  onSentence(text) {
    if (!text) {
      this.errors.show("Type a sentence: at least one word.");
      this.el.drawing.classList.add("is-stale");
      return;
    }
    if (text === this.state.sentence && this.errors.visible && this.data) {
      this.errors.clear();
      this.el.drawing.classList.remove("is-stale");
    }
    this.update({ sentence: text });
  }

  /** The slider's readout, valuetext and the chips' pressed states: cheap, so done on every change. */
  showDial() {
    const h = this.state.heads;
    const d = this.data?.d_model ?? this.capacity?.d_model ?? 24;
    this.el.heads.setAttribute("aria-valuetext", plural(h, "head"));
    this.el.readout.textContent = `${plural(h, "head")} × ${d / h} wide`;
    for (const chip of this.el.chips.querySelectorAll("button[data-head]")) {
      chip.setAttribute("aria-pressed", String(Number(chip.dataset.head) + 1 === this.state.head));
    }
    this.highlightCapacity();
  }

  url(heads = this.state.heads, sentence = this.state.sentence, trained = this.state.trained) {
    const params = new URLSearchParams({
      sentence,
      heads: String(heads),
      mask: "none",
      trained: String(trained),
    });
    return `/api/attention?${params}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Fetch the answer for the current state (instantly from the cache when the dial has seen it) and draw it. */
  load() {
    this.fetcher.load(this.url(), {
      channel: NAME,
      current: () => this.url(),
      busy: (busy) => this.setBusy(busy),
      show: (data) => this.show(data),
      fail: (message) => {
        this.errors.show(message);
        this.el.drawing.classList.add("is-stale");
      },
    });
  }

  setBusy(busy) {
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  show(data) {
    this.errors.clear();
    this.el.drawing.classList.remove("is-stale");
    this.data = data;
    if (this.state.head !== null && this.state.head > data.heads) {
      this.state = { ...this.state, head: null };
      writeState(this.schema, this.state);
    }
    this.redraw();
    this.prefetch();
  }

  /** After an answer, fetch every other head count for this sentence so the dial never waits on the network. */
  prefetch() {
    const key = `${this.state.trained}|${this.state.sentence}`;
    if (this.prefetched.has(key)) return;
    this.prefetched.add(key);
    if (this.prefetched.size > 50) this.prefetched.delete(this.prefetched.values().next().value);
    for (const h of this.validHeads) {
      if (h !== this.state.heads) this.fetcher.get(this.url(h)).catch(() => {});
    }
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Rebuild the figure's drawing from `this.data`: chips, arcs or heatmaps, relation scores. */
  redraw() {
    performance.mark(`${NAME}:redraw:start`);
    const data = this.data;
    this.focus = null;
    this.drawChips(data.heads);
    const width = this.width || 640; // kept current by the ResizeObserver: reading layout here would force it
    const n = data.tokens.length;
    const heatmap = n > ARC_TOKEN_LIMIT || width / n < MIN_ARC_SLOT;
    this.arcs = [];
    this.heatmaps = [];
    this.tokenEls = [];
    clear(this.el.drawing);
    if (heatmap) this.drawHeatmaps(data, width);
    else this.drawArcs(data, width);
    this.el.drawing.dataset.mode = heatmap ? "heatmap" : "arcs";
    const threshold = heatmap ? MIN_WEIGHT : this.arcThreshold;
    this.el.note.textContent = heatmap
      ? `${n > ARC_TOKEN_LIMIT ? `${n} words are too many for arcs` : "On a narrow screen arcs turn to mush"}, so ` +
        "each head is a grid: a row per word asking, a column per word looked at; darker means more weight."
      : threshold > MIN_WEIGHT
        ? `So many heads would draw a haze of faint arcs: only weights of ${pct(threshold)} or more are drawn.`
        : "";
    this.el.note.hidden = !this.el.note.textContent;
    this.drawRelations(data);
    this.showDial();
    this.applyEmphasis();
    performance.measure(`${NAME}:redraw`, `${NAME}:redraw:start`);
    performance.clearMarks(`${NAME}:redraw:start`);
  }

  /** One toggle button per head; rebuilt only when the head count (or the colour scheme) changes. */
  drawChips(h) {
    const chips = this.el.chips;
    const scheme = isDark() ? "dark" : "light";
    if (chips.childElementCount === h && chips.dataset.scheme === scheme) return;
    chips.dataset.scheme = scheme;
    clear(chips);
    for (let k = 0; k < h; k++) {
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = "head-chip";
      chip.dataset.head = String(k);
      chip.setAttribute("aria-pressed", "false");
      chip.appendChild(headSwatch(k));
      chip.append(`Head ${k + 1}`);
      chips.appendChild(chip);
    }
  }

  /** The arc diagram (lib/arcs.js): tokens in a row, arcs above looking back, below looking ahead, loops. */
  drawArcs(data, width) {
    const { tokens, known, weights } = data;
    const drawing = drawArcDiagram({
      tokens,
      weights,
      width,
      font: this.tokenFont(),
      label: `${plural(tokens.length, "word")}, ${plural(weights.length, "head")}. Focus a word to see only its arcs.`,
      tokenInfo: (i) => ({
        className: known[i] ? "token" : "token token--unknown",
        attrs: { "data-known": String(known[i]), "aria-label": this.tokenLabel(i) },
        title: known[i] ? null : "not in the lexicon",
      }),
    });
    this.arcs = drawing.arcs;
    this.arcThreshold = drawing.threshold;
    drawing.tokens.forEach((g, i) => this.bindToken(g, i));
    this.el.drawing.appendChild(drawing.root);
  }

  /** One grid per head: a row per query, a column per key, cell darkness = weight. */
  drawHeatmaps(data, width) {
    const { tokens, known, weights } = data;
    const n = tokens.length;
    const h = weights.length;
    const font = this.tokenFont();

    const strip = document.createElement("ol");
    strip.className = "token-strip";
    strip.setAttribute("aria-label", "Words: focus one to see only its row");
    for (let i = 0; i < n; i++) {
      const li = document.createElement("li");
      li.className = known[i] ? "token" : "token token--unknown";
      li.tabIndex = 0;
      li.dataset.index = String(i);
      li.dataset.known = String(known[i]);
      li.setAttribute("aria-label", this.tokenLabel(i));
      li.textContent = tokens[i];
      if (!known[i]) li.title = "not in the lexicon";
      strip.appendChild(li);
      this.bindToken(li, i);
    }
    this.el.drawing.appendChild(strip);

    const labelFont = (size) => `${size}px ${font}`;
    const longest = Math.max(...tokens.map((t) => measure(t, labelFont(11))));
    const labelW = Math.min(90, longest + 8);
    // Lay the heads out in as many columns as keep a cell at least 9 px wide.
    const gapX = 18;
    const minCell = 9;
    let columns = Math.max(1, Math.min(h, Math.floor((width + gapX) / (labelW + n * minCell + gapX))));
    const boxW = (width - (columns - 1) * gapX) / columns;
    const cell = Math.max(4, Math.min(22, Math.floor((boxW - labelW - 4) / n)));
    const size = Math.max(7, Math.min(12, cell * 0.95));
    const labelLen = Math.min(labelW, Math.max(...tokens.map((t) => measure(t, labelFont(size))))) + 6;
    const top = 22 + labelLen * 0.72;
    const every = cell < size ? Math.ceil(size / cell) : 1; // label every k-th word when cells are tiny
    const gridW = labelW + n * cell + 2;
    const gridH = top + n * cell + 4;

    const grid = document.createElement("div");
    grid.className = "heatmaps";
    this.el.drawing.appendChild(grid);
    for (let k = 0; k < h; k++) {
      const colour = headColour(k);
      const root = svg("svg", {
        class: "heatmap",
        width: r1(gridW),
        height: r1(gridH),
        viewBox: `0 0 ${r1(gridW)} ${r1(gridH)}`,
        "data-head": k,
        role: "img",
        "aria-label": `Head ${k + 1}: ${this.headSummary(k)}`,
      });
      const g = svg("g", { class: "heatmap__body" }, root);
      svg("path", { d: markerPath(k, 6, 8, 4.5), fill: colour }, g);
      svgText("text", `Head ${k + 1}`, { class: "heatmap__title", x: 14, y: 12 }, g);
      svg(
        "rect",
        {
          class: "heatmap__bg",
          x: labelW,
          y: r1(top),
          width: n * cell,
          height: n * cell,
        },
        g,
      );
      const cells = svg("g", { fill: colour }, g);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const w = weights[k][i][j];
          if (w < MIN_WEIGHT / 2) continue;
          svg(
            "rect",
            {
              x: labelW + j * cell,
              y: r1(top + i * cell),
              width: Math.max(1, cell - (cell > 6 ? 1 : 0)),
              height: Math.max(1, cell - (cell > 6 ? 1 : 0)),
              opacity: Math.min(1, w * 1.15).toFixed(3),
              "data-query": i,
              "data-key": j,
            },
            cells,
          );
        }
      }
      for (let i = 0; i < n; i += every) {
        const cls = known[i] ? "heatmap__label" : "heatmap__label heatmap__label--unknown";
        const text = fitLabel(tokens[i], labelW - 6, labelFont(size));
        svgText(
          "text",
          text,
          {
            class: cls,
            x: labelW - 4,
            y: r1(top + (i + 0.5) * cell),
            "text-anchor": "end",
            "dominant-baseline": "central",
            "font-size": r1(size),
          },
          g,
        );
        const cx = labelW + (i + 0.5) * cell;
        svgText(
          "text",
          fitLabel(tokens[i], labelLen, labelFont(size)),
          {
            class: cls,
            x: r1(cx),
            y: r1(top - 4),
            transform: `rotate(-50 ${r1(cx)} ${r1(top - 4)})`,
            "font-size": r1(size),
          },
          g,
        );
      }
      const dimAbove = svg(
        "rect",
        { class: "heatmap__dim", x: 0, y: r1(top), width: r1(gridW), height: 0, visibility: "hidden" },
        root,
      );
      const dimBelow = svg(
        "rect",
        { class: "heatmap__dim", x: 0, y: r1(top), width: r1(gridW), height: 0, visibility: "hidden" },
        root,
      );
      this.heatmaps.push({ root, body: g, k, dimAbove, dimBelow, top, cell, n });
      grid.appendChild(root);
    }
    const legend = document.createElement("p");
    legend.className = "heatmap-axes";
    legend.textContent = "Rows: the word asking (query). Columns: the word looked at (key).";
    grid.before(legend);
  }

  /** Per relation: the best head (colour, marker, name), its score as a number and a bar, every head's score,
   * and the targets. */
  drawRelations(data) {
    const list = clear(this.el.relations);
    const { tokens } = data;
    for (const relation of data.relations) {
      const li = relationItem(relation.name);

      const result = document.createElement("div");
      result.className = "relation__result";
      if (relation.best_head === null || relation.score === null) {
        result.classList.add("relation__result--none");
        result.textContent = "No such pair in this sentence.";
        li.appendChild(result);
      } else {
        const k = relation.best_head;
        const head = document.createElement("span");
        head.className = "relation__head";
        head.dataset.head = String(k);
        head.append(headSwatch(k), `Head ${k + 1}`);
        const score = document.createElement("span");
        score.className = "relation__score";
        score.textContent = relation.score.toFixed(2);
        result.append(head, score, scoreBars(relation, data.heads));
        li.appendChild(result);

        const targets = document.createElement("p");
        targets.className = "relation__targets";
        const pairs = relation.targets.map(([i, j]) => `${tokens[i]} → ${tokens[j]}`);
        const shown = pairs.slice(0, 6);
        targets.textContent =
          shown.join(", ") + (pairs.length > shown.length ? `, and ${pairs.length - shown.length} more` : "");
        targets.title = pairs.join(", ");
        li.appendChild(targets);
        const shared = sharedNote(relation, data, tokens);
        if (shared) li.appendChild(shared);
      }
      list.appendChild(li);
    }
  }

  /** The capacity curve from the page data: final training loss against head count (log2 x-axis). */
  drawCapacity() {
    const box = this.el.capacity;
    const points = this.capacity?.heads ?? [];
    if (!points.length) {
      box.closest(".panel").hidden = true;
      return;
    }
    clear(box);
    const width = Math.max(260, Math.min(520, box.clientWidth || 420));
    const height = 190;
    const m = { left: 48, right: 14, top: 26, bottom: 50 };
    const losses = points.map((p) => p.final_loss).filter((x) => x > 0);
    const xs = points.map((p) => Math.log2(p.heads));
    const xMax = Math.max(...xs) || 1;
    const pad = 12; // keeps the first tick clear of the row titles
    const X = (h) => m.left + pad + (Math.log2(h) / xMax) * (width - m.left - m.right - pad);
    // Losses span orders of magnitude, so the y-axis is logarithmic too; ticks at 1, 2, 5 x 10^k.
    const lo = Math.log10(Math.min(...losses) / 1.5);
    const hi = Math.log10(Math.max(...losses) * 1.3);
    const Y = (loss) =>
      m.top + ((hi - Math.log10(Math.max(loss, 10 ** lo))) / (hi - lo)) * (height - m.top - m.bottom);
    const ticks = logTicks(lo, hi);

    const root = svg("svg", {
      class: "capacity",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label":
        "Final training loss by head count: " +
        points.map((p) => `${plural(p.heads, "head")} ${formatLoss(p.final_loss)}`).join(", "),
    });
    const axes = svg("g", { class: "chart__axes" }, root);
    for (const t of ticks) {
      svg(
        "line",
        { class: "chart__grid", x1: m.left, x2: width - m.right, y1: r1(Y(t)), y2: r1(Y(t)) },
        axes,
      );
      svgText(
        "text",
        formatLoss(t),
        {
          class: "chart__tick",
          x: m.left - 6,
          y: r1(Y(t)),
          "text-anchor": "end",
          "dominant-baseline": "central",
        },
        axes,
      );
    }
    svgText(
      "text",
      "final training loss (log scale)",
      { class: "chart__tick chart__axis-title", x: 0, y: 10 },
      axes,
    );
    const base = height - m.bottom;
    for (const p of points) {
      const px = r1(X(p.heads));
      svg("line", { class: "chart__tickmark", x1: px, x2: px, y1: base, y2: base + 4 }, axes);
      svgText(
        "text",
        String(p.heads),
        {
          class: "chart__tick chart__tick--x",
          x: px,
          y: base + 15,
          "text-anchor": "middle",
          "data-heads": p.heads,
        },
        axes,
      );
      svgText(
        "text",
        String(p.head_width),
        { class: "chart__tick chart__tick--width", x: px, y: base + 29, "text-anchor": "middle" },
        axes,
      );
    }
    svgText(
      "text",
      "heads",
      { class: "chart__tick", x: m.left - 6, y: base + 15, "text-anchor": "end" },
      axes,
    );
    svgText(
      "text",
      "width",
      { class: "chart__tick chart__tick--width", x: m.left - 6, y: base + 29, "text-anchor": "end" },
      axes,
    );
    svgText(
      "text",
      "heads on a log scale; width = 24 / heads",
      { class: "chart__tick chart__axis-title", x: m.left, y: height - 4 },
      axes,
    );

    const line = points
      .map((p, idx) => `${idx ? "L" : "M"}${r1(X(p.heads))} ${r1(Y(p.final_loss))}`)
      .join("");
    svg("path", { class: "chart__line", d: line, fill: "none" }, root);
    this.capacityDots = new Map();
    for (const p of points) {
      const dot = svg(
        "circle",
        { class: "chart__dot", cx: r1(X(p.heads)), cy: r1(Y(p.final_loss)), r: 3.5 },
        root,
      );
      this.capacityDots.set(p.heads, dot);
    }
    this.capacityMark = svg("g", { class: "chart__current" }, root);
    this.capacityRing = svg("circle", { class: "chart__ring", r: 7 }, this.capacityMark);
    this.capacityLabel = svgText(
      "text",
      "",
      { class: "chart__label", "text-anchor": "middle" },
      this.capacityMark,
    );
    this.capacityGeom = { X, Y, width };
    box.appendChild(root);

    const best = points.reduce((a, b) => (b.final_loss < a.final_loss ? b : a));
    const one = points.find((p) => p.heads === 1);
    const last = points[points.length - 1];
    let finding = "";
    if (one && best.heads !== 1) {
      finding =
        `One head ends at ${formatLoss(one.final_loss)}; the lowest loss, ${formatLoss(best.final_loss)}, comes at ` +
        `${plural(best.heads, "head")} of width ${best.head_width}.`;
      if (last.heads !== best.heads && last.final_loss > 2 * best.final_loss) {
        finding +=
          ` At ${plural(last.heads, "head")} of width ${last.head_width} it is back up to ` +
          `${formatLoss(last.final_loss)}: heads that narrow cannot carry a question each.`;
      }
    }
    this.el.capacityText.textContent =
      `Each point is the same ${this.capacity.d_model ?? 24}-wide layer, trained with the dial at that setting; ` +
      `lower loss means it delivers the three relations better. ${finding}`;
    this.highlightCapacity();
  }

  /** Move the capacity curve's marker and update the head-spread numbers for the current head count. */
  highlightCapacity() {
    const points = this.capacity?.heads ?? [];
    const h = this.state.heads;
    const p = points.find((q) => q.heads === h);
    if (this.capacityMark && p) {
      const { X, Y, width } = this.capacityGeom;
      const cx = X(h);
      const cy = Y(p.final_loss);
      setAttrs(this.capacityRing, { cx: r1(cx), cy: r1(cy) });
      const anchor = cx > width - 60 ? "end" : cx < 90 ? "start" : "middle";
      setAttrs(this.capacityLabel, {
        x: r1(anchor === "end" ? cx + 6 : anchor === "start" ? cx - 6 : cx),
        y: r1(cy - 12),
        "text-anchor": anchor,
      });
      this.capacityLabel.textContent = `${plural(h, "head")}: ${formatLoss(p.final_loss)}`;
      for (const [heads, dot] of this.capacityDots) dot.classList.toggle("is-current", heads === h);
      for (const tick of this.el.capacity.querySelectorAll(".chart__tick--x")) {
        tick.classList.toggle("is-current", Number(tick.dataset.heads) === h);
      }
    }
    if (!p) {
      this.el.spread.textContent = "";
      return;
    }
    if (h === 1) {
      this.el.spread.textContent =
        "Head spread (how differently the heads look): with one head there is nothing to compare.";
      return;
    }
    const trained = p.heldout?.head_spread;
    const untrained = p.untrained_head_spread;
    if (typeof trained !== "number" || typeof untrained !== "number") {
      this.el.spread.textContent = "";
      return;
    }
    this.el.spread.textContent =
      `Head spread at ${plural(h, "head")} (0: every head looks at the same words, 1: no two heads overlap), ` +
      `over ${this.capacity.heldout_sentences ?? "the"} held-out sentences: trained ${trained.toFixed(2)}, ` +
      `untrained ${untrained.toFixed(2)}. Untrained heads ask nearly the same question.`;
  }

  // ---- emphasis (attributes only) ----------------------------------------------------------------------

  bindToken(el, i) {
    const on = () => this.setFocus(i);
    const off = () => this.setFocus(null);
    el.addEventListener("pointerenter", on);
    el.addEventListener("pointerleave", () => {
      if (document.activeElement !== el) off();
    });
    el.addEventListener("focus", on);
    el.addEventListener("blur", off);
    this.tokenEls.push(el);
  }

  setFocus(i) {
    if (this.focus === i) return;
    this.focus = i;
    this.applyEmphasis();
  }

  /** Fade the heads that are not isolated and hide the arcs of words that are not focused. */
  applyEmphasis() {
    const iso = this.state.head === null ? null : this.state.head - 1;
    const focus = this.focus;
    emphasiseArcs(this.arcs, iso, focus);
    for (const hm of this.heatmaps) {
      hm.root.setAttribute("opacity", iso !== null && hm.k !== iso ? "0.25" : "1");
      if (focus === null) {
        hm.dimAbove.setAttribute("visibility", "hidden");
        hm.dimBelow.setAttribute("visibility", "hidden");
      } else {
        setAttrs(hm.dimAbove, { y: r1(hm.top), height: r1(focus * hm.cell), visibility: "visible" });
        setAttrs(hm.dimBelow, {
          y: r1(hm.top + (focus + 1) * hm.cell),
          height: r1((hm.n - focus - 1) * hm.cell),
          visibility: "visible",
        });
      }
    }
    this.tokenEls.forEach((el, i) => el.classList.toggle("is-focus", i === focus));
    for (const chip of this.el.chips.querySelectorAll("button[data-head]")) {
      chip.classList.toggle("is-faded", iso !== null && Number(chip.dataset.head) !== iso);
    }
  }

  // ---- text --------------------------------------------------------------------------------------------

  tokenFont() {
    this.font ??= getComputedStyle(this.el.drawing).fontFamily || "sans-serif"; // read once: it forces style
    return this.font;
  }

  /** What a screen reader hears on a word: where it is and where each head looks from it. */
  tokenLabel(i) {
    const { tokens, known, weights } = this.data;
    const n = tokens.length;
    const parts = weights.map((rows, k) => {
      const row = rows[i];
      const j = row.indexOf(Math.max(...row));
      const target = j === i ? "itself" : tokens[j];
      return `head ${k + 1} looks most at ${target} (${pct(row[j])})`;
    });
    const unknown = known[i] ? "" : ", not in the lexicon";
    return `${tokens[i]}, word ${i + 1} of ${n}${unknown}: ${parts.join("; ")}`;
  }

  headSummary(k) {
    const { tokens, weights } = this.data;
    return tokens
      .map((t, i) => {
        const row = weights[k][i];
        const j = row.indexOf(Math.max(...row));
        return `${t} → ${j === i ? "itself" : tokens[j]}`;
      })
      .join(", ");
  }
}


/** When some of a relation's pairs are also another relation's, a score can be borrowed: a head serving the
 * other relation earns it too. This note names the shared pairs and scores the best head on the relation's
 * own pairs alone (in "the river bank was steep", bank → river is meaning and position, was → bank grammar
 * and position). Null unless the own pairs alone score at least BORROWED less than all of them. */
function sharedNote(relation, data, tokens) {
  const key = ([i, j]) => `${i},${j}`;
  const others = new Map();
  for (const other of data.relations) {
    if (other.name === relation.name) continue;
    for (const pair of other.targets) {
      const k = key(pair);
      if (!others.has(k)) others.set(k, relationInfo(other.name).label.toLowerCase());
    }
  }
  const shared = relation.targets.filter((pair) => others.has(key(pair)));
  const own = relation.targets.filter((pair) => !others.has(key(pair)));
  if (!shared.length || !own.length) return null;
  const weights = data.weights[relation.best_head];
  const ownScore = own.reduce((s, [i, j]) => s + weights[i][j], 0) / own.length;
  if (relation.score - ownScore < BORROWED) return null;
  const p = document.createElement("p");
  p.className = "relation__shared";
  const named = shared.map(([i, j]) => `${tokens[i]} → ${tokens[j]} (also ${others.get(key([i, j]))})`);
  p.textContent =
    `Borrowed: ${named.join(", ")} count here too. On its ${plural(own.length, "own pair")} alone, ` +
    `Head ${relation.best_head + 1} scores ${ownScore.toFixed(2)}.`;
  return p;
}

/** For one relation: a bar for the best score and a small column per head (the best one solid). */
function scoreBars(relation, h) {
  const width = 120;
  const root = svg("svg", {
    class: "relation__bars",
    width,
    height: 26,
    viewBox: `0 0 ${width} 26`,
    role: "img",
    "aria-label":
      `score ${relation.score.toFixed(2)}` +
      (relation.head_scores
        ? `; every head: ${relation.head_scores.map((s) => s.toFixed(2)).join(", ")}`
        : ""),
  });
  svg("rect", { class: "bar__track", x: 0, y: 0, width, height: 7, rx: 2 }, root);
  svg(
    "rect",
    {
      x: 0,
      y: 0,
      width: r1(width * Math.min(1, relation.score)),
      height: 7,
      rx: 2,
      fill: headColour(relation.best_head),
    },
    root,
  );
  const scores = relation.head_scores ?? [];
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

/** `text`, shortened with an ellipsis until it fits in `maxWidth` px. */
function fitLabel(text, maxWidth, font) {
  if (measure(text, font) <= maxWidth) return text;
  let cut = text;
  while (cut.length > 1 && measure(`${cut}…`, font) > maxWidth) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Tick values 1, 2 and 5 x 10^k between 10^lo and 10^hi (only powers of ten when that gives enough). */
function logTicks(lo, hi) {
  const all = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) all.push(v);
    }
  }
  const powers = all.filter((v) => Number.isInteger(Math.round(Math.log10(v) * 1e9) / 1e9));
  return powers.length >= 3 ? powers : all;
}

/** A loss with two significant digits, in plain decimals (0.34, 0.0072). */
function formatLoss(x) {
  if (x === 0) return "0";
  if (x >= 1) return x.toFixed(2);
  return Number(x.toPrecision(2)).toString();
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new HeadsDial(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    const matrices = d.weights.map((w, k) => ({
      name: `Head ${k + 1} of ${d.heads}`,
      rows: d.tokens,
      columns: d.tokens,
      values: w,
    }));
    const note = "Attention weights: row = the word attending (query), column = the word attended to (key).";
    return { note, sentence: d.tokens.join(" "), heads: d.heads, trained: d.trained, relations: d.relations, matrices };
  };
  return widget;
}
