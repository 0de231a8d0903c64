// A figure's numbers, as its widget gives them (`figure.exportData()`: { matrices: [{ name, rows, columns,
// values, missing? }], ... }), written out: one tidy CSV for the export button, tables for the page.

const TABLE_CELL_LIMIT = 20000; // beyond this the tables would freeze a phone; the exports still hold it all

/** One export matrix per head of `weights` ([head][i][j]) over `tokens`, each named by `name(k)` (k from 0). */
export const headMatrices = (weights, tokens, name) =>
  weights.map((values, k) => ({ name: name(k), rows: tokens, columns: tokens, values }));

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

/** One matrix as a table, its rows and columns headed by their names. */
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

/** The matrices of `data` as tables, each in a scrolling region that takes focus, after its note; past
 * TABLE_CELL_LIMIT numbers a line that sends the reader to the exports instead. */
export function numbersTables(data) {
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
  return parts;
}
