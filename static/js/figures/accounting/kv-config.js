// A model's attention, read from its Hugging Face `config.json` (a preset's or the reader's) into the shape
// figure 2 counts from (figures/accounting/kv-counts.js):
//
//   { kind, dModel, heads, kvHeads, dQK, dV, layers, mla, slidingWindow }
//
// h = heads query heads; g = kvHeads key/value heads (g = h: MHA, 1 < g < h: GQA, g = 1: MQA); keys (and
// queries) dQK wide, values dV wide (both d_head = d_model / h unless the config says otherwise); and, for MLA,
// mla = { kvRank: d_c, qRank: d_c' or null, ropeDim: d_rope, nopeDim, vDim }; slidingWindow: how far back
// the model attends when its config says it attends no further (else null; the cache is counted whole anyway).
// Pure functions and data, no DOM; tests/browser/test_kv_cache.py checks every way a config is refused.

import { grouped } from "./kv-words.js";

/**
 * The largest value each config field may hold; larger is not a model but a typo. Widths of one head are
 * bounded at 4,096, widths of the whole layer (and of MLA's latents) at 65,536.
 */
export const LIMITS = {
  hidden_size: 65536,
  num_attention_heads: 1024,
  num_key_value_heads: 1024,
  num_hidden_layers: 1000,
  head_dim: 4096,
  kv_lora_rank: 65536,
  q_lora_rank: 65536,
  qk_rope_head_dim: 4096,
  qk_nope_head_dim: 4096,
  v_head_dim: 4096,
  sliding_window: 16777216,
};

/**
 * A few well-known models, each with the fields of its published config.json (on the Hugging Face Hub, the
 * repository `source`) that the attention's shape depends on. They go through `readConfig` like a pasted one.
 */
export const PRESETS = {
  "llama-3-8b": {
    label: "Llama 3 8B",
    source: "meta-llama/Meta-Llama-3-8B",
    config: {
      model_type: "llama",
      hidden_size: 4096,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      num_hidden_layers: 32,
    },
  },
  "mistral-7b": {
    label: "Mistral 7B v0.1",
    source: "mistralai/Mistral-7B-v0.1",
    config: {
      model_type: "mistral",
      hidden_size: 4096,
      num_attention_heads: 32,
      num_key_value_heads: 8,
      num_hidden_layers: 32,
      sliding_window: 4096,
    },
  },
  "falcon-7b": {
    label: "Falcon 7B",
    source: "tiiuae/falcon-7b",
    config: {
      model_type: "falcon",
      hidden_size: 4544,
      num_attention_heads: 71,
      num_hidden_layers: 32,
      multi_query: true,
      new_decoder_architecture: false,
    },
  },
  "deepseek-v2": {
    label: "DeepSeek-V2",
    source: "deepseek-ai/DeepSeek-V2",
    config: {
      model_type: "deepseek_v2",
      hidden_size: 5120,
      num_attention_heads: 128,
      num_key_value_heads: 128,
      num_hidden_layers: 60,
      kv_lora_rank: 512,
      q_lora_rank: 1536,
      qk_rope_head_dim: 64,
      qk_nope_head_dim: 128,
      v_head_dim: 128,
    },
  },
  "llama-2-7b": {
    label: "Llama 2 7B",
    source: "meta-llama/Llama-2-7b-hf",
    config: {
      model_type: "llama",
      hidden_size: 4096,
      num_attention_heads: 32,
      num_key_value_heads: 32,
      num_hidden_layers: 32,
    },
  },
};

export const DEFAULT_PRESET = "llama-3-8b";

/** A config that cannot be read: `field` is the config.json key to blame (or "config.json" for the whole). */
export class ConfigError extends Error {
  constructor(field, message) {
    super(message);
    this.name = "ConfigError";
    this.field = field;
  }
}

const present = (config, key) => Object.hasOwn(config, key) && config[key] !== null;

/** The first of `keys` the config holds (Falcon's older spellings after the Hugging Face one), or undefined. */
const spelling = (config, keys) => keys.find((key) => present(config, key));

/** `config[key]` as a positive integer within LIMITS[limitKey], or a ConfigError naming `key`. */
function positiveInteger(config, key, limitKey = key) {
  const value = config[key];
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new ConfigError(key, `${key} must be a whole number, not ${JSON.stringify(value)}.`);
  }
  if (value < 1) throw new ConfigError(key, `${key} must be at least 1, not ${grouped(value)}.`);
  const limit = LIMITS[limitKey];
  if (value > limit) {
    throw new ConfigError(key, `${key} is ${grouped(value)}; this figure takes at most ${grouped(limit)}.`);
  }
  return value;
}

/** The positive integer under the first of `keys` present, or a ConfigError saying what is missing. */
function required(config, keys, what) {
  const key = spelling(config, keys);
  if (key === undefined) throw new ConfigError(keys[0], `config.json has no ${keys[0]} (${what}).`);
  return positiveInteger(config, key, keys[0]);
}

/** A field that may be absent (or null): its positive integer, or `fallback`. */
function optional(config, key, fallback) {
  return present(config, key) ? positiveInteger(config, key) : fallback;
}

