// The head lab's matrix editor: the embeddings, each head's projections and W_O as grids of text inputs with
// their shape controls, and what the reader does in them (typing, pasting a block, moving like a spreadsheet).
// Typing in a cell never rebuilds the grids, so the caret stays put; a change of shape rebuilds them.
// Each grid is one tab stop (a roving tabindex): its active cell has tabindex 0 and the others -1, and the
// arrow keys, Home, End, Enter and Shift+Enter move between its cells.

import { headColour } from "../../lib/colours.js";
import { matrixGrid, parseBlock, richText } from "./matrix.js";
import { clear } from "../../lib/svg.js";
import { headDot } from "../../lib/swatch.js";
import { MAX_DIM, MAX_TOKENS } from "./model.js";

const MATRIX_NAMES = { wq: "W^Q", wk: "W^K", wv: "W^V" };

export class MatrixEditor {
  /**
   * The grids inside `body`, drawn from `lab.model`. The editor tells `lab` what changed: `lab.edited()`
   * after a cell or a token name, `lab.reshape(change)` for a new shape, and `lab.render()` to undo a shape
   * control left with no number in it.
   */
  constructor(lab, body) {
    this.lab = lab;
    this.body = body;
    clear(body);
    this.xBlock = block("lab-block lab-block--x");
    this.combineBlock = block("lab-block lab-block--combine");
    this.active = new Map(); // grid key -> the [row, column] of its tab stop, among its inputs
    this.headsRoot = document.createElement("div");
    this.headsRoot.className = "lab-heads";
    body.append(this.xBlock.root, this.headsRoot, this.combineBlock.root);
    this.heads = []; // per head: a block { root, title, inputs, stages }
    this.concatSlot = document.createElement("div");
    this.outputSlot = document.createElement("div");
  }

  get model() {
    return this.lab.model;
  }

