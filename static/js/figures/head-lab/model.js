// The head lab's matrices, exactly as the reader typed them (strings), and every change of shape: tokens, widths,
// heads, W_O, and tying head 2 to head 1. Knows nothing of the page: the editor draws it, the payload checks it.

// The API takes 64 tokens, 64-wide matrices and 16 heads; past these the page's tables stop being readable.
export const MAX_TOKENS = 32;
export const MAX_DIM = 32;
export const MAX_HEADS = 8;

const MATRIX_WORDS = { wq: "W_Q", wk: "W_K", wv: "W_V" };

const cloneMatrix = (m) => m.map((row) => [...row]);
const cloneHead = (h) => ({ wq: cloneMatrix(h.wq), wk: cloneMatrix(h.wk), wv: cloneMatrix(h.wv) });
const asText = (m) => m.map((row) => row.map((x) => String(x)));
export const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));

/** `m` with `rows` rows and `cols` columns: cut, or padded with "0". */
function resize(m, rows, cols) {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i < m.length && j < (m[i]?.length ?? 0) ? m[i][j] : "0")),
  );
}

/** The identity-like (rows × cols) matrix of strings: 1 on the diagonal. */
const eye = (rows, cols) =>
  Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === j ? "1" : "0")));

export class LabModel {
  /** A model holding `preset` (presets.json: an API body of numbers, plus its label and token). */
  constructor(preset) {
    this.tokens = [...preset.tokens];
    this.x = asText(preset.embeddings);
    this.heads = preset.heads.map((h) => ({ wq: asText(h.w_q), wk: asText(h.w_k), wv: asText(h.w_v) }));
    this.wo = preset.w_o ? asText(preset.w_o) : null;
    this.tied = false; // head 2 follows head 1
    this.untied = null; // what tying replaced, for untie: { head, wo, woChanged }
  }

  get n() {
    return this.x.length;
  }

  get dIn() {
    return this.x[0].length;
  }

  /** The token labels as the page and the API use them: a blank name is "t1", "t2", … */
  names() {
    return this.tokens.map((t, i) => t.trim() || `t${i + 1}`);
  }

  dvs() {
    return this.heads.map((h) => h.wv[0].length);
  }

  /** Keep W_O's rows in step with the heads' value widths after `before` (the old widths) changed. */
  reshapeWo(before) {
    if (!this.wo) return;
    const dOut = this.wo[0].length;
    const rows = [];
    let at = 0;
    this.dvs().forEach((dv, k) => {
      const old = k < before.length ? before[k] : 0;
      for (let r = 0; r < dv; r++) rows.push(r < old ? [...this.wo[at + r]] : Array(dOut).fill("0"));
      at += old;
    });
    this.wo = rows;
  }

  /** Change one dimension: "n", "d_in", "d_k:k", "d_v:k" or "d_out"; a tied head 2 follows head 1. */
  setDimension(which, value) {
    const before = this.dvs();
    const [dim, index] = which.split(":");
    const k = Number(index);
    const heads = this.tied && k === 0 ? [0, 1] : [k];
    const width = clamp(value, 1, MAX_DIM);
    if (dim === "n") {
      const n = clamp(value, 1, MAX_TOKENS);
      this.x = resize(this.x, n, this.dIn);
      this.tokens = Array.from({ length: n }, (_, i) => this.tokens[i] ?? `t${i + 1}`);
    } else if (dim === "d_in") {
      const rows = (m) => resize(m, width, m[0].length);
      this.x = resize(this.x, this.n, width);
      this.heads = this.heads.map((h) => ({ wq: rows(h.wq), wk: rows(h.wk), wv: rows(h.wv) }));
      if (this.untied) {
        const h = this.untied.head;
        this.untied.head = { wq: rows(h.wq), wk: rows(h.wk), wv: rows(h.wv) };
      }
    } else if (dim === "d_k") {
      for (const i of heads) {
        const h = this.heads[i];
        h.wq = resize(h.wq, this.dIn, width);
        h.wk = resize(h.wk, this.dIn, width);
      }
    } else if (dim === "d_v") {
      for (const i of heads) this.heads[i].wv = resize(this.heads[i].wv, this.dIn, width);
    } else if (dim === "d_out" && this.wo) {
      this.wo = resize(this.wo, this.wo.length, width);
    }
    this.reshapeWo(before);
  }

  addHead() {
    if (this.heads.length >= MAX_HEADS) return;
    const before = this.dvs();
    const last = this.heads[this.heads.length - 1];
    const dk = last.wq[0].length;
    const dv = last.wv[0].length;
    // A new head starts neutral: zero queries and keys (so uniform attention), values that copy the input.
    this.heads.push({ wq: resize([], this.dIn, dk), wk: resize([], this.dIn, dk), wv: eye(this.dIn, dv) });
    this.reshapeWo(before);
  }

  removeHead() {
    if (this.heads.length <= 1) return;
    const before = this.dvs();
    this.heads.pop();
    this.reshapeWo(before);
    if (this.heads.length < 2) {
      this.tied = false;
      this.untied = null;
    }
  }

  /** W_O on (an identity, as wide as the concatenation allows) or off. */
  setWo(on) {
    const total = this.dvs().reduce((a, b) => a + b, 0);
    this.wo = on ? eye(total, Math.min(total, MAX_DIM)) : null;
  }

  /** Head 2 takes head 1's projections; what it had is kept for untie. */
  tie() {
    if (this.heads.length < 2) return;
    const before = this.dvs();
    this.untied = { head: cloneHead(this.heads[1]), wo: this.wo && cloneMatrix(this.wo) };
    this.heads[1] = cloneHead(this.heads[0]);
    this.untied.woChanged = before[1] !== this.dvs()[1];
    this.reshapeWo(before);
    this.tied = true;
  }

  /** Head 2 gets back what it had before tie (W_O too, when tying had to reshape it). */
  untie() {
    const saved = this.untied;
    this.tied = false;
    this.untied = null;
    if (!saved || this.heads.length < 2) return;
    const before = this.dvs();
    this.heads[1] = saved.head;
    if (saved.woChanged && saved.wo && this.wo && saved.wo.length === this.dvs().reduce((a, b) => a + b, 0)) {
      this.wo = resize(saved.wo, saved.wo.length, this.wo[0].length);
    } else {
      this.reshapeWo(before);
    }
  }

  /** The keys of the grids that an edit of grid `key` changes: a tied head 2 follows head 1. */
  followers(key) {
    return this.tied && key.startsWith("h0.") ? [key, `h1.${key.slice(3)}`] : [key];
  }

  /** The matrix of strings a grid key names: "x", "wo" or "h{k}.{wq|wk|wv}". */
  matrix(key) {
    if (key === "x") return this.x;
    if (key === "wo") return this.wo;
    const [head, name] = key.slice(1).split(".");
    return this.heads[Number(head)][name];
  }

  /** The accessible name of a cell; also how an error names it. */
  cellLabel(key, i, j) {
    if (key === "x") return `X, ${this.tokens[i] || `token ${i + 1}`}, dimension ${j + 1}`;
    if (key === "wo") return `W_O row ${i + 1}, column ${j + 1}`;
    const [head, name] = key.slice(1).split(".");
    return `Head ${Number(head) + 1} ${MATRIX_WORDS[name]} row ${i + 1}, column ${j + 1}`;
  }
}
