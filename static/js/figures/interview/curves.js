// Figure 7's loss curves: every model's training (solid) and validation (dashed) loss on one log-scale chart,
// each labelled at its end with its final validation loss (the one place the figure states it); what the
// curves say in words; and, for the fold, the record's final losses as a table.

import { element, headedTable } from "../../lib/dom.js";
import { chart, drawLogAxis, formatLoss, logScale } from "../../lib/log-axis.js";
import { fontFamily, measure } from "../../lib/measure.js";
import { clear, r1, svg, svgText } from "../../lib/svg.js";
import { countWord, modelColour, modelName } from "./names.js";

/** Round tick values from 0 to `max`: about `count` steps of 1, 2 or 5 × 10^k. */
function niceTicks(max, count) {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks = [];
  for (let v = 0; v <= max + 1e-9; v += step) ticks.push(Math.round(v));
  return ticks;
}

/** Move the labels `items` ({y}) apart so no two are closer than `gap`, keeping them within [lo, hi]. */
function spreadLabels(items, gap, lo, hi) {
  const sorted = [...items].sort((a, b) => a.y - b.y);
  for (let i = 1; i < sorted.length; i++) sorted[i].y = Math.max(sorted[i].y, sorted[i - 1].y + gap);
  const over = sorted.length ? sorted[sorted.length - 1].y - hi : 0;
  if (over > 0) for (const s of sorted) s.y -= over;
  for (let i = sorted.length - 2; i >= 0; i--) sorted[i].y = Math.min(sorted[i].y, sorted[i + 1].y - gap);
  for (const s of sorted) s.y = Math.max(lo, s.y);
  return items;
}

/** Draw the curves of `models` (the /api/lm answer's, in the models' order) into `box`, and their story into `text`. */
export function drawCurves(box, text, models) {
  clear(box);
  if (!models.length) return;
  const width = Math.max(280, Math.min(900, box.clientWidth || 600));
  const narrow = width < 480;
  const height = narrow ? 230 : 260;
  const font = `700 12px ${fontFamily(box)}`;
  const labelOf = (d) => `${modelName(d.mask)} ${formatLoss(d.final_validation)}`;
  const labelW = Math.max(...models.map((d) => measure(labelOf(d), font)));
  const m = { left: 46, right: Math.ceil(labelW) + 12, top: 14, bottom: 38 };
  const losses = models.flatMap((d) => [...d.curves.train, ...d.curves.validation]).filter((x) => x > 0);
  const xMax = Math.max(...models.flatMap((d) => d.curves.step));
  const lo = Math.log10(Math.min(...losses) / 1.4);
  const hi = Math.log10(Math.max(...losses) * 1.25);
  const X = (s) => m.left + (s / xMax) * (width - m.left - m.right);
  const Y = logScale(lo, hi, m.top, height - m.bottom);

  const final = (d) => `${modelName(d.mask)} ${formatLoss(d.final_train)} and ${formatLoss(d.final_validation)}`;
  const label = `Loss while training, log scale. Final training and validation loss: ${models.map(final).join("; ")}`;
  const { root, axes } = chart("lm-curves__chart", width, height, label);
  drawLogAxis(axes, { lo, hi, y: Y, left: m.left, right: width - m.right, title: "loss (log scale)" });
  const base = height - m.bottom;
  for (const s of niceTicks(xMax, narrow ? 3 : 6)) {
    const x = r1(X(s));
    svg("line", { class: "chart__tickmark", x1: x, x2: x, y1: base, y2: base + 4 }, axes);
    svgText("text", String(s), { class: "chart__tick", x, y: base + 16, "text-anchor": "middle" }, axes);
  }
  const middle = r1((m.left + width - m.right) / 2);
  const title = { class: "chart__tick chart__axis-title", x: middle, y: height - 4, "text-anchor": "middle" };
  svgText("text", "training step", title, axes);

  const labels = [];
  // The lowest curves last, on top: where two end together the one the story calls lowest stays in sight.
  const drawingOrder = [...models].sort((a, b) => b.final_validation - a.final_validation);
  for (const d of drawingOrder) {
    const colour = modelColour(d.mask);
    const g = svg("g", { class: "lm-curves__model", "data-model": d.mask, stroke: colour, fill: "none" }, root);
    for (const kind of ["train", "validation"]) {
      const values = d.curves[kind];
      const path = d.curves.step.map((s, i) => `${i ? "L" : "M"}${r1(X(s))} ${r1(Y(values[i]))}`).join("");
      svg(
        "path",
        {
          class: `lm-curves__line lm-curves__line--${kind}`,
          d: path,
          "stroke-width": kind === "train" ? 2.25 : 2,
          "stroke-dasharray": kind === "train" ? null : "5 3",
          "data-kind": kind,
        },
        g,
      );
    }
    const last = d.curves.step.length - 1;
    labels.push({ d, colour, y: (Y(d.curves.train[last]) + Y(d.curves.validation[last])) / 2 });
  }
  spreadLabels(labels, 15, m.top + 4, base - 4);
  for (const { d, colour, y } of labels) {
    const at = { x: width - m.right + 6, y: r1(y), fill: colour, "dominant-baseline": "central" };
    svgText("text", labelOf(d), { class: "lm-curves__label", ...at, "data-model": d.mask }, root);
  }
  box.appendChild(root);

  const legend = element("p", "lm-curves__legend");
  legend.setAttribute("aria-hidden", "true");
  const solid = element("span", "lm-curves__key lm-curves__key--train", "training");
  const dashed = element("span", "lm-curves__key lm-curves__key--validation", "validation");
  legend.append(solid, dashed, element("span", "", "labels: final validation loss"));
  box.appendChild(legend);
  text.textContent = story(models);
}

