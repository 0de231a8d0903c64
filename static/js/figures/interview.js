// Figure 6, the interview question: three tiny language models (−∞, ×0, no mask) with their loss curves,
// live generations checked by the grammar and each model's attention fingerprint; then the structural
// diagnosis, where a reader uploads attention weights (or an example) and gets every head's causal verdict.
//
// Data flows one way: GET /api/lm once (curves), GET /api/lm/attention per model for the fingerprints, and a
// POST per button press (generate, diagnose). Every number comes from the server; text goes in by textContent.

import { headColour, onSchemeChange } from "../lib/colours.js";
import { ErrorBox } from "../lib/error-box.js";
import { isAbort, JsonFetcher } from "../lib/fetcher.js";
import { fitCells, Heatmap, measure } from "../lib/heatmap.js";
import { postForm, postJson } from "../lib/post.js";
import { watchSentence } from "../lib/sentence-box.js";
import { clear, r1, svg, svgText } from "../lib/svg.js";
import { parse, readState, writeState } from "../lib/url-state.js";

const NAME = "interview";
const ORDER = ["neg_inf", "zero", "none"]; // the honest model first
const SHORT = { neg_inf: "−∞", zero: "×0", none: "no mask" };
const COLOUR_INDEX = { neg_inf: 0, zero: 1, none: 2 }; // Okabe–Ito blue, orange, bluish green
const SIGNATURE_TEXT = {
  causal: "nothing above the diagonal",
  zero_fill: "the ×0 fingerprint: equal future weights along each row",
  unmasked: "free weight on future keys: no mask at all",
};
const DEFAULT_SENTENCE = "the old fox chased the hungry duck";
const DEBOUNCE_MS = 300;
const SAMPLE_COUNT = 5;

const modelColour = (mask) => headColour(COLOUR_INDEX[mask] ?? 0);
const grouped = (x) => x.toLocaleString("en-US");
const pct = (x) => {
  const p = x * 100;
  if (p === 0) return "0%";
  if (p < 0.1) return "<0.1%";
  return p < 9.95 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
};

/** A loss with three significant digits at most, in plain decimals (2.49, 0.0198). */
export function formatLoss(x) {
  if (x === 0) return "0";
  if (x >= 1) return x.toFixed(2);
  return Number(x.toPrecision(2)).toString();
}

/** Tick values 1, 2 and 5 × 10^k between 10^lo and 10^hi (only powers of ten when that gives enough). */
function logTicks(lo, hi) {
  const all = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** k;
      if (Math.log10(v) >= lo && Math.log10(v) <= hi) all.push(v);
    }
  }
  const powers = all.filter((v) => Number.isInteger(Math.round(Math.log10(v) * 1e9) / 1e9));
  return powers.length >= 3 ? powers : all;
}

/** Round tick values from 0 to `max`: about `count` steps of 1, 2 or 5 × 10^k. */
function niceTicks(max, count) {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks = [];
  for (let v = 0; v <= max + 1e-9; v += step) ticks.push(Math.round(v));
  return ticks;
}

/** Spread label positions `ys` (sorted by the caller's order) so no two are closer than `gap`, within [lo, hi]. */
function spreadLabels(items, gap, lo, hi) {
  const sorted = [...items].sort((a, b) => a.y - b.y);
  for (let i = 1; i < sorted.length; i++) sorted[i].y = Math.max(sorted[i].y, sorted[i - 1].y + gap);
  const over = sorted.length ? sorted[sorted.length - 1].y - hi : 0;
  if (over > 0) for (const s of sorted) s.y -= over;
  for (let i = sorted.length - 2; i >= 0; i--) sorted[i].y = Math.min(sorted[i].y, sorted[i + 1].y - gap);
  for (const s of sorted) s.y = Math.max(lo, s.y);
  return items;
}

function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

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

