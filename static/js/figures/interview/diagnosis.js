// Figure 7's structural diagnosis, drawn from a /api/diagnose answer: the verdict and its summary; a grid of
// every head, layer by layer (coloured by its share of weight on the future, or by its entropy, and marked
// with the fingerprint it carries); and the head the reader picks, drawn with the page's heatmap (and arcs
// when the upload named its tokens and they fit).
//
// The grid comes from the answer's `grid` (a few numbers per head, every head, whatever the file's size). A
// head's weights come from the reader's own copy of the file (lib/npy.js): a .npy sliced at the offset the
// answer gives, a .json or .csv parsed; no upload is sent back. An example's answer (/api/lm/diagnose) holds
// its model's weights itself. Past 128 positions the heatmap shows the mean of each block of positions, and
// says so.

import { arcsFit, drawArcs } from "../../lib/arcs.js";
import { headColour } from "../../lib/colours.js";
import { counted } from "../../lib/counts.js";
import { element, headedTable, segmentedOption } from "../../lib/dom.js";
import { Heatmap } from "../../lib/heatmap.js";
import { isTextFile, readHead, readTextHead } from "../../lib/npy.js";
import { clear, r1, svg, svgText } from "../../lib/svg.js";
import { grouped, pct } from "./names.js";

/** Each fingerprint the server names, its one-letter mark on the grid (what it means, the page's data says:
 * app/core/head_signatures.py SIGNATURE_RULES, given to `useSignatureTexts`). */
export const MARKS = {
  causal: "",
  zero_fill: "0",
  next_word: "N",
  transposed: "T",
  faint: "f",
  unmasked: "U",
  hides_self: "S",
  after_softmax: "A",
  nan_rows: "∅",
};
let texts = {};

/** What each signature means, in the page's words, from the server's one table (the page's data). */
export function useSignatureTexts(given) {
  texts = given ?? {};
}

const VERDICT_BADGE = { causal: "✓ causal", leaks: "✗ leaks", broken: "✗ broken" };
const VERDICT_COLOUR = { causal: 0, leaks: 3, broken: 4 }; // blue, vermillion, reddish purple
const MOST_CELLS = 128; // past this many positions a heatmap shows blocks of positions, averaged

/** A head as the reader names it, counted from 1 (the answer's layer and head are array indices, from 0). */
const headName = (layer, head) => `layer ${layer + 1}, head ${head + 1}`;
const signatureText = (s) => texts[s] ?? s;
const num = (x) => (x === 0 ? "0" : Math.abs(x) < 0.001 ? x.toExponential(1) : String(Number(x.toPrecision(3))));

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

