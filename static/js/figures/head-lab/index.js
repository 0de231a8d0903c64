// Figure 4, the head lab: the reader's own embeddings and projections, every stage of multi-head attention
// computed by the server (POST /api/attention/custom), one token's row highlighted as numbers and as arcs.
//
// Data flows one way: the matrices (model.js, edited in editor.js) -> one debounced request (payload.js) -> one
// redraw of the stages (stages.js) and of the chosen row (row.js, compare.js). Typing in a cell never rebuilds
// the grids, so the caret stays put; a new shape, preset or tie rebuilds them. Choosing a token only moves a
// highlight and redraws the small arc drawings. The presets are data (presets.json), loaded once.

import { onSchemeChange } from "../../lib/colours.js";
import { format, parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { drawCompare, writeTieNote } from "./compare.js";
import { MatrixEditor } from "./editor.js";
import { clamp, LabModel, MAX_HEADS, MAX_TOKENS } from "./model.js";
import { invalidText, labRequest } from "./payload.js";
import { highlightRow, renderTokenRadios } from "./row.js";
import { drawStages } from "./stages.js";

const PRESETS = new URL("./presets.json", import.meta.url).href;
const DEFAULT_PRESET = "journey";
const DEBOUNCE_MS = 180;
const MASKS = ["none", "neg_inf", "zero"];

export class HeadLab extends Widget {
  constructor(figure, pageData) {
    const oneOf = (values) => (text) => (values.includes(text) ? text : undefined);
    super(figure, pageData, {
      name: "head-lab",
      limit: 40,
      schema: {
        // Which names are presets is known once presets.json is in; loadPreset falls back for any other.
        preset: { param: "lab", fallback: DEFAULT_PRESET, parse: (t) => (/^[a-z]+$/.test(t) ? t : undefined) },
        token: { param: "lab_token", fallback: null, parse: parse.integer(1, MAX_TOKENS) },
        tied: { param: "lab_tied", fallback: false, parse: parse.boolean, format: format.boolean },
        mask: { param: "lab_mask", fallback: "none", parse: oneOf(MASKS) },
        scale: { param: "lab_scale", fallback: true, parse: parse.boolean, format: format.boolean },
      },
      parts: [
        "preset",
        "mask",
        "scale",
        "tie",
        "add-head",
        "remove-head",
        "tokens",
        "compare",
        "tie-note",
        "body",
        "status",
      ],
    });
    this.presets = null; // presets.json: name -> { label, about, token, tokens, embeddings, heads, w_o }
    this.model = null; // the matrices as typed (model.js)
    this.editor = null; // their grids (editor.js)
    this.debounce = null;
  }

  /** Load the presets, then build the grids for the URL's state and ask for the first answer. */
  start() {
    this.api.load(PRESETS, {
      channel: `${this.name}:presets`,
      busy: (busy) => this.setBusy(busy),
      show: (presets) => this.begin(presets),
      fail: (message) => this.fail(message),
    });
  }

  begin(presets) {
    this.presets = presets;
    for (const [name, preset] of Object.entries(presets)) this.el.preset.add(new Option(preset.label, name));
    const custom = new Option("Your own numbers", "custom");
    custom.disabled = true;
    this.el.preset.add(custom);
    this.editor = new MatrixEditor(this, this.el.body);
    const { tied } = this.state; // loading a preset unties: tie again if the URL asks for it
    this.loadPreset(this.state.preset, this.state.token);
    if (tied) {
      this.model.tie();
      this.setState({ tied: this.model.tied });
    }
    this.el.mask.querySelector(`input[value="${this.state.mask}"]`).checked = true;
    this.el.scale.checked = this.state.scale;
    this.wire();
    this.editor.wire();
    this.render();
    this.compute(0);
    onSchemeChange(() => this.render());
  }

  /** Start again from preset `name` (the default when there is none of that name), on token `token`. */
  loadPreset(name, token = null) {
    const known = Object.hasOwn(this.presets, name) ? name : DEFAULT_PRESET;
    const preset = this.presets[known];
    this.model = new LabModel(preset);
    this.el.preset.value = known;
    this.schema.token.fallback = preset.token; // a preset's own token stays out of the URL
    this.setState({ preset: known, tied: false, token: clamp(token ?? preset.token, 1, this.model.n) });
  }

  wire() {
    const { preset, mask, scale, tie, addHead, removeHead, tokens } = this.el;
    preset.addEventListener("change", () => {
      if (preset.value === "custom") return;
      this.loadPreset(preset.value);
      this.render();
      this.compute(0);
    });
    mask.addEventListener("change", (event) => {
      this.setState({ mask: event.target.value });
      this.compute(0);
    });
    scale.addEventListener("change", () => {
      this.setState({ scale: scale.checked });
      this.compute(0);
    });
    tie.addEventListener("click", () => {
      if (this.model.tied) this.model.untie();
      else this.model.tie();
      this.setState({ tied: this.model.tied });
      this.render();
      this.compute(0);
    });
    addHead.addEventListener("click", () => this.reshape(() => this.model.addHead()));
    removeHead.addEventListener("click", () => this.reshape(() => this.model.removeHead()));
    tokens.addEventListener("change", (event) => {
      this.setState({ token: Number(event.target.value) + 1 });
      this.showRow();
    });
  }

  // ---- what the editor reports -------------------------------------------------------------------------

  /** Apply a change of shape, keep the caret where it was, and recompute. */
  reshape(change) {
    change();
    this.el.preset.value = "custom";
    this.setState({ tied: this.model.tied, token: Math.min(this.state.token, this.model.n) });
    this.render();
    this.compute(0);
  }

  /** A cell or (with `names`) a token's name was typed: recompute once the reader pauses. */
  edited({ names = false } = {}) {
    this.el.preset.value = "custom";
    if (names) renderTokenRadios(this.el.tokens, this.model.names(), this.state.token - 1);
    this.compute();
  }

  // ---- the request -------------------------------------------------------------------------------------

  /** Recompute after `delay` ms: check every cell, then ask the server (instantly when it was asked before). */
  compute(delay = DEBOUNCE_MS) {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      const { request, invalid } = labRequest(this.model, this.state);
      this.editor.markInvalid(invalid);
      if (!request) this.fail(invalidText(this.model, invalid));
      else this.load(request, () => this.redraw());
    }, delay);
  }

  // ---- drawing -----------------------------------------------------------------------------------------

  /** Rebuild the grids and the controls that follow the model; redraw the answer over them. */
  render() {
    const heads = this.model.heads.length;
    this.editor.render();
    this.el.tie.textContent = this.model.tied ? "Untie heads" : "Tie heads";
    this.el.tie.disabled = heads < 2;
    this.el.addHead.disabled = heads >= MAX_HEADS;
    this.el.removeHead.disabled = heads <= 1;
    renderTokenRadios(this.el.tokens, this.model.names(), this.state.token - 1);
    if (this.data) this.redraw();
  }

  /** Draw the answer's stages under the grids, when it is an answer for the model's shape. */
  redraw() {
    const data = this.data;
    if (!this.matches(data) || data.weights[0].length !== this.model.n) return;
    drawStages(this.editor, data, this.model.names());
    this.showRow();
  }

  /** Pick out the chosen token's row everywhere and compare the heads on it. */
  showRow() {
    const chosen = this.state.token - 1;
    highlightRow(this.el.body, this.el.tokens, chosen);
    const data = this.data;
    if (!this.matches(data) || chosen >= data.weights[0].length) return;
    drawCompare(this.el.compare, data, this.model.names(), chosen);
    writeTieNote(this.el.tieNote, data, this.model.tied);
  }

  /** Whether `data` is an answer for as many heads as the model has. */
  matches(data) {
    return Boolean(data) && data.weights.length === this.model.heads.length;
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const lab = new HeadLab(figure, pageData);
  lab.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const d = lab.data;
    if (!lab.matches(d)) return null;
    const tokens = lab.model.names();
    const cols = (m) => Array.from({ length: m[0]?.length ?? 0 }, (_, j) => `dim ${j + 1}`);
    const matrices = d.weights.flatMap((_, k) => [
      { name: `Head ${k + 1} scores`, rows: tokens, columns: tokens, values: d.scores[k] },
      { name: `Head ${k + 1} weights`, rows: tokens, columns: tokens, values: d.weights[k] },
      { name: `Head ${k + 1} context`, rows: tokens, columns: cols(d.context[k]), values: d.context[k] },
    ]);
    matrices.push({ name: "Concat", rows: tokens, columns: cols(d.concat), values: d.concat });
    if (d.output) matrices.push({ name: "Output", rows: tokens, columns: cols(d.output), values: d.output });
    return { parameters: d.parameters, matrices };
  };
  return lab;
}
