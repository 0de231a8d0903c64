// Figure 2's table of costs: weights and multiply-adds of h heads of width d_model / h next to one head of width
// d_model, kept live as the controls move. The server renders the table (app/core/accounting.py); this module
// only rewrites its numbers, with the same formulas (tests/browser/test_head_lab.py checks they agree).

import { parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { grouped } from "./kv-words.js";

const WIDTHS = [24, 64, 128, 256, 512, 768, 1024];
const MAX_N = 8192;
const TICK_LABELS = 10; // head counts written under the slider at most (768 has 18)

const divisors = (d) => Array.from({ length: d }, (_, i) => i + 1).filter((h) => d % h === 0);

/**
 * The costs of one attention layer of h heads over n tokens (biases left out), as in
 * app.core.accounting.head_costs: weights W_Q, W_K, W_V (h · d · d_k each) and W_O (h · d_k · d);
 * multiply-adds of the three projections (h · n · d · d_k each), QKᵀ and weights · V (h · n² · d_k each),
 * concat · W_O (n · h · d_k · d); and h · n² exponentials in the softmax.
 */
export function headCosts(d, h, n) {
  const dk = d / h;
  const projection = h * n * d * dk;
  const mixing = h * n * n * dk;
  const out = n * h * dk * d;
  const how = {
    w: `${h} × ${d} × ${dk}`,
    wo: `${h * dk} × ${d}`,
    proj: `${h} × ${n} × ${d} × ${dk}`,
    mix: `${h} × ${n}² × ${dk}`,
    out: `${n} × ${h * dk} × ${d}`,
  };
  return {
    heads: h,
    dk,
    weights: {
      w_q: [h * d * dk, how.w],
      w_k: [h * d * dk, how.w],
      w_v: [h * d * dk, how.w],
      w_o: [h * dk * d, how.wo],
      total: [3 * h * d * dk + h * dk * d, `4 × ${d}²`],
    },
    multiply_adds: {
      q: [projection, how.proj],
      k: [projection, how.proj],
      v: [projection, how.proj],
      scores: [mixing, how.mix],
      mix: [mixing, how.mix],
      out: [out, how.out],
      total: [3 * projection + 2 * mixing + out, ""],
    },
    exps: [h * n * n, `${h} × ${n}²`],
  };
}

export class Accounting extends Widget {
  constructor(figure, pageData = {}) {
    super(figure, pageData, {
      name: "accounting",
      schema: {
        d: { param: "acct_d", fallback: 512, parse: parse.oneOf(WIDTHS) },
        h: { param: "acct_h", fallback: 8, parse: parse.integer(1, Math.max(...WIDTHS)) },
        n: { param: "acct_n", fallback: 10, parse: parse.integer(1, MAX_N) },
      },
      parts: ["d-model", "heads", "ticks", "readout", "n", "verdict"],
    });
    if (this.state.d % this.state.h !== 0) this.state.h = this.schema.h.fallback;
    if (this.state.d % this.state.h !== 0) this.state.h = 1;
  }

  start() {
    const { dModel, heads, n } = this.el;
    dModel.addEventListener("change", () => {
      const d = Number(dModel.value);
      // Keep the head count when it still divides the new width, else the nearest that does.
      const valid = divisors(d);
      const h = valid.reduce((a, b) => (Math.abs(b - this.state.h) < Math.abs(a - this.state.h) ? b : a));
      this.update({ d, h });
    });
    heads.addEventListener("input", () => this.update({ h: divisors(this.state.d)[Number(heads.value)] }));
    n.addEventListener("input", () => {
      const value = Number.parseInt(n.value, 10);
      if (Number.isInteger(value) && value >= 1 && value <= MAX_N) this.update({ n: value });
    });
    this.show();
  }

  update(patch) {
    this.setState(patch);
    this.show();
  }

  /** A tick under the slider per valid head count; past TICK_LABELS of them, only every k-th is written. */
  drawTicks(valid) {
    const every = Math.ceil(valid.length / TICK_LABELS);
    const last = valid.length - 1;
    const spans = valid.map((v, i) => {
      const span = document.createElement("span");
      if ((i % every === 0 && last - i >= every) || i === last) span.textContent = String(v);
      return span;
    });
    this.el.ticks.replaceChildren(...spans);
    this.el.ticks.dataset.counts = valid.join();
  }

  /** Rewrite the controls and every number of the table: text only, the table itself never changes. */
  show() {
    const { d, h, n } = this.state;
    const valid = divisors(d);
    const { dModel, heads, ticks, readout, verdict } = this.el;
    dModel.value = String(d);
    heads.max = String(valid.length - 1);
    if (ticks.dataset.counts !== valid.join()) this.drawTicks(valid);
    heads.value = String(valid.indexOf(h));
    heads.setAttribute("aria-valuetext", `${h} ${h === 1 ? "head" : "heads"}`);
    const headsText = `${h} ${h === 1 ? "head" : "heads"}`;
    readout.textContent = `${headsText} × ${d / h} wide`;
    if (document.activeElement !== this.el.n) this.el.n.value = String(n);
    const write = (selector, text) => {
      for (const el of this.figure.querySelectorAll(selector)) el.textContent = text;
    };
    // The main table and the step-by-step one in the fold share these labels.
    write("[data-n-label]", `n = ${grouped(n)}`);
    write('[data-title="split"]', `${headsText} of width ${d / h}`);
    write('[data-title="single"]', `1 head of width ${d}`);

    const costs = { split: headCosts(d, h, n), single: headCosts(d, 1, n) };
    for (const [side, c] of Object.entries(costs)) {
      for (const group of ["weights", "multiply_adds"]) {
        for (const [key, [value, how]] of Object.entries(c[group])) this.setCell(`${side}.${group}.${key}`, value, how);
      }
      this.setCell(`${side}.exps`, c.exps[0], c.exps[1]);
    }
    // The table holds the counts; the verdict says what they come to, for this h and n.
    verdict.textContent =
      h === 1
        ? "One head of the full width is the column on the right: both columns are the same layer."
        : `Cutting the width into ${headsText} adds no weights and no multiply-adds. Only the softmax grows: ` +
          `${h} score matrices of ${grouped(n)} × ${grouped(n)} instead of one, ${h} times the exponentials.`;
  }

  setCell(key, value, how) {
    const num = this.figure.querySelector(`[data-cell="${key}"]`);
    const text = this.figure.querySelector(`[data-how="${key}"]`);
    if (num) num.textContent = grouped(value);
    if (text) text.textContent = how;
  }

  /** The numbers behind the view for the figure's exports: both columns' costs for this n. */
  exportMatrices() {
    const { d, h, n } = this.state;
    const costs = [headCosts(d, h, n), headCosts(d, 1, n)];
    const keys = ["weights", "multiply_adds"].flatMap((g) => Object.keys(costs[0][g]).map((k) => [g, k]));
    const values = [...keys.map(([g, k]) => costs.map((c) => c[g][k][0])), costs.map((c) => c.exps[0])];
    const rows = [...keys.map(([g, k]) => `${g} ${k}`), "softmax exponentials"];
    const columns = [`${h} heads of width ${d / h}`, `1 head of width ${d}`];
    return [{ name: `Costs for n = ${n} tokens`, rows, columns, values }];
  }
}
