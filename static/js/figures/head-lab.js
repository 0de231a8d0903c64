// Figure 3, the head lab: the reader's own embeddings and projections, every stage of multi-head attention
// computed by the server (POST /api/attention/custom), one token's row highlighted as numbers and as arcs.
//
// Data flows one way: the matrices (this.model) -> one debounced POST -> one redraw of the stages. Typing in a
// cell never rebuilds the grids, so the caret stays put; a new shape, preset or tie rebuilds them. Choosing a
// token only moves a highlight and redraws the small arc drawings.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { isAbort } from "../lib/fetcher.js";
import { formatNumber, matrixGrid, matrixView, parseBlock, parseCell, richText } from "../lib/matrix.js";
import { MemoPoster } from "../lib/memo-post.js";
import { clear, r1, svg, svgText } from "../lib/svg.js";
import { format, parse, readState, writeState } from "../lib/url-state.js";
import { DEFAULT_PRESET, PRESETS } from "./head-lab-presets.js";

const ENDPOINT = "/api/attention/custom";
const DEBOUNCE_MS = 180;
// The API takes 64 tokens, 64-wide matrices and 16 heads; past these the page's tables stop being readable.
const MAX_TOKENS = 32;
const MAX_DIM = 32;
const MAX_HEADS = 8;
const MASKS = ["none", "neg_inf", "zero"];
const MASK_NOTES = {
  none: "no mask: unchanged",
  neg_inf: "−∞ above the diagonal",
  zero: "0 above the diagonal (the bug)",
};

const cloneMatrix = (m) => m.map((row) => [...row]);
const cloneHead = (h) => ({ wq: cloneMatrix(h.wq), wk: cloneMatrix(h.wk), wv: cloneMatrix(h.wv) });
const asText = (m) => m.map((row) => row.map((x) => String(x)));
const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));

/** `m` with `rows` rows and `cols` columns: cut, or padded with "0". */
function resize(m, rows, cols) {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i < m.length && j < (m[i]?.length ?? 0) ? m[i][j] : "0")),
  );
}

/** The identity-like (rows × cols) matrix of strings: 1 on the diagonal. */
const eye = (rows, cols) =>
  Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === j ? "1" : "0")));

const MATRIX_NAMES = { wq: "W^Q", wk: "W^K", wv: "W^V" };
const MATRIX_WORDS = { wq: "W_Q", wk: "W_K", wv: "W_V" };

