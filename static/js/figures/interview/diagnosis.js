// Figure 7's structural diagnosis, drawn from a /api/diagnose answer: the verdict and its summary; a grid of
// every head, layer by layer (head-grid.js); the head the reader picks, its figures in words and its weights
// drawn (head-weights.js); and every listed head's figures as a table.
//
// The grid comes from the answer's `grid` (a few numbers per head, every head, whatever the file's size). A
// head's weights come from the reader's own copy of the file (npy.js): a .npy sliced at the offset the
// answer gives, a .json or .csv parsed; no upload is sent back. An example's answer (/api/lm/diagnose) holds
// its model's weights itself.

import { element, headedTable } from "../../lib/dom.js";
import { clear } from "../../lib/svg.js";
import { HeadGrid } from "./head-grid.js";
import { drawHeadWeights } from "./head-weights.js";
import { isTextFile, readHead, readTextHead } from "./npy.js";
import { grouped, pct } from "./names.js";
import { headName, num, signatureText } from "./signatures.js";

const VERDICT_BADGE = { causal: "✓ causal", leaks: "✗ leaks", broken: "✗ broken" };

/** A scrolling table that takes keyboard focus: a caption, `columns` as its header, then one row per
 * { className, cells }. */
function tableRegion(label, columns, rows) {
  const table = headedTable("diagnose__table", columns, label);
  for (const { className, cells } of rows) {
    const tr = element("tr", className);
    for (const v of cells) tr.appendChild(element("td", "", v));
    table.tBodies[0].appendChild(tr);
  }
  const wrap = element("div", "diagnose__table-wrap");
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", label);
  wrap.appendChild(table);
  return wrap;
}

/** The figures of one head: from the answer's listed heads when it is there, else from the grid. */
function headFigures(answer, layer, head) {
  const listed = answer.heads.find((h) => h.layer === layer && h.head === head);
  if (listed) return listed;
  const { grid } = answer;
  const signature = grid.signature[layer][head];
  return {
    layer,
    head,
    signature,
    max_future: grid.max_future[layer][head],
    future_mass: grid.future_mass[layer][head],
    entropy: grid.entropy[layer][head],
    nan_rows: grid.nan_rows[layer][head],
    verdict: grid.verdict[layer][head], // the server's, as every cell's
  };
}

/** The head a reader sees first: the one with the largest single future weight, else the first broken one,
 * else the first. */
function firstHead(grid) {
  let best = [0, 0];
  let most = 0;
  let broken = null;
  grid.max_future.forEach((row, l) =>
    row.forEach((m, h) => {
      if (m > most) [most, best] = [m, [l, h]];
      if (!broken && grid.signature[l][h] !== "causal") broken = [l, h];
    }),
  );
  return most > 0 ? best : (broken ?? best);
}

/** The upload's view: verdict, grid and the head in focus, kept between redraws (a resize keeps the head). */
class UploadView {
  constructor({ result, box }, answer, source, file) {
    this.result = result;
    this.box = box;
    this.answer = answer;
    this.source = source;
    this.file = file;
    this.grid = answer.grid ? new HeadGrid(answer, (layer, head) => this.pick(layer, head)) : null;
    [this.layer, this.head] = answer.grid ? firstHead(answer.grid) : [0, 0];
    this.reading = 0; // the latest head read: an older read that ends later is dropped
  }

  draw(font) {
    this.font = font;
    this.drawVerdict();
    clear(this.box);
    if (!this.answer.grid) return;
    this.gridPart = element("section", "upload-grid");
    this.headPart = element("section", "upload-head");
    this.headPart.setAttribute("aria-live", "polite");
    this.box.append(this.gridPart, this.headPart, this.headTable());
    this.grid.draw(this.gridPart, this.box.clientWidth || 600, [this.layer, this.head]);
    this.drawHead();
  }

  pick(layer, head) {
    if (layer === this.layer && head === this.head) return;
    [this.layer, this.head] = [layer, head];
    this.grid.place(layer, head);
    this.drawHead();
  }

  drawVerdict() {
    const { answer, result } = this;
    clear(result);
    const verdict = element("p", `verdict verdict--${answer.verdict}`);
    verdict.dataset.verdict = answer.verdict;
    const badge = element("strong", "verdict__badge", VERDICT_BADGE[answer.verdict] ?? answer.verdict);
    // The summary starts with the verdict itself ("leaks: ..."), which the badge already says.
    const text = answer.summary.replace(/^(causal|leaks|broken):\s*/, "");
    verdict.append(badge, element("span", "verdict__summary", ` ${text}`));
    const meta = element("p", "verdict__meta", `${this.source} · shape [${answer.shape.join(", ")}]`);
    result.append(verdict, meta);
  }

