// Figure 5's playback: ▶ Generate writes one French word every STEP_MS; ❚❚ Pause holds it and becomes
// ▶ Resume, which writes on from the word shown; ‹ Step back and Step › move one word by hand (pausing a run
// first, so the reader takes over); the progress bar says how far it got. Nothing plays or steps while the
// figure's translation is stale (the Sentence box holds another sentence) or loading.

import { setAttrs } from "../../lib/svg.js";

export const STEP_MS = 400; // one French word every 0.4 s

export class Playback {
  /**
   * `figure`: the widget whose words are written, read through `figure.data` (the translation, or null),
   * `figure.state.step`, `figure.loading`, `figure.stale` and `figure.setStep(step)`; `el`: its parts pause,
   * pauseLabel, pauseIcon, stepBack, step, progress and progressText.
   */
  constructor(figure, el) {
    this.figure = figure;
    this.el = el;
    this.run = false; // a generation is under way (writing, or paused by the reader)
    this.playing = false; // words are being written, one every STEP_MS
    this.timer = null;
  }

  get count() {
    return this.figure.data?.steps.length ?? 0;
  }

  get step() {
    return Math.min(this.figure.state.step, this.count);
  }

  /** A translation is shown that matches the Sentence box, and nothing is loading. */
  get ready() {
    const f = this.figure;
    return Boolean(f.data) && !f.loading && !f.stale;
  }

  /** Resume writes on: held mid-run, or on a word short of the end (after stepping back, or from a link). */
  get canResume() {
    return !this.playing && this.ready && this.step < this.count && (this.run || this.step > 0);
  }

  /** Write the translation from the current step on, a word at a time. */
  play() {
    if (!this.count) return;
    this.run = true;
    this.playing = true;
    this.tick();
  }

  /** Write the next word; schedule the one after it, or end the run after the last. */
  tick() {
    clearTimeout(this.timer);
    const n = this.count;
    if (this.figure.state.step < n) this.figure.setStep(this.figure.state.step + 1);
    if (this.figure.state.step >= n) {
      this.stop();
      return;
    }
    this.timer = setTimeout(() => this.tick(), STEP_MS);
  }

  /** End the run where it is. */
  stop() {
    this.hold();
    this.run = false;
    this.show();
  }

  /** Stop writing but keep the run (Resume goes on from here). */
  hold() {
    clearTimeout(this.timer);
    this.timer = null;
    this.playing = false;
  }

  /** Pause or Resume: the button's one action, named for what it does next. */
  togglePause() {
    if (this.playing) {
      this.hold();
      this.show();
    } else if (this.canResume) {
      this.play();
    }
  }

  /** One word on; a running generation pauses first, so the reader takes over. */
  stepOnce() {
    if (!this.ready || this.figure.state.step >= this.count) return;
    this.hold();
    this.figure.setStep(this.figure.state.step + 1);
    if (this.figure.state.step >= this.count) this.stop();
  }

  /** One word back: the drawing and the numbers show the step before; a running generation pauses first. */
  stepBack() {
    if (!this.ready || this.step <= 0) return;
    this.hold();
    this.figure.setStep(this.step - 1);
  }

  /** The buttons' names and states, and the progress bar. */
  show() {
    const n = this.count;
    const s = this.step;
    const { pause, pauseLabel, pauseIcon, stepBack, step, progress, progressText } = this.el;
    const resume = !this.playing && this.canResume;
    pauseLabel.textContent = resume ? "Resume" : "Pause";
    pauseIcon.textContent = resume ? "▶ " : "❚❚ ";
    pause.setAttribute("aria-disabled", String(!(this.playing || resume)));
    stepBack.setAttribute("aria-disabled", String(!this.ready || s <= 0));
    step.setAttribute("aria-disabled", String(!this.ready || s >= n));
    setAttrs(progress, { "aria-valuemax": n, "aria-valuenow": s, "aria-valuetext": `step ${s} of ${n}` });
    progress.style.setProperty("--done", n ? String(s / n) : "0");
    const paused = this.run && !this.playing ? " · paused" : "";
    progressText.textContent = this.figure.data ? `step ${s} of ${n}${paused}` : "";
  }
}