/** The curves in words, from the record: whether loss alone flatters the broken models, and what the
 * off-by-one model's one word of future is worth. The numbers are on the chart's labels, not repeated here. */
function story(models) {
  const honest = models.find((d) => d.mask === "neg_inf");
  const leaky = models.filter((d) => d.mask !== "neg_inf");
  if (!honest || !leaky.length) return "";
  const below = leaky.every((d) => d.final_validation <= honest.final_validation);
  const broken =
    leaky.length === 1
      ? "the broken model looks best: it can read the word it is asked to predict"
      : `the ${countWord(leaky.length)} broken models look best: they can read the word they are asked to predict`;
  return (below ? `By loss alone ${broken}. ` : "") + oneWordOfFuture(models);
}

/** The quiet cheat in words, when the record holds both models: the off-by-one mask lets each word read only the
 * next one, and how its final validation loss compares with no mask's (as the chart's labels read). */
function oneWordOfFuture(models) {
  const cheat = models.find((d) => d.mask === "next_word");
  const open = models.find((d) => d.mask === "none");
  if (!cheat || !open) return "";
  const [a, b] = [formatLoss(cheat.final_validation), formatLoss(open.final_validation)];
  const d = cheat.final_validation - open.final_validation;
  const compared = a === b ? "level with" : d < 0 ? "below" : "above";
  return (
    `The ${modelName("next_word")} mask shows one later word, the answer, and its loss ends ${compared} ` +
    `${modelName("none")}'s.`
  );
}

/** The record's final losses of `models` as a table, for the fold under the chart. */
export function drawLosses(box, models) {
  clear(box);
  const caption = "Final loss, as recorded at the end of training";
  const table = headedTable("lm-losses", ["model", "training", "validation"], caption);
  for (const d of models) {
    const tr = element("tr");
    tr.dataset.model = d.mask;
    const th = element("th", "", modelName(d.mask));
    th.scope = "row";
    tr.append(th, element("td", "", formatLoss(d.final_train)), element("td", "", formatLoss(d.final_validation)));
    table.tBodies[0].appendChild(tr);
  }
  box.appendChild(table);
}
