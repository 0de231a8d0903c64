// The mask bug zoo's low-precision panel, in figure 6's fold: a large finite mask value m instead of −∞, in
// each dtype, as the server computes it (m as stored, two masks added, a fully masked row, the future's weight
// left); the table, and what it shows in words built from its own rows.

import { element } from "../../lib/dom.js";
import { list } from "./numbers.js";

/** A number of the precision table: "-inf" and "nan" (JSON has neither) as −∞ and NaN, integers in full with
 * thin-space groups (so bfloat16's rounding of −1e9 shows), huge ones in exponent form. */
export function sentinelText(v) {
  if (v === "nan") return "NaN";
  if (v === "-inf") return "−∞";
  if (v === "inf") return "∞";
  const sign = v < 0 ? "−" : "";
  const a = Math.abs(v);
  if (a >= 1e12) {
    const [m, e] = a.toExponential(3).split("e");
    return `${sign}${m}e${Number(e)}`;
  }
  if (Number.isInteger(a)) return sign + String(a).replace(/\B(?=(\d{3})+(?!\d))/g, "\u2009");
  return sign + String(Number(a.toPrecision(3)));
}

const PRECISION_COLUMNS = [
  ["stored", "m as stored"],
  ["twice", "0 + m + m"],
  ["fully_masked", "fully masked row"],
  ["leak", "future weight left"],
];

/** The low-precision table: a row per dtype and mask value, every cell the server's. */
function precisionTable(table, rows) {
  const head = element("thead");
  const tr = element("tr");
  tr.append(element("th", "", "mask value m"));
  for (const [, name] of PRECISION_COLUMNS) tr.append(element("th", "", name));
  for (const th of tr.children) th.setAttribute("scope", "col");
  head.append(tr);
  const body = element("tbody");
  rows.forEach((r, k) => {
    if (k === 0 || rows[k - 1].dtype !== r.dtype) {
      // A heading row per dtype, across the table: one column fewer for a phone's width.
      const group = element("tr", "precision-table__group");
      const th = element("th", "", r.dtype);
      th.setAttribute("scope", "rowgroup");
      th.colSpan = PRECISION_COLUMNS.length + 1;
      group.append(th);
      body.append(group);
    }
    const row = element("tr");
    row.dataset.dtype = r.dtype;
    row.dataset.sentinel = r.sentinel;
    const name = element("th", "", r.sentinel);
    name.setAttribute("scope", "row");
    row.append(name);
    for (const [key] of PRECISION_COLUMNS) {
      const v = r[key];
      const cell = element("td", "", sentinelText(v));
      cell.dataset.column = key;
      cell.dataset.value = String(v);
      const broken = v === "nan" || (v === "-inf" && key !== "fully_masked") || (key === "leak" && v > 0);
      cell.classList.toggle("is-broken", broken);
      row.append(cell);
    }
    body.append(row);
  });
  table.replaceChildren(head, body);
}

/** What the table shows, in words built from its own rows. */
function precisionSummary(rows, score) {
  const where = (pred) => {
    const found = new Map();
    for (const r of rows) if (pred(r)) found.set(r.sentinel, [...(found.get(r.sentinel) ?? []), r.dtype]);
    return [...found];
  };
  const parts = [];
  for (const [m, dtypes] of where((r) => r.stored === "-inf")) {
    parts.push(`${m} is already −∞ once ${list(dtypes)} stores it`);
  }
  for (const [m, dtypes] of where((r) => r.twice === "-inf" && r.stored !== "-inf")) {
    parts.push(`${m} + ${m} overflows to −∞ in ${list(dtypes)}`);
  }
  const nan = rows.filter((r) => r.fully_masked === "nan").length;
  let text = parts.length ? `Here ${parts.join("; ")}. ` : "";
  text +=
    `A row whose every key is −∞ has no softmax: NaN, in ${nan} of the table's ${rows.length} rows; while ` +
    "the masked scores stay finite and equal, a fully masked row is merely uniform.";
  for (const [m, dtypes] of where((r) => r.leak !== "nan" && r.leak > 0)) {
    const values = [...new Set(rows.filter((r) => r.sentinel === m && r.leak > 0).map((r) => r.leak))];
    text +=
      ` ${m} is finite everywhere, but against a future score of ${sentinelText(score)} it leaves the future ` +
      `${values.map(sentinelText).join(" or ")} of its row in ${list(dtypes)}: a mask value must lie far below ` +
      "every score, not merely be large.";
  }
  return text;
}

/** Write the zoo's low-precision table and its sentences into the panel's parts of `el`. */
export function showPrecision(el, zoo) {
  el.precisionAbout.textContent =
    "Code that avoids −∞ masks with a large finite number m instead, computed in each dtype (bfloat16: " +
    "float32 rounded to the nearest even at 16 bits): m as the dtype stores it; a score of 0 under two " +
    "masks added (padding and causal); a weight of a row whose " +
    `${zoo.fully_masked_keys} keys are all masked twice; and the future's weight in a row of one visible ` +
    `score 0 and one future score ${sentinelText(zoo.future_score)}, masked once.`;
  precisionTable(el.precision, zoo.precision);
  el.precisionExplain.textContent = precisionSummary(zoo.precision, zoo.future_score);
}
