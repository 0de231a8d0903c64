// The toolbar every figure gets (copy a link to this view, export the drawing as SVG or PNG, export the numbers
// as JSON or CSV) and the figure's numbers as tables for screen readers. Generic: a widget only opts in to the
// numbers by setting `figure.exportData = () => ({ matrices: [{ name, rows, columns, values }], ... })`, and
// main.js fires "figure:started" on the figure once its widget runs.

import { SVG_NS } from "./svg.js";

// Computed styles copied onto the exported SVG as presentation attributes, so it looks right without the page's CSS.
const STYLE_PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "stroke-linecap",
  "stroke-linejoin",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "text-anchor",
  "dominant-baseline",
  "visibility",
  "display",
];

const TABLE_CELL_LIMIT = 20000; // beyond this the tables would freeze a phone; the exports still hold it all

/** The link to figure `name` alone, in the state the query string holds now (without `embed`). */
export function figureLink(name, search = window.location.search) {
  const params = new URLSearchParams(search);
  params.delete("embed");
  const query = params.toString();
  return `${window.location.origin}/figure/${encodeURIComponent(name)}${query ? `?${query}` : ""}`;
}

function button(label, name, part) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "figure-tools__button";
  b.textContent = label;
  b.dataset.tool = part;
  if (name !== label) b.setAttribute("aria-label", name);
  return b;
}

/** Offer `blob` as a download named `filename`. */
function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The figure's drawings worth exporting: its visible SVGs of a useful size, in document order. */
function mainSvgs(figure) {
  return [...figure.querySelectorAll("svg")].filter((el) => {
    if (el.closest(".figure-tools, .figure-numbers") || el.parentElement?.closest("svg")) return false;
    const box = el.getBoundingClientRect();
    return box.width >= 60 && box.height >= 40;
  });
}

/** A copy of `source` (an SVG subtree) whose elements carry their computed styles as attributes. */
function inlineStyles(source) {
  const copy = source.cloneNode(true);
  const from = [source, ...source.querySelectorAll("*")];
  const to = [copy, ...copy.querySelectorAll("*")];
  from.forEach((el, i) => {
    const target = to[i];
    target.removeAttribute("class");
    const style = getComputedStyle(el);
    for (const prop of STYLE_PROPS) {
      const value = style.getPropertyValue(prop);
      if (value) target.setAttribute(prop, value);
    }
  });
  return copy;
}

/**
 * A drawing's size on the page, grown to take in what it draws past its box: a label may run over its edge
 * (CSS overflow: visible), and the export keeps it whole ("row sum" lost its foot and its last letter).
 */
function drawnExtent(el) {
  const box = el.getBoundingClientRect();
  let content = null;
  try {
    content = el.getBBox(); // in the drawing's own units
  } catch {
    return { width: box.width, height: box.height };
  }
  const view = el.viewBox?.baseVal;
  const scale = view && view.width > 0 ? box.width / view.width : 1;
  const right = (content.x + content.width - (view?.x ?? 0)) * scale;
  const bottom = (content.y + content.height - (view?.y ?? 0)) * scale;
  return { width: Math.max(box.width, right), height: Math.max(box.height, bottom) };
}

