// Figure 2's key/value cache, under the table of costs: the cache of a real model (a preset or a pasted
// config.json) as MHA, GQA, MQA and MLA, its own kind marked, and its attention weights beside plain MHA's.
// kv-config.js reads the model, kv-counts.js counts and kv-words.js words the numbers; this module writes them.

import { counted as plural } from "../../lib/counts.js";
import { parse } from "../../lib/url-state.js";
import { Widget } from "../../lib/widget.js";
import { DEFAULT_PRESET, LIMITS, PRESETS, presetText, tryReadConfig } from "./kv-config.js";
import { CONTEXTS, DTYPES, MAX_BATCH, cacheTable, layerWeights, mhaOf, weightsHow } from "./kv-counts.js";
import { KIND_NAMES, describeAttention, grouped, humanBytes, ratioText } from "./kv-words.js";

const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export const YOUR_CONFIG = "config"; // the Model select's value for the reader's own config.json
const WEIGHT_ROWS = ["w_q", "w_k", "w_v", "w_o"];

/**
 * The key/value cache section: a Model select (the presets and "Your config.json"), the config.json textbox,
 * a Cache dtype select and a Batch box. Choosing a preset writes its config into the textbox; editing the text
 * makes it the reader's own. Whatever the textbox holds is read on every change: when it can be read, both
 * tables are rewritten; when it cannot, the status under the box names the field and the tables keep the last
 * model read, dimmed. The URL holds the preset, the dtype and the batch (never the pasted text).
 */
export class KvCache extends Widget {
  constructor(figure, pageData = {}) {
    super(figure, pageData, {
      name: "accounting-kv",
      schema: {
        // null: the reader's own config.json, which the URL does not carry (a link opens the default preset).
        model: { param: "kv_model", fallback: DEFAULT_PRESET, parse: parse.choice(Object.keys(PRESETS)) },
        dtype: { param: "kv_dtype", fallback: "bfloat16", parse: parse.choice(Object.keys(DTYPES)) },
        batch: { param: "kv_batch", fallback: 1, parse: parse.integer(1, MAX_BATCH) },
      },
      parts: [
        "kv-model",
        "kv-config-fold",
        "kv-config",
        "kv-status",
        "kv-dtype",
        "kv-batch",
        "kv-results",
        "kv-cache-caption",
        "kv-weights-caption",
        "kv-verdict",
        "kv-source",
        "kv-limits",
      ],
      staleOn: "kv-results",
    });
    this.attention = null; // the attention shape the tables show: the last config that could be read
  }

  start() {
    const { kvModel, kvConfig, kvDtype, kvBatch } = this.el;
    const option = (value, label) => new Option(label, value);
    kvModel.replaceChildren(
      ...Object.entries(PRESETS).map(([key, preset]) => option(key, preset.label)),
      option(YOUR_CONFIG, "Your config.json"),
    );
    kvDtype.replaceChildren(
      ...Object.entries(DTYPES).map(([name, bytes]) => option(name, `${name} (${plural(bytes, "byte", "bytes")})`)),
    );
    kvConfig.value = presetText(this.state.model);
    this.el.kvLimits.textContent =
      `A batch is 1 to ${grouped(MAX_BATCH)} sequences. A config may give hidden_size up to ` +
      `${grouped(LIMITS.hidden_size)}, at most ${grouped(LIMITS.num_attention_heads)} heads, ` +
      `${grouped(LIMITS.num_hidden_layers)} layers and heads ${grouped(LIMITS.head_dim)} wide.`;

    kvModel.addEventListener("change", () => {
      if (kvModel.value === YOUR_CONFIG) {
        this.el.kvConfigFold.open = true; // the box to paste into
        return this.update({ model: null });
      }
      kvConfig.value = presetText(kvModel.value);
      this.update({ model: kvModel.value });
    });
    kvConfig.addEventListener("input", () => this.update({ model: null }));
    kvDtype.addEventListener("change", () => this.update({ dtype: kvDtype.value }));
    kvBatch.addEventListener("input", () => {
      const batch = this.schema.batch.parse(kvBatch.value);
      kvBatch.setAttribute("aria-invalid", String(batch === undefined));
      if (batch !== undefined) this.update({ batch });
    });
    this.show();
  }

  update(patch) {
    this.setState(patch);
    this.show();
  }

  /** The model's name as the captions say it (`capitalised` where it opens a sentence). */
  get modelName() {
    return this.state.model ? PRESETS[this.state.model].label : "your model";
  }

  /** Read the textbox; say what was read or what is wrong with it; redraw the tables from what was read. */
  show() {
    const { model, dtype, batch } = this.state;
    const { kvModel, kvConfig, kvStatus, kvDtype, kvBatch } = this.el;
    kvModel.value = model ?? YOUR_CONFIG;
    kvDtype.value = dtype;
    if (document.activeElement !== kvBatch) kvBatch.value = String(batch);

    const read = tryReadConfig(kvConfig.value);
    kvConfig.setAttribute("aria-invalid", String(Boolean(read.error)));
    kvStatus.classList.toggle("is-error", Boolean(read.error));
    if (read.error) {
      kvStatus.dataset.field = read.error.field;
      kvStatus.textContent = read.error.message;
      this.setStale(true);
      return;
    }
    delete kvStatus.dataset.field;
    kvStatus.textContent = `Read: ${describeAttention(read.attention)}`;
    this.setStale(false);
    this.attention = read.attention;
    this.drawCache();
    this.drawWeights();
    this.drawSource();
  }

