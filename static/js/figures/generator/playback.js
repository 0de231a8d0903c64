// Figure 4's playback: ▶ Generate writes one French word every STEP_MS, ❚❚ Pause holds it, Step › writes one
// word by hand (pausing a run first, so the reader takes over); the progress bar says how far it got.

import { setAttrs } from "../../lib/svg.js";

export const STEP_MS = 400; // one French word every 0.4 s

export class Playback {
  /**
   * `figure`: the widget whose words are written, read through `figure.data` (the translation, or null),
   * `figure.state.step`, `figure.loading` and `figure.setStep(step)`; `el`: its parts pause, step, progress
   * and progressText.
   */
  constructor(figure, el) {
    this.figure = figure;
    this.el = el;
    this.run = false; // a generation is under way (playing or paused)
    this.paused = false;
    this.timer = null;
  }

  get count() {
    return this.figure.data?.steps.length ?? 0;
  }

  /** Write the translation from the current step on, a word at a time. */
  play() {
    if (!this.count) return;
    this.run = true;
    this.paused = false;
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

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.run = false;
    this.paused = false;
    this.show();
  }

  togglePause() {
    if (!this.run) return;
    if (this.paused) {
      this.paused = false;
      this.tick();
    } else {
      clearTimeout(this.timer);
      this.paused = true;
    }
    this.show();
  }

  /** One word on; a running generation pauses first, so the reader takes over. */
  stepOnce() {
    const { data, loading, state } = this.figure;
    if (!data || loading || state.step >= this.count) return;
    if (this.run && !this.paused) {
      clearTimeout(this.timer);
      this.paused = true;
    }
    this.figure.setStep(state.step + 1);
    if (this.figure.state.step >= this.count) this.stop();
  }

  /** The buttons' states and the progress bar. */
  show() {
    const n = this.count;
    const s = Math.min(this.figure.state.step, n);
    const { pause, step, progress, progressText } = this.el;
    pause.setAttribute("aria-disabled", String(!this.run));
    pause.setAttribute("aria-pressed", String(this.run && this.paused));
    step.setAttribute("aria-disabled", String(!this.figure.data || this.figure.state.step >= n));
    setAttrs(progress, { "aria-valuemax": n, "aria-valuenow": s, "aria-valuetext": `step ${s} of ${n}` });
    progress.style.setProperty("--done", n ? String(s / n) : "0");
    const paused = this.run && this.paused ? " · paused" : "";
    progressText.textContent = this.figure.data ? `step ${s} of ${n}${paused}` : "";
  }
}
