// Sharing keys and values: the heads dial's layer trained with h query heads reading g key/value heads
// (g = h: multi-head; g = 1: multi-query; between: grouped-query). Three panels:
// - who reads which keys: a diagram of the h query heads and the g key/value heads they share, with what the
//   sharing saves in W_K, W_V and in the key/value cache, counted from the chosen h and g;
// - what it costs: the stored training record (page data `sharing`, written by
//   `python -m training.train_sharing`): final training loss and each relation's best held-out score by g;
// - on the reader's sentence: every query head's attention, computed live by /api/attention?kv_heads=g and
//   drawn grouped by the key/value head it reads.

import { headColour, onSchemeChange, RELATION_NAMES, relationColour, relationDash } from "../lib/colours.js";
import { segmentedOption } from "../lib/dom.js";
import { headMatrices } from "../lib/figure-numbers.js";
import { fitCells, Heatmap, labelRoom } from "../lib/heatmap.js";
import { chart, drawLogAxis, formatLoss, logScale } from "../lib/log-axis.js";
import { measure } from "../lib/measure.js";
import { clear, r1, svg, svgText } from "../lib/svg.js";
import { parse } from "../lib/url-state.js";
import { Widget } from "../lib/widget.js";

export const DEFAULT_SENTENCE = "the river bank was steep";
const GROUP_GAP = 30; // px between two groups' grids: the gap between groups and a group's rule and padding

/** The divisors of h, smallest first: the key/value head counts a layer of h query heads can share. */
export const divisors = (h) => Array.from({ length: h }, (_, k) => k + 1).filter((g) => h % g === 0);

/** The key/value head query head i reads when h query heads share g: i // (h / g). */
export const kvHeadOf = (h, g) => Array.from({ length: h }, (_, i) => Math.floor(i / (h / g)));

/** "heads 1–3", "head 4", "heads 1, 2" (1-based), for a group of query heads. */
export function headList(heads) {
  const names = heads.map((k) => k + 1);
  if (names.length === 1) return `head ${names[0]}`;
  const run = names.every((n, k) => k === 0 || n === names[k - 1] + 1);
  return run && names.length > 2
    ? `heads ${names[0]}–${names[names.length - 1]}`
    : `heads ${names.join(", ")}`;
}

/** What h query heads sharing g key/value heads cost in one layer of width d: parameters and cache numbers. */
export function layerCost(d, h, g) {
  const dk = d / h;
  return {
    dk,
    wq: d * d,
    wk: d * g * dk,
    wv: d * g * dk,
    wo: d * d,
    cachePerToken: 2 * g * dk, // one key and one value of width d_k per key/value head
    mhaCachePerToken: 2 * d,
  };
}

/** The kind of attention h query heads sharing g key/value heads is. */
export const kindOf = (h, g) => (g === h ? "multi-head" : g === 1 ? "multi-query" : "grouped-query");

/** The record's row for h query heads (null if the record has none). */
const recordFor = (record, h) => record?.heads?.find((r) => r.heads === h) ?? null;

/**
 * In words, what the record says sharing costs at h query heads, computed from the record (never fixed
 * text): the loss from g = h down to g = 1, and the relations whose best score falls or holds.
 */
export function finding(row) {
  const points = [...(row?.groups ?? [])].sort((a, b) => a.kv_heads - b.kv_heads);
  if (points.length < 2) return "";
  const mha = points[points.length - 1];
  const mqa = points[0];
  const ratio = mqa.final_loss / mha.final_loss;
  const change =
    ratio >= 1.1
      ? `rises from ${formatLoss(mha.final_loss)} to ${formatLoss(mqa.final_loss)} (× ${ratio.toFixed(1)})`
      : ratio <= 0.9
        ? `falls from ${formatLoss(mha.final_loss)} to ${formatLoss(mqa.final_loss)}`
        : `stays near ${formatLoss(mha.final_loss)} (${formatLoss(mqa.final_loss)})`;
  const parts = [`The training loss ${change} as the key/value heads go from ${mha.kv_heads} to 1.`];
  const moves = [];
  for (const name of RELATION_NAMES) {
    const a = mha.relations?.[name];
    const b = mqa.relations?.[name];
    if (typeof a !== "number" || typeof b !== "number") continue;
    const verb = b < a - 0.05 ? "falls" : b > a + 0.05 ? "rises" : "holds";
    moves.push(`${name} ${verb} (${a.toFixed(2)} → ${b.toFixed(2)})`);
  }
  if (moves.length) parts.push(`Best held-out scores: ${moves.join(", ")}.`);
  return parts.join(" ");
}