/** A true/false flag that may be absent (false). */
function flag(config, key) {
  if (!present(config, key)) return false;
  if (typeof config[key] !== "boolean") {
    throw new ConfigError(key, `${key} must be true or false, not ${JSON.stringify(config[key])}.`);
  }
  return config[key];
}

/** "GQA" when 1 < g < h, "MQA" when g = 1 < h, "MHA" when g = h; MLA when the keys and values come from a latent. */
function kindOf(heads, kvHeads, mla) {
  if (mla) return "MLA";
  if (kvHeads === heads) return "MHA";
  return kvHeads === 1 ? "MQA" : "GQA";
}

/**
 * The attention shape of a parsed config.json object (Hugging Face format), or a ConfigError naming the field.
 *
 * - h: num_attention_heads (Falcon's older spelling n_head); layers: num_hidden_layers (n_layer);
 *   d_model: hidden_size.
 * - g: num_key_value_heads; when absent, Falcon's num_kv_heads (with new_decoder_architecture), else 1 when
 *   multi_query is true, else h (multi-head). h must be a multiple of g.
 * - d_head: head_dim when present, else d_model / h (which must then be whole).
 * - MLA when kv_lora_rank is present: d_c = kv_lora_rank and d_rope = qk_rope_head_dim (required); the
 *   non-rotary query/key width qk_nope_head_dim (default d_head), the value width v_head_dim (default
 *   qk_nope_head_dim), and q_lora_rank (absent or null: the queries come straight from the input).
 *   num_key_value_heads plays no part in MLA (DeepSeek-V2's config sets it to h).
 * - sliding_window, unless use_sliding_window is false (Qwen2 sets one it does not use): only noted.
 */
export function attentionFromConfig(config) {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ConfigError("config.json", "config.json must be one JSON object ({ … }).");
  }
  const dModel = required(config, ["hidden_size"], "the model width");
  const heads = required(config, ["num_attention_heads", "n_head"], "the number of query heads");
  const layers = required(config, ["num_hidden_layers", "n_layer"], "the number of layers");

  // d_head: head_dim, else d_model / h; asked for only where the config gives no more specific width.
  const headDim = () => {
    if (present(config, "head_dim")) return positiveInteger(config, "head_dim");
    if (dModel % heads !== 0) {
      throw new ConfigError(
        "head_dim",
        `hidden_size (${grouped(dModel)}) is not a multiple of num_attention_heads (${grouped(heads)}), ` +
          "and there is no head_dim to say how wide a head is.",
      );
    }
    return dModel / heads;
  };

  const slidingWindow =
    present(config, "sliding_window") && config.use_sliding_window !== false
      ? positiveInteger(config, "sliding_window")
      : null;

  if (present(config, "kv_lora_rank")) {
    const kvRank = positiveInteger(config, "kv_lora_rank");
    if (!present(config, "qk_rope_head_dim")) {
      throw new ConfigError(
        "qk_rope_head_dim",
        "config.json has kv_lora_rank (latent attention) but no qk_rope_head_dim (the rotary key's width).",
      );
    }
    const ropeDim = positiveInteger(config, "qk_rope_head_dim");
    const nopeDim = present(config, "qk_nope_head_dim") ? positiveInteger(config, "qk_nope_head_dim") : headDim();
    const vDim = optional(config, "v_head_dim", nopeDim);
    const qRank = optional(config, "q_lora_rank", null);
    const mla = { kvRank, qRank, ropeDim, nopeDim, vDim };
    return { kind: "MLA", dModel, heads, kvHeads: heads, dQK: nopeDim + ropeDim, dV: vDim, layers, mla, slidingWindow };
  }

  let kvHeads = heads;
  const kvKey = present(config, "num_key_value_heads")
    ? "num_key_value_heads"
    : flag(config, "new_decoder_architecture") && present(config, "num_kv_heads")
      ? "num_kv_heads"
      : null;
  if (kvKey) kvHeads = positiveInteger(config, kvKey, "num_key_value_heads");
  else if (flag(config, "multi_query")) kvHeads = 1;
  if (heads % kvHeads !== 0) {
    throw new ConfigError(
      kvKey,
      `num_attention_heads (${grouped(heads)}) is not a multiple of ${kvKey} (${grouped(kvHeads)}): ` +
        "every key/value head must serve the same number of query heads.",
    );
  }
  const dHead = headDim();
  const kind = kindOf(heads, kvHeads, null);
  return { kind, dModel, heads, kvHeads, dQK: dHead, dV: dHead, layers, mla: null, slidingWindow };
}

/** The attention shape of config.json text, or a ConfigError (malformed JSON names the parser's complaint). */
export function readConfig(text) {
  let config;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new ConfigError("config.json", `config.json is not valid JSON: ${error.message}`);
  }
  return attentionFromConfig(config);
}

/** `readConfig` without the throw: { attention } or { error: { field, message } }. */
export function tryReadConfig(text) {
  try {
    return { attention: readConfig(text) };
  } catch (error) {
    if (error instanceof ConfigError) return { error: { field: error.field, message: error.message } };
    throw error;
  }
}

/** The attention shape of preset `key`. */
export const presetAttention = (key) => attentionFromConfig(PRESETS[key].config);

/** The preset's config as the textbox shows it. */
export const presetText = (key) => JSON.stringify(PRESETS[key].config, null, 2);