export class HeadLab {
  constructor(figure) {
    this.figure = figure;
    this.poster = new MemoPoster(ENDPOINT);
    const oneOf = (values) => (text) => (values.includes(text) ? text : undefined);
    this.schema = {
      preset: { param: "lab", fallback: DEFAULT_PRESET, parse: (t) => (Object.hasOwn(PRESETS, t) ? t : undefined) },
      token: { param: "lab_token", fallback: null, parse: parse.integer(1, MAX_TOKENS) },
      tied: { param: "lab_tied", fallback: false, parse: parse.boolean, format: format.boolean },
      mask: { param: "lab_mask", fallback: "none", parse: oneOf(MASKS) },
      scale: { param: "lab_scale", fallback: true, parse: parse.boolean, format: format.boolean },
    };
    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      preset: part("preset"),
      mask: part("mask"),
      scale: part("scale"),
      tie: part("tie"),
      addHead: part("add-head"),
      removeHead: part("remove-head"),
      tokens: part("tokens"),
      compare: part("compare"),
      tieNote: part("tie-note"),
      body: part("body"),
      status: part("status"),
    };
    this.errors = new ErrorBox(part("error"));
    this.state = readState(this.schema);
    this.model = null; // { tokens, x, heads: [{ wq, wk, wv }], wo } as strings, exactly as typed
    this.untied = null; // what Tie replaced, for Untie: { head, wo }
    this.data = null; // the answer currently drawn
    this.requested = null; // the body text of the newest request
    this.debounce = null;
    this.blocks = []; // per head: { root, title, inputs, stages }
  }

  start() {
    for (const [name, preset] of Object.entries(PRESETS)) this.el.preset.add(new Option(preset.label, name));
    const custom = new Option("Your own numbers", "custom");
    custom.disabled = true;
    this.el.preset.add(custom);
    this.buildSkeleton();
    const { tied } = this.state; // loading a preset unties: tie again if the URL asks for it
    this.loadPreset(this.state.preset, this.state.token);
    if (tied) this.tie();
    this.el.mask.querySelector(`input[value="${this.state.mask}"]`).checked = true;
    this.el.scale.checked = this.state.scale;
    this.wire();
    this.renderAll();
    this.compute(0);
    onSchemeChange(() => this.renderAll());
  }

  // ---- state and model ---------------------------------------------------------------------------------

  setState(patch) {
    this.state = { ...this.state, ...patch };
    writeState(this.schema, this.state);
  }

  loadPreset(name, token = null) {
    const preset = PRESETS[name] ?? PRESETS[DEFAULT_PRESET];
    this.model = {
      tokens: [...preset.tokens],
      x: asText(preset.x),
      heads: preset.heads.map((h) => ({ wq: asText(h.wq), wk: asText(h.wk), wv: asText(h.wv) })),
      wo: preset.wo ? asText(preset.wo) : null,
    };
    this.untied = null;
    this.el.preset.value = name;
    this.schema.token.fallback = preset.token; // a preset's own token stays out of the URL
    const n = this.model.tokens.length;
    this.setState({ preset: name, tied: false, token: clamp(token ?? preset.token, 1, n) });
  }

  markEdited() {
    this.el.preset.value = "custom";
  }

  get n() {
    return this.model.x.length;
  }

  get dIn() {
    return this.model.x[0].length;
  }

  dvs() {
    return this.model.heads.map((h) => h.wv[0].length);
  }

  /** Keep W_O's rows in step with the heads' value widths after `before` (the old widths) changed. */
  reshapeWo(before) {
    const wo = this.model.wo;
    if (!wo) return;
    const after = this.dvs();
    const dOut = wo[0].length;
    const rows = [];
    let at = 0;
    after.forEach((dv, k) => {
      const old = k < before.length ? before[k] : 0;
      for (let r = 0; r < dv; r++) rows.push(r < old ? [...wo[at + r]] : Array(dOut).fill("0"));
      at += old;
    });
    this.model.wo = rows;
  }

  /** Change one dimension of the model: "n", "d_in", "d_k:k", "d_v:k" or "d_out". */
  setDimension(which, value) {
    const m = this.model;
    const before = this.dvs();
    const [dim, index] = which.split(":");
    const k = Number(index);
    const heads = this.state.tied && k === 0 ? [0, 1] : [k];
    if (dim === "n") {
      const n = clamp(value, 1, MAX_TOKENS);
      m.x = resize(m.x, n, this.dIn);
      m.tokens = Array.from({ length: n }, (_, i) => m.tokens[i] ?? `t${i + 1}`);
      if (this.state.token > n) this.setState({ token: n });
    } else if (dim === "d_in") {
      const d = clamp(value, 1, MAX_DIM);
      m.x = resize(m.x, this.n, d);
      for (const h of m.heads) {
        h.wq = resize(h.wq, d, h.wq[0].length);
        h.wk = resize(h.wk, d, h.wk[0].length);
        h.wv = resize(h.wv, d, h.wv[0].length);
      }
      if (this.untied) {
        const h = this.untied.head;
        const rows = (m) => resize(m, d, m[0].length);
        this.untied.head = { wq: rows(h.wq), wk: rows(h.wk), wv: rows(h.wv) };
      }
    } else if (dim === "d_k") {
      for (const i of heads) {
        const h = m.heads[i];
        h.wq = resize(h.wq, this.dIn, clamp(value, 1, MAX_DIM));
        h.wk = resize(h.wk, this.dIn, clamp(value, 1, MAX_DIM));
      }
    } else if (dim === "d_v") {
      for (const i of heads) m.heads[i].wv = resize(m.heads[i].wv, this.dIn, clamp(value, 1, MAX_DIM));
    } else if (dim === "d_out" && m.wo) {
      m.wo = resize(m.wo, m.wo.length, clamp(value, 1, MAX_DIM));
    }
    this.reshapeWo(before);
  }

  addHead() {
    if (this.model.heads.length >= MAX_HEADS) return;
    const before = this.dvs();
    const last = this.model.heads[this.model.heads.length - 1];
    const dk = last.wq[0].length;
    const dv = last.wv[0].length;
    // A new head starts neutral: zero queries and keys (so uniform attention), values that copy the input.
    this.model.heads.push({ wq: resize([], this.dIn, dk), wk: resize([], this.dIn, dk), wv: eye(this.dIn, dv) });
    this.reshapeWo(before);
  }

  removeHead() {
    if (this.model.heads.length <= 1) return;
    const before = this.dvs();
    this.model.heads.pop();
    this.reshapeWo(before);
    if (this.model.heads.length < 2 && this.state.tied) {
      this.untied = null;
      this.setState({ tied: false });
    }
  }

  setWo(on) {
    const total = this.dvs().reduce((a, b) => a + b, 0);
    this.model.wo = on ? eye(total, Math.min(total, MAX_DIM)) : null;
  }

  /** Head 2 takes head 1's projections; what it had is kept for untie. */
  tie() {
    const heads = this.model.heads;
    if (heads.length < 2) return;
    const before = this.dvs();
    this.untied = { head: cloneHead(heads[1]), wo: this.model.wo && cloneMatrix(this.model.wo) };
    heads[1] = cloneHead(heads[0]);
    this.untied.woChanged = before[1] !== this.dvs()[1];
    this.reshapeWo(before);
    this.setState({ tied: true });
  }

  untie() {
    const saved = this.untied;
    this.setState({ tied: false });
    this.untied = null;
    if (!saved || this.model.heads.length < 2) return;
    const before = this.dvs();
    this.model.heads[1] = saved.head;
    if (saved.woChanged && saved.wo && this.model.wo && saved.wo.length === this.dvs().reduce((a, b) => a + b, 0)) {
      this.model.wo = resize(saved.wo, saved.wo.length, this.model.wo[0].length);
    } else {
      this.reshapeWo(before);
    }
  }

  /** The matrix of strings a grid key names: "x", "wo" or "h{k}.{wq|wk|wv}". */
  matrix(key) {
    if (key === "x") return this.model.x;
    if (key === "wo") return this.model.wo;
    const [head, name] = key.slice(1).split(".");
    return this.model.heads[Number(head)][name];
  }

  /** The accessible name of a cell; also how an error names it. */
  cellLabel(key, i, j) {
    if (key === "x") return `X, ${this.model.tokens[i] || `token ${i + 1}`}, dimension ${j + 1}`;
    if (key === "wo") return `W_O row ${i + 1}, column ${j + 1}`;
    const [head, name] = key.slice(1).split(".");
    return `Head ${Number(head) + 1} ${MATRIX_WORDS[name]} row ${i + 1}, column ${j + 1}`;
  }

  // ---- the request ---------------------------------------------------------------------------------------

  /** The request body for the current model, or the list of cells that are not numbers. */
  payload() {
    const invalid = [];
    const numbers = (key) =>
      this.matrix(key).map((row, i) =>
        row.map((text, j) => {
          const x = parseCell(text);
          if (x === null) invalid.push({ key, i, j, text });
          return x;
        }),
      );
    const body = {
      embeddings: numbers("x"),
      heads: this.model.heads.map((_, k) => ({
        w_q: numbers(`h${k}.wq`),
        w_k: numbers(`h${k}.wk`),
        w_v: numbers(`h${k}.wv`),
      })),
      w_o: this.model.wo ? numbers("wo") : null,
      mask: this.state.mask,
      scale: this.state.scale,
      tokens: this.model.tokens.map((t, i) => t.trim() || `t${i + 1}`),
    };
    return { body, invalid };
  }

  /** Recompute after `delay` ms: check every cell, then ask the server (instantly when it was asked before). */
  compute(delay = DEBOUNCE_MS) {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      const { body, invalid } = this.payload();
      this.markInvalid(invalid);
      if (invalid.length) {
        const { key, i, j, text } = invalid[0];
        const where = this.cellLabel(key, i, j);
        const more = invalid.length > 1 ? ` (and ${invalid.length - 1} more)` : "";
        const typed = text.trim();
        this.errors.show(
          typed ? `${where}: “${typed}” is not a number${more}.` : `${where} is empty: type a number${more}.`,
        );
        this.setStale(true);
        return;
      }
      const key = JSON.stringify(body);
      this.requested = key;
      const cached = this.poster.cached(body);
      if (cached) {
        this.setBusy(false);
        this.show(cached);
        return;
      }
      this.setBusy(true);
      this.poster.post(body).then(
        (data) => {
          if (key !== this.requested) return;
          this.setBusy(false);
          this.show(data);
        },
        (error) => {
          if (isAbort(error) || key !== this.requested) return;
          this.setBusy(false);
          this.errors.show(error.message);
          this.setStale(true);
        },
      );
    }, delay);
  }

  markInvalid(invalid) {
    const bad = new Set(invalid.map(({ key, i, j }) => `${key}|${i}|${j}`));
    for (const input of this.el.body.querySelectorAll("input.mx__cell")) {
      const { matrix, i, j } = input.dataset;
      if (bad.has(`${matrix}|${i}|${j}`)) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }

  setBusy(busy) {
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  setStale(stale) {
    this.figure.classList.toggle("is-stale", stale);
  }

  show(data) {
    this.errors.clear();
    this.setStale(false);
    this.data = data;
    this.redraw();
  }

  // ---- events --------------------------------------------------------------------------------------------

  wire() {
    const { preset, mask, scale, tie, addHead, removeHead, tokens, body } = this.el;
    preset.addEventListener("change", () => {
      if (preset.value === "custom") return;
      this.loadPreset(preset.value);
      this.renderAll();
      this.compute(0);
    });
    mask.addEventListener("change", (event) => {
      this.setState({ mask: event.target.value });
      this.compute(0);
    });
    scale.addEventListener("change", () => {
      this.setState({ scale: scale.checked });
      this.compute(0);
    });
    tie.addEventListener("click", () => {
      if (this.state.tied) this.untie();
      else this.tie();
      this.renderAll();
      this.compute(0);
    });
    addHead.addEventListener("click", () => this.reshape(() => this.addHead()));
    removeHead.addEventListener("click", () => this.reshape(() => this.removeHead()));
    tokens.addEventListener("change", (event) => {
      const i = Number(event.target.value);
      this.setState({ token: i + 1 });
      this.applyChosen();
    });

    body.addEventListener("input", (event) => this.onInput(event.target));
    body.addEventListener("change", (event) => {
      const target = event.target;
      if (target.dataset.shape === "wo") this.reshape(() => this.setWo(target.checked));
      else if (target.dataset.shape) {
        const value = Number.parseInt(target.value, 10);
        if (Number.isFinite(value)) this.reshape(() => this.setDimension(target.dataset.shape, value));
        else this.renderAll();
      }
    });
    body.addEventListener("paste", (event) => this.onPaste(event));
    body.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** Apply a change of shape, keep the caret where it was, and recompute. */
  reshape(change) {
    change();
    this.markEdited();
    this.renderAll();
    this.compute(0);
  }

  onInput(target) {
    if (target.dataset.rowName !== undefined) {
      this.model.tokens[Number(target.dataset.rowName)] = target.value;
      this.markEdited();
      this.renderTokens();
      this.compute();
      return;
    }
    const key = target.dataset.matrix;
    if (!key) return;
    const i = Number(target.dataset.i);
    const j = Number(target.dataset.j);
    this.matrix(key)[i][j] = target.value;
    // A tied head 2 follows every edit of head 1.
    if (this.state.tied && key.startsWith("h0.")) {
      const twin = `h1.${key.slice(3)}`;
      this.matrix(twin)[i][j] = target.value;
      const mirror = this.cellInput(twin, i, j);
      if (mirror) mirror.value = target.value;
    }
    this.markEdited();
    this.compute();
  }

  cellInput(key, i, j) {
    return this.el.body.querySelector(`input[data-matrix="${key}"][data-i="${i}"][data-j="${j}"]`);
  }

  /** A block pasted from a spreadsheet fills the grid from the cell it lands on, growing it where it can. */
  onPaste(event) {
    const target = event.target;
    const key = target.dataset?.matrix;
    if (!key || target.readOnly) return;
    const block = parseBlock(event.clipboardData?.getData("text/plain") ?? "");
    if (!block) return;
    event.preventDefault();
    const i0 = Number(target.dataset.i);
    const j0 = Number(target.dataset.j);
    const rows = i0 + block.length;
    const cols = j0 + Math.max(...block.map((r) => r.length));
    let clipped = false;
    const grow = (which, needed, current, limit) => {
      if (needed > limit) clipped = true;
      if (needed > current) this.setDimension(which, Math.min(needed, limit));
    };
    if (key === "x") {
      grow("n", rows, this.n, MAX_TOKENS);
      grow("d_in", cols, this.dIn, MAX_DIM);
    } else if (key === "wo") {
      if (rows > this.model.wo.length) clipped = true;
      grow("d_out", cols, this.model.wo[0].length, MAX_DIM);
    } else {
      const [head, name] = key.slice(1).split(".");
      grow("d_in", rows, this.dIn, MAX_DIM);
      grow(`${name === "wv" ? "d_v" : "d_k"}:${head}`, cols, this.matrix(key)[0].length, MAX_DIM);
    }
    const targets = this.state.tied && key.startsWith("h0.") ? [key, `h1.${key.slice(3)}`] : [key];
    for (const k of targets) {
      const m = this.matrix(k);
      block.forEach((row, di) =>
        row.forEach((text, dj) => {
          if (i0 + di < m.length && j0 + dj < m[0].length) m[i0 + di][j0 + dj] = text;
          else clipped = true;
        }),
      );
    }
    this.markEdited();
    this.renderAll();
    this.cellInput(key, i0, j0)?.focus();
    this.compute(0);
    this.el.status.textContent = clipped
      ? `Part of the pasted block did not fit (at most ${MAX_TOKENS} tokens and ${MAX_DIM}-wide matrices here) ` +
        "and was left out."
      : "";
  }

  /** Enter or ↓ moves down a column, Shift+Enter or ↑ moves up, like a spreadsheet (Tab moves along a row). */
  onKey(event) {
    const target = event.target;
    const key = target.dataset?.matrix;
    if (!key) return;
    let step = 0;
    if (event.key === "ArrowDown" || (event.key === "Enter" && !event.shiftKey)) step = 1;
    if (event.key === "ArrowUp" || (event.key === "Enter" && event.shiftKey)) step = -1;
    if (!step) return;
    const next = this.cellInput(key, Number(target.dataset.i) + step, target.dataset.j);
    if (next) {
      event.preventDefault();
      next.focus();
      next.select();
    }
  }

  // ---- building the grids ----------------------------------------------------------------------------------

  buildSkeleton() {
    const body = this.el.body;
    clear(body);
    this.xBlock = block("lab-block lab-block--x");
    this.combineBlock = block("lab-block lab-block--combine");
    this.headsRoot = document.createElement("div");
    this.headsRoot.className = "lab-heads";
    body.append(this.xBlock.root, this.headsRoot, this.combineBlock.root);
  }

  /** Rebuild every grid and shape control from the model (the stages stay until the next answer). */
  renderAll() {
    const active = document.activeElement;
    const focus = active && this.el.body.contains(active) ? focusKey(active) : null;
    const m = this.model;
    const tied = this.state.tied;

    // The embeddings, with their shape controls.
    this.xBlock.title.replaceChildren(richText(document.createElement("span"), "Embeddings X"));
    this.xBlock.inputs.replaceChildren(
      shapeControls([
        numberInput("n", "Tokens n", m.x.length, MAX_TOKENS, "lab-n"),
        numberInput("d_in", "Input width d_in", this.dIn, MAX_DIM, "lab-d-in"),
      ]),
      matrixGrid({
        key: "x",
        title: "X",
        values: m.x,
        rowNames: m.tokens,
        rowNameLabel: (i) => `Token ${i + 1}`,
        cellLabel: (i, j) => this.cellLabel("x", i, j),
      }),
    );

    // One block per head: its projections (editable) above its stages (drawn from the answer).
    while (this.blocks.length > m.heads.length) this.blocks.pop().root.remove();
    while (this.blocks.length < m.heads.length) {
      const b = block("lab-block lab-head");
      this.blocks.push(b);
      this.headsRoot.appendChild(b.root);
    }
    m.heads.forEach((h, k) => {
      const b = this.blocks[k];
      const follows = tied && k === 1;
      b.root.dataset.head = String(k);
      b.root.style.setProperty("--head", headColour(k));
      b.root.classList.toggle("is-tied", follows);
      const title = document.createElement("span");
      title.append(swatch(k), `Head ${k + 1}`);
      if (follows) {
        const note = document.createElement("span");
        note.className = "lab-head__tied";
        note.textContent = "tied to head 1";
        title.append(note);
      }
      b.title.replaceChildren(title);
      const grid = (name) =>
        matrixGrid({
          key: `h${k}.${name}`,
          title: `${MATRIX_NAMES[name]}_${k + 1}`,
          values: h[name],
          cellLabel: (i, j) => this.cellLabel(`h${k}.${name}`, i, j),
          readOnly: follows,
        });
      const dk = numberInput(`d_k:${k}`, "d_k", h.wq[0].length, MAX_DIM, `lab-dk-${k}`, `Head ${k + 1} d_k`);
      const dv = numberInput(`d_v:${k}`, "d_v", h.wv[0].length, MAX_DIM, `lab-dv-${k}`, `Head ${k + 1} d_v`);
      if (follows) for (const c of [dk, dv]) c.querySelector("input").disabled = true;
      const grids = document.createElement("div");
      grids.className = "lab-row";
      grids.append(grid("wq"), grid("wk"), grid("wv"));
      b.inputs.replaceChildren(shapeControls([dk, dv]), grids);
    });

    // The concatenation, the output projection (editable) and the output, in reading order.
    this.combineBlock.title.replaceChildren("All heads together");
    const controls = [checkboxInput("wo", "Output projection W^O", Boolean(m.wo), "lab-wo")];
    if (m.wo) controls.push(numberInput("d_out", "Output width d_out", m.wo[0].length, MAX_DIM, "lab-d-out"));
    const row = document.createElement("div");
    row.className = "lab-row";
    this.concatSlot = document.createElement("div");
    this.outputSlot = document.createElement("div");
    row.appendChild(this.concatSlot);
    if (m.wo) {
      const columns = this.model.heads.flatMap((h, k) => h.wv[0].map((_, j) => `h${k + 1}·${j + 1}`));
      row.appendChild(
        matrixGrid({
          key: "wo",
          title: "W^O",
          values: m.wo,
          rowLabels: columns,
          cellLabel: (i, j) => this.cellLabel("wo", i, j),
        }),
      );
    }
    row.appendChild(this.outputSlot);
    this.combineBlock.inputs.replaceChildren(shapeControls(controls), row);

    this.el.tie.textContent = tied ? "Untie heads" : "Tie heads";
    this.el.tie.disabled = m.heads.length < 2;
    this.el.addHead.disabled = m.heads.length >= MAX_HEADS;
    this.el.removeHead.disabled = m.heads.length <= 1;
    this.renderTokens();
    if (this.data) this.redraw();
    if (focus) restoreFocus(this.el.body, focus);
  }

  /** The radio group that chooses whose row is highlighted. */
  renderTokens() {
    const group = this.el.tokens;
    const chosen = this.state.token - 1;
    const list = group.querySelector(".token-radios");
    const names = this.model.tokens.map((t, i) => t.trim() || `t${i + 1}`);
    const existing = [...list.querySelectorAll("input")];
    if (existing.length === names.length) {
      existing.forEach((input, i) => {
        input.nextSibling.textContent = names[i];
        input.checked = i === chosen;
      });
      return;
    }
    clear(list);
    names.forEach((name, i) => {
      const label = document.createElement("label");
      label.className = "segmented__option";
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "head-lab-token";
      input.value = String(i);
      input.checked = i === chosen;
      const text = document.createElement("span");
      text.textContent = name;
      label.append(input, text);
      list.appendChild(label);
    });
  }

  // ---- drawing the answer ----------------------------------------------------------------------------------

  /** Draw every stage of the current answer under its head, then the concatenation and the output. */
  redraw() {
    const data = this.data;
    if (!data || data.weights.length !== this.model.heads.length) return;
    const tokens = this.model.tokens.map((t, i) => t.trim() || `t${i + 1}`);
    const n = tokens.length;
    if (data.weights[0].length !== n) return;
    const view = (key, title, rows, cols, extra = {}) =>
      matrixView({ key, title, rows, rowLabels: tokens, colLabels: cols, ...extra });

    data.weights.forEach((_, k) => {
      const b = this.blocks[k];
      const dk = data.q[k][0].length;
      const scaleNote = data.scale ? `÷ √${dk} = ${formatNumber(Math.sqrt(dk))}` : "scaling off: unchanged";
      const stages = [
        view(`h${k}.q`, `Q = XW^Q_${k + 1}`, data.q[k]),
        view(`h${k}.k`, `K = XW^K_${k + 1}`, data.k[k]),
        view(`h${k}.v`, `V = XW^V_${k + 1}`, data.v[k]),
        view(`h${k}.scores`, "QK^T", data.scores[k], tokens),
        view(`h${k}.scaled`, "÷ √d_k", data.scaled[k], tokens, { note: scaleNote }),
        view(`h${k}.masked`, "mask", data.masked[k], tokens, { note: MASK_NOTES[data.mask] }),
        view(`h${k}.weights`, "softmax", data.weights[k], tokens, { heat: true, note: "rows sum to 1" }),
        view(`h${k}.context`, "· V", data.context[k]),
      ];
      stages.forEach((s, step) => {
        s.classList.add("mx--tokens");
        const num = document.createElement("span");
        num.className = "mx__step";
        num.textContent = String(step + 1);
        s.querySelector(".mx__head").prepend(num);
      });
      b.stages.replaceChildren(...stages);
    });

    const columns = [];
    data.context.forEach((c, k) => c[0].forEach((_, j) => columns.push(`h${k + 1}·${j + 1}`)));
    const concat = view("concat", "Concat(head_1, …)", data.concat, columns);
    concat.classList.add("mx--tokens");
    this.concatSlot.replaceChildren(concat);
    if (data.output) {
      const out = view("output", "output = Concat · W^O", data.output);
      out.classList.add("mx--tokens");
      this.outputSlot.replaceChildren(out);
    } else {
      const none = document.createElement("p");
      none.className = "lab-none";
      none.textContent = "No W_O: the output is the concatenation itself.";
      this.outputSlot.replaceChildren(none);
    }

    const p = data.parameters;
    const params = document.createElement("p");
    params.className = "lab-params";
    params.dataset.part = "parameters";
    const perHead = p.per_head.map((c, k) => `head ${k + 1}: ${c}`).join(", ");
    params.textContent = `Weights: ${perHead}${data.output ? `, W_O: ${p.w_o}` : ""}; ${p.total} in all.`;
    this.combineBlock.stages.replaceChildren(params);
    this.applyChosen();
  }

  /** Highlight the chosen token's row everywhere and redraw its arcs: attributes and two small drawings. */
  applyChosen() {
    const chosen = this.state.token - 1;
    for (const tr of this.el.body.querySelectorAll(".mx--tokens tr[data-row], [data-matrix=x] tr[data-row]")) {
      tr.classList.toggle("is-chosen", Number(tr.dataset.row) === chosen);
    }
    const radio = this.el.tokens.querySelector(`input[value="${chosen}"]`);
    if (radio) radio.checked = true;
    this.drawArcs();
  }

  drawArcs() {
    const data = this.data;
    if (!data || data.weights.length !== this.model.heads.length) return;
    const tokens = this.model.tokens.map((t, i) => t.trim() || `t${i + 1}`);
    const i = this.state.token - 1;
    if (i >= data.weights[0].length) return;
    const cards = data.weights.map((w, k) => {
      const card = document.createElement("div");
      card.className = "lab-compare__card";
      card.dataset.head = String(k);
      const title = document.createElement("p");
      title.className = "lab-compare__title";
      title.append(swatch(k), `Head ${k + 1}`);
      const row = w[i];
      const best = row.indexOf(Math.max(...row));
      const summary = document.createElement("p");
      summary.className = "lab-compare__summary";
      summary.textContent = `“${tokens[i]}” looks most at “${tokens[best]}” (${formatNumber(row[best])})`;
      card.append(title, summary);
      return card;
    });
    this.el.compare.replaceChildren(...cards);
    // Drawn at the width the cards got, so the words stay legible on a phone (one layout read per draw).
    const width = Math.max(200, (cards[0]?.clientWidth ?? 400) - 26);
    cards.forEach((card, k) => card.insertBefore(rowArcs(tokens, data.weights[k][i], i, k, width), card.lastChild));

    // How far apart are head 1's and head 2's context vectors? Zero exactly when tied.
    const note = this.el.tieNote;
    if (data.context.length < 2) {
      note.textContent = "Add a second head to compare two heads.";
      return;
    }
    const [a, b] = data.context;
    const comparable = a[0].length === b[0].length;
    const diff = comparable ? Math.max(...a.flatMap((row, r) => row.map((x, c) => Math.abs(x - b[r][c])))) : null;
    note.dataset.diff = diff === null ? "" : String(diff);
    if (this.state.tied) {
      note.textContent =
        `Tied: head 2 uses head 1's W_Q, W_K and W_V, so its weights and context vectors are identical to ` +
        `head 1's (largest difference: ${diff === 0 ? "exactly 0" : formatNumber(diff)}). Two copies of one head ` +
        "ask one question twice.";
    } else if (diff === null) {
      note.textContent = "Head 1 and head 2 have different value widths, so their context vectors differ in shape.";
    } else {
      note.textContent =
        `Head 1's and head 2's context vectors differ by up to ${formatNumber(diff)}: ` +
        `the two heads read the sentence differently. Press Tie heads to make them the same.`;
    }
  }
}

// ---- small builders ----------------------------------------------------------------------------------------

function block(className) {
  const root = document.createElement("section");
  root.className = className;
  const title = document.createElement("h3");
  title.className = "lab-block__title";
  const inputs = document.createElement("div");
  inputs.className = "lab-block__inputs";
  const stages = document.createElement("div");
  stages.className = "lab-stages";
  root.append(title, inputs, stages);
  return { root, title, inputs, stages };
}

function shapeControls(controls) {
  const row = document.createElement("div");
  row.className = "lab-shape";
  row.append(...controls);
  return row;
}

function numberInput(shape, text, value, max, id, ariaLabel = null) {
  const wrap = document.createElement("span");
  wrap.className = "lab-shape__control";
  const label = document.createElement("label");
  label.htmlFor = id;
  richText(label, text.replace(/ d_(\w+)$/, " d_{$1}").replace(/^d_(\w+)$/, "d_{$1}"));
  const input = document.createElement("input");
  input.type = "number";
  input.id = id;
  input.min = "1";
  input.max = String(max);
  input.step = "1";
  input.value = String(value);
  input.inputMode = "numeric";
  input.dataset.shape = shape;
  if (ariaLabel) input.setAttribute("aria-label", ariaLabel);
  wrap.append(label, input);
  return wrap;
}

function checkboxInput(shape, text, checked, id) {
  const wrap = document.createElement("span");
  wrap.className = "lab-shape__control lab-shape__control--check";
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = id;
  input.checked = checked;
  input.dataset.shape = shape;
  const label = document.createElement("label");
  label.htmlFor = id;
  richText(label, text);
  wrap.append(input, label);
  return wrap;
}

function swatch(k) {
  const root = svg("svg", { class: "swatch", width: 12, height: 12, viewBox: "0 0 12 12", "aria-hidden": "true" });
  svg("circle", { cx: 6, cy: 6, r: 5, fill: headColour(k) }, root);
  return root;
}

/** What identifies a focused control across a rebuild. */
function focusKey(el) {
  return {
    matrix: el.dataset.matrix,
    i: el.dataset.i,
    j: el.dataset.j,
    shape: el.dataset.shape,
    rowName: el.dataset.rowName,
    start: el.selectionStart ?? null,
    end: el.selectionEnd ?? null,
  };
}

function restoreFocus(root, key) {
  let el = null;
  if (key.matrix !== undefined) {
    el = root.querySelector(`input[data-matrix="${key.matrix}"][data-i="${key.i}"][data-j="${key.j}"]`);
  }
  else if (key.shape !== undefined) el = root.querySelector(`input[data-shape="${key.shape}"]`);
  else if (key.rowName !== undefined) el = root.querySelector(`input[data-row-name="${key.rowName}"]`);
  if (!el) return;
  el.focus();
  if (key.start !== null && el.type === "text") el.setSelectionRange(key.start, key.end);
}

/** One token's attention row as arcs: from the chosen token to every token it weighs, thicker for more. */
function rowArcs(tokens, row, i, k, available) {
  const n = tokens.length;
  const slot = clamp(available / n, 40, 110);
  const width = slot * n;
  const rise = 64;
  const base = rise + 14;
  const height = base + 42;
  const x = (j) => slot * (j + 0.5);
  const colour = headColour(k);
  const described = row.map((w, j) => `${tokens[j]} ${formatNumber(w)}`).join(", ");
  const root = svg("svg", {
    class: "lab-arcs",
    width: r1(width),
    height,
    viewBox: `0 0 ${r1(width)} ${height}`,
    role: "img",
    "aria-label": `Head ${k + 1}, the row of ${tokens[i]}: ${described}`,
  });
  const arcs = svg("g", { fill: "none", stroke: colour, "stroke-linecap": "round" }, root);
  row.forEach((w, j) => {
    if (w < 0.005) return;
    let d;
    if (j === i) {
      const cx = x(j);
      d = `M${r1(cx - 5)} ${base}C${r1(cx - 16)} ${base - 30} ${r1(cx + 16)} ${base - 30} ${r1(cx + 5)} ${base}`;
    } else {
      const h = 14 + ((rise - 14) * (Math.abs(i - j) - 1)) / Math.max(1, n - 2);
      d = `M${r1(x(i))} ${base}Q${r1((x(i) + x(j)) / 2)} ${r1(base - 2 * h)} ${r1(x(j))} ${base}`;
    }
    svg("path", { d, "stroke-width": r1(0.8 + 7 * w), opacity: (0.25 + 0.75 * w).toFixed(2), "data-key": j }, arcs);
    svg("circle", { cx: r1(x(j)), cy: base, r: r1(1.5 + 4 * Math.sqrt(w)), fill: colour, stroke: "none" }, root);
  });
  // Words are cut to what fits in their slot, at a size that shrinks with it.
  const size = clamp(slot / 5, 10, 13);
  const fits = Math.max(3, Math.floor(slot / (size * 0.62)));
  tokens.forEach((t, j) => {
    const cut = t.length > fits;
    const label = svgText(
      "text",
      cut ? `${t.slice(0, fits - 1)}…` : t,
      {
        x: r1(x(j)),
        y: base + 17,
        "text-anchor": "middle",
        "font-size": r1(size),
        class: j === i ? "lab-arcs__token is-chosen" : "lab-arcs__token",
      },
      root,
    );
    if (cut) svgText("title", t, {}, label);
    svgText(
      "text",
      formatNumber(row[j]),
      { x: r1(x(j)), y: base + 34, "text-anchor": "middle", "font-size": r1(size - 2), class: "lab-arcs__weight" },
      root,
    );
  });
  return root;
}

/** Entry point used by main.js. */
export function start(figure) {
  const lab = new HeadLab(figure);
  lab.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = lab.data;
    if (!d || d.weights.length !== lab.model.heads.length) return null;
    const tokens = lab.model.tokens.map((t, i) => t.trim() || `t${i + 1}`);
    const cols = (m) => Array.from({ length: m[0]?.length ?? 0 }, (_, j) => `dim ${j + 1}`);
    const matrices = d.weights.flatMap((_, k) => [
      { name: `Head ${k + 1} scores`, rows: tokens, columns: tokens, values: d.scores[k] },
      { name: `Head ${k + 1} weights`, rows: tokens, columns: tokens, values: d.weights[k] },
      { name: `Head ${k + 1} context`, rows: tokens, columns: cols(d.context[k]), values: d.context[k] },
    ]);
    matrices.push({ name: "Concat", rows: tokens, columns: cols(d.concat), values: d.concat });
    if (d.output) matrices.push({ name: "Output", rows: tokens, columns: cols(d.output), values: d.output });
    return { parameters: d.parameters, matrices };
  };
  return lab;
}