/** One standalone SVG document holding the figure's drawings stacked, on the page's background colour. */
export function figureSvg(figure) {
  const drawings = mainSvgs(figure);
  if (!drawings.length) return null;
  const gap = 16;
  const boxes = drawings.map((el) => el.getBoundingClientRect());
  const extents = drawings.map(drawnExtent); // what each draws, labels past its box included
  const width = Math.ceil(Math.max(...extents.map((b) => b.width)));
  const height = Math.ceil(extents.reduce((sum, b) => sum + b.height, 0) + gap * (extents.length - 1));
  const root = document.createElementNS(SVG_NS, "svg");
  root.setAttribute("xmlns", SVG_NS);
  root.setAttribute("width", String(width));
  root.setAttribute("height", String(height));
  root.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const title = document.createElementNS(SVG_NS, "title");
  title.textContent = figure.querySelector("figcaption")?.textContent.replace(/\s+/g, " ").trim() ?? "";
  root.appendChild(title);
  const background = document.createElementNS(SVG_NS, "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", getComputedStyle(figure).backgroundColor || "#ffffff");
  root.appendChild(background);
  let y = 0;
  drawings.forEach((el, i) => {
    const copy = inlineStyles(el);
    copy.setAttribute("x", "0");
    copy.setAttribute("y", String(Math.round(y)));
    copy.setAttribute("width", String(Math.round(boxes[i].width)));
    copy.setAttribute("height", String(Math.round(boxes[i].height)));
    // A drawing on the page may let a label run past its box (CSS overflow: visible); a nested SVG clips to
    // its box unless told not to, which cut the foot of "row sum" in the PNG.
    copy.setAttribute("overflow", "visible");
    root.appendChild(copy);
    y += extents[i].height + gap;
  });
  return { root, width, height };
}

function svgText(root) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(root)}`;
}

/** The figure's drawing as a PNG blob at twice its size (drawn from a data: URL, which the CSP allows). */
function pngBlob({ root, width, height }) {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const scale = 2;
      const canvas = document.createElement("canvas");
      canvas.width = width * scale;
      canvas.height = height * scale;
      const ctx = canvas.getContext("2d");
      ctx.scale(scale, scale);
      ctx.drawImage(image, 0, 0, width, height);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no PNG"))), "image/png");
    };
    image.onerror = () => reject(new Error("the drawing could not be rendered"));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText(root))}`;
  });
}

/** One export matrix per head of `weights` ([head][i][j]) over `tokens`, each named by `name(k)` (k from 0). */
export const headMatrices = (weights, tokens, name) =>
  weights.map((values, k) => ({ name: name(k), rows: tokens, columns: tokens, values }));

/** The figure's numbers (its widget's export hook), labelled with the figure and the view's link; or null. */
export function figureData(figure, name) {
  const data = typeof figure.exportData === "function" ? figure.exportData() : null;
  if (!data || !data.matrices?.length) return null;
  return { figure: name, link: figureLink(name), ...data };
}

// A spreadsheet opening the CSV runs a cell that starts with = + - @ (or a tab or carriage return) as a
// formula. Labels can be the reader's own text (the head lab's token names), so a text cell that starts so
// gets a leading apostrophe, which spreadsheets read as "this is text". Numbers, and the markers for a
// missing number, are ours and never touched: -0.5 stays a number.
const FORMULA_START = /^[=+\-@\t\r]/;

// What a null in a matrix stands for. JSON has neither −∞ nor NaN, so the answers send null for both: a
// masked score is −∞, and a matrix of weights says `missing: "NaN"`, for a row that a mask left with
// nothing to attend to. The CSV writes -inf or NaN, the tables −∞ or NaN.
const MISSING = { "-inf": { csv: "-inf", table: "−∞" }, NaN: { csv: "NaN", table: "NaN" } };