  /** The head in focus: its figures, then its weights as a heatmap (and arcs when tokens are given). */
  async drawHead() {
    const part = this.headPart;
    const { layer, head, answer } = this;
    const figures = headFigures(answer, layer, head);
    const ticket = ++this.reading;
    clear(part);
    const name = headName(layer, head);
    part.appendChild(element("h4", "upload-head__title", `${name[0].toUpperCase()}${name.slice(1)}`));
    const line = element("p", `upload-head__verdict upload-head__verdict--${figures.verdict}`);
    const signature = element("code", "", figures.signature);
    line.append(element("strong", "", figures.verdict), " · ", signature, ` · ${signatureText(figures.signature)}`);
    part.appendChild(line);
    part.appendChild(element("p", "upload-head__numbers", this.numbersText(figures)));

    let rows;
    try {
      const index = layer * this.grid.heads + head;
      rows = answer.weights // a model's own attention (the examples); an upload is read from the reader's file
        ? answer.weights[layer][head]
        : answer.layout && this.file
          ? await readHead(this.file, answer.layout, index)
          : isTextFile(this.file)
            ? await readTextHead(this.file, index)
            : null;
    } catch (error) {
      part.appendChild(element("p", "upload-head__note", `This head cannot be drawn here: ${error.message}.`));
      return;
    }
    if (ticket !== this.reading) return; // a later pick is being drawn
    if (!rows) {
      part.appendChild(element("p", "upload-head__note", "Choose the file again to draw its heads."));
      return;
    }
    const boxWidth = this.box.clientWidth || 600;
    drawHeadWeights(part, rows, { figures, layer, head, tokens: answer.tokens, boxWidth, font: this.font });
  }

  numbersText(f) {
    if (f.future_mass === null) {
      return `every row is NaN (${grouped(f.nan_rows)} of them, drawn grey): no weights to measure`;
    }
    const parts = [`future mass ${pct(f.future_mass)}`, `largest future weight ${num(f.max_future)}`];
    if (f.entropy !== undefined && f.entropy !== null) parts.push(`entropy ${num(f.entropy)} nats`);
    if (f.row_sum_min !== undefined && f.row_sum_min !== null) {
      const [lo, hi] = [num(f.row_sum_min), num(f.row_sum_max)];
      parts.push(lo === hi ? `rows sum to ${lo}` : `rows sum to ${lo}–${hi}`);
    }
    if (f.nan_rows) parts.push(`${grouped(f.nan_rows)} NaN row${f.nan_rows === 1 ? "" : "s"} (drawn grey)`);
    if (f.empty_rows) parts.push(`${grouped(f.empty_rows)} all-zero row${f.empty_rows === 1 ? "" : "s"} (padding)`);
    return parts.join(" · ");
  }

  /** Every listed head's figures, as a table (the grid's cells in words, for reading and for screen readers). */
  headTable() {
    const { answer } = this;
    const details = element("details", "upload-table");
    const partial = answer.heads_listed < answer.heads_total;
    const title = partial
      ? `The heads listed: ${grouped(answer.heads_listed)} of ${grouped(answer.heads_total)} ` +
        "(only those that are not causal, in (layer, head) order)"
      : `Every head's figures (${grouped(answer.heads_total)})`;
    details.appendChild(element("summary", "", title));
    const rows = answer.heads.map((h) => ({
      className: `diagnose__row diagnose__row--${h.verdict}`,
      cells: [
        headName(h.layer, h.head),
        h.verdict,
        h.signature,
        num(h.max_future),
        h.future_mass === null ? "–" : pct(h.future_mass),
        h.entropy === null || h.entropy === undefined ? "–" : num(h.entropy),
        grouped(h.nan_rows ?? 0),
      ],
    }));
    const columns = ["head", "verdict", "signature", "max future", "future mass", "entropy", "NaN rows"];
    details.appendChild(tableRegion("Every head's verdict", columns, rows));
    return details;
  }
}

const views = new WeakMap(); // box -> the view drawn in it, so a redraw keeps the head in focus

/** The diagnosis `answer` of `file` (named for the reader by `source`): its verdict into `result`, its grid and
 * the head in focus into `box`. `file` is the reader's own File, read again only to draw a .npy head. */
export function drawDiagnosis({ result, box }, answer, source, font, file = null) {
  let view = views.get(box);
  if (!view || view.answer !== answer) {
    view = new UploadView({ result, box }, answer, source, file);
    views.set(box, view);
  }
  view.draw(font);
}