export class Interview {
  constructor(figure, pageData, fetcher = new JsonFetcher()) {
    this.figure = figure;
    this.fetcher = fetcher;
    this.schema = {
      sentence: { param: "lm_sentence", fallback: DEFAULT_SENTENCE, parse: parse.text(200) },
      strategy: {
        param: "lm_decoding",
        fallback: "greedy",
        parse: (t) => (["greedy", "sample"].includes(t) ? t : undefined),
      },
    };
    const part = (name) => figure.querySelector(`[data-part="${name}"]`);
    this.el = {
      busy: part("busy"),
      curves: part("curves"),
      curvesText: part("curves-text"),
      strategies: [...figure.querySelectorAll('[data-part="strategy"]')],
      sentence: part("sentence"),
      models: part("models"),
      diagnose: part("diagnose"),
      drop: part("drop"),
      file: part("file"),
      examples: [...figure.querySelectorAll('[data-part="example"]')],
      result: part("result"),
      resultHeads: part("result-heads"),
    };
    this.errors = new ErrorBox(part("error"));
    this.diagnoseErrors = new ErrorBox(part("diagnose-error"));
    this.state = readState(this.schema);
    this.lm = null; // the /api/lm answer
    this.cards = new Map(); // mask -> { section, button, status, samples, share, fingerprint, leak }
    this.fingerprints = new Map(); // mask -> the attention answer drawn
    this.diagnosis = null; // the last /api/diagnose answer drawn
    this.diagnoseController = null;
    this.width = 0;
  }