const csvCell = (value, missing = "-inf") => {
  let text = value === null || value === undefined ? MISSING[missing].csv : String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The matrices as one tidy CSV: a line per number, `matrix,row,column,value`. */
export function dataCsv(data) {
  const lines = ["matrix,row,column,value"];
  for (const m of data.matrices) {
    m.values.forEach((row, i) =>
      row.forEach((value, j) => {
        const rowName = m.rows?.[i] ?? String(i + 1);
        const colName = m.columns?.[j] ?? String(j + 1);
        const cells = [csvCell(m.name), csvCell(rowName), csvCell(colName), csvCell(value, m.missing)];
        lines.push(cells.join(","));
      }),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** A number as the tables show it: counts whole (`whole`), others to three decimals, null as MISSING says. */
function cellText(value, whole, missing = "-inf") {
  if (value === null || value === undefined) return MISSING[missing].table;
  if (typeof value !== "number") return String(value);
  if (whole) return value.toLocaleString("en");
  return value.toFixed(3).replace("-", "−");
}

function numbersTable(m) {
  const table = document.createElement("table");
  table.className = "figure-numbers__table";
  table.createCaption().textContent = m.name;
  const head = table.createTHead().insertRow();
  const corner = document.createElement("td");
  head.appendChild(corner);
  const cols = m.values[0]?.length ?? 0;
  for (let j = 0; j < cols; j += 1) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = m.columns?.[j] ?? String(j + 1);
    head.appendChild(th);
  }
  const body = table.createTBody();
  const whole = m.values.every((row) => row.every((x) => Number.isInteger(x)));
  m.values.forEach((row, i) => {
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = m.rows?.[i] ?? String(i + 1);
    tr.appendChild(th);
    for (const value of row) tr.insertCell().textContent = cellText(value, whole, m.missing);
  });
  return table;
}

/** The toolbar and the numbers' tables of one figure. */
export class FigureTools {
  constructor(figure, { name = figure.id, alone = false } = {}) {
    this.figure = figure;
    this.name = name;
    this.label = figure.querySelector(".figure-num")?.textContent.replace(/\.$/, "").trim() || "this figure";

    this.bar = document.createElement("div");
    this.bar.className = "figure-tools";
    this.bar.setAttribute("role", "group");
    this.bar.setAttribute("aria-label", `${this.label}: link and export`);
    this.link = button("Copy link", "Copy link to this view", "link");
    this.svg = button("SVG", "Export SVG", "svg");
    this.png = button("PNG", "Export PNG", "png");
    this.json = button("JSON", "Export data as JSON", "json");
    this.csv = button("CSV", "Export data as CSV", "csv");
    this.json.hidden = this.csv.hidden = true; // until the widget shows it has numbers
    this.bar.append(this.link, this.svg, this.png, this.json, this.csv);
    if (!alone) {
      const open = document.createElement("a");
      open.className = "figure-tools__open";
      open.href = figureLink(name);
      open.textContent = "Open alone";
      open.setAttribute("aria-label", `Open alone: ${this.label}`);
      open.addEventListener("focus", () => (open.href = figureLink(name)));
      open.addEventListener("pointerenter", () => (open.href = figureLink(name)));
      this.open = open;
      this.bar.append(open);
    }
    this.status = document.createElement("p");
    this.status.className = "figure-tools__status";
    this.status.setAttribute("aria-live", "polite");
    this.status.dataset.tool = "status";
    this.linkBox = document.createElement("input");
    this.linkBox.type = "text";
    this.linkBox.readOnly = true;
    this.linkBox.className = "figure-tools__link";
    this.linkBox.dataset.tool = "link-text";
    this.linkBox.setAttribute("aria-label", `Link to this view of ${this.label}`);
    this.linkBox.hidden = true;

    const caption = figure.querySelector("figcaption");
    (caption ?? figure.firstChild)?.after(this.bar, this.status, this.linkBox);

    this.link.addEventListener("click", () => this.copyLink());
    this.svg.addEventListener("click", () => this.exportSvg());
    this.png.addEventListener("click", () => this.exportPng());
    this.json.addEventListener("click", () => this.exportData("json"));
    this.csv.addEventListener("click", () => this.exportData("csv"));
    figure.addEventListener("figure:started", () => this.onStarted());
    if (typeof figure.exportData === "function") this.onStarted();
  }

  say(text) {
    this.status.textContent = text;
  }

  async copyLink() {
    const link = figureLink(this.name);
    this.linkBox.value = link;
    this.linkBox.hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      this.say("Link copied to the clipboard.");
    } catch {
      this.say("Copy this link:");
      this.linkBox.focus();
      this.linkBox.select();
    }
  }

  exportSvg() {
    const drawing = figureSvg(this.figure);
    if (!drawing) return this.say("This figure has no drawing to export yet.");
    download(new Blob([svgText(drawing.root)], { type: "image/svg+xml" }), `${this.name}.svg`);
    this.say(`Saved ${this.name}.svg.`);
  }

  async exportPng() {
    const drawing = figureSvg(this.figure);
    if (!drawing) return this.say("This figure has no drawing to export yet.");
    try {
      download(await pngBlob(drawing), `${this.name}.png`);
      this.say(`Saved ${this.name}.png.`);
    } catch (error) {
      this.say(`The PNG could not be made: ${error.message}.`);
    }
  }

  /** Download the figure's numbers. A figure drawn from a compact answer (lib/packed.js) offers
   *  `exportFullData`, which fetches the same numbers in full float64 precision for the file. */
  async exportData(kind) {
    let data;
    try {
      const full = typeof this.figure.exportFullData === "function" ? await this.figure.exportFullData() : null;
      data = full ? { figure: this.name, link: figureLink(this.name), ...full } : figureData(this.figure, this.name);
    } catch (error) {
      return this.say(`The numbers could not be fetched: ${error.message}.`);
    }
    if (!data) return this.say("The numbers are not ready yet.");
    const blob =
      kind === "json"
        ? new Blob([JSON.stringify(data, null, 1)], { type: "application/json" })
        : new Blob([dataCsv(data)], { type: "text/csv" });
    download(blob, `${this.name}.${kind}`);
    this.say(`Saved ${this.name}.${kind}.`);
  }

  // ---- the numbers as tables ---------------------------------------------------------------------------

  onStarted() {
    if (typeof this.figure.exportData !== "function" || this.details) return;
    this.json.hidden = this.csv.hidden = false;
    this.details = document.createElement("details");
    this.details.className = "figure-numbers";
    const summary = document.createElement("summary");
    summary.textContent = "Show the numbers as a table";
    this.tables = document.createElement("div");
    this.tables.className = "figure-numbers__body";
    this.details.append(summary, this.tables);
    this.figure.appendChild(this.details);
    this.shown = "";
    this.details.addEventListener("toggle", () => this.details.open && this.renderTables());
    // While open, follow the figure: any change outside the tables may mean new numbers.
    let frame = 0;
    new MutationObserver((records) => {
      if (!this.details.open || records.every((r) => this.details.contains(r.target) || this.bar.contains(r.target)))
        return;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => this.renderTables());
    }).observe(this.figure, { subtree: true, childList: true, attributes: true, characterData: true });
  }

  renderTables() {
    const data = figureData(this.figure, this.name);
    const key = data ? JSON.stringify(data.matrices) : "";
    if (key === this.shown) return;
    this.shown = key;
    if (!data) {
      const p = document.createElement("p");
      p.textContent = "The numbers are not ready yet.";
      this.tables.replaceChildren(p);
      return;
    }
    const parts = [];
    if (data.note) {
      const p = document.createElement("p");
      p.className = "figure-numbers__note";
      p.textContent = data.note;
      parts.push(p);
    }
    let cells = 0;
    for (const m of data.matrices) {
      cells += m.values.length * (m.values[0]?.length ?? 0);
      if (cells > TABLE_CELL_LIMIT) {
        const p = document.createElement("p");
        p.textContent = "The rest is too large to show as tables here: export the data as CSV or JSON instead.";
        parts.push(p);
        break;
      }
      const wrap = document.createElement("div");
      wrap.className = "figure-numbers__scroll";
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", m.name);
      wrap.appendChild(numbersTable(m));
      parts.push(wrap);
    }
    this.tables.replaceChildren(...parts);
  }
}

/** Add the tools to `figure` (`alone`: on its own page, where "Open alone" would lead nowhere new). */
export function addFigureTools(figure, options = {}) {
  return new FigureTools(figure, options);
}
