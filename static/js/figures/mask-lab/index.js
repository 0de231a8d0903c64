// Figure 6, the mask lab: a real decoder's self-attention over the reader's sentence under no mask, −∞ and ×0,
// and under the five per-row bugs of the mask bug zoo (off by one either way, transposed, masked after the
// softmax, added as +1). The decoder is figure 7's language model trained with −∞; the chosen mask replaces its
// own in every layer. A heatmap per layer and head with the future outlined (heatmaps.js), the Future leak meter
// with its per-row break-down, folded (meter.js), and what the mask does, told with this decoder's own numbers
// (explain.js, zoo-text.js; numbers.js writes the numbers). In a fold below, the zoo's two bugs that are not a
// mask mode: a padded batch's NaN rows (padded-batch.js), and finite mask values in low precision
// (precision.js), fetched once the fold is opened.
//
// Data flows one way: state (from the URL) -> one fetch of /api/lm/attention/masks (the decoder under every
// mask, for the sentence) -> draw. A change of mask asks nothing new: it keeps
// the heatmaps and only rewrites each cell's fill-opacity, so CSS animates the change. The maths is the
// server's: the weights, the scores the mask acts on, the leak, each row's share of weight on later positions.
// The modes, in order, and their short names are the server's too (the page data's maskModes).