export class Sharing extends Widget {
  constructor(figure, pageData) {
    const record = pageData.sharing ?? null;
    const counts = (record?.heads ?? []).map((r) => r.heads);
    const maxChars = pageData.maxChars ?? 500;
    const fallbackH = counts.includes(12) ? 12 : (counts[counts.length - 1] ?? 12);
    super(figure, pageData, {
      name: "sharing",
      schema: {
        sentence: { param: "sharing_sentence", fallback: DEFAULT_SENTENCE, parse: parse.text(maxChars) },
        heads: { param: "sharing_heads", fallback: fallbackH, parse: (v) => (counts.includes(Number(v)) ? Number(v) : undefined) },
        kvHeads: { param: "sharing_kv", fallback: null, parse: (v) => (/^\d{1,2}$/.test(v) ? Number(v) : undefined) },
      },
      parts: [
        ..."sentence query-heads kv-heads kv-options".split(" "), // the controls
        ..."diagram diagram-text loss scores record-text record-method".split(" "), // the two panels
        ..."drawing live-text".split(" "), // the live heads
      ],
      staleOn: "drawing",
    });
    this.record = record;
    this.counts = counts;
  }

  /** The key/value heads of the state, kept to a divisor of h (h itself when unset or invalid). */
  kv(h = this.state.heads) {
    const g = this.state.kvHeads;
    return divisors(h).includes(g) ? g : h;
  }

