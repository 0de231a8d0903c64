// Figure 10, a real pretrained transformer (all-MiniLM-L6-v2) on the reader's sentence: a thumbnail map of each
// of its 72 heads (6 layers x 12), one layer opened as arcs (lib/arcs.js, as in figure 1), and for each relation
// the head that tracks it best in this sentence.
//
// Data flows one way: state (from the URL) -> one fetch of /api/real-attention (every layer) -> one redraw. The
// two view options (whole words, hide [CLS]/[SEP]) are computed here from that answer, without a new request;
// a head chip, a hover or a focus only rewrites attributes.
//
// The thumbnails are painted into <canvas> elements (one ImageData each), not SVG cells: 72 maps of up to ~70 x 70
// pieces would otherwise be hundreds of thousands of nodes.

import { drawArcs, emphasiseArcs, MIN_WEIGHT } from "../lib/arcs.js";
import { headColour, isDark, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { isAbort, JsonFetcher } from "../lib/fetcher.js";
import { relationInfo, relationItem } from "../lib/relations.js";
import { watchSentence } from "../lib/sentence-box.js";
import { r1, svg } from "../lib/svg.js";
import { headSwatch } from "../lib/swatch.js";
import { format, parse, readState, writeState } from "../lib/url-state.js";

const NAME = "real-heads";
const LAYERS = 6; // all-MiniLM-L6-v2; the answer's own numbers win once it arrives
const HEADS = 12;
const DEBOUNCE_MS = 300;
const MIN_SLOT = 44; // px per token below which the arcs get their own horizontal scroll (as figure 1's MIN_ARC_SLOT)
const THUMB_PX = 96; // a thumbnail's canvas is painted at least this many pixels wide (then scaled by CSS)

const pct = (w) => `${Math.round(w * 100)}%`;

/**
 * The answer's attention as the reader asked to see it: [layer][head][i][j] over `labels`.
 *
 * `hide`: [CLS] and [SEP] rows and columns are dropped and each remaining row is divided by its sum.
 * `words`: the pieces of a word become one token; a word receives the sum of the weight given to its pieces
 * (key side) and gives the mean of its pieces' rows (query side), so every row still sums to 1.
 */
export function viewOf(data, { words = false, hide = false } = {}) {
  const n = data.tokens.length;
  const keep = [];
  for (let p = 0; p < n; p++) if (!(hide && data.special[p])) keep.push(p);
  // Units: the tokens drawn. A special token is always its own unit; a word's pieces share one when `words`.
  const units = [];
  const unitOfWord = new Map();
  for (const p of keep) {
    const w = data.word_index[p];
    if (words && !data.special[p] && w !== null && w !== undefined) {
      if (!unitOfWord.has(w)) {
        unitOfWord.set(w, units.length);
        units.push({ label: data.words[w] ?? data.tokens[p], special: false, pieces: [] });
      }
      units[unitOfWord.get(w)].pieces.push(p);
    } else {
      units.push({ label: data.tokens[p], special: Boolean(data.special[p]), pieces: [p] });
    }
  }
  const m = units.length;
  const unitOf = new Int32Array(n).fill(-1); // piece -> its unit
  units.forEach((u, a) => u.pieces.forEach((p) => (unitOf[p] = a)));

  const layers = [];
  data.attention.forEach((layer, x) => {
    layers[data.layer_indices?.[x] ?? x] = layer.map((A) => {
      const M = Array.from({ length: m }, () => new Array(m).fill(0));
      for (let a = 0; a < m; a++) {
        const qs = units[a].pieces;
        for (const p of qs) {
          const row = A[p];
          let total = 0;
          if (hide) for (const q of keep) total += row[q];
          const scale = (hide ? (total > 0 ? 1 / total : 0) : 1) / qs.length;
          for (const q of keep) M[a][unitOf[q]] += row[q] * scale;
        }
      }
      return M;
    });
  });
  return {
    labels: units.map((u) => u.label),
    special: units.map((u) => u.special),
    layers,
  };
}

/** "r,g,b" of a CSS hex colour. */
function rgb(hex) {
  const v = Number.parseInt(hex.replace("#", ""), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** Paint `weights` (n x n) onto `canvas` as blocks of `colour`, alpha growing with the weight. */
export function paintThumbnail(canvas, weights, colour) {
  const n = weights.length;
  const k = Math.max(1, Math.ceil(THUMB_PX / n)); // pixels per cell
  const size = n * k;
  if (canvas.width !== size) canvas.width = canvas.height = size;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(size, size);
  const px = image.data;
  const [r, g, b] = rgb(colour);
  for (let i = 0; i < n; i++) {
    const row = weights[i];
    for (let j = 0; j < n; j++) {
      const w = row[j];
      if (w <= 0.005) continue; // transparent: the button's background
      const alpha = Math.round(255 * Math.min(1, 0.08 + 0.92 * w ** 0.7));
      for (let y = i * k; y < (i + 1) * k; y++) {
        let o = (y * size + j * k) * 4;
        for (let x = 0; x < k; x++, o += 4) {
          px[o] = r;
          px[o + 1] = g;
          px[o + 2] = b;
          px[o + 3] = alpha;
        }
      }
    }
  }
  ctx.putImageData(image, 0, 0);
}

export class RealHeads {
  constructor(figure, pageData, fetcher = new JsonFetcher({ limit: 12 })) {
    this.figure = figure;
    this.fetcher = fetcher;
    this.maxChars = pageData.maxChars ?? 500;
    this.schema = {
      sentence: { param: "real_sentence", fallback: pageData.defaultSentence, parse: parse.text(this.maxChars) },
      layer: { param: "real_layer", fallback: 1, parse: parse.integer(1, LAYERS) },
      head: { param: "real_head", fallback: null, parse: parse.integer(1, HEADS) },
      words: { param: "real_words", fallback: false, parse: parse.boolean, format: format.boolean },
      hide: { param: "real_hide", fallback: false, parse: parse.boolean, format: format.boolean },
    };
    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      controls: figure.querySelector(".real-controls"),
      sentence: part("sentence"),
      words: part("words"),
      specials: part("specials"),
      missing: part("missing"),
      install: part("install"),
      reason: part("reason"),
      body: part("body"),
      grid: part("grid"),
      relations: part("relations"),
      openTitle: part("open-title"),
      chips: part("chips"),
      drawing: part("drawing"),
      note: part("note"),
    };
    this.errors = new ErrorBox(part("error"));
    this.state = readState(this.schema);
    this.data = null; // the answer drawn
    this.view = null; // viewOf(data, state)
    this.thumbs = []; // [layer][head] -> { button, canvas }
    this.layerEls = []; // the row labels
    this.arcs = [];
    this.tokenEls = [];
    this.focus = null;
    this.cursor = 0; // index (layer * heads + head) of the thumbnail that Tab lands on
    this.width = 0;
  }

  start() {
    const { sentence, words, specials } = this.el;
    sentence.value = this.state.sentence;
    words.checked = this.state.words;
    specials.checked = this.state.hide;
    watchSentence(sentence, (text) => this.onSentence(text), DEBOUNCE_MS);
    words.addEventListener("change", () => this.update({ words: words.checked }));
    specials.addEventListener("change", () => this.update({ hide: specials.checked }));
    this.el.chips.addEventListener("click", (event) => {
      const chip = event.target.closest("button[data-head]");
      if (!chip) return;
      const k = Number(chip.dataset.head) + 1;
      this.update({ head: this.state.head === k ? null : k });
    });
    this.el.grid.addEventListener("click", (event) => {
      const thumb = event.target.closest("button[data-layer]");
      if (thumb) this.open(Number(thumb.dataset.layer) + 1, Number(thumb.dataset.head) + 1);
    });
    this.el.grid.addEventListener("keydown", (event) => this.onGridKey(event));
    this.el.relations.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-layer]");
      if (!button) return;
      this.open(Number(button.dataset.layer) + 1, Number(button.dataset.head) + 1);
      this.el.openTitle.scrollIntoView({ block: "nearest" });
    });

    this.width = this.el.drawing.clientWidth;
    new ResizeObserver(() => {
      const width = this.el.drawing.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.resizeFrame);
      this.resizeFrame = requestAnimationFrame(() => this.view && this.drawOpen());
    }).observe(this.el.drawing);
    onSchemeChange(() => this.view && this.redraw());
    this.checkModel();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    const before = this.state;
    this.state = { ...before, ...patch };
    writeState(this.schema, this.state);
    if (before.sentence !== this.state.sentence) return this.load();
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
    this.cursor = (layer - 1) * this.heads() + head - 1;
    this.update({ layer, head });
  }

  /** The Sentence box's text, once the reader pauses or presses Enter (lib/sentence-box.js). */
  onSentence(text) {
    if (!text) {
      this.errors.show("Type a sentence: at least one word.");
      this.el.body.classList.add("is-stale");
      return;
    }
    if (text === this.state.sentence && this.errors.visible && this.data) {
      this.errors.clear();
      this.el.body.classList.remove("is-stale");
    }
    this.update({ sentence: text });
  }

  layers() {
    return this.data?.layers ?? LAYERS;
  }

  heads() {
    return this.data?.heads ?? HEADS;
  }

  url(sentence = this.state.sentence) {
    return `/api/real-attention?${new URLSearchParams({ sentence, layer: "all" })}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask whether the optional model is installed; without it, say how to install it and draw nothing. */
  checkModel() {
    this.setBusy(true);
    this.fetcher.get("/api/real-attention/status").then(
      (status) => {
        if (status.available === false) {
          this.setBusy(false);
          this.showMissing(status.install, status.reason);
        } else {
          this.load();
        }
      },
      () => this.load(), // no status: the main request says what is wrong
    );
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

  load() {
    const url = this.url();
    this.setBusy(true);
    this.fetcher.get(url, { channel: NAME }).then(
      (data) => {
        if (url !== this.url()) return;
        this.setBusy(false);
        this.errors.clear();
        this.el.body.classList.remove("is-stale");
        this.show(data);
      },
      (error) => {
        if (isAbort(error) || url !== this.url()) return;
        this.setBusy(false);
        if (error.status === 503) return this.showMissing(installCommand(error.message), error.message);
        this.errors.show(error.message);
        this.el.body.classList.add("is-stale");
      },
    );
  }

  setBusy(busy) {
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  show(data) {
    this.data = data;
    this.figure.dataset.state = "ready";
    const patch = {};
    if (this.state.layer > data.layers) patch.layer = 1;
    if (this.state.head !== null && this.state.head > data.heads) patch.head = null;
    if (Object.keys(patch).length) {
      this.state = { ...this.state, ...patch };
      writeState(this.schema, this.state);
    }
    this.cursor = (this.state.layer - 1) * data.heads + (this.state.head ?? 1) - 1;
    this.redraw({ newView: true });
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Everything from the answer (and, with `newView`, the view options applied to it first), timed. */
  redraw({ newView = false } = {}) {
    performance.mark(`${NAME}:redraw:start`);
    if (newView) this.view = viewOf(this.data, this.state);
    this.drawGrid();
    this.drawRelations();
    this.drawOpen();
    performance.measure(`${NAME}:redraw`, `${NAME}:redraw:start`);
    performance.clearMarks(`${NAME}:redraw:start`);
  }

  /** The 72 thumbnails: built once, repainted (canvas pixels only) when the view changes. */
  drawGrid() {
    performance.mark(`${NAME}:grid:start`);
    const L = this.layers();
    const H = this.heads();
    const scheme = isDark() ? "dark" : "light";
    if (this.thumbs.length !== L || this.thumbs[0]?.length !== H) {
      const grid = this.el.grid;
      grid.replaceChildren();
      grid.style.setProperty("--heads", String(H));
      this.thumbs = [];
      this.layerEls = [];
      for (let l = 0; l < L; l++) {
        const name = document.createElement("span");
        name.className = "real-grid__layer";
        name.setAttribute("aria-hidden", "true");
        const word = document.createElement("span");
        word.className = "real-grid__layer-word";
        word.textContent = "Layer ";
        name.append(word, String(l + 1));
        grid.appendChild(name);
        this.layerEls.push(name);
        const row = [];
        for (let k = 0; k < H; k++) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "real-thumb";
          button.dataset.layer = String(l);
          button.dataset.head = String(k);
          button.tabIndex = -1;
          button.setAttribute("aria-label", `Layer ${l + 1}, head ${k + 1}`);
          const canvas = document.createElement("canvas");
          canvas.setAttribute("aria-hidden", "true");
          button.appendChild(canvas);
          grid.appendChild(button);
          row.push({ button, canvas });
        }
        this.thumbs.push(row);
      }
    }
    this.thumbScheme = scheme;
    const colours = Array.from({ length: H }, (_, k) => headColour(k));
    for (let l = 0; l < L; l++) {
      for (let k = 0; k < H; k++) paintThumbnail(this.thumbs[l][k].canvas, this.view.layers[l][k], colours[k]);
    }
    this.el.grid.dataset.tokens = String(this.view.labels.length);
    performance.measure(`${NAME}:grid`, `${NAME}:grid:start`);
    performance.clearMarks(`${NAME}:grid:start`);
  }

  /** Per relation: the best of the 72 heads as a button that opens it, its score, a strip of every head's score. */
  drawRelations() {
    const data = this.data;
    const items = data.relations.map((relation) => {
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
      const shown = pairs.slice(0, 6);
      targets.textContent =
        shown.join(", ") + (pairs.length > shown.length ? `, and ${pairs.length - shown.length} more` : "");
      targets.title = pairs.join(", ");
      li.appendChild(targets);
      return li;
    });
    this.el.relations.replaceChildren(...items);
  }

  /** The open layer as arcs, with a chip per head. */
  drawOpen() {
    performance.mark(`${NAME}:arcs:start`);
    const { labels, special, layers } = this.view;
    const layer = this.state.layer;
    const weights = layers[layer - 1];
    const n = labels.length;
    this.drawChips(weights.length);
    const room = this.width || this.el.drawing.clientWidth || 640;
    const scroll = room / n < MIN_SLOT;
    const width = scroll ? Math.ceil(n * MIN_SLOT) : room;
    const drawing = drawArcs({
      tokens: labels,
      weights,
      width,
      font: this.tokenFont(),
      label: `Layer ${layer}: ${n} tokens, ${weights.length} heads. Focus a token to see only its arcs.`,
      tokenInfo: (i) => ({
        className: special[i] ? "token token--special" : "token",
        attrs: { "data-special": String(special[i]), "aria-label": this.tokenLabel(weights, i) },
      }),
    });
    this.arcs = drawing.arcs;
    this.tokenEls = [];
    this.focus = null;
    drawing.tokens.forEach((g, i) => this.bindToken(g, i));
    this.el.drawing.replaceChildren(drawing.root);
    this.el.drawing.dataset.layer = String(layer - 1);
    this.el.drawing.dataset.tokens = String(n);
    this.el.drawing.classList.toggle("is-scrolling", scroll);
    const notes = [];
    if (drawing.threshold > MIN_WEIGHT) notes.push(`only weights of ${pct(drawing.threshold)} or more are drawn`);
    if (scroll) notes.push("the drawing scrolls sideways");
    this.el.note.textContent = notes.length ? `So many tokens: ${notes.join(", and ")}.` : "";
    this.el.note.hidden = !notes.length;
    this.applyEmphasis();
    performance.measure(`${NAME}:arcs`, `${NAME}:arcs:start`);
    performance.clearMarks(`${NAME}:arcs:start`);
  }

  drawChips(h) {
    const chips = this.el.chips;
    const scheme = isDark() ? "dark" : "light";
    if (chips.childElementCount === h && chips.dataset.scheme === scheme) return;
    chips.dataset.scheme = scheme;
    const buttons = Array.from({ length: h }, (_, k) => {
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = "head-chip";
      chip.dataset.head = String(k);
      chip.setAttribute("aria-pressed", "false");
      chip.append(headSwatch(k), `Head ${k + 1}`);
      return chip;
    });
    chips.replaceChildren(...buttons);
  }

  // ---- emphasis (attributes only) ----------------------------------------------------------------------

  applyEmphasis() {
    const iso = this.state.head === null ? null : this.state.head - 1;
    const layer = this.state.layer - 1;
    emphasiseArcs(this.arcs, iso, this.focus);
    this.tokenEls.forEach((el, i) => el.classList.toggle("is-focus", i === this.focus));
    for (const chip of this.el.chips.querySelectorAll("button[data-head]")) {
      const k = Number(chip.dataset.head);
      chip.setAttribute("aria-pressed", String(k === iso));
      chip.classList.toggle("is-faded", iso !== null && k !== iso);
    }
    this.thumbs.forEach((row, l) =>
      row.forEach(({ button }, k) => {
        const index = l * row.length + k;
        button.tabIndex = index === this.cursor ? 0 : -1;
        button.classList.toggle("is-open-layer", l === layer);
        if (l === layer && k === iso) button.setAttribute("aria-current", "true");
        else button.removeAttribute("aria-current");
      }),
    );
    this.layerEls.forEach((el, l) => el.classList.toggle("is-open", l === layer));
    this.el.openTitle.textContent =
      `Layer ${layer + 1}, as arcs` + (iso === null ? "" : `: head ${iso + 1} picked out`);
  }

  /** Arrow keys move between thumbnails (a row per layer), Home/End to a row's ends; Enter/Space open. */
  onGridKey(event) {
    const thumb = event.target.closest("button[data-layer]");
    if (!thumb) return;
    const L = this.layers();
    const H = this.heads();
    let l = Number(thumb.dataset.layer);
    let k = Number(thumb.dataset.head);
    const moves = {
      ArrowRight: () => (k = Math.min(H - 1, k + 1)),
      ArrowLeft: () => (k = Math.max(0, k - 1)),
      ArrowDown: () => (l = Math.min(L - 1, l + 1)),
      ArrowUp: () => (l = Math.max(0, l - 1)),
      Home: () => (k = 0),
      End: () => (k = H - 1),
    };
    if (!moves[event.key]) return;
    event.preventDefault();
    moves[event.key]();
    this.cursor = l * H + k;
    for (const row of this.thumbs) for (const { button } of row) button.tabIndex = -1;
    const next = this.thumbs[l][k].button;
    next.tabIndex = 0;
    next.focus();
  }

  bindToken(el, i) {
    el.addEventListener("pointerenter", () => this.setFocus(i));
    el.addEventListener("pointerleave", () => {
      if (document.activeElement !== el) this.setFocus(null);
    });
    el.addEventListener("focus", () => this.setFocus(i));
    el.addEventListener("blur", () => this.setFocus(null));
    this.tokenEls.push(el);
  }

  setFocus(i) {
    if (this.focus === i) return;
    this.focus = i;
    this.applyEmphasis();
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

/** A relation's score for every head: a cell per head, a row per layer, darker for higher; the best outlined. */
function scoreStrip(relation, label) {
  const scores = relation.scores;
  const L = scores.length;
  const H = scores[0]?.length ?? 0;
  const cell = 6; // 72 x 36 px: small enough that the figure's SVG export leaves the strips out
  const width = H * cell;
  const height = L * cell;
  const best = relation.best;
  const root = svg("svg", {
    class: "real-strip",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label":
      `${label} score of every head, by layer: ` +
      scores.map((row, l) => `layer ${l + 1}: ${row.map((s) => s.toFixed(2)).join(", ")}`).join("; "),
  });
  svg("rect", { class: "real-strip__bg", width, height }, root);
  scores.forEach((row, l) =>
    row.forEach((s, k) => {
      svg(
        "rect",
        {
          class: "real-strip__cell",
          x: k * cell + 0.5,
          y: l * cell + 0.5,
          width: cell - 1,
          height: cell - 1,
          "fill-opacity": Math.max(0.04, Math.min(1, s)).toFixed(2),
        },
        root,
      );
    }),
  );
  if (best) {
    svg(
      "rect",
      {
        class: "real-strip__best",
        x: r1(best.head * cell + 0.5),
        y: r1(best.layer * cell + 0.5),
        width: cell - 1,
        height: cell - 1,
      },
      root,
    );
  }
  return root;
}

/** The install command inside a 503's detail (after a colon or in backticks), or the whole detail. */
function installCommand(detail) {
  const quoted = /`([^`]+)`/.exec(detail);
  if (quoted) return quoted[1];
  const pip = /(pip install[^\n]*)/.exec(detail);
  return pip ? pip[1].replace(/[.;]\s*$/, "") : detail;
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
