// The skeleton every figure's widget stands on: its parts (elements marked data-part), its state mirrored in
// the URL, its API client, and the one way to show that it is busy, that its drawing is stale, or what went
// wrong. A figure subclasses Widget and supplies what differs: its controls, its requests and its drawing.

import { Api } from "./api.js";
import { ErrorBox } from "./error-box.js";
import { watchSentence } from "./sentence-box.js";
import { readState, writeState } from "./url-state.js";

export const SENTENCE_DELAY_MS = 250; // how long the reader may pause typing before the sentence is taken
export const EMPTY_SENTENCE = "Type a sentence: at least one word.";

/** "capacity-text" -> "capacityText". */
const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

export class Widget {
  /**
   * `name`: the figure's name (its request channel); `schema`: its URL state (lib/url-state.js);
   * `parts`: the data-part names it uses, found once as `this.el.<camelCase name>`; `staleOn`: the part, or the
   * list of parts, dimmed while they show an answer that is no longer the view's (the whole figure when absent);
   * `api`: a client to share (a fresh one remembering `limit` answers otherwise).
   */
  constructor(figure, pageData, { name, schema = {}, parts = [], staleOn = null, api = null, limit = 120 }) {
    this.figure = figure;
    this.pageData = pageData;
    this.name = name;
    this.maxChars = pageData.maxChars ?? 500;
    this.api = api ?? new Api({ limit });
    // A lazy figure's requests wait until it nears the viewport (main.js); its listeners work from the start.
    if (figure.nearby) this.api.holdUntil(figure.nearby);
    this.schema = schema;
    this.state = readState(schema);
    this.el = {};
    for (const part of parts) this.el[camel(part)] = this.part(part);
    // A figure that asks the server nothing has no error box in its markup: a detached one stands in for it.
    this.errors = new ErrorBox(this.part("error") ?? document.createElement("div"));
    this.staleEls = staleOn ? [staleOn].flat().map((name) => this.part(name)) : [figure];
    this.data = null; // the answer currently drawn
  }

  /** Figure `slug`'s number, for words that name another figure: app/figures.py numbers the figures and the page
   *  data carries the numbers (`figures`), so no widget writes one down. */
  figureNumber(slug) {
    return this.pageData.figures?.[slug] ?? "?";
  }

  /** The figure's element marked data-part=`name`. */
  part(name) {
    return this.figure.querySelector(`[data-part="${name}"]`);
  }

  /** Change the state by `patch` and mirror it in the URL; returns the state before. */
  setState(patch) {
    const before = this.state;
    this.state = { ...before, ...patch };
    writeState(this.schema, this.state);
    return before;
  }

  setBusy(busy) {
    if (busy) this.figure.setAttribute("aria-busy", "true");
    else this.figure.removeAttribute("aria-busy");
  }

  setStale(stale) {
    for (const el of this.staleEls) el.classList.toggle("is-stale", stale);
  }

  /** Say what went wrong, and dim the drawing: it no longer shows what the controls ask for. */
  fail(message) {
    this.errors.show(message);
    this.setStale(true);
  }

  /** An answer arrived: clear any error, undim the drawing and keep the answer. */
  accept(data) {
    this.errors.clear();
    this.setStale(false);
    this.data = data;
  }

  /**
   * Load `request` on this figure's channel (or `channel`), busy meanwhile; `show(data)` gets the answer when
   * the view still wants it, after `accept`; a refusal goes to `fail(message, error)` (this.fail by default).
   */
  load(request, show, { channel = this.name, fail = (message) => this.fail(message) } = {}) {
    this.api.load(request, {
      channel,
      busy: (busy) => this.setBusy(busy),
      show: (data) => {
        this.accept(data);
        show(data);
      },
      fail,
    });
  }

  /**
   * Watch the Sentence box `input`: once the reader pauses or presses Enter, an empty box is an error and any
   * other text goes to `take(text)`. Retyping the sentence already shown clears an error that an empty box
   * left, since nothing else will.
   */
  watchSentence(input, take, { key = "sentence", delay = SENTENCE_DELAY_MS } = {}) {
    input.value = this.state[key];
    watchSentence(
      input,
      (text) => {
        if (!text) return this.fail(EMPTY_SENTENCE);
        if (text === this.state[key] && this.errors.visible && this.data) {
          this.errors.clear();
          this.setStale(false);
        }
        take(text);
      },
      delay,
    );
  }
}