  start() {
    const { sentence, queryHeads } = this.el;
    for (const radio of queryHeads.querySelectorAll("input[type=radio]")) {
      radio.checked = Number(radio.value) === this.state.heads;
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ heads: Number(radio.value), kvHeads: this.kv(Number(radio.value)) === Number(radio.value) ? null : this.state.kvHeads });
      });
    }
    this.watchSentence(sentence, (text) => {
      if (text !== this.state.sentence || !this.data) this.update({ sentence: text });
    });
    onSchemeChange(() => this.drawAll());
    this.update({});
  }

  update(patch) {
    this.setState(patch);
    this.buildKvOptions();
    this.drawDiagram();
    this.drawRecord();
    this.load(this.url(), (data) => this.drawLive(data));
  }

  url() {
    const h = this.state.heads;
    const params = new URLSearchParams({ sentence: this.state.sentence, heads: String(h), kv_heads: String(this.kv()), format: "packed" });
    return `/api/attention?${params}`;
  }

  drawAll() {
    this.drawDiagram();
    this.drawRecord();
    if (this.data) this.drawLive(this.data);
  }

  /** The Key/value heads radios: one per divisor of h, the current one checked. */
  buildKvOptions() {
    const h = this.state.heads;
    const g = this.kv();
    const radios = divisors(h).map((count) => {
      const label = segmentedOption("sharing_kv", count, String(count), count === g);
      label.querySelector("input").addEventListener("change", (event) => {
        if (event.target.checked) this.update({ kvHeads: count === h ? null : count });
      });
      return label;
    });
    this.el.kvOptions.replaceChildren(...radios);
  }

  /** The h query heads above the g key/value heads they read, and what sharing saves, in numbers. */
  drawDiagram() {
    const h = this.state.heads;
    const g = this.kv();
    const d = this.record?.d_model ?? 24;
    const box = this.el.diagram;
    clear(box);
    const width = Math.max(280, Math.min(640, box.clientWidth || 560));
    const height = 128;
    const of = kvHeadOf(h, g);
    const slot = (width - 20) / h;
    const qy = 26;
    const ky = 96;
    const label = `${h} query heads reading ${g} key/value ${g === 1 ? "head" : "heads"}`;
    const root = svg("svg", { class: "sharing-diagram", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
    svgText("text", "query heads", { class: "chart__tick", x: 10, y: 10 }, root);
    svgText("text", "key/value heads", { class: "chart__tick", x: 10, y: height - 2 }, root);
    const kvSlot = (width - 20) / g;
    const kvX = (j) => 10 + kvSlot * (j + 0.5);
    for (let i = 0; i < h; i++) {
      const x = 10 + slot * (i + 0.5);
      svg("line", { class: "sharing-diagram__link", x1: r1(x), y1: qy + 12, x2: r1(kvX(of[i])), y2: ky - 12 }, root);
    }
    for (let i = 0; i < h; i++) {
      const x = 10 + slot * (i + 0.5);
      svg("circle", { class: "sharing-diagram__query", cx: r1(x), cy: qy, r: Math.min(10, slot / 2 - 1), fill: headColour(i) }, root);
      if (slot >= 18) svgText("text", String(i + 1), { class: "sharing-diagram__num", x: r1(x), y: qy + 4, "text-anchor": "middle" }, root);
    }
    const kvW = Math.min(kvSlot - 8, 80);
    // "K/V 12" where the boxes are wide enough for every label, else the number alone (the caption names them)
    const font = `11px ${getComputedStyle(box).fontFamily || "sans-serif"}`;
    const named = measure(`K/V ${g}`, font) <= kvW - 4;
    for (let j = 0; j < g; j++) {
      svg("rect", { class: "sharing-diagram__kv", x: r1(kvX(j) - kvW / 2), y: ky - 12, width: r1(kvW), height: 22, rx: 4 }, root);
      svgText("text", named ? `K/V ${j + 1}` : String(j + 1), { class: "sharing-diagram__num", x: r1(kvX(j)), y: ky + 3, "text-anchor": "middle" }, root);
    }
    box.appendChild(root);

    // The counts h and g are the controls' and the diagram's to show; the words say what follows from them.
    const cost = layerCost(d, h, g);
    const full = layerCost(d, h, h);
    const weights = cost.wk.toLocaleString("en");
    this.el.diagramText.textContent =
      `${kindOf(h, g)[0].toUpperCase()}${kindOf(h, g).slice(1)} attention, query heads of width ${cost.dk}. ` +
      `W_K and W_V are ${d} × ${g * cost.dk} (${weights} weights each` +
      (g === h ? ")" : `, against ${full.wk.toLocaleString("en")} without sharing)`) +
      `; W_Q and W_O stay ${d} × ${d}. A decoder would cache ${cost.cachePerToken} numbers per token per layer` +
      (g === h
        ? ", as every head keeps its own keys and values."
        : ` instead of ${cost.mhaCachePerToken} (${(cost.mhaCachePerToken / cost.cachePerToken).toFixed(0)}× less).`);
  }

  /** The stored record at h: training loss and the best held-out score per relation, by key/value heads. */
  drawRecord() {
    const row = recordFor(this.record, this.state.heads);
    const g = this.kv();
    const points = [...(row?.groups ?? [])].sort((a, b) => a.kv_heads - b.kv_heads);
    clear(this.el.loss);
    clear(this.el.scores);
    if (!points.length) {
      this.el.recordText.textContent = "No training record of shared keys and values is installed.";
      this.el.recordMethod.textContent = "";
      return;
    }
    const width = Math.max(240, Math.min(360, this.el.loss.clientWidth || 320));
    const height = 170;
    const m = { left: 44, right: 12, top: 24, bottom: 36 };
    const X = (k) => m.left + 10 + (k / Math.max(1, points.length - 1)) * (width - m.left - m.right - 20);
    const xAxis = (axes) => {
      points.forEach((p, k) => {
        const tick = { class: `chart__tick chart__tick--x${p.kv_heads === g ? " is-current" : ""}`, x: r1(X(k)), y: height - m.bottom + 15, "text-anchor": "middle" };
        svgText("text", String(p.kv_heads), tick, axes);
      });
      svgText("text", "key/value heads", { class: "chart__tick chart__axis-title", x: m.left, y: height - 4 }, axes);
    };

    const losses = points.map((p) => p.final_loss);
    const lo = Math.log10(Math.min(...losses) / 1.5);
    const hi = Math.log10(Math.max(...losses) * 1.5);
    const Y = logScale(lo, hi, m.top, height - m.bottom);
    const lossLabel = `Final training loss by key/value heads at ${row.heads} query heads: ` + points.map((p) => `${p.kv_heads}: ${formatLoss(p.final_loss)}`).join(", ");
    const loss = chart("sharing-loss", width, height, lossLabel);
    drawLogAxis(loss.axes, { lo, hi, y: Y, left: m.left, right: width - m.right, title: "final training loss (log)" });
    xAxis(loss.axes);
    svg("path", { class: "chart__line", fill: "none", d: points.map((p, k) => `${k ? "L" : "M"}${r1(X(k))} ${r1(Y(p.final_loss))}`).join("") }, loss.root);
    points.forEach((p, k) => {
      svg("circle", { class: `chart__dot${p.kv_heads === g ? " is-current" : ""}`, cx: r1(X(k)), cy: r1(Y(p.final_loss)), r: p.kv_heads === g ? 5 : 3.5 }, loss.root);
    });
    this.el.loss.appendChild(loss.root);

    const S = (v) => m.top + (1 - v) * (height - m.top - m.bottom);
    const scoreLabel = `Best held-out relation score by key/value heads at ${row.heads} query heads: ` +
      RELATION_NAMES.map((name) => `${name} ` + points.map((p) => `${p.kv_heads}: ${(p.relations?.[name] ?? 0).toFixed(2)}`).join(", ")).join("; ");
    const scores = chart("sharing-scores", width, height, scoreLabel);
    for (const v of [0, 0.5, 1]) {
      svg("line", { class: "chart__grid", x1: m.left, x2: width - m.right, y1: r1(S(v)), y2: r1(S(v)) }, scores.axes);
      svgText("text", v.toFixed(1), { class: "chart__tick", x: m.left - 6, y: r1(S(v)), "text-anchor": "end", "dominant-baseline": "central" }, scores.axes);
    }
    svgText("text", "best head's score (held out)", { class: "chart__tick chart__axis-title", x: 0, y: 10 }, scores.axes);
    xAxis(scores.axes);
    for (const name of RELATION_NAMES) {
      const have = points.map((p, k) => [k, p.relations?.[name]]).filter(([, v]) => typeof v === "number");
      if (!have.length) continue;
      const colour = relationColour(name);
      svg("path", { class: "sharing-scores__line", fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": relationDash(name, 2) ?? "", "stroke-linecap": "round", d: have.map(([k, v], n) => `${n ? "L" : "M"}${r1(X(k))} ${r1(S(v))}`).join(""), "data-relation": name }, scores.root);
    }
    // The key: each relation's line style beside its name, under the chart (lines ending near 1 would bury
    // labels written at their ends).
    const key = document.createElement("p");
    key.className = "sharing-key";
    for (const name of RELATION_NAMES) {
      const swatch = svg("svg", { width: 22, height: 8, "aria-hidden": "true" });
      svg("line", { x1: 1, x2: 21, y1: 4, y2: 4, stroke: relationColour(name), "stroke-width": 2, "stroke-dasharray": relationDash(name, 2) ?? "", "stroke-linecap": "round" }, swatch);
      const item = document.createElement("span");
      item.append(swatch, ` ${name}`);
      key.append(item);
    }
    this.el.scores.append(scores.root, key);
    this.el.recordText.textContent = finding(row);
    this.el.recordMethod.textContent =
      `Stored figures from the training run (${this.record.command ?? "python -m training.train_sharing"}), ` +
      `one layer per setting, the same objective and seeds as figure ${this.figureNumber("heads-dial")}'s; not computed ` +
      "from your sentence.";
  }

  /** Every query head's attention on the sentence, grouped by the key/value head it reads. */
  drawLive(data) {
    const h = data.heads;
    const g = data.kv_heads ?? h;
    const of = data.kv_head_of ?? kvHeadOf(h, g);
    const { tokens } = data;
    const width = this.el.drawing.clientWidth || 640;
    const font = getComputedStyle(this.el.drawing).fontFamily || "sans-serif";
    // As many grids to a row (six at most) as keep a cell of 14 px (the slanted column labels' spacing), counting
    // in each grid's row labels, the longest column label's overhang past the last column (cos 50° of it, less
    // half a cell) and the groups' rule and gap.
    const room = labelRoom(tokens, 11, font);
    const overhang = Math.max(0, Math.round(0.65 * (room - 8)) - 5);
    const extra = room + 8 + overhang;
    const fit = { extra, gap: GROUP_GAP, maxCell: 26, minCell: 5, prefer: 14 };
    const { cell } = fitCells(width, tokens.length, Math.min(h, 6), fit);
    const groups = [];
    for (let j = 0; j < g; j++) {
      const heads = of.flatMap((k, i) => (k === j ? [i] : []));
      const group = document.createElement("div");
      group.className = "sharing-group";
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", `K/V ${j + 1}: read by ${headList(heads)}`);
      // A group of one head is titled on its grid ("Head 2 · K/V 2"); a larger one says its K/V head once.
      const alone = heads.length === 1;
      if (!alone) {
        const heading = document.createElement("p");
        heading.className = "sharing-group__title";
        heading.textContent = `K/V ${j + 1}`;
        group.append(heading);
      }
      const maps = document.createElement("div");
      maps.className = "heatmaps";
      for (const i of heads) {
        const title = alone ? `Head ${i + 1} · K/V ${j + 1}` : `Head ${i + 1}`;
        const label = `Query head ${i + 1}'s attention (reads K/V ${j + 1})`;
        const map = new Heatmap({ tokens, cell, colour: headColour(i), title, font, axes: false, label });
        map.update(data.weights[i]);
        maps.append(map.root);
      }
      group.append(maps);
      groups.push(group);
    }
    this.el.drawing.replaceChildren(...groups);
    const best = data.relations
      .filter((r) => r.best_head !== null && r.best_head !== undefined)
      .map((r) => `${r.name}: head ${r.best_head + 1} (K/V ${of[r.best_head] + 1}), ${r.score.toFixed(2)}`);
    // The sentence is the box's to show: the status says what was found in it.
    this.el.liveText.textContent = best.length
      ? `The best head per relation: ${best.join("; ")}.`
      : "No relation has a pair of words to score in this sentence.";
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Sharing(figure, pageData);
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    return {
      note: "Attention weights of each query head: row = query word, column = key word.",
      heads: d.heads,
      kv_heads: d.kv_heads ?? d.heads,
      kv_head_of: d.kv_head_of,
      matrices: headMatrices(d.weights, d.tokens, (k) => `Head ${k + 1}`),
    };
  };
  widget.start();
  return widget;
}
