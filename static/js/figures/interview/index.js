// Figure 7, the interview question: one tiny language model trained once per mask (−∞, ×0, off-by-one, no
// mask: whichever the server lists, named and ordered by the page data, names.js) with their loss curves
// (curves.js), each model's guesses on the reader's sentence, reading it whole and writing alone
// (read-write.js), live generations checked by the grammar and each model's attention fingerprint (cards.js);
// then the structural diagnosis (diagnosis.js), where a reader uploads attention weights (or an example) and
// gets every head's causal verdict.
//
// Data flows one way: GET /api/lm once (curves), GET /api/lm/attention per model for the fingerprints, and a
// POST per button press (/api/lm/generate, /api/diagnose), all through the widget's Api. Every number comes
// from the server; text goes in by textContent.

import { onSchemeChange } from "../../lib/colours.js";
import { ErrorBox } from "../../lib/error-box.js";
import { fontFamily } from "../../lib/measure.js";
import { clear } from "../../lib/svg.js";
import { parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { buildCards, drawFingerprint, drawSamples, setCardBusy } from "./cards.js";
import { drawCurves, drawLosses } from "./curves.js";
import { drawDiagnosis } from "./diagnosis.js";
import { drawReadWrite, drawSummary, leadText, marksKey, overfittingText, readWriteText } from "./read-write.js";
import { grouped, modelName, modelOrder, useModelNames } from "./names.js";
import { useSignatures } from "./signatures.js";

const NAME = "interview";
const DIAGNOSE = `${NAME}:diagnose`; // the channel of the diagnosis: a newer file supersedes an older one
const SENTENCE_DELAY_MS = 300;
const SAMPLE_COUNT = 5;
const STRATEGIES = ["greedy", "sample"];
// The figure's elements marked data-part (the strategy radios and the example buttons are found as lists).
const PARTS = (
  "busy curves curves-text overfitting losses model-size sentence read-write read-write-lead read-write-summary " +
  "read-write-key read-write-models read-write-text models-note models diagnose drop file tokens example " +
  "example-choice result result-heads"
).split(" ");

/** A seed for one press of a sampling button: every press asks a new question, so draws new sentences. */
const freshSeed = () => Math.floor(Math.random() * 2 ** 32);

export class Interview extends Widget {
  constructor(figure, pageData) {
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: { param: "lm_sentence", fallback: pageData.lmReadingSentence, parse: parse.text(pageData.lmMaxChars ?? 200) },
        strategy: { param: "lm_decoding", fallback: "greedy", parse: parse.choice(STRATEGIES) },
      },
      parts: PARTS,
    });
    this.el.strategies = [...figure.querySelectorAll('[data-part="strategy"]')];
    this.diagnoseErrors = new ErrorBox(this.part("diagnose-error"));
    this.lm = null; // the /api/lm answer
    this.cards = new Map(); // mask -> its card's elements (cards.js)
    this.fingerprints = new Map(); // mask -> the attention answer drawn
    this.predictions = null; // the /api/lm/predictions answer drawn
    this.diagnosis = null; // the last /api/diagnose answer drawn, and the file it answers
    this.working = new Map(); // channel -> what the busy line says, for every load in flight
    this.width = 0;
  }

  start() {
    for (const radio of this.el.strategies) {
      radio.checked = radio.value === this.state.strategy;
      radio.addEventListener("change", () => {
        if (radio.checked) this.setState({ strategy: radio.value });
      });
    }
    this.watchSentence(this.el.sentence, (text) => this.update({ sentence: text }), { delay: SENTENCE_DELAY_MS });
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
    drawCurves(this.el.curves, this.el.curvesText, this.models());
    for (const [mask, data] of this.fingerprints) this.drawFingerprint(mask, data);
    if (this.diagnosis) this.drawDiagnosis();
  }

  update(patch) {
    const before = this.setState(patch);
    if (before.sentence !== this.state.sentence) this.loadSentence();
  }

  /** The predictions and the fingerprints are what a new sentence makes stale: dim them all (or none). */
  setStale(stale) {
    this.el.readWrite.classList.toggle("is-stale", stale);
    for (const card of this.cards.values()) card.fingerprint.classList.toggle("is-stale", stale);
  }

  /**
   * Load `request` on the figure's channel `channel`, the figure busy meanwhile and its busy line saying
   * `text` (figure 7's addition to Widget.setBusy: its first answers take a while, and it says which).
   */
  loadPart(request, channel, text, show) {
    this.api.load(request, {
      channel: `${NAME}:${channel}`,
      busy: (busy) => {
        if (busy) {
          this.working.set(channel, text);
          this.el.busy.textContent = text;
        } else this.working.delete(channel);
        this.setBusy(this.working.size > 0);
      },
      show,
      fail: (message) => this.fail(message),
    });
  }

  // ---- the models --------------------------------------------------------------------------------------

  loadModels() {
    this.loadPart("/api/lm", "lm", "loading the models…", (lm) => {
      this.lm = lm;
      this.errors.clear();
      const models = this.models();
      this.cards = buildCards(this.el.models, this.el.modelsNote, lm, models, (mask) => this.generate(mask));
      drawCurves(this.el.curves, this.el.curvesText, models);
      drawLosses(this.el.losses, models);
      this.el.modelSize.textContent =
        `Each model: ${lm.layers} layers of ${lm.heads} heads, width ${lm.d_model}, ${grouped(lm.vocab_size)} ` +
        "tokens in its vocabulary.";
      this.loadSentence();
    });
  }

  /** The models of the /api/lm answer, in the page data's order (one it does not list is skipped). */
  models() {
    const byMask = new Map((this.lm?.models ?? []).map((m) => [m.mask, m]));
    return modelOrder().filter((mask) => byMask.has(mask)).map((mask) => byMask.get(mask));
  }

  /** Have the model trained with `mask` write SAMPLE_COUNT sentences with the chosen decoding. */
  generate(mask) {
    const card = this.cards.get(mask);
    if (!card || card.busy) return;
    const strategy = this.state.strategy;
    const body = {
      model: mask,
      prompt: this.lm?.prompt ?? "the",
      strategy,
      count: SAMPLE_COUNT,
      seed: strategy === "sample" ? freshSeed() : null, // greedy decoding is the same every time
      temperature: 1.0,
    };
    this.api.load(
      { url: "/api/lm/generate", body },
      {
        channel: `${NAME}:generate:${mask}`,
        busy: (busy) => setCardBusy(card, busy),
        show: (answer) => drawSamples(card, { strategy, ...answer }, this.lm?.prompt ?? ""),
        fail: (message) => this.errors.show(message),
      },
    );
  }

  // ---- the sentence: every model's next words read two ways, and its attention -------------------------

  loadSentence() {
    this.loadPredictions();
    this.loadFingerprints();
  }

  loadPredictions() {
    const url = `/api/lm/predictions?${new URLSearchParams({ sentence: this.state.sentence })}`;
    this.loadPart(url, "predictions", "reading the sentence…", (data) => {
      this.accept(data);
      this.predictions = data;
      this.el.readWrite.dataset.sentence = data.sentence.join(" ");
      this.el.overfitting.textContent = overfittingText(data);
      this.el.readWriteLead.textContent = leadText(data);
      drawSummary(this.el.readWriteSummary, data);
      this.el.readWriteText.textContent = readWriteText(data);
      this.el.readWriteKey.textContent = marksKey();
      drawReadWrite(this.el.readWriteModels, data);
    });
  }

  attentionUrl(mask, sentence = this.state.sentence) {
    return `/api/lm/attention?${new URLSearchParams({ model: mask, sentence })}`;
  }

  loadFingerprints() {
    for (const { mask } of this.models()) {
      this.loadPart(this.attentionUrl(mask), mask, "reading the sentence…", (data) => {
        this.accept(data);
        this.fingerprints.set(mask, data);
        this.drawFingerprint(mask, data);
      });
    }
  }

  drawFingerprint(mask, data) {
    const card = this.cards.get(mask);
    if (card) drawFingerprint(card, mask, data, fontFamily(this.figure));
  }

  // ---- the structural diagnosis ------------------------------------------------------------------------

  wireDiagnosis() {
    const { file, tokens, drop, example, exampleChoice } = this.el;
    file.addEventListener("change", () => {
      const chosen = file.files?.[0];
      if (chosen) this.diagnose(chosen, chosen.name);
    });
    // Tokens chosen after the file check the file again, now with its tokens.
    tokens.addEventListener("change", () => {
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
    example.addEventListener("click", () => this.example(...exampleChoice.value.split("|")));
  }

  /** Load `request` on the diagnosis's channel, the diagnosis busy meanwhile; a refusal shows in its box. */
  loadDiagnosis(request, show, fail = () => {}) {
    this.api.load(request, {
      channel: DIAGNOSE,
      busy: (busy) => {
        if (busy) this.el.diagnose.setAttribute("aria-busy", "true");
        else this.el.diagnose.removeAttribute("aria-busy");
      },
      show,
      fail: (message) => {
        fail();
        this.diagnoseErrors.show(message);
      },
    });
  }

  /** An example: the attention of the model trained with `model`, run under `mask`, on the figure's
   * sentence, diagnosed on the server in one request (/api/lm/diagnose), its tokens and weights with it. */
  example(model, mask) {
    const url = `/api/lm/diagnose?${new URLSearchParams({ model, mask, sentence: this.state.sentence })}`;
    const chosen = this.el.exampleChoice.selectedOptions[0]?.textContent ?? "";
    this.loadDiagnosis(
      url,
      (answer) => {
        this.diagnoseErrors.clear();
        const source = `${chosen}'s attention on “${answer.tokens.slice(1).join(" ")}”`;
        this.diagnosis = { answer, source, file: null };
        this.drawDiagnosis();
      },
      () => this.forgetDiagnosis(),
    );
  }

  /** Send `file` (named for the reader by `source`), with the tokens file when one is chosen and `withTokens`,
   * to /api/diagnose and draw the answer. */
  diagnose(file, source, withTokens = true) {
    const form = new FormData();
    form.append("file", file, file.name);
    const tokens = withTokens ? this.el.tokens.files?.[0] : null;
    if (tokens) form.append("tokens", tokens, tokens.name);
    this.loadDiagnosis(
      { url: "/api/diagnose", form },
      (answer) => {
        this.diagnoseErrors.clear();
        this.diagnosis = { answer, source, file };
        this.drawDiagnosis();
      },
      () => this.forgetDiagnosis(),
    );
  }

  forgetDiagnosis() {
    this.diagnosis = null;
    clear(this.el.result);
    clear(this.el.resultHeads);
  }

  drawDiagnosis() {
    const { answer, source, file } = this.diagnosis;
    const parts = { result: this.el.result, box: this.el.resultHeads };
    drawDiagnosis(parts, answer, source, fontFamily(this.figure), file);
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  useSignatures(pageData);
  useModelNames(pageData.lmModels);
  const widget = new Interview(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const models = widget.models();
    if (!models.length) return null;
    const matrices = models.map((d) => ({
      name: `${modelName(d.mask)}: loss by training step`,
      rows: d.curves.step.map(String),
      columns: ["train", "validation"],
      values: d.curves.step.map((_, i) => [d.curves.train[i], d.curves.validation[i]]),
    }));
    for (const m of widget.predictions?.models ?? []) {
      matrices.push({
        name: `${modelName(m.model)}: probability of each next word, reading versus writing alone`,
        rows: widget.predictions.targets,
        columns: ["reading (teacher forced)", "writing alone (free running)"],
        values: m.teacher_forced.target_probability.map((p, t) => [p, m.free_running.target_probability[t]]),
      });
    }
    for (const [mask, answer] of widget.fingerprints) {
      answer.weights.forEach((layer, l) =>
        layer.forEach((w, k) =>
          matrices.push({
            name: `${modelName(mask)}: layer ${l + 1}, head ${k + 1} attention`,
            rows: answer.tokens,
            columns: answer.tokens,
            values: w,
            missing: "NaN", // a row the mask left with nothing to attend to
          }),
        ),
      );
    }
    return { sentence: widget.state.sentence, matrices };
  };
  return widget;
}