  /** Rebuild every grid and shape control from the model (the stages stay until the next answer). */
  render() {
    const active = document.activeElement;
    const focus = active && this.body.contains(active) ? focusKey(active) : null;
    const m = this.model;

    // The embeddings, with their shape controls.
    this.xBlock.title.replaceChildren(richText(document.createElement("span"), "Embeddings X"));
    this.xBlock.shape.replaceChildren(
      numberInput("n", "Tokens n", m.n, MAX_TOKENS, "lab-n"),
      numberInput("d_in", "Input width d_in", m.dIn, MAX_DIM, "lab-d-in"),
    );
    this.xBlock.inputs.replaceChildren(
      matrixGrid({
        key: "x",
        title: "X",
        values: m.x,
        rowNames: m.tokens,
        rowNameLabel: (i) => `Token ${i + 1}`,
        cellLabel: (i, j) => m.cellLabel("x", i, j),
      }),
    );

    // One block per head: its projections (editable) above its stages (drawn from the answer).
    while (this.heads.length > m.heads.length) this.heads.pop().root.remove();
    while (this.heads.length < m.heads.length) {
      const b = block("lab-block lab-head", { fold: true });
      this.heads.push(b);
      this.headsRoot.appendChild(b.root);
    }
    m.heads.forEach((h, k) => this.renderHead(this.heads[k], h, k));

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
      const columns = m.heads.flatMap((h, k) => h.wv[0].map((_, j) => `h${k + 1}·${j + 1}`));
      const cellLabel = (i, j) => m.cellLabel("wo", i, j);
      row.appendChild(matrixGrid({ key: "wo", title: "W^O", values: m.wo, rowLabels: columns, cellLabel }));
    }
    row.appendChild(this.outputSlot);
    this.combineBlock.shape.replaceChildren(...controls);
    this.combineBlock.inputs.replaceChildren(row);
    for (const grid of this.body.querySelectorAll(".mx--edit")) this.rove(grid);
    if (focus) restoreFocus(this.body, focus);
  }

  /** Head `k`'s title, shape controls and W_Q, W_K, W_V grids (read-only when it follows head 1). */
  renderHead(b, h, k) {
    const m = this.model;
    const follows = m.tied && k === 1;
    b.root.dataset.head = String(k);
    b.root.style.setProperty("--head", headColour(k));
    b.root.classList.toggle("is-tied", follows);
    const title = document.createElement("span");
    title.append(headDot(k), `Head ${k + 1}`);
    if (follows) {
      const note = document.createElement("span");
      note.className = "lab-head__tied";
      note.textContent = "tied to head 1";
      title.append(note);
    }
    b.title.replaceChildren(title);
    b.summary.replaceChildren();
    richText(b.summary, `Head ${k + 1}'s stages: Q, K, V, QK^T, ÷ √d_k, mask, softmax, · V`);
    const grid = (name) =>
      matrixGrid({
        key: `h${k}.${name}`,
        title: `${MATRIX_NAMES[name]}_${k + 1}`,
        values: h[name],
        cellLabel: (i, j) => m.cellLabel(`h${k}.${name}`, i, j),
        readOnly: follows,
      });
    const dk = numberInput(`d_k:${k}`, "d_k", h.wq[0].length, MAX_DIM, `lab-dk-${k}`, `Head ${k + 1} d_k`);
    const dv = numberInput(`d_v:${k}`, "d_v", h.wv[0].length, MAX_DIM, `lab-dv-${k}`, `Head ${k + 1} d_v`);
    if (follows) for (const c of [dk, dv]) c.querySelector("input").disabled = true;
    const grids = document.createElement("div");
    grids.className = "lab-row";
    grids.append(grid("wq"), grid("wk"), grid("wv"));
    b.shape.replaceChildren(dk, dv);
    b.inputs.replaceChildren(grids);
  }

  /** Listen to every grid and shape control at once, on the body. */
  wire() {
    const body = this.body;
    body.addEventListener("input", (event) => this.onInput(event.target));
    body.addEventListener("change", (event) => {
      const target = event.target;
      if (target.dataset.shape === "wo") this.lab.reshape(() => this.model.setWo(target.checked));
      else if (target.dataset.shape) {
        const value = Number.parseInt(target.value, 10);
        if (Number.isFinite(value)) this.lab.reshape(() => this.model.setDimension(target.dataset.shape, value));
        else this.lab.render();
      }
    });
    body.addEventListener("paste", (event) => this.onPaste(event));
    body.addEventListener("keydown", (event) => this.onKey(event));
    body.addEventListener("focusin", (event) => {
      const grid = event.target.closest?.(".mx--edit");
      if (grid) this.rove(grid, event.target);
    });
  }

  // ---- one tab stop per grid ---------------------------------------------------------------------------

  /** Make `cell` (else the grid's remembered cell, else its first number) the one tab stop of `grid`. */
  rove(grid, cell = null) {
    const rows = gridRows(grid);
    const key = grid.dataset.matrix;
    let at = cell ? position(rows, cell) : null;
    if (!at) {
      const [r, c] = this.active.get(key) ?? [0, rows[0].findIndex((input) => input.dataset.matrix)];
      const row = Math.min(r, rows.length - 1);
      at = [row, Math.min(c, rows[row].length - 1)];
    }
    this.active.set(key, at);
    rows.forEach((row, r) => row.forEach((input, c) => (input.tabIndex = r === at[0] && c === at[1] ? 0 : -1)));
  }

  onInput(target) {
    if (target.dataset.rowName !== undefined) {
      this.model.tokens[Number(target.dataset.rowName)] = target.value;
      this.lab.edited({ names: true });
      return;
    }
    const key = target.dataset.matrix;
    if (!key) return;
    const i = Number(target.dataset.i);
    const j = Number(target.dataset.j);
    // A tied head 2 follows every edit of head 1.
    for (const k of this.model.followers(key)) {
      this.model.matrix(k)[i][j] = target.value;
      const mirror = k === key ? null : this.cellInput(k, i, j);
      if (mirror) mirror.value = target.value;
    }
    this.lab.edited();
  }

  cellInput(key, i, j) {
    return this.body.querySelector(`input[data-matrix="${key}"][data-i="${i}"][data-j="${j}"]`);
  }

  /** Mark the cells that are not numbers (payload.js lists them) and clear the mark on the others. */
  markInvalid(invalid) {
    const bad = new Set(invalid.map(({ key, i, j }) => `${key}|${i}|${j}`));
    for (const input of this.body.querySelectorAll("input.mx__cell")) {
      const { matrix, i, j } = input.dataset;
      if (bad.has(`${matrix}|${i}|${j}`)) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }

  /** A block pasted from a spreadsheet fills the grid from the cell it lands on, growing it where it can. */
  onPaste(event) {
    const target = event.target;
    const key = target.dataset?.matrix;
    if (!key || target.readOnly) return;
    const pasted = parseBlock(event.clipboardData?.getData("text/plain") ?? "");
    if (!pasted) return;
    event.preventDefault();
    const m = this.model;
    const i0 = Number(target.dataset.i);
    const j0 = Number(target.dataset.j);
    const rows = i0 + pasted.length;
    const cols = j0 + Math.max(...pasted.map((r) => r.length));
    let clipped = false;
    const grow = (which, needed, current, limit) => {
      if (needed > limit) clipped = true;
      if (needed > current) m.setDimension(which, Math.min(needed, limit));
    };
    this.lab.reshape(() => {
      if (key === "x") {
        grow("n", rows, m.n, MAX_TOKENS);
        grow("d_in", cols, m.dIn, MAX_DIM);
      } else if (key === "wo") {
        if (rows > m.wo.length) clipped = true;
        grow("d_out", cols, m.wo[0].length, MAX_DIM);
      } else {
        const [head, name] = key.slice(1).split(".");
        grow("d_in", rows, m.dIn, MAX_DIM);
        grow(`${name === "wv" ? "d_v" : "d_k"}:${head}`, cols, m.matrix(key)[0].length, MAX_DIM);
      }
      for (const k of m.followers(key)) {
        const matrix = m.matrix(k);
        pasted.forEach((row, di) =>
          row.forEach((text, dj) => {
            if (i0 + di < matrix.length && j0 + dj < matrix[0].length) matrix[i0 + di][j0 + dj] = text;
            else clipped = true;
          }),
        );
      }
    });
    this.cellInput(key, i0, j0)?.focus();
    this.lab.el.status.textContent = clipped
      ? `Part of the pasted block did not fit (at most ${MAX_TOKENS} tokens and ${MAX_DIM}-wide matrices here) ` +
        "and was left out."
      : "";
  }

  /**
   * Move like a spreadsheet inside a grid: ↑ and ↓ (or Shift+Enter and Enter) along a column, ← and → along a
   * row (once the caret is at the edge of the cell's text, or the text is all selected, as it is on arrival),
   * Home and End to the row's ends, Ctrl+Home and Ctrl+End to the grid's corners. Tab leaves the grid; with
   * Shift the arrows, Home and End select text in the cell as usual.
   */
  onKey(event) {
    const target = event.target;
    const grid = target.closest?.(".mx--edit");
    if (!grid || event.altKey || event.metaKey || event.isComposing) return;
    if (event.shiftKey && event.key !== "Enter") return;
    const rows = gridRows(grid);
    const at = position(rows, target);
    if (!at) return;
    const [r, c] = at;
    const { selectionStart: start, selectionEnd: end, value } = target;
    const all = start === 0 && end === value.length;
    let next = null;
    if (event.key === "ArrowDown" || (event.key === "Enter" && !event.shiftKey)) next = [r + 1, c];
    else if (event.key === "ArrowUp" || (event.key === "Enter" && event.shiftKey)) next = [r - 1, c];
    else if (event.key === "ArrowLeft" && (all || end === 0)) next = [r, c - 1];
    else if (event.key === "ArrowRight" && (all || start === value.length)) next = [r, c + 1];
    else if (event.key === "Home") next = event.ctrlKey ? [0, 0] : [r, 0];
    else if (event.key === "End") next = event.ctrlKey ? [rows.length - 1, Infinity] : [r, Infinity];
    if (!next) return;
    const row = rows[next[0]];
    const cell = row?.[Math.min(next[1], row.length - 1)];
    if (!cell || next[1] < 0) {
      if (event.key === "Enter") event.preventDefault(); // at the grid's edge Enter stays put
      return;
    }
    event.preventDefault();
    cell.focus();
    cell.select();
  }
}

