// Figure 10, a real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence: a thumbnail map of each
// of its 72 heads (6 layers x 12, thumbnails.js), one layer opened as arcs (lib/arcs.js, as in figure 1), and
// for each relation the head that tracks it best in this sentence (relations.js).
//
// Data flows one way: state (from the URL) -> one GET of /api/real-attention (every layer) -> one redraw. The
// two view options (whole words, hide [CLS]/[SEP]) are applied here to that answer (view.js), without a new
// request; a head chip, a hover or a focus only rewrites attributes. The model is optional: a status check
// first, and a 503 from the answer, show how to install it instead of an error.

import { drawArcs, emphasiseArcs, MIN_WEIGHT } from "../../lib/arcs.js";
import { onSchemeChange } from "../../lib/colours.js";
import { HeadChips } from "../../lib/head-chips.js";
import { TokenFocus } from "../../lib/token-focus.js";
import { format, parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { relationItems } from "./relations.js";
import { ThumbnailGrid } from "./thumbnails.js";
import { viewOf } from "./view.js";

const NAME = "real-heads";
const STATUS = "/api/real-attention/status";
const LAYERS = 6; // all-MiniLM-L6-v2; the answer's own numbers win once it arrives
const HEADS = 12;
const DEBOUNCE_MS = 300;
const MIN_SLOT = 44; // px per token below which the arcs get their own horizontal scroll (as figure 1's MIN_ARC_SLOT)

const pct = (w) => `${Math.round(w * 100)}%`;

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
        layer: { param: "real_layer", fallback: 1, parse: parse.integer(1, LAYERS) },
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
        "open-title",
        "chips",
        "drawing",
        "note",
      ],
      staleOn: "body",
    });
    this.el.controls = figure.querySelector(".real-controls");
    this.view = null; // viewOf(data, state)
    this.grid = new ThumbnailGrid(this.el.grid);
    this.chips = new HeadChips(this.el.chips, (k) => this.update({ head: this.state.head === k + 1 ? null : k + 1 }));
    this.arcs = [];
    this.focus = new TokenFocus(() => this.applyEmphasis()); // the token pointed at or focused in the arcs
    this.width = 0;
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
    } else if (before.layer !== this.state.layer) {
      this.drawOpen();
      this.applyEmphasis();
    } else {
      this.applyEmphasis();
    }
  }

  /** Open layer `layer` (1-based) as arcs with head `head` (1-based) picked out. */
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
    this.grid.cursor = (this.state.layer - 1) * data.heads + (this.state.head ?? 1) - 1;
    this.redraw({ newView: true });
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Everything from the answer (and, with `newView`, the view options applied to it first), timed. */
  redraw({ newView = false } = {}) {
    timed("redraw", () => {
      if (newView) this.view = viewOf(this.data, this.state);
      timed("grid", () => this.grid.paint(this.view.layers, this.view.labels.length));
      this.el.relations.replaceChildren(...relationItems(this.data));
      this.drawOpen();
    });
  }

  /** The open layer as arcs, with a chip per head. */
  drawOpen() {
    timed("arcs", () => {
      const { labels, special, layers } = this.view;
      const layer = this.state.layer;
      const weights = layers[layer - 1];
      const n = labels.length;
      this.chips.draw(weights.length);
      const room = this.width || this.el.drawing.clientWidth || 640;
      const scroll = room / n < MIN_SLOT;
      const drawing = drawArcs({
        tokens: labels,
        weights,
        width: scroll ? Math.ceil(n * MIN_SLOT) : room,
        font: this.tokenFont(),
        label: `Layer ${layer}: ${n} tokens, ${weights.length} heads. Focus a token to see only its arcs.`,
        tokenInfo: (i) => ({
          className: special[i] ? "token token--special" : "token",
          attrs: { "data-special": String(special[i]), "aria-label": this.tokenLabel(weights, i) },
        }),
      });
      this.arcs = drawing.arcs;
      this.focus.reset();
      drawing.tokens.forEach((g, i) => this.focus.bind(g, i));
      const el = this.el.drawing;
      el.replaceChildren(drawing.root);
      el.dataset.layer = String(layer - 1);
      el.dataset.tokens = String(n);
      el.classList.toggle("is-scrolling", scroll);
      const notes = [];
      if (drawing.threshold > MIN_WEIGHT) notes.push(`only weights of ${pct(drawing.threshold)} or more are drawn`);
      if (scroll) notes.push("the drawing scrolls sideways");
      this.el.note.textContent = notes.length ? `So many tokens: ${notes.join(", and ")}.` : "";
      this.el.note.hidden = !notes.length;
      this.applyEmphasis();
    });
  }

  // ---- emphasis (attributes only) ----------------------------------------------------------------------

  applyEmphasis() {
    const iso = this.state.head === null ? null : this.state.head - 1;
    const layer = this.state.layer - 1;
    emphasiseArcs(this.arcs, iso, this.focus.index);
    this.focus.mark();
    this.chips.isolate(iso);
    this.grid.emphasise(layer, iso);
    this.el.openTitle.textContent =
      `Layer ${layer + 1}, as arcs` + (iso === null ? "" : `: head ${iso + 1} picked out`);
  }

  tokenFont() {
    this.font ??= getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    return this.font;
  }

  /** What a screen reader hears on a token: where it is and where each head of the layer looks from it. */
  tokenLabel(weights, i) {
    const { labels, special } = this.view;
    const parts = weights.map((rows, k) => {
      const row = rows[i];
      const j = row.indexOf(Math.max(...row));
      return `head ${k + 1} looks most at ${j === i ? "itself" : labels[j]} (${pct(row[j])})`;
    });
    const kind = special[i] ? ", a marker token" : "";
    return `${labels[i]}, token ${i + 1} of ${labels.length}${kind}: ${parts.join("; ")}`;
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
    const layer = widget.state.layer;
    return {
      note:
        "Attention weights of one layer: row = the token attending (query), column = the token attended to (key)." +
        (widget.state.words ? " Pieces joined into words." : "") +
        (widget.state.hide ? " [CLS] and [SEP] left out, rows renormalised." : ""),
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