  /** Write `text` into the elements marked data-kv=`key` (a kind's name heads a row in both its tables). */
  put(key, text) {
    for (const el of this.figure.querySelectorAll(`[data-kv="${key}"]`)) el.textContent = text;
  }

  drawCache() {
    const { dtype, batch } = this.state;
    const a = this.attention;
    const table = cacheTable(a, { dtype, batch });
    const sequences = batch === 1 ? "one sequence" : `a batch of ${grouped(batch)} sequences`;
    this.el.kvCacheCaption.textContent =
      `The key/value cache of ${this.modelName}: all ${plural(a.layers, "layer", "layers")}, ${dtype}, ` +
      `${sequences}`;
    CONTEXTS.forEach((tokens, i) => this.put(`context.${i}`, `${grouped(tokens)} tokens`));
    for (const line of table.rows) {
      const { kind } = line;
      const tr = this.figure.querySelector(`[data-kv-row="${kind}"]`);
      tr.classList.toggle("acct-differs", line.own);
      tr.classList.toggle("is-own", line.own);
      tr.classList.toggle("is-none", line.elements === null);
      this.put(`${kind}.name`, line.own ? `${line.label}, this model` : line.label);
      if (line.elements === null) {
        this.put(`${kind}.how`, "");
        ["perToken", "perTokenBytes", "saving", ...CONTEXTS.map((_, i) => `context.${i}`)].forEach((key) =>
          this.put(`${kind}.${key}`, key === "perTokenBytes" ? "" : "—"),
        );
        continue;
      }
      this.put(`${kind}.how`, `${line.how} = ${grouped(line.elements)}`);
      this.put(`${kind}.perToken`, humanBytes(line.perToken));
      this.put(`${kind}.perTokenBytes`, plural(line.perToken, "byte", "bytes"));
      line.contexts.forEach((bytes, i) => this.put(`${kind}.context.${i}`, humanBytes(bytes)));
      this.put(`${kind}.saving`, ratioText(line.saving));
    }

    // The table holds the bytes; the verdict says which row is the model's and why it caches what it does.
    const opening = `${capitalised(this.modelName)} is ${KIND_NAMES[a.kind]} (the marked row)`;
    let why;
    if (a.kind === "MHA") {
      why = "every query head keeps its own keys and values, so nothing is saved.";
    } else if (a.mla) {
      why =
        "it caches one latent and one rotary key a token and layer, and rebuilds every head's keys and values " +
        "from them.";
    } else if (a.kvHeads === 1) {
      why = `all ${grouped(a.heads)} of its query heads share one key/value head.`;
    } else {
      why = `each key/value head serves ${plural(a.heads / a.kvHeads, "query head", "query heads")}.`;
    }
    this.el.kvVerdict.textContent = `${opening}: ${why}`;
  }

  drawWeights() {
    const a = this.attention;
    const sides = { model: layerWeights(a), mha: layerWeights(mhaOf(a)) };
    this.el.kvWeightsCaption.textContent = `Weights of one attention layer of ${this.modelName} (biases left out)`;
    this.put("weights.model.title", `${a.kind}, this model`);
    this.put("weights.mha.title", "MHA, no sharing");
    for (const [side, weights] of Object.entries(sides)) {
      for (const row of WEIGHT_ROWS) {
        this.put(`weights.${side}.${row}`, grouped(weights[row].count));
        this.put(`weights.${side}.${row}.how`, weightsHow(weights[row]));
      }
      this.put(`weights.${side}.total`, grouped(weights.total));
    }
  }

  /** Where the numbers come from, and what the table does not count. */
  drawSource() {
    const { model } = this.state;
    const a = this.attention;
    const from = model
      ? `${PRESETS[model].label}'s numbers are those of its published config.json (${PRESETS[model].source} on ` +
        "the Hugging Face Hub)."
      : "The numbers are those of the config.json in the box.";
    const rolling = a.slidingWindow
      ? ` Its sliding_window is ${grouped(a.slidingWindow)}: a model that attends no further back can keep a ` +
        `rolling cache of ${grouped(a.slidingWindow)} tokens; the table counts the whole context.`
      : "";
    this.el.kvSource.textContent = from + rolling;
  }

  /** The numbers behind the view for the figure's exports, or none before a config was read. */
  exportMatrices() {
    const a = this.attention;
    if (!a) return [];
    const { dtype, batch } = this.state;
    const table = cacheTable(a, { dtype, batch });
    const lines = table.rows.filter((line) => line.elements !== null); // a kind this h has none of: no row
    const weights = [layerWeights(a), layerWeights(mhaOf(a))];
    const columns = [`${a.kind}, this model`, "MHA, no sharing"];
    return [
      {
        name: `Key/value cache of ${this.modelName} in bytes (${dtype}, batch ${batch})`,
        rows: lines.map((line) => (line.own ? `${line.label}, this model` : line.label)),
        columns: ["per token", ...CONTEXTS.map((t) => `${t} tokens`)],
        values: lines.map((line) => [line.perToken, ...line.contexts]),
      },
      {
        name: `Weights of one attention layer of ${this.modelName}`,
        rows: [...WEIGHT_ROWS, "total"],
        columns,
        values: [...WEIGHT_ROWS.map((row) => weights.map((w) => w[row].count)), weights.map((w) => w.total)],
      },
    ];
  }
}