  start() {
    this.el.sentence.value = this.state.sentence;
    for (const radio of this.el.strategies) radio.checked = radio.value === this.state.strategy;
    for (const radio of this.el.strategies) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ strategy: radio.value });
      });
    }
    watchSentence(this.el.sentence, (text) => this.onSentence(text), DEBOUNCE_MS);
    this.wireDiagnosis();

    this.width = this.figure.clientWidth;
    new ResizeObserver(() => {
      const width = this.figure.clientWidth;
      if (Math.abs(width - this.width) < 2) return;
      this.width = width;
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => this.redrawAll());
    }).observe(this.figure);
    onSchemeChange(() => this.redrawAll());
    this.loadModels();
  }

  redrawAll() {
    if (!this.lm) return;
    this.drawCurves();
    for (const [mask, data] of this.fingerprints) this.drawFingerprint(mask, data);
    if (this.diagnosis) this.drawDiagnosis(this.diagnosis.answer, this.diagnosis.source);
  }

  update(patch) {
    const before = this.state;
    this.state = { ...before, ...patch };
    writeState(this.schema, this.state);
    if (before.sentence !== this.state.sentence) this.loadFingerprints();
  }

  /** The Sentence box's text, once the reader pauses or presses Enter (lib/sentence-box.js). */
  onSentence(text) {
    if (!text) {
      this.errors.show("Type a sentence: at least one word.");
      return;
    }
    if (text === this.state.sentence && this.fingerprints.size) this.errors.clear();
    this.update({ sentence: text });
  }

  setBusy(text) {
    if (text) {
      this.el.busy.textContent = text;
      this.figure.setAttribute("aria-busy", "true");
    } else this.figure.removeAttribute("aria-busy");
  }

  // ---- the three models --------------------------------------------------------------------------------

  loadModels() {
    this.setBusy("loading the three models…");
    this.fetcher.get("/api/lm", { channel: `${NAME}:lm` }).then(
      (lm) => {
        this.lm = lm;
        this.setBusy(null);
        this.errors.clear();
        this.buildCards();
        this.drawCurves();
        this.loadFingerprints();
      },
      (error) => {
        if (isAbort(error)) return;
        this.setBusy(null);
        this.errors.show(error.message);
      },
    );
  }

  models() {
    const byMask = new Map((this.lm?.models ?? []).map((m) => [m.mask, m]));
    return ORDER.filter((mask) => byMask.has(mask)).map((mask) => byMask.get(mask));
  }

  /** The loss curves of every model on one log-scale chart: solid training, dashed validation, labelled ends. */
  drawCurves() {
    const box = this.el.curves;
    clear(box);
    const models = this.models();
    if (!models.length) return;
    const width = Math.max(280, Math.min(900, box.clientWidth || 600));
    const narrow = width < 480;
    const height = narrow ? 230 : 260;
    const font = `700 12px ${getComputedStyle(box).fontFamily || "sans-serif"}`;
    const labelOf = (d) => `${SHORT[d.mask]} ${formatLoss(d.final_validation)}`;
    const labelW = Math.max(...models.map((d) => measure(labelOf(d), font)));
    const m = { left: 46, right: Math.ceil(labelW) + 12, top: 14, bottom: 38 };
    const steps = models.flatMap((d) => d.curves.step);
    const losses = models.flatMap((d) => [...d.curves.train, ...d.curves.validation]).filter((x) => x > 0);
    const xMax = Math.max(...steps);
    const lo = Math.log10(Math.min(...losses) / 1.4);
    const hi = Math.log10(Math.max(...losses) * 1.25);
    const X = (s) => m.left + (s / xMax) * (width - m.left - m.right);
    const Y = (v) => m.top + ((hi - Math.log10(Math.max(v, 10 ** lo))) / (hi - lo)) * (height - m.top - m.bottom);

    const root = svg("svg", {
      class: "lm-curves__chart",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label":
        "Loss while training, log scale. Final training and validation loss: " +
        models
          .map((d) => `${SHORT[d.mask]} ${formatLoss(d.final_train)} and ${formatLoss(d.final_validation)}`)
          .join("; "),
    });
    const axes = svg("g", { class: "chart__axes" }, root);
    for (const t of logTicks(lo, hi)) {
      const y = r1(Y(t));
      svg("line", { class: "chart__grid", x1: m.left, x2: width - m.right, y1: y, y2: y }, axes);
      svgText(
        "text",
        formatLoss(t),
        { class: "chart__tick", x: m.left - 6, y, "text-anchor": "end", "dominant-baseline": "central" },
        axes,
      );
    }
    const base = height - m.bottom;
    for (const s of niceTicks(xMax, narrow ? 3 : 6)) {
      const x = r1(X(s));
      svg("line", { class: "chart__tickmark", x1: x, x2: x, y1: base, y2: base + 4 }, axes);
      svgText("text", String(s), { class: "chart__tick", x, y: base + 16, "text-anchor": "middle" }, axes);
    }
    svgText(
      "text",
      "training step",
      { class: "chart__tick chart__axis-title", x: r1((m.left + width - m.right) / 2), y: height - 4, "text-anchor": "middle" },
      axes,
    );
    svgText("text", "loss (log scale)", { class: "chart__tick chart__axis-title", x: 0, y: 10 }, axes);

    const labels = [];
    for (const d of models) {
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
      labels.push({
        d,
        colour,
        y: (Y(d.curves.train[last]) + Y(d.curves.validation[last])) / 2,
      });
    }
    spreadLabels(labels, 15, m.top + 4, base - 4);
    for (const { d, colour, y } of labels) {
      svgText(
        "text",
        labelOf(d),
        {
          class: "lm-curves__label",
          x: width - m.right + 6,
          y: r1(y),
          fill: colour,
          "dominant-baseline": "central",
          "data-model": d.mask,
        },
        root,
      );
    }
    box.appendChild(root);

    const legend = element("p", "lm-curves__legend");
    legend.setAttribute("aria-hidden", "true");
    const solid = element("span", "lm-curves__key lm-curves__key--train", "training");
    const dashed = element("span", "lm-curves__key lm-curves__key--validation", "validation");
    legend.append(solid, dashed, element("span", "", "labels: final validation loss"));
    box.appendChild(legend);

    const honest = models.find((d) => d.mask === "neg_inf");
    const leaky = models.filter((d) => d.mask !== "neg_inf");
    let text = "";
    if (honest && leaky.length) {
      const below = leaky.every((d) => d.final_validation <= honest.final_validation);
      text =
        `Final validation loss: ${models.map((d) => `${SHORT[d.mask]} ${formatLoss(d.final_validation)}`).join(", ")}. ` +
        (below
          ? "By loss alone the two broken models look best: they can read the word they are asked to predict. "
          : "") +
        `Sentences the grammar accepts when each model writes on its own from “${this.lm.prompt}” ` +
        `(${honest.samples_measured} samples each): ` +
        `${models.map((d) => `${SHORT[d.mask]} ${pct(d.grammatical_share)}`).join(", ")}.`;
    }
    this.el.curvesText.textContent = text;
  }

  buildCards() {
    const list = clear(this.el.models);
    this.cards.clear();
    const lm = this.lm;
    for (const d of this.models()) {
      const id = `interview-model-${d.mask}`;
      const section = element("section", "lm-model");
      section.dataset.model = d.mask;
      section.setAttribute("aria-labelledby", `${id}-title`);
      const title = element("h4", "lm-model__title");
      title.id = `${id}-title`;
      const swatch = element("span", "lm-model__swatch");
      swatch.style.setProperty("--colour", modelColour(d.mask));
      swatch.setAttribute("aria-hidden", "true");
      title.append(swatch, d.label);
      section.appendChild(title);

      const stats = element("p", "lm-model__stats");
      stats.textContent =
        `Final loss: training ${formatLoss(d.final_train)}, validation ${formatLoss(d.final_validation)}. ` +
        `Grammatical: ${pct(d.grammatical_share)} of ${d.samples_measured} sampled sentences.`;
      section.appendChild(stats);

      const row = element("div", "lm-model__generate");
      const button = element("button", "button button--primary", `Generate samples (${SHORT[d.mask]})`);
      button.type = "button";
      button.dataset.model = d.mask;
      button.addEventListener("click", () => this.generate(d.mask));
      const status = element("span", "lm-model__status");
      status.setAttribute("role", "status");
      row.append(button, status);
      section.appendChild(row);

      const samples = element("ul", "samples");
      samples.setAttribute("aria-label", `Sentences written by the ${SHORT[d.mask]} model`);
      const share = element("p", "samples__share");
      section.append(samples, share);

      const fingerprint = element("div", "fingerprint");
      const leak = element("p", "fingerprint__title");
      leak.textContent = "Its attention on the sentence";
      const maps = element("div", "heatmaps fingerprint__maps");
      fingerprint.append(leak, maps);
      section.appendChild(fingerprint);

      list.appendChild(section);
      this.cards.set(d.mask, { section, button, status, samples, share, fingerprint, leak, maps, busy: false });
    }
    const note = element(
      "p",
      "lm-models__note",
      `Each model: ${lm.layers} layers of ${lm.heads} heads, width ${lm.d_model}, ${lm.vocab_size} words. ` +
        `Every sentence starts from the prompt “${lm.prompt}”.`,
    );
    list.prepend(note);
  }

  generate(mask) {
    const card = this.cards.get(mask);
    if (!card || card.busy) return;
    card.busy = true;
    card.section.setAttribute("aria-busy", "true");
    card.status.textContent = "writing…";
    const strategy = this.state.strategy;
    postJson("/api/lm/generate", {
      model: mask,
      prompt: this.lm?.prompt ?? "the",
      strategy,
      count: SAMPLE_COUNT,
      seed: null,
      temperature: 1.0,
    }).then(
      (answer) => {
        card.busy = false;
        card.section.removeAttribute("aria-busy");
        card.status.textContent = "";
        this.drawSamples(card, { strategy, ...answer });
      },
      (error) => {
        card.busy = false;
        card.section.removeAttribute("aria-busy");
        card.status.textContent = "";
        this.errors.show(error.message);
      },
    );
  }

  drawSamples(card, answer) {
    const list = clear(card.samples);
    const prompt = this.lm?.prompt ?? "";
    for (const sample of answer.samples) {
      const li = element("li", `sample ${sample.grammatical ? "sample--good" : "sample--bad"}`);
      li.dataset.grammatical = String(sample.grammatical);
      const mark = element("span", "sample__mark", sample.grammatical ? "✓" : "✗");
      mark.setAttribute("role", "img");
      mark.setAttribute("aria-label", sample.grammatical ? "grammatical" : "not grammatical");
      const text = sample.text.trim();
      const words = element("span", "sample__text", text || "(nothing)");
      li.append(mark, words);
      if (text === prompt.trim()) li.appendChild(element("span", "sample__note", " (stopped at once)"));
      list.appendChild(li);
    }
    const good = answer.samples.filter((s) => s.grammatical).length;
    const total = answer.samples.length;
    card.share.textContent =
      `${answer.strategy === "greedy" ? "Greedy" : "Sampled"}: ${good} of ${total} grammatical ` +
      `(${pct(answer.grammatical_share)}).`;
  }

  // ---- fingerprints ------------------------------------------------------------------------------------

  attentionUrl(mask, sentence = this.state.sentence) {
    return `/api/lm/attention?${new URLSearchParams({ model: mask, sentence })}`;
  }

  loadFingerprints() {
    const sentence = this.state.sentence;
    const masks = this.models().map((d) => d.mask);
    if (!masks.length) return;
    this.setBusy("reading the sentence…");
    Promise.all(masks.map((mask) => this.fetcher.get(this.attentionUrl(mask), { channel: `${NAME}:${mask}` }))).then(
      (answers) => {
        if (sentence !== this.state.sentence) return;
        this.setBusy(null);
        this.errors.clear();
        masks.forEach((mask, i) => {
          this.fingerprints.set(mask, answers[i]);
          this.drawFingerprint(mask, answers[i]);
        });
        for (const card of this.cards.values()) card.fingerprint.classList.remove("is-stale");
      },
      (error) => {
        if (isAbort(error) || sentence !== this.state.sentence) return;
        this.setBusy(null);
        this.errors.show(error.message);
        for (const card of this.cards.values()) card.fingerprint.classList.add("is-stale");
      },
    );
  }

  drawFingerprint(mask, data) {
    const card = this.cards.get(mask);
    if (!card) return;
    const { tokens, weights } = data;
    const maps = weights.flatMap((heads, l) => heads.map((w, h) => ({ l, h, w })));
    const width = card.maps.clientWidth || 280;
    const font = getComputedStyle(this.figure).fontFamily || "sans-serif";
    const { cell } = fitCells(width, tokens.length, maps.length, {
      extra: 46,
      gap: 12,
      maxCell: 22,
      minCell: 6,
      prefer: 9,
    });
    const colour = modelColour(mask);
    clear(card.maps);
    for (const { l, h, w } of maps) {
      const map = new Heatmap({
        tokens,
        cell,
        colour,
        title: `layer ${l + 1}, head ${h + 1}`,
        font,
        outlineFuture: true,
        className: "heatmap--small",
        label: `${SHORT[mask]} model, layer ${l + 1}, head ${h + 1}: attention over the sentence`,
      });
      map.update(w);
      map.root.dataset.layer = String(l);
      map.root.dataset.head = String(h);
      card.maps.appendChild(map.root);
    }
    card.leak.textContent = `Its attention on the sentence: future leak ${pct(data.future_leak)}`;
    card.fingerprint.dataset.leak = String(data.future_leak);
  }

  // ---- the structural diagnosis ------------------------------------------------------------------------

  wireDiagnosis() {
    const { file, drop, examples } = this.el;
    file.addEventListener("change", () => {
      const chosen = file.files?.[0];
      if (chosen) this.diagnose(chosen, chosen.name);
    });
    drop.addEventListener("dragover", (event) => {
      event.preventDefault();
      drop.classList.add("is-over");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("is-over"));
    drop.addEventListener("drop", (event) => {
      event.preventDefault();
      drop.classList.remove("is-over");
      const dropped = event.dataTransfer?.files?.[0];
      if (dropped) this.diagnose(dropped, dropped.name);
    });
    for (const button of examples) button.addEventListener("click", () => this.example(button.dataset.mode));
  }

  setDiagnoseBusy(busy) {
    if (busy) this.el.diagnose.setAttribute("aria-busy", "true");
    else this.el.diagnose.removeAttribute("aria-busy");
  }

  /** An example file built here: the attention of the model trained with `mask`, on the figure's sentence. */
  example(mask) {
    this.setDiagnoseBusy(true);
    this.fetcher.get(this.attentionUrl(mask)).then(
      (data) => {
        const blob = new Blob([JSON.stringify(data.weights)], { type: "application/json" });
        const name = `example-${mask === "neg_inf" ? "neg-inf" : mask}.json`;
        this.diagnose(new File([blob], name, { type: "application/json" }), `${name}: the ${SHORT[mask]} model's attention`);
      },
      (error) => {
        if (isAbort(error)) return;
        this.setDiagnoseBusy(false);
        this.diagnoseErrors.show(error.message);
      },
    );
  }

  diagnose(file, source) {
    this.diagnoseController?.abort();
    const controller = new AbortController();
    this.diagnoseController = controller;
    const form = new FormData();
    form.append("file", file, file.name);
    this.setDiagnoseBusy(true);
    postForm("/api/diagnose", form, { signal: controller.signal }).then(
      (answer) => {
        if (controller !== this.diagnoseController) return;
        this.setDiagnoseBusy(false);
        this.diagnoseErrors.clear();
        this.diagnosis = { answer, source };
        this.drawDiagnosis(answer, source);
      },
      (error) => {
        if (isAbort(error) || controller !== this.diagnoseController) return;
        this.setDiagnoseBusy(false);
        this.diagnosis = null;
        clear(this.el.result);
        clear(this.el.resultHeads);
        this.diagnoseErrors.show(error.message);
      },
    );
  }

  drawDiagnosis(answer, source) {
    const result = clear(this.el.result);
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

    const box = clear(this.el.resultHeads);
    const weights = answer.weights ?? answer.matrices ?? null;
    const heads = answer.heads;
    if (!weights) {
      if (partial) {
        const layers = answer.layers.map((l) => ({
          className: `diagnose__row diagnose__row--${l.leaking ? "leaks" : "causal"}`,
          cells: [
            String(l.layer),
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
      if (!heads.length) return;
      const rows = heads.map((h) => ({
        className: `diagnose__row diagnose__row--${h.verdict}`,
        cells: [`(${h.layer}, ${h.head})`, h.verdict, h.signature, h.max_future.toPrecision(3), pct(h.future_mass)],
      }));
      const columns = ["head (layer, head)", "verdict", "signature", "max future", "future mass"];
      box.appendChild(tableRegion(partial ? "The leaking heads listed" : "Every head's verdict", columns, rows));
      return;
    }
    const n = weights[0][0].length;
    const width = box.clientWidth || 600;
    const font = getComputedStyle(this.figure).fontFamily || "sans-serif";
    const { cell } = fitCells(width, n, heads.length, { extra: 30, gap: 14, maxCell: 16, minCell: 3, prefer: 8 });
    for (const h of heads) {
      const item = element("div", `diagnose-head diagnose-head--${h.verdict}`);
      item.dataset.signature = h.signature;
      item.dataset.verdict = h.verdict;
      const colour = headColour(h.verdict === "causal" ? 0 : 3);
      const map = new Heatmap({
        tokens: null,
        n,
        cell,
        colour,
        title: `head (${h.layer}, ${h.head})`,
        font,
        outlineFuture: true,
        className: "heatmap--small",
        label: `head (${h.layer}, ${h.head}): ${h.verdict}, ${SIGNATURE_TEXT[h.signature] ?? h.signature}`,
      });
      map.update(weights[h.layer][h.head]);
      const caption = element("p", "diagnose-head__caption");
      const verdictText = element("strong", `diagnose-head__verdict`, h.verdict);
      const signature = element("code", "diagnose-head__signature", h.signature);
      signature.title = SIGNATURE_TEXT[h.signature] ?? "";
      const numbers = element(
        "span",
        "diagnose-head__numbers",
        `max future ${h.max_future === 0 ? "0" : h.max_future.toPrecision(2)} · mass ${pct(h.future_mass)}`,
      );
      caption.append(verdictText, " · ", signature, element("br"), numbers);
      item.style.setProperty("--width", `${Math.max(110, Math.ceil(map.geometry.width))}px`);
      item.append(map.root, caption);
      box.appendChild(item);
    }
    const key = element("p", "panel-foot diagnose__key");
    const seen = [...new Set(heads.map((h) => h.signature))];
    key.textContent =
      "Heads are numbered (layer, head) from 0, as in your array. " +
      seen.map((s) => `${s}: ${SIGNATURE_TEXT[s] ?? s}`).join(". ") +
      ".";
    box.appendChild(key);
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Interview(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const models = widget.models();
    if (!models.length) return null;
    const matrices = models.map((d) => ({
      name: `${SHORT[d.mask]}: loss by training step`,
      rows: d.curves.step.map(String),
      columns: ["train", "validation"],
      values: d.curves.step.map((_, i) => [d.curves.train[i], d.curves.validation[i]]),
    }));
    for (const [mask, answer] of widget.fingerprints) {
      answer.weights.forEach((layer, l) =>
        layer.forEach((w, k) =>
          matrices.push({
            name: `${SHORT[mask]}: layer ${l + 1}, head ${k + 1} attention`,
            rows: answer.tokens,
            columns: answer.tokens,
            values: w,
          }),
        ),
      );
    }
    return { sentence: widget.state.sentence, matrices };
  };
  return widget;
}
