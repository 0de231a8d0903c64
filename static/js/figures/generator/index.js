// Figure 5, the generator: a small English-to-French translator (trained here) writes its French one word at
// a time. In cross mode each new word's arcs reach up into the English; in self mode they reach back over the
// French already written, never forward. Layer and head chips choose which attention is drawn.
//
// Data flows one way: state (from the URL) -> one POST of /api/translate -> one build of the drawing
// (arcs-view.js) and of the numbers around it (readout.js). Playing and stepping (playback.js), the Attention
// mode, the layer and head choices (controls.js) and a hover only rewrite attributes of what was built. The
// maths is all the server's, the heads' average included; the model's record fills the About panel (about.js)
// and the list of the words it knows (words.js). Once written, a translation names the content words no step
// read (the answer's `unread`): attention as a check.
//
// What is shown always matches the Sentence box: once the box holds another sentence than the one translated,
// or the translator refused the sentence asked for, the French line is emptied, the drawing and its numbers
// are dimmed and a cue says whose translation they are and what to do. A refusal of unknown words offers the
// server's close known words as buttons (suggest.js).

import { onSchemeChange } from "../../lib/colours.js";
import { TokenFocus } from "../../lib/token-focus.js";
import { parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { WidthWatch } from "../../lib/width-watch.js";
import { showAbout, showAboutFailure } from "./about.js";
import { ArcsView } from "./arcs-view.js";
import { buildChoices, chipHead, layerHint, showChoices } from "./controls.js";
import { Playback } from "./playback.js";
import { Readout } from "./readout.js";
import { replaceWord, Suggestions } from "./suggest.js";
import { exportView, MODES, quote } from "./view.js";
import { WordList } from "./words.js";

const NAME = "generator";
const MAX_STEP = 999; // the URL's step is clamped to the translation's length once it is known
// The figure's elements marked data-part (the Attention radios, several, are found apart).
const PARTS = [
  ..."sentence generate pause pause-label pause-icon step-back step progress progress-text".split(" "),
  ..."translation translation-line stale-note suggest layers layer-hint chips drawing".split(" "),
  ..."note readout readout-title cross-row self-row about-text unread".split(" "),
  ..."words words-summary find find-count word-groups".split(" "),
];

/** A sentence as compared with the box: spaces collapsed (the server reads words, not spacing). */
const squash = (text) => text.trim().replace(/\s+/g, " ");

export class Generator extends Widget {
  constructor(figure, pageData) {
    const maxChars = pageData.maxChars ?? 500;
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: { param: "gen_sentence", fallback: pageData.defaultSentence, parse: parse.text(maxChars) },
        mode: { param: "gen_mode", fallback: "cross", parse: parse.choice(MODES) },
        step: { param: "gen_step", fallback: 0, parse: parse.integer(0, MAX_STEP) },
        layer: { param: "gen_layer", fallback: null, parse: parse.integer(1, 64) }, // null: the last layer
        head: { param: "gen_head", fallback: null, parse: parse.integer(1, 64) }, // null: average of the heads
      },
      parts: PARTS,
      staleOn: "drawing",
      limit: 40,
    });
    this.modes = [...figure.querySelectorAll('[data-part="mode"]')];
    this.about = null; // the model's record, once fetched
    this.loading = false; // a translation is being fetched
    this.focus = new TokenFocus(() => this.render()); // the French slot (1..step) under the pointer or focus
    this.drawn = null; // the translation the drawing was built for
    this.drawnSentence = null; // the sentence it translates, as it was sent
    this.stale = false; // what is shown is not the translation of the sentence in the box
    this.width = null; // the drawing's width, watched from start()
    this.playback = new Playback(this, this.el);
    this.arcs = new ArcsView(this.el.drawing, this.focus);
    this.readout = new Readout(this.el);
    this.suggestions = new Suggestions(this.el.suggest, (word, by) => this.replace(word, by));
    this.words = new WordList(this.el);
  }

  start() {
    const { sentence, generate, pause, step, layers, chips } = this.el;
    sentence.value = this.state.sentence;
    sentence.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.generate();
      }
    });
    sentence.addEventListener("input", () => this.syncStale());
    generate.addEventListener("click", () => this.generate());
    pause.addEventListener("click", () => this.playback.togglePause());
    this.el.stepBack.addEventListener("click", () => this.playback.stepBack());
    step.addEventListener("click", () => this.playback.stepOnce());
    for (const radio of this.modes) {
      radio.addEventListener("change", () => radio.checked && this.update({ mode: radio.value }));
    }
    layers.addEventListener("change", (event) => {
      const l = Number(event.target.value);
      this.update({ layer: l === this.data?.layers ? null : l });
    });
    chips.addEventListener("click", (event) => {
      const chip = event.target.closest("button[data-head]");
      if (!chip) return;
      const k = chipHead(chip);
      this.update({ head: k === this.state.head ? null : k });
    });

    this.width = new WidthWatch(this.el.drawing, () => this.drawn && this.rebuild());
    onSchemeChange(() => {
      if (!this.drawn) return;
      this.buildChoices(); // the chips' swatches are drawn in the scheme's colours
      this.rebuild();
    });

    showChoices(this.el, this.modes, this.data, this.state);
    this.playback.show();
    this.api.load("/api/translate/about", {
      channel: `${NAME}-about`,
      show: (about) => {
        this.about = about;
        showAbout(this.el.aboutText, about);
        this.words.show(about);
        this.showLayerHint();
      },
      fail: (message) => {
        showAboutFailure(this.el.aboutText, message);
        this.words.fail(message);
      },
    });
    this.translate({ play: false });
  }

  // ---- state -------------------------------------------------------------------------------------------

  /** Apply a change of view (mode, step, layer, head), mirror it in the URL, rewrite attributes. */
  update(patch) {
    this.setState(patch);
    showChoices(this.el, this.modes, this.data, this.state);
    this.render();
  }

  setStep(step) {
    this.setState({ step });
    this.render();
  }

  /** ▶ Generate: (re)translate the sentence in the box if it changed, then write it from the first word. */
  generate() {
    const text = this.el.sentence.value.trim();
    this.suggestions.clear();
    if (!text) {
      this.errors.show("Type a sentence: at least one English word.");
      this.syncStale();
      return;
    }
    this.playback.stop();
    this.focus.index = null; // quietly: the translation's drawing follows
    this.setState({ sentence: text }); // and step 0 once translated: a refusal leaves the old drawing as it was
    this.translate({ play: true });
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** A suggestion was chosen: `by` replaces `word` in the Sentence box, and the new sentence is generated. */
  replace(word, by) {
    const box = this.el.sentence;
    box.value = replaceWord(box.value, word, by);
    this.el.generate.focus(); // the suggestion buttons go; the focus stays in the figure
    this.generate();
  }

  /** POST the sentence (answered at once when seen before) and draw the translation; `play` writes it out. */
  translate({ play }) {
    const sentence = this.state.sentence;
    const request = { url: "/api/translate", body: { sentence } };
    const fail = (message, error) => {
      this.playback.stop();
      this.fail(message);
      this.suggestions.show(error?.body);
      this.syncStale();
    };
    this.load(
      request,
      (data) => {
        this.suggestions.clear();
        this.drawnSentence = sentence;
        if (play) this.setState({ step: 0 });
        this.show(data);
        this.syncStale();
        if (play) this.playback.play();
      },
      { fail },
    );
  }

  /**
   * Compare what is shown with the Sentence box: stale when a translation is drawn but the box holds another
   * sentence, or the sentence asked for was refused. Stale, the French line is emptied, the drawing, the
   * progress and the numbers are dimmed, playback holds, and the cue says whose French is dimmed and what to
   * do; the drawing itself stays, for comparison.
   */
  syncStale() {
    const shown = this.drawn ? this.drawnSentence : null;
    const refused = this.errors.visible;
    const differs = shown !== null && squash(this.el.sentence.value) !== squash(shown);
    const stale = shown !== null && (refused || differs);
    const { drawing, translationLine, note, readout, progress, staleNote } = this.el;
    for (const el of [drawing, translationLine, note, readout, progress.parentElement, this.el.unread]) {
      el.classList.toggle("is-stale", stale);
    }
    const dimmed = `Dimmed below: the French for ${quote(shown)}.`;
    const todo = refused
      ? "Not translated."
      : this.loading
        ? "Translating…"
        : "Not yet translated: press ▶ Generate or Enter.";
    const cue = stale ? `${todo} ${dimmed}` : "";
    if (staleNote.textContent !== cue) staleNote.textContent = cue; // a live region: said once, not per key
    if (stale === this.stale) return;
    this.stale = stale;
    if (stale) this.playback.stop();
    this.render();
  }

  setBusy(busy) {
    this.loading = busy;
    super.setBusy(busy);
    this.syncStale(); // the cue says a translation is on its way
  }

  show(data) {
    const patch = {};
    if (this.state.step > data.steps.length) patch.step = data.steps.length;
    if (this.state.layer !== null && this.state.layer >= data.layers) patch.layer = null;
    if (this.state.head !== null && this.state.head > data.heads) patch.head = null;
    if (Object.keys(patch).length) this.setState(patch);
    if (data === this.drawn) {
      showChoices(this.el, this.modes, data, this.state);
      this.render(); // the same answer (remembered): nothing to rebuild
      return;
    }
    this.drawn = data;
    this.buildChoices();
    this.rebuild();
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  buildChoices() {
    buildChoices(this.el, this.data);
    showChoices(this.el, this.modes, this.data, this.state);
    this.showLayerHint();
  }

  showLayerHint() {
    if (this.data) this.el.layerHint.textContent = layerHint(this.data, this.about);
  }

  /** The drawing and the number rows, for the answer and the width (then the current view). */
  rebuild() {
    this.fontFamily ??= getComputedStyle(this.el.drawing).fontFamily || "sans-serif"; // read once
    this.arcs.build(this.drawn, Math.max(240, this.width?.px || 640), this.fontFamily);
    this.readout.build(this.drawn);
    this.render();
  }

  /** The current view, as attributes and text of what was built. */
  render() {
    this.playback.show();
    if (!this.drawn) return;
    const s = this.state.step;
    if (this.focus.index !== null && this.focus.index > s) this.focus.index = null; // a word not written yet
    const shown = this.focus.index ?? (s >= 1 ? s : null); // the French slot whose attention is drawn
    const focused = this.focus.index !== null;
    this.arcs.render(this.state, shown, focused);
    this.readout.show(this.drawn, this.state, shown, focused, this.arcs.layout?.kind);
    if (this.stale) {
      this.el.translation.textContent = ""; // the cue beside it says why
      this.el.unread.textContent = "";
    }
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Generator(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => exportView(widget.stale ? null : widget.drawn, widget.state);
  return widget;
}