/** `rows` (n × n, NaN allowed) averaged over blocks of `size` positions, a NaN counted as 0. */
export function blocks(rows, size) {
  const n = rows.length;
  const m = Math.ceil(n / size);
  const out = Array.from({ length: m }, () => new Float64Array(m));
  for (let bi = 0; bi < m; bi++) {
    for (let bj = 0; bj < m; bj++) {
      let sum = 0;
      let count = 0;
      for (let i = bi * size; i < Math.min(n, (bi + 1) * size); i++) {
        for (let j = bj * size; j < Math.min(n, (bj + 1) * size); j++) {
          const w = rows[i][j];
          if (!Number.isNaN(w)) sum += w;
          count += 1;
        }
      }
      out[bi][bj] = sum / count;
    }
  }
  return out;
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
    this.colourBy = "future";
    [this.layer, this.head] = answer.grid ? firstHead(answer.grid) : [0, 0];
    this.reading = 0; // the latest head read: an older read that ends later is dropped
  }

  get layers() {
    return this.answer.grid.signature.length;
  }

  get heads() {
    return this.answer.grid.signature[0].length;
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
    this.drawGrid();
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

  /** The grid: a cell per head (layers down, heads across), its colour the chosen figure, its mark the
   * fingerprint; a click, Enter or the arrow keys pick the head drawn below. */
  drawGrid() {
    const part = this.gridPart;
    clear(part);
    const { grid } = this.answer;
    const [L, H] = [this.layers, this.heads];
    part.appendChild(element("h4", "upload-grid__title", `Every head: ${counted(L, "layer")} × ${counted(H, "head")}`));

    // The colour choice, as templates/macros.html's `segmented` writes one.
    const controls = element("fieldset", "control upload-grid__controls");
    controls.setAttribute("role", "radiogroup");
    controls.setAttribute("aria-label", "Colour by");
    controls.appendChild(element("legend", "", "Colour by"));
    const choice = element("div", "segmented");
    for (const [value, text] of [
      ["future", "future mass"],
      ["entropy", "entropy"],
    ]) {
      const option = segmentedOption("upload-colour", value, text, value === this.colourBy);
      option.querySelector("input").addEventListener("change", () => {
        this.colourBy = value;
        this.paintGrid();
      });
      choice.appendChild(option);
    }
    controls.appendChild(choice);
    part.appendChild(controls);

    const width = Math.max(240, (this.box.clientWidth || 600) - 4);
    const left = 64;
    const top = 22;
    const cell = Math.max(5, Math.min(30, Math.floor((width - left) / H), Math.floor(560 / L)));
    // Label every k-th head when cells are narrower than "H12" at 11 px (about 7 px a character), and every
    // k-th layer when they are shorter than a line.
    const everyHead = Math.ceil((8 + 7 * (1 + String(H).length)) / cell);
    const everyLayer = Math.ceil(13 / cell);
    const root = svg("svg", {
      class: "upload-grid__svg",
      width: left + H * cell + 2,
      height: top + L * cell + 2,
      role: "group",
      "aria-label":
        `Every head's fingerprint, ${counted(L, "layer")} by ${counted(H, "head")}: ` +
        "click a head, or focus here and use the arrow keys; the head is drawn below",
      tabindex: 0,
    });
    for (let h = 0; h < H; h += everyHead) {
      const at = { class: "upload-grid__axis", x: r1(left + (h + 0.5) * cell), y: 14, "text-anchor": "middle" };
      svgText("text", `H${h + 1}`, at, root);
    }
    for (let l = 0; l < L; l += everyLayer) {
      const at = { class: "upload-grid__axis", x: left - 6, y: r1(top + (l + 0.5) * cell), "text-anchor": "end" };
      svgText("text", `layer ${l + 1}`, { ...at, "dominant-baseline": "central" }, root);
    }
    this.cells = [];
    const side = Math.max(1, cell - (cell > 6 ? 1 : 0));
    for (let l = 0; l < L; l++) {
      const row = [];
      for (let h = 0; h < H; h++) {
        const signature = grid.signature[l][h];
        const verdict = grid.verdict[l][h];
        const data = { "data-layer": l, "data-head": h, "data-signature": signature };
        const g = svg("g", { class: `upload-cell upload-cell--${verdict}`, ...data }, root);
        const rect = svg("rect", { x: left + h * cell, y: top + l * cell, width: side, height: side }, g);
        svg("title", {}, g).textContent = `${headName(l, h)}: ${signatureText(signature)}`;
        const mark = MARKS[signature];
        if (mark && cell >= 12) {
          const [x, y] = [r1(left + (h + 0.5) * cell), r1(top + (l + 0.5) * cell)];
          const at = { class: "upload-cell__mark", x, y, "text-anchor": "middle", "dominant-baseline": "central" };
          svgText("text", mark, { ...at, "font-size": Math.min(14, cell * 0.6) }, g);
        }
        g.addEventListener("click", () => this.pick(l, h));
        row.push({ g, rect });
      }
      this.cells.push(row);
    }
    this.cursor = svg("rect", { class: "upload-grid__cursor", width: cell + 1, height: cell + 1 }, root);
    this.geometry = { left, top, cell };
    root.addEventListener("keydown", (event) => this.key(event));
    const wrap = element("div", "upload-grid__wrap");
    wrap.appendChild(root);
    part.appendChild(wrap);
    part.appendChild(this.legend());
    this.paintGrid();
  }

  /** Each cell's fill: future mass (vermillion, as the leak meter) or entropy as a share of log n (blue). */
  paintGrid() {
    const { grid } = this.answer;
    const n = this.answer.shape[this.answer.shape.length - 1];
    const most = Math.max(...grid.future_mass.flat());
    this.cells.forEach((row, l) =>
      row.forEach(({ rect }, h) => {
        const signature = grid.signature[l][h];
        const verdict = grid.verdict[l][h];
        let colour;
        let opacity;
        if (this.colourBy === "entropy") {
          colour = headColour(0);
          opacity = 0.08 + 0.92 * Math.min(1, (grid.entropy[l][h] ?? 0) / Math.log(n)); // null: no valid row
        } else {
          colour = headColour(VERDICT_COLOUR[verdict]);
          const mass = grid.future_mass[l][h] ?? 0; // null: every row NaN or empty
          opacity = verdict === "leaks" ? 0.3 + 0.7 * Math.sqrt(mass / most) : verdict === "broken" ? 0.55 : 0.12;
        }
        rect.setAttribute("fill", colour);
        rect.style.setProperty("fill-opacity", opacity.toFixed(3));
      }),
    );
    this.placeCursor();
  }

  legend() {
    const counts = this.answer.signatures ?? {};
    const list = element("ul", "upload-grid__legend");
    for (const [name, mark] of Object.entries(MARKS)) {
      if (!counts[name]) continue;
      const item = element("li");
      if (mark) item.appendChild(element("b", "upload-grid__legend-mark", mark));
      item.append(element("code", "", name), ` ${counted(counts[name], "head")}: ${signatureText(name)}`);
      list.appendChild(item);
    }
    return list;
  }

  placeCursor() {
    const { left, top, cell } = this.geometry;
    this.cursor.setAttribute("x", left + this.head * cell - 0.5);
    this.cursor.setAttribute("y", top + this.layer * cell - 0.5);
    for (const row of this.cells) for (const { g } of row) g.classList.remove("is-picked");
    this.cells[this.layer][this.head].g.classList.add("is-picked");
  }

  key(event) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const layer = Math.max(0, Math.min(this.layers - 1, this.layer + move[0]));
    const head = Math.max(0, Math.min(this.heads - 1, this.head + move[1]));
    this.pick(layer, head);
  }

  pick(layer, head) {
    if (layer === this.layer && head === this.head) return;
    [this.layer, this.head] = [layer, head];
    this.placeCursor();
    this.drawHead();
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
      const index = layer * this.heads + head;
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
    this.drawWeights(part, rows, figures);
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

  drawWeights(part, rows, figures) {
    const n = rows.length;
    const tokens = this.answer.tokens;
    const size = Math.ceil(n / MOST_CELLS);
    const drawn = size > 1 ? blocks(rows, size) : rows; // a NaN cell is drawn grey, "NaN" (lib/heatmap.js)
    const m = drawn.length;
    const labels =
      size > 1
        ? Array.from({ length: m }, (_, b) => `${b * size + 1}–${Math.min(n, (b + 1) * size)}`)
        : (tokens ?? Array.from({ length: n }, (_, i) => String(i + 1)));
    const width = Math.max(240, (this.box.clientWidth || 600) - 4);
    const cell = Math.max(2, Math.min(28, Math.floor((width - 90) / m)));
    const colour = headColour(VERDICT_COLOUR[figures.verdict] ?? 0);
    // A long sequence spreads each row thin (a uniform row of 512 is 0.002 a key): shade by √(w / largest),
    // so the structure shows however many positions share the weight; an exact 0 stays empty.
    const known = (w) => (w === null || Number.isNaN(w) ? 0 : w); // a NaN (null in JSON) weighs nothing
    const top = Math.max(...drawn.map((r) => Math.max(...Array.from(r, known))));
    const strength = (w) => (w <= 0 || top <= 0 ? 0 : Math.min(1, 0.05 + 0.95 * Math.sqrt(w / top)));
    const map = new Heatmap({
      tokens: labels,
      cell,
      colour,
      strength,
      font: this.font,
      outlineFuture: true,
      className: "upload-head__map",
      label: `${headName(this.layer, this.head)}: ${figures.verdict}, ${signatureText(figures.signature)}`,
    });
    map.update(drawn);
    const wrap = element("div", "upload-head__drawing");
    wrap.appendChild(map.root);
    part.appendChild(wrap);
    const shading = `Shade: the square root of the weight over the largest drawn (${num(top)}), so faint rows show.`;
    const pooled =
      size > 1
        ? `${grouped(n)} positions are too many to draw one by one: each cell is the mean weight of a block of ` +
          `${size} × ${size} positions, so blocks on the diagonal mix past and future. `
        : "";
    part.appendChild(element("p", "panel-foot upload-head__foot", `${pooled}${shading}`));
    if (tokens && arcsFit(n, width)) {
      const clean = rows.map((r) => Array.from(r, known));
      const arcs = drawArcs({
        tokens,
        weights: [clean],
        width,
        font: this.font,
        label: `${headName(this.layer, this.head)} as arcs from each word to the words it reads`,
        headIds: [VERDICT_COLOUR[figures.verdict] ?? 0],
      });
      const box = element("div", "upload-head__arcs");
      box.appendChild(arcs.root);
      part.appendChild(box);
    }
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
