// Figure 11, a real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence: a thumbnail map of each
// of its 72 heads (6 layers x 12, thumbnails.js), for each relation the head that tracks it best in this
// sentence (relations.js), and one head or one layer opened (open-view.js): one head as arcs while its tokens
// fit and as a grid past that (figure 1's rule, lib/arcs.js `arcsFit`), a whole layer as a grid per head.
// With nothing chosen in the URL the figure opens on the best head of the relation it tracks most clearly.
//
// Data flows one way: state (from the URL) -> one GET of /api/real-attention (every layer) -> one redraw. The
// two view options (whole words, hide [CLS]/[SEP]) are applied here to that answer (view.js), without a new
// request; a head chip redraws only the open view, and a hover or a focus only rewrites attributes. The model
// is optional: a status check first, and a 503 from the answer, show how to install it instead of an error.

import { ARC_TOKEN_LIMIT, arcsFit, emphasiseArcs, MIN_WEIGHT } from "../../lib/arcs.js";
import { onSchemeChange } from "../../lib/colours.js";
import { HeadChips } from "../../lib/head-chips.js";
import { measure } from "../../lib/measure.js";
import { relationInfo } from "../../lib/relations.js";
import { TokenFocus } from "../../lib/token-focus.js";
import { format, parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { drawOpen, pct } from "./open-view.js";
import { bestHeads, relationItems, relationVerdicts, scoreNote, strongestHead } from "./relations.js";
import { ThumbnailGrid } from "./thumbnails.js";
import { viewOf } from "./view.js";

const NAME = "real-heads";
const STATUS = "/api/real-attention/status";
const LAYERS = 6; // all-MiniLM-L6-v2; the answer's own numbers win once it arrives
const HEADS = 12;
const DEBOUNCE_MS = 300;
// From this width (real-heads.css), one head whose arcs fit half of it opens beside the relation list.
const SPLIT = window.matchMedia("(min-width: 62rem)");
const SPLIT_GAP = 24; // px between the two columns (real-heads.css)

/** The install command inside a 503's detail (after a colon or in backticks), or the whole detail. */
function installCommand(detail) {
  const quoted = /`([^`]+)`/.exec(detail);
  if (quoted) return quoted[1];
  const pip = /(pip install[^\n]*)/.exec(detail);
  return pip ? pip[1].replace(/[.;]\s*$/, "") : detail;
}

/** `fn` timed as the performance measure `real-heads:<name>`. */
function timed(name, fn) {
  performance.mark(`${NAME}:${name}:start`);
  fn();
  performance.measure(`${NAME}:${name}`, `${NAME}:${name}:start`);
  performance.clearMarks(`${NAME}:${name}:start`);
}

export class RealHeads extends Widget {
  constructor(figure, pageData) {
    const maxChars = pageData.maxChars ?? 500;
    super(figure, pageData, {
      name: NAME,
      limit: 12,
      schema: {
        sentence: { param: "real_sentence", fallback: pageData.defaultSentence, parse: parse.text(maxChars) },
        // Neither: the best head of the clearest relation. A layer alone: all its heads. A head alone: layer 1's.
        layer: { param: "real_layer", fallback: null, parse: parse.integer(1, LAYERS) },
        head: { param: "real_head", fallback: null, parse: parse.integer(1, HEADS) },
        words: { param: "real_words", fallback: false, parse: parse.boolean, format: format.boolean },
        hide: { param: "real_hide", fallback: false, parse: parse.boolean, format: format.boolean },
      },
      parts: [
        "sentence",
        "words",
        "specials",
        "missing",
        "install",
        "reason",
        "body",
        "grid",
        "relations",
        "verdicts",
        "score-note",
        "open-title",
        "chips",
        "all-heads",
        "drawing",
        "note",
      ],
      staleOn: "body",
    });
    this.el.controls = figure.querySelector(".real-controls");
    this.view = null; // viewOf(data, state)
    this.grid = new ThumbnailGrid(this.el.grid);
    // A chip opens its head of the open layer; pressing the open head's chip again shows the whole layer.
    this.chips = new HeadChips(this.el.chips, (k) => {
      const { layer, head } = this.opened();
      this.update({ layer: layer + 1, head: head === k ? null : k + 1 });
    });
    this.arcs = [];
    this.heatmaps = [];
    this.focus = new TokenFocus(() => this.applyEmphasis()); // the token pointed at or focused
    this.width = 0;
  }

  /**
   * What is open, 0-based: `{ layer, head, auto }`, head null for the whole layer; `auto` is the relation
   * whose best head (on the weights drawn) was opened because the URL chose nothing (null otherwise).
   */
  opened() {
    const { layer, head } = this.state;
    if (layer === null && head === null) {
      const best = this.data ? strongestHead(this.data, this.state.hide) : null;
      if (best) return { layer: best.layer, head: best.head, auto: best };
      return { layer: 0, head: null, auto: null };
    }
    return { layer: (layer ?? 1) - 1, head: head === null ? null : head - 1, auto: null };
  }

  start() {
    const { sentence, words, specials, grid, relations, drawing } = this.el;
    words.checked = this.state.words;
    specials.checked = this.state.hide;
    this.watchSentence(sentence, (text) => this.update({ sentence: text }), { delay: DEBOUNCE_MS });
    words.addEventListener("change", () => this.update({ words: words.checked }));
    specials.addEventListener("change", () => this.update({ hide: specials.checked }));
    grid.addEventListener("click", (event) => {
      const thumb = event.target.closest("button[data-layer]");
      if (thumb) this.open(Number(thumb.dataset.layer) + 1, Number(thumb.dataset.head) + 1);
    });
    this.el.allHeads.addEventListener("click", () => this.update({ layer: this.opened().layer + 1, head: null }));
    relations.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-layer]");
      if (!button) return;
      this.open(Number(button.dataset.layer) + 1, Number(button.dataset.head) + 1);
      this.el.openTitle.scrollIntoView({ block: "nearest" });
    });

    this.width = drawing.clientWidth;
    new ResizeObserver(() => {
      const width = drawing.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.resizeFrame);
      this.resizeFrame = requestAnimationFrame(() => this.view && this.drawOpen());
    }).observe(drawing);
    onSchemeChange(() => this.view && this.redraw());
    this.checkModel();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    const before = this.setState(patch);
    if (before.sentence !== this.state.sentence) return this.loadAnswer();
    if (!this.data) return;
    if (before.words !== this.state.words || before.hide !== this.state.hide) {
      this.redraw({ newView: true });
    } else if (before.layer !== this.state.layer || before.head !== this.state.head) {
      this.drawOpen();
    }
  }

  /** Open head `head` (1-based) of layer `layer` (1-based). */
  open(layer, head) {
    this.grid.cursor = (layer - 1) * (this.data?.heads ?? HEADS) + head - 1;
    this.update({ layer, head });
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask whether the optional model is installed; without it, say how to install it and draw nothing. */
  checkModel() {
    this.api.load(STATUS, {
      channel: `${NAME}:status`,
      busy: (busy) => this.setBusy(busy),
      show: (status) => {
        if (status.available === false) this.showMissing(status.install, status.reason);
        else this.loadAnswer();
      },
      fail: () => this.loadAnswer(), // no status: the main request says what is wrong
    });
  }

  /** Every layer's attention for the sentence; a 503 means the model could not be loaded after all. */
  loadAnswer() {
    const url = `/api/real-attention?${new URLSearchParams({ sentence: this.state.sentence, layer: "all" })}`;
    this.load(url, (data) => this.show(data), {
      fail: (message, error) =>
        error?.status === 503 ? this.showMissing(installCommand(message), message) : this.fail(message),
    });
  }

  showMissing(install, reason = "") {
    this.figure.dataset.state = "missing";
    this.el.install.textContent = install || "pip install -e '.[real]'";
    this.el.reason.textContent = reason ? `The server says: ${reason}` : "";
    this.el.reason.hidden = !reason;
    this.el.missing.hidden = false;
    this.el.body.hidden = true;
    this.el.controls.hidden = true;
  }

  show(data) {
    this.figure.dataset.state = "ready";
    const patch = {};
    if (this.state.layer > data.layers) patch.layer = 1;
    if (this.state.head !== null && this.state.head > data.heads) patch.head = null;
    if (Object.keys(patch).length) this.setState(patch);
    const { layer, head } = this.opened();
    this.grid.cursor = layer * data.heads + (head ?? 0);
    this.redraw({ newView: true });
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Everything from the answer (and, with `newView`, the view options applied to it first), timed. */
  redraw({ newView = false } = {}) {
    timed("redraw", () => {
      if (newView) this.view = viewOf(this.data, this.state);
      timed("grid", () => this.grid.paint(this.view.layers, this.view.labels.length));
      this.el.relations.replaceChildren(...relationItems(this.data, this.state.hide));
      this.el.verdicts.replaceChildren(...relationVerdicts(this.data, this.state.hide));
      const dial = this.figureNumber("heads-dial");
      this.el.scoreNote.textContent = scoreNote(this.data, { ...this.state, dial });
      this.drawOpen();
    });
  }

  /** The open head or layer (open-view.js), a chip per head of its layer, its title and its note. */
  drawOpen() {
    timed("arcs", () => {
      const { layer, head, auto } = this.opened();
      const n = this.view.labels.length;
      const heads = this.view.layers[layer].length;
      this.chips.draw(heads);
      this.font ??= getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
      const width = this.layOut(head);
      this.focus.reset();
      const el = this.el.drawing;
      el.replaceChildren();
      const drawn = drawOpen(el, this.view, {
        layer,
        head,
        width,
        font: this.font,
        bindToken: (g, i) => this.focus.bind(g, i),
      });
      this.arcs = drawn.arcs;
      this.heatmaps = drawn.heatmaps;
      el.dataset.layer = String(layer);
      el.dataset.head = head === null ? "all" : String(head);
      el.dataset.mode = drawn.mode;
      el.dataset.tokens = String(n);
      el.classList.toggle("is-scrolling", drawn.wide);
      this.el.openTitle.textContent = this.openTitle(layer, head, heads, auto);
      this.el.note.textContent = this.noteFor(drawn, n, width, head, heads);
      this.el.note.hidden = !this.el.note.textContent;
      this.chips.isolate(head);
      this.el.allHeads.textContent = `All ${heads} heads`;
      this.el.allHeads.setAttribute("aria-pressed", String(head === null));
      this.grid.emphasise(layer, head);
      this.applyEmphasis();
    });
  }

  /**
   * Where the open view stands, set on the body as class is-split: beside the relation list on a wide screen
   * when one head is open and its tokens fit half the width as arcs (figure 1's rule) with every label whole,
   * else under it at the full width, so that a long sentence, a long word or a whole layer never loses its
   * width. Returns the view's width.
   */
  layOut(head) {
    const body = this.el.body;
    const full = body.clientWidth;
    if (!full) return this.width || this.el.drawing.clientWidth || 640;
    const half = Math.floor((full - SPLIT_GAP) / 2);
    const split = SPLIT.matches && head !== null && this.labelsFit(half);
    body.classList.toggle("is-split", split);
    return split ? half : full;
  }

  /** Whether one head's arcs fit `width` with every token's label whole (lib/arcs.js sizes and cuts them so). */
  labelsFit(width) {
    const { labels } = this.view;
    const slot = width / labels.length;
    const font = `${Math.max(11, Math.min(16, slot / 5.2))}px ${this.font}`;
    return arcsFit(labels.length, width) && labels.every((t) => measure(t, font) <= slot - 6);
  }

  /**
   * "Layer 1, head 3: tracks the previous word here", "Layer 2, head 9: the closest any head comes to grammar
   * here" (below TRACKS_AT), or "Layer 2, all 12 heads". Its score is the relation list's to state.
   */
  openTitle(layer, head, heads, auto) {
    if (head === null) return `Layer ${layer + 1}, all ${heads} heads`;
    const name = `Layer ${layer + 1}, head ${head + 1}`;
    const hide = this.state.hide;
    const best = auto ? [auto] : bestHeads(this.data, hide).filter((b) => b.layer === layer && b.head === head);
    if (!best.length) return name;
    const what = best.map((b) => {
      const info = relationInfo(b.name);
      const role = b.tracks ? info.does : `the closest any head comes to ${info.label.toLowerCase()}`;
      return `${role} here`;
    });
    return `${name}: ${what.join("; ")}`;
  }

  /** Why the drawing is a grid, or what the arcs leave out; empty when there is nothing to say. */
  noteFor(drawn, n, width, head, heads) {
    if (drawn.mode === "arcs") {
      return drawn.threshold > MIN_WEIGHT ? `Only weights of ${pct(drawn.threshold)} or more are drawn.` : "";
    }
    const scroll = drawn.wide ? " The grid scrolls sideways." : "";
    if (head === null) {
      return `A grid per head, so that ${heads} heads never pile up as arcs. Press a head above to open it alone.`;
    }
    const why =
      n > ARC_TOKEN_LIMIT ? `${n} tokens are too many for arcs` : `${n} tokens at this width would crowd arcs together`;
    return `${why}, so the head is drawn as a grid.${scroll}`;
  }

  // ---- emphasis (attributes only) ----------------------------------------------------------------------

  /** Only the arcs, or the grid rows, of the token in focus. */
  applyEmphasis() {
    const focus = this.focus.index;
    emphasiseArcs(this.arcs, null, focus);
    for (const map of this.heatmaps) map.focusRow(focus);
    this.focus.mark();
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new RealHeads(figure, pageData);
  // The numbers behind the open layer (as shown: whole words and hidden markers applied).
  figure.exportData = () => {
    const d = widget.data;
    const v = widget.view;
    if (!d || !v) return null;
    const layer = widget.opened().layer + 1;
    return {
      note:
        "Attention weights of one layer: row = the token attending (query), column = the token attended to (key)." +
        (widget.state.words ? " Pieces joined into words." : "") +
        (widget.state.hide ? " [CLS] and [SEP] left out, rows renormalised." : "") +
        " Relation scores: scores_with_markers on the weights with [CLS] and [SEP] kept in every row, scores " +
        "with the two left out and rows renormalised.",
      model: d.model,
      sentence: widget.state.sentence,
      layer,
      relations: d.relations,
      matrices: v.layers[layer - 1].map((values, k) => ({
        name: `Layer ${layer}, head ${k + 1}`,
        rows: v.labels,
        columns: v.labels,
        values,
      })),
    };
  };
  widget.start();
  return widget;
}
