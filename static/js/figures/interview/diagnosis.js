// Figure 7's structural diagnosis, drawn from a /api/diagnose answer: the verdict and its summary, then every
// head's verdict as a small heatmap (future outlined) when the upload is small enough to draw, else as tables:
// the heads listed and, past the listing threshold, the leaks counted layer by layer.

import { headColour } from "../../lib/colours.js";
import { element } from "../../lib/dom.js";
import { fitCells, Heatmap } from "../../lib/heatmap.js";
import { clear } from "../../lib/svg.js";
import { grouped, pct } from "./names.js";

const SIGNATURE_TEXT = {
  causal: "nothing above the diagonal",
  zero_fill: "the ×0 fingerprint: equal future weights along each row",
  unmasked: "free weight on future keys: no mask at all",
};

/** A head as the reader names it, counted from 1 (the answer's layer and head are array indices, from 0). */
const headName = (h) => `layer ${h.layer + 1}, head ${h.head + 1}`;

/** A scrolling table that takes keyboard focus: a caption, `columns` as its header, then one row per
 * { className, cells }. */
function tableRegion(label, columns, rows) {
  const table = element("table", "diagnose__table");
  table.createCaption().textContent = label;
  const head = element("tr");
  for (const c of columns) {
    const th = element("th", "", c);
    th.scope = "col";
    head.appendChild(th);
  }
  table.append(element("thead"), element("tbody"));
  table.tHead.appendChild(head);
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

/** The diagnosis `answer` of the file named by `source`: its verdict into `result`, its heads into `box`. */
export function drawDiagnosis({ result, box }, answer, source, font) {
  clear(result);
  const verdict = element("p", `verdict verdict--${answer.verdict}`);
  verdict.dataset.verdict = answer.verdict;
  const badge = element("strong", "verdict__badge", answer.verdict === "causal" ? "✓ causal" : "✗ leaks");
  // The summary starts with the verdict itself ("leaks: ..."), which the badge already says.
  const summary = element("span", "verdict__summary", ` ${answer.summary.replace(/^(causal|leaks):\s*/, "")}`);
  verdict.append(badge, summary);
  const meta = element("p", "verdict__meta", `${source} · shape [${answer.shape.join(", ")}]`);
  result.append(verdict, meta);
  // Past a threshold the server lists only the leaking heads; its per-layer counts cover every head.
  const partial = answer.heads_listed < answer.heads_total;
  if (partial) {
    const leaking = answer.layers.reduce((sum, l) => sum + l.leaking, 0);
    const which =
      leaking > answer.heads_listed
        ? `the first ${grouped(answer.heads_listed)} of the ${grouped(leaking)} that leak`
        : "only those that leak";
    const listed = element(
      "p",
      "verdict__meta diagnose__listed",
      `Heads listed: ${grouped(answer.heads_listed)} of the ${grouped(answer.heads_total)}. ` +
        `With this many heads the answer lists ${which}, in (layer, head) order; ` +
        "the table by layer counts every head.",
    );
    result.appendChild(listed);
  }

  clear(box);
  const weights = answer.weights ?? answer.matrices ?? null;
  if (weights) drawHeads(box, answer.heads, weights, font);
  else drawTables(box, answer, partial);
}

/** The heads as tables: by layer (when only some heads are listed), then the heads listed. */
function drawTables(box, answer, partial) {
  if (partial) {
    const layers = answer.layers.map((l) => ({
      className: `diagnose__row diagnose__row--${l.leaking ? "leaks" : "causal"}`,
      cells: [
        String(l.layer + 1),
        grouped(l.heads),
        grouped(l.leaking),
        grouped(l.zero_fill),
        grouped(l.unmasked),
        l.max_future === 0 ? "0" : l.max_future.toPrecision(3),
      ],
    }));
    const columns = ["layer", "heads", "leaking", "zero_fill", "unmasked", "max future"];
    box.appendChild(tableRegion("Leaking heads, layer by layer", columns, layers));
  }
  if (!answer.heads.length) return;
  const rows = answer.heads.map((h) => ({
    className: `diagnose__row diagnose__row--${h.verdict}`,
    cells: [headName(h), h.verdict, h.signature, h.max_future.toPrecision(3), pct(h.future_mass)],
  }));
  const columns = ["head", "verdict", "signature", "max future", "future mass"];
  box.appendChild(tableRegion(partial ? "The leaking heads listed" : "Every head's verdict", columns, rows));
}

/** Every head as a small heatmap of its `weights` ([layer][head][query][key]) with its verdict beneath. */
function drawHeads(box, heads, weights, font) {
  const n = weights[0][0].length;
  const positions = Array.from({ length: n }, (_, i) => String(i + 1)); // rows and columns counted from 1
  const width = box.clientWidth || 600;
  const { cell } = fitCells(width, n, heads.length, { extra: 30, gap: 14, maxCell: 16, minCell: 3, prefer: 8 });
  for (const h of heads) {
    const item = element("div", `diagnose-head diagnose-head--${h.verdict}`);
    item.dataset.signature = h.signature;
    item.dataset.verdict = h.verdict;
    const map = new Heatmap({
      tokens: positions,
      cell,
      colour: headColour(h.verdict === "causal" ? 0 : 3),
      title: headName(h),
      font,
      outlineFuture: true,
      className: "heatmap--small",
      axes: false, // the key below says which way rows and columns read
      label: `${headName(h)}: ${h.verdict}, ${SIGNATURE_TEXT[h.signature] ?? h.signature}`,
    });
    map.update(weights[h.layer][h.head]);
    const caption = element("p", "diagnose-head__caption");
    const verdictText = element("strong", "diagnose-head__verdict", h.verdict);
    const signature = element("code", "diagnose-head__signature", h.signature);
    signature.title = SIGNATURE_TEXT[h.signature] ?? "";
    const most = h.max_future === 0 ? "0" : h.max_future.toPrecision(2);
    const numbers = element("span", "diagnose-head__numbers", `max future ${most} · mass ${pct(h.future_mass)}`);
    caption.append(verdictText, " · ", signature, element("br"), numbers);
    item.style.setProperty("--width", `${Math.max(110, Math.ceil(map.geometry.width))}px`);
    item.append(map.root, caption);
    box.appendChild(item);
  }
  const key = element("p", "panel-foot diagnose__key");
  const seen = [...new Set(heads.map((h) => h.signature))];
  key.textContent =
    "Layers, heads, rows (queries) and columns (keys) are counted from 1: your array's index 0 is 1 here; " +
    "the outlined triangle is the future. " +
    seen.map((s) => `${s}: ${SIGNATURE_TEXT[s] ?? s}`).join(". ") +
    ".";
  box.appendChild(key);
}