// ---- small builders ----------------------------------------------------------------------------------------

/**
 * A block: a bar with its title and shape controls, its grids, and its stages (drawn by stages.js), which a
 * head's block (`fold`) keeps in a closed fold: a head is read by its arcs and in the concatenation.
 */
function block(className, { fold = false } = {}) {
  const root = document.createElement("section");
  root.className = className;
  const bar = document.createElement("div");
  bar.className = "lab-block__bar";
  const title = document.createElement("h3");
  title.className = "lab-block__title";
  const shape = document.createElement("div");
  shape.className = "lab-shape";
  bar.append(title, shape);
  const inputs = document.createElement("div");
  inputs.className = "lab-block__inputs";
  const stages = document.createElement("div");
  stages.className = "lab-stages";
  root.append(bar, inputs);
  if (fold) {
    const details = document.createElement("details");
    details.className = "fold lab-fold";
    details.append(document.createElement("summary"), stages);
    root.append(details);
  } else {
    root.append(stages);
  }
  return { root, title, shape, inputs, stages, summary: root.querySelector("summary") };
}

/** A grid's inputs row by row (a row's editable name first, where it has one), in reading order. */
function gridRows(grid) {
  return [...grid.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("input")]);
}

/** Where `input` is in `rows` (gridRows): [row, column], or null. */
function position(rows, input) {
  for (const [r, row] of rows.entries()) {
    const c = row.indexOf(input);
    if (c >= 0) return [r, c];
  }
  return null;
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
  } else if (key.shape !== undefined) el = root.querySelector(`input[data-shape="${key.shape}"]`);
  else if (key.rowName !== undefined) el = root.querySelector(`input[data-row-name="${key.rowName}"]`);
  if (!el) return;
  el.focus();
  if (key.start !== null && el.type === "text") el.setSelectionRange(key.start, key.end);
}