import { onSchemeChange } from "../../lib/colours.js";
import { piecesNote, splitWords } from "../../lib/pieces.js";
import { parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { WidthWatch } from "../../lib/width-watch.js";
import { showExplanation } from "./explain.js";
import { buildDrawing, drawingShape } from "./heatmaps.js";
import { showMeter } from "./meter.js";
import { pct } from "./numbers.js";
import { showPaddedBatch } from "./padded-batch.js";
import { showPrecision } from "./precision.js";

const NAME = "mask-lab";
const MODEL = "neg_inf"; // the decoder: figure 7's model trained with −∞
// How a sentence names the mask a decoder of figure 7 was trained with.
const TRAINED_WITH = {
  none: "with no mask",
  zero: "with ×0",
  next_word: "with the off-by-one mask that shows the next word",
};
// The line of code each mode is (what the radio's name stands for), shown under the radios.
const MODE_CODE = {
  none: "scores",
  neg_inf: "scores.masked_fill(triu(ones, diagonal=1), -inf)",
  zero: "scores.masked_fill(triu(ones, diagonal=1), 0)",
  hides_self: "scores.masked_fill(triu(ones, diagonal=0), -inf)",
  next_word: "scores.masked_fill(triu(ones, diagonal=2), -inf)",
  transposed: "scores.masked_fill(tril(ones, diagonal=-1), -inf)",
  after_softmax: "softmax(scores).masked_fill(triu(ones, diagonal=1), 0)",
  additive: "scores + triu(ones, diagonal=1)",
};
// The figure's elements marked data-part (the Mask radios, several, are found apart).
const PARTS = [
  ..."sentence pieces dock-leak drawing meter meter-fill meter-yardstick meter-value meter-learned learned".split(" "),
  ..."yardstick rows rows-foot table explain compare code".split(" "),
  ..."zoo pad-about pad-count pad-maps pad-explain precision-about precision precision-explain".split(" "),
];

export class MaskLab extends Widget {
  constructor(figure, pageData) {
    const decoder = pageData.maskLab ?? {};
    const maxChars = pageData.lmMaxChars ?? 200;
    const modes = pageData.maskModes ?? []; // every mode, in the server's order, with its short name
    super(figure, pageData, {
      name: NAME,
      schema: {
        sentence: {
          param: "mask_sentence",
          fallback: decoder.defaultSentence,
          parse: parse.text(maxChars),
        },
        mask: { param: "mask", fallback: "none", parse: parse.choice(modes.map((m) => m.mode)) },
      },
      parts: PARTS,
      staleOn: ["leak", "dock-leak", "drawing", "panels"], // the meters and the panels' numbers are the answer's too
    });
    this.maxChars = maxChars;
    this.maxWords = decoder.maxWords;
    this.el.pieces.setAttribute("aria-live", "polite"); // the Sentence's hint says which words are read in pieces
    this.trainedWith = decoder.trainedWith ?? []; // the masks a model of figure 7 was trained with
    this.modes = modes;
    this.modeName = Object.fromEntries(modes.map((m) => [m.mode, m.name]));
    this.radios = [...figure.querySelectorAll('[data-part="mode"]')];
    this.maps = []; // one Heatmap per layer and head, kept while the tokens stay the same
    this.shape = ""; // the tokens the heatmaps were built for
    this.rowItems = [];
    this.width = null; // the drawing's width, watched from start()
  }

  start() {
    this.showControls();
    this.watchSentence(this.el.sentence, (text) => this.update({ sentence: text }));
    for (const radio of this.radios) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.update({ mask: radio.value });
      });
    }
    this.width = new WidthWatch(this.el.drawing, () => this.data && this.draw(this.data, true));
    onSchemeChange(() => {
      if (this.data) this.draw(this.data, true);
      if (this.zoo) this.showZoo(this.zoo);
    });
    this.el.zoo.addEventListener("toggle", () => this.el.zoo.open && this.fetchZoo());
    this.fetch();
  }

  // ---- state -------------------------------------------------------------------------------------------

  update(patch) {
    const before = this.setState(patch);
    this.showControls();
    this.fetch();
    if (before.sentence !== this.state.sentence && this.el.zoo.open) this.fetchZoo();
  }

  /** The radios and the explanation table's highlighted column (a bug's column shown only while it is
   * chosen): cheap, done on every change. */
  showControls() {
    for (const radio of this.radios) radio.checked = radio.value === this.state.mask;
    for (const cell of this.el.table.querySelectorAll("[data-mode]")) {
      const current = cell.dataset.mode === this.state.mask;
      cell.classList.toggle("is-current", current);
      if ("bug" in cell.dataset) cell.hidden = !current;
    }
    this.el.code.textContent = MODE_CODE[this.state.mask];
  }

  /** The decoder's attention on the sentence under every mask, in one answer: a switch of mask draws at once,
   * and the comparison line has every mask's leak. */
  url() {
    const params = new URLSearchParams({ model: MODEL, sentence: this.state.sentence });
    return `/api/lm/attention/masks?${params}`;
  }

  // ---- data --------------------------------------------------------------------------------------------

  /** Ask for the answers to the current sentence (at once when they were seen before) and draw the mask's. */
  fetch() {
    this.load(this.url(), (all) => {
      this.data = all.answers[this.state.mask]; // what a redraw draws again
      this.draw(this.data, false);
    });
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Build the heatmaps when the tokens changed (or `rebuild`), then write this answer's numbers into them. */
  draw(data, rebuild) {
    const shape = drawingShape(data);
    if (rebuild || shape !== this.shape) {
      ({ maps: this.maps, rowItems: this.rowItems } = buildDrawing(this.el, data, this.width?.px || 640));
    }
    this.shape = shape;
    let k = 0;
    for (const heads of data.weights) for (const w of heads) this.maps[k++].update(w); // null: NaN, drawn grey
    this.el.drawing.dataset.mask = data.mask;
    // The Sentence's hint: the decoder's limit, and which words it reads in pieces when any is.
    const split = splitWords(data.tokens, data.word_index, data.words).length;
    const note = split ? ` ${piecesNote(data.tokens, data.word_index, data.words)}` : "";
    this.el.pieces.textContent = `Up to ${this.maxWords} words.${note}`;
    showMeter(this.el, data, this.rowItems);
    this.showLearned();
    showExplanation(this.el.explain, data);
    this.showCompare();
  }

  /** Beside a leaky mask's leak on the −∞ decoder, what the decoder trained with that mask (figure 7's) puts on
   * the future of the same sentence: it has learnt to read what leaks (the dotted mark on the meter). The line
   * is always written, so that the figure never grows when an answer arrives. */
  showLearned() {
    const { mask, sentence } = this.state;
    const line = this.el.learned;
    const mark = this.el.meterLearned;
    const figure = `figure ${this.figureNumber("interview")}`;
    line.hidden = false;
    mark.hidden = true;
    if (mask === MODEL) {
      line.textContent = `This decoder was trained with −∞ (${figure}): its own mask, with nothing to leak.`;
      return;
    }
    if (!this.trainedWith.includes(mask)) {
      const trained = this.trainedWith.map((m) => this.modeName[m]);
      line.textContent =
        `No decoder was trained with this bug; ${figure} trains one with each of ` +
        `${trained.slice(0, -1).join(", ")} and ${trained.at(-1)}.`;
      return;
    }
    const said = (share) =>
      `Dotted mark: a decoder trained ${TRAINED_WITH[mask]} (${figure}) reads the leak: ${share} of its attention ` +
      "here.";
    line.textContent = said("…");
    const params = new URLSearchParams({ model: mask, sentence });
    this.api.get(`/api/lm/attention?${params}`).then(
      (answer) => {
        if (this.state.mask !== mask || this.state.sentence !== sentence) return; // the view moved on
        mark.style.setProperty("--share", String(answer.future_leak ?? 0));
        mark.hidden = false;
        line.textContent = said(pct(answer.future_leak));
      },
      () => {
        if (this.state.mask === mask && this.state.sentence === sentence) line.textContent = said("(not known)");
      },
    );
  }

  // ---- the zoo's panels ----------------------------------------------------------------------------------

  zooUrl() {
    return `/api/lm/mask-zoo?${new URLSearchParams({ sentence: this.state.sentence })}`;
  }

  /** The padded batch and the precision table for the current sentence (a refusal is already told above). */
  fetchZoo() {
    const panels = this.el.padMaps.closest(".mask-zoo");
    this.api.load(this.zooUrl(), {
      channel: `${NAME}-zoo`,
      show: (zoo) => {
        panels.classList.remove("is-stale");
        this.zoo = zoo;
        this.showZoo(zoo);
      },
      fail: () => panels.classList.add("is-stale"),
    });
  }

  showZoo(zoo) {
    showPaddedBatch(this.el, zoo);
    showPrecision(this.el, zoo);
  }

  /** One line comparing the masks on this sentence, from the answers drawn. */
  showCompare() {
    const answers = this.api.cached(this.url())?.answers;
    if (!answers) {
      this.el.compare.textContent = "";
      return;
    }
    const parts = this.modes.map(({ mode, name }) => `${name} ${pct(answers[mode].future_leak)}`);
    this.el.compare.textContent = `Future leak on this sentence: ${parts.join(" · ")}.`;
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new MaskLab(figure, pageData);
  widget.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = widget.data;
    if (!d) return null;
    const matrices = d.weights.flatMap((heads, l) =>
      heads.map((values, h) => ({
        name: `Layer ${l + 1}, head ${h + 1}, mask ${d.mask}`,
        rows: d.tokens,
        columns: d.tokens,
        values,
        missing: "NaN", // a row the mask left with nothing to attend to
      })),
    );
    const note =
      `Attention weights of figure ${widget.figureNumber("interview")}'s decoder trained with −∞, run with this ` +
      "mask in every layer: row = query position, column = key position; columns after the row's position are " +
      "the future.";
    return { note, mask: d.mask, future_leak: d.future_leak, sentence: d.tokens.slice(1).join(" "), matrices };
  };
  return widget;
}
