// Matrices as HTML tables, each with its shape written beside its name: an editable grid of text inputs and a
// read-only view (optionally shaded by value). All text goes in through textContent or input values.

/** Append `text` to `el`, turning ^x / _x (or ^{..} / _{..}) into superscripts and subscripts: "XW^Q", "d_k". */
export function richText(el, text) {
  const pattern = /([\^_])(\{[^}]*\}|.)/gu;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) el.append(text.slice(at, match.index));
    const script = document.createElement(match[1] === "^" ? "sup" : "sub");
    script.textContent = match[2].replace(/^\{|\}$/g, "");
    el.append(script);
    at = match.index + match[0].length;
  }
  if (at < text.length) el.append(text.slice(at));
  return el;
}

/** The plain reading of a rich label: "XW^Q" -> "XW Q", for accessible names. */
export const plainText = (text) =>
  text
    .replace(/[\^_]\{([^}]*)\}/gu, " $1")
    .replace(/[\^_](.)/gu, " $1")
    .trim();

/** A number as the page shows it: two decimals, exponent notation when huge, −∞ for null. */
export function formatNumber(x) {
  if (x === null || x === undefined) return "−∞";
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 1e4) return x.toExponential(2).replace("-", "−");
  const text = x.toFixed(2);
  return (text === "-0.00" ? "0.00" : text).replace("-", "−");
}

/** "6 × 3" */
export const shapeText = (rows, cols) => `${rows} × ${cols}`;

function head(title, rows, cols, extra) {
  const top = document.createElement("div");
  top.className = "mx__head";
  const name = richText(document.createElement("span"), title);
  name.className = "mx__name";
  const shape = document.createElement("span");
  shape.className = "mx__shape";
  shape.dataset.part = "shape";
  shape.textContent = shapeText(rows, cols);
  top.append(name, shape);
  if (extra) top.append(extra);
  return top;
}

/** A header cell for a "col" or a "row" (`scope`) showing `text`, which is its tooltip too: it may be cut. */
function headerCell(scope, text) {
  const th = document.createElement("th");
  th.scope = scope;
  th.textContent = text;
  th.title = text;
  return th;
}

function table(label, colLabels) {
  const t = document.createElement("table");
  t.className = "mx__table";
  t.setAttribute("aria-label", label);
  const tr = t.createTHead().insertRow();
  tr.append(document.createElement("td"), ...colLabels.map((text) => headerCell("col", text)));
  return t;
}

function rowHeader(tr, text) {
  return tr.appendChild(headerCell("row", text));
}

const numbered = (k) => Array.from({ length: k }, (_, i) => String(i + 1));

/**
 * An editable matrix. `values` is rows of strings; inputs carry data-matrix=`key`, data-i and data-j, so one
 * delegated listener can serve every grid. `rowNames`, when given, makes the row headers editable text inputs
 * (data-row-name=i), named by `rowNameLabel(i)`.
 */
export function matrixGrid({
  key,
  title,
  values,
  rowLabels = null,
  colLabels = null,
  cellLabel,
  readOnly = false,
  rowNames = null,
  rowNameLabel = null,
  extra = null,
}) {
  const rows = values.length;
  const cols = values[0]?.length ?? 0;
  const root = document.createElement("div");
  root.className = "mx mx--edit";
  root.dataset.matrix = key;
  root.append(head(title, rows, cols, extra));
  const scroll = document.createElement("div");
  scroll.className = "mx__scroll";
  const t = table(`${plainText(title)}, ${shapeText(rows, cols)}`, colLabels ?? numbered(cols));
  const body = t.createTBody();
  values.forEach((row, i) => {
    const tr = body.insertRow();
    tr.dataset.row = String(i);
    if (rowNames) {
      const th = rowHeader(tr, "");
      const input = document.createElement("input");
      input.type = "text";
      input.className = "mx__rowname";
      input.value = rowNames[i];
      input.dataset.rowName = String(i);
      input.maxLength = 40;
      input.setAttribute("aria-label", rowNameLabel(i));
      input.autocomplete = "off";
      input.spellcheck = false;
      th.appendChild(input);
    } else {
      rowHeader(tr, rowLabels ? rowLabels[i] : String(i + 1));
    }
    row.forEach((text, j) => {
      const td = tr.insertCell();
      const input = document.createElement("input");
      input.type = "text";
      input.className = "mx__cell";
      input.value = text;
      input.dataset.matrix = key;
      input.dataset.i = String(i);
      input.dataset.j = String(j);
      input.autocomplete = "off";
      input.spellcheck = false;
      input.setAttribute("autocapitalize", "off");
      input.setAttribute("enterkeyhint", "next");
      input.setAttribute("aria-label", cellLabel(i, j));
      input.readOnly = readOnly;
      td.appendChild(input);
    });
  });
  scroll.appendChild(t);
  root.appendChild(scroll);
  if (readOnly) root.classList.add("is-readonly");
  return root;
}

/**
 * A read-only matrix. `rows` holds numbers (null shows as −∞). With `heat`, each cell is shaded by its value
 * in [0, 1] through the CSS custom property --w (set through the CSSOM, which the page's CSP allows).
 */
export function matrixView({ key, title, rows, rowLabels, colLabels = null, heat = false, note = null }) {
  const n = rows.length;
  const cols = rows[0]?.length ?? 0;
  const root = document.createElement("div");
  root.className = "mx";
  root.dataset.matrix = key;
  let extra = null;
  if (note) {
    extra = document.createElement("span");
    extra.className = "mx__note";
    extra.textContent = note;
  }
  root.append(head(title, n, cols, extra));
  const scroll = document.createElement("div");
  scroll.className = "mx__scroll";
  const t = table(`${plainText(title)}, ${shapeText(n, cols)}`, colLabels ?? numbered(cols));
  if (heat) t.classList.add("mx__table--heat");
  const body = t.createTBody();
  rows.forEach((row, i) => {
    const tr = body.insertRow();
    tr.dataset.row = String(i);
    rowHeader(tr, rowLabels[i]);
    for (const x of row) {
      const td = tr.insertCell();
      td.textContent = formatNumber(x);
      if (x === null) td.className = "is-neg-inf";
      else if (heat) {
        td.style.setProperty("--w", String(Math.max(0, Math.min(1, x))));
        if (x > 0.55) td.className = "is-strong";
      }
    }
  });
  scroll.appendChild(t);
  root.appendChild(scroll);
  return root;
}

/**
 * The numbers of a block pasted from a spreadsheet (tab separated), a CSV, or a printed array: rows of
 * strings, or null when `text` is a single value (let the browser paste it normally).
 */
export function parseBlock(text) {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[[\]]/g, " ").trim())
    .filter((line) => line.length);
  if (!lines.length) return null;
  const split = (line) => (line.includes("\t") ? line.split("\t") : line.split(/[\s,;]+/)).map((c) => c.trim());
  const rows = lines.map(split).map((cells) => cells.filter((c) => c.length));
  if (rows.length === 1 && rows[0].length <= 1) return null;
  return rows;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number a cell's text stands for, or null when it is not one (a unicode minus is accepted). */
export function parseCell(text) {
  const t = String(text).trim().replace(/^[−–]/, "-");
  if (!NUMBER.test(t)) return null;
  const x = Number(t);
  return Number.isFinite(x) ? x : null;
}
