// The key/value cache and the attention weights of one model, counted from its shape: multi-head (MHA),
// grouped-query (GQA), multi-query (MQA) and multi-head latent attention (MLA, as DeepSeek-V2 describes it).
// Pure functions and data, no DOM: figure 2 (figures/accounting/kv-tables.js) draws what these return, and
// tests/browser/test_kv_cache.py checks them against arithmetic done by hand. A model reaches these functions
// as a Hugging Face `config.json` (a preset's or the reader's), read by `readConfig` into an attention shape:
//
//   { kind, dModel, heads, kvHeads, dQK, dV, layers, mla, slidingWindow }
//
// h = heads query heads; g = kvHeads key/value heads (g = h: MHA, 1 < g < h: GQA, g = 1: MQA); keys (and
// queries) dQK wide, values dV wide (both d_head = d_model / h unless the config says otherwise); and, for MLA,
// mla = { kvRank: d_c, qRank: d_c' or null, ropeDim: d_rope, nopeDim, vDim }; slidingWindow: how far back
// the model attends when its config says it attends no further (else null; the cache is counted whole anyway).

/** Bytes per cached element, by the dtype the cache is kept in. */
export const DTYPES = { float32: 4, bfloat16: 2, float16: 2, fp8: 1, int8: 1 };

/** The context lengths the figure prices the cache at: 4k, 32k and 128k tokens. */
export const CONTEXTS = [4096, 32768, 131072];

/** The largest batch the figure takes. */
export const MAX_BATCH = 1024;

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

/** The names the figure gives each kind of attention. */
export const KIND_NAMES = {
  MHA: "multi-head attention",
  GQA: "grouped-query attention",
  MQA: "multi-query attention",
  MLA: "multi-head latent attention",
};

const grouped = (x) => x.toLocaleString("en-US");

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

/**
 * The multi-head attention the model would need without sharing: every query head gets its own keys and
 * values (g = h), as wide as the model's. Our rule for MLA: keys qk_nope_head_dim + qk_rope_head_dim wide and
 * values v_head_dim wide (DeepSeek-V2: 128 + 64 and 128), since those are the widths its heads attend with.
 */
export const mhaOf = (a) => ({ ...a, kind: "MHA", kvHeads: a.heads, mla: null });

/** One weight matrix: its name and shape. */
const matrix = (name, rows, cols) => ({ name, rows, cols, count: rows * cols });

/**
 * The weight matrices of one attention layer (biases left out), grouped as W_Q, W_K, W_V, W_O:
 *
 *   MHA, GQA, MQA:  W_Q  d_model × (h · d_head)   W_K, W_V  d_model × (g · d_head)   W_O  (h · d_head) × d_model
 *   MLA:            W_Q  W_DQ d_model × d_c', W_UQ d_c' × (h · d_nope), W_QR d_c' × (h · d_rope)
 *                        (without q_lora_rank: W_Q d_model × (h · d_nope), W_QR d_model × (h · d_rope))
 *                   W_K  W_DKV d_model × d_c (shared with V), W_UK d_c × (h · d_nope), W_KR d_model × d_rope
 *                   W_V  W_UV d_c × (h · d_v)                  W_O  (h · d_v) × d_model
 *
 * Returns { w_q, w_k, w_v, w_o } (each { count, parts: [{ name, rows, cols, count }] }) and total.
 */
export function layerWeights(a) {
  const { dModel: d, heads: h, kvHeads: g, dQK, dV } = a;
  const group = (...parts) => ({ count: parts.reduce((s, p) => s + p.count, 0), parts });
  let rows;
  if (a.mla) {
    const { kvRank, qRank, ropeDim, nopeDim, vDim } = a.mla;
    rows = {
      w_q: qRank
        ? group(matrix("W_DQ", d, qRank), matrix("W_UQ", qRank, h * nopeDim), matrix("W_QR", qRank, h * ropeDim))
        : group(matrix("W_Q", d, h * nopeDim), matrix("W_QR", d, h * ropeDim)),
      w_k: group(matrix("W_DKV", d, kvRank), matrix("W_UK", kvRank, h * nopeDim), matrix("W_KR", d, ropeDim)),
      w_v: group(matrix("W_UV", kvRank, h * vDim)),
      w_o: group(matrix("W_O", h * vDim, d)),
    };
  } else {
    rows = {
      w_q: group(matrix("W_Q", d, h * dQK)),
      w_k: group(matrix("W_K", d, g * dQK)),
      w_v: group(matrix("W_V", d, g * dV)),
      w_o: group(matrix("W_O", h * dV, d)),
    };
  }
  const total = Object.values(rows).reduce((s, r) => s + r.count, 0);
  return { ...rows, total };
}

/** "W_DQ 5,120 × 1,536 + W_UQ 1,536 × 16,384": how a row of `layerWeights` adds up. */
export const weightsHow = (row) =>
  row.parts.map((p) => `${p.name} ${grouped(p.rows)} × ${grouped(p.cols)}`).join(" + ");

/**
 * Elements cached per token per layer:
 *   MHA 2 · h · d_head,   GQA 2 · g · d_head,   MQA 2 · d_head   (g · (d_k + d_v) when keys and values differ)
 *   MLA d_c + d_rope: DeepSeek-V2 caches the key/value latent and the one rotary key all heads share.
 */
export function cacheElements(a) {
  if (a.mla) return a.mla.kvRank + a.mla.ropeDim;
  return a.kvHeads * (a.dQK + a.dV);
}

/** The product `cacheElements` computes, written out: "2 · 8 · 128", "(512 + 64)", "128 · (192 + 128)". */
export function cacheElementsHow(a) {
  if (a.mla) return `(${grouped(a.mla.kvRank)} + ${grouped(a.mla.ropeDim)})`;
  if (a.dQK === a.dV) return `2 · ${grouped(a.kvHeads)} · ${grouped(a.dQK)}`;
  return `${grouped(a.kvHeads)} · (${grouped(a.dQK)} + ${grouped(a.dV)})`;
}

/**
 * Bytes of the cache for `tokens` tokens of each of `batch` sequences, over all the model's layers, in
 * `dtype`: cacheElements · layers · bytes per element · tokens · batch. Exact while below 2⁵³ bytes (8 PiB).
 */
export function cacheBytes(a, { dtype = "bfloat16", tokens = 1, batch = 1 } = {}) {
  if (!Object.hasOwn(DTYPES, dtype)) throw new RangeError(`unknown dtype ${dtype}`);
  return cacheElements(a) * a.layers * DTYPES[dtype] * tokens * batch;
}

/**
 * The g a model that is not itself GQA is shown grouped with: 8 when 8 divides h and 8 < h (Llama's and
 * Mistral's choice), else the largest divisor of h below h other than 1; null when there is none (h prime,
 * like Falcon 7B's 71, or h < 4), since no grouping then lies between MHA and MQA.
 */
export function groupsFor(heads) {
  if (heads % 8 === 0 && heads > 8) return 8;
  for (let g = Math.floor(heads / 2); g > 1; g -= 1) if (heads % g === 0) return g;
  return null;
}

/**
 * The MLA a model that is not MLA is shown with: DeepSeek-V2's proportions for its heads' width d_head, a
 * latent of d_c = 4 · d_head and a rotary key of d_head / 2 (there 512 = 4 · 128 and 64 = 128 / 2), rounded
 * up for an odd d_head; the heads attend with keys d_head + d_head / 2 and values d_head wide.
 */
export function mlaOf(a) {
  if (a.mla) return a;
  const dHead = a.dV;
  const ropeDim = Math.ceil(dHead / 2);
  const mla = { kvRank: 4 * dHead, qRank: null, ropeDim, nopeDim: dHead, vDim: dHead };
  return { ...a, kind: "MLA", kvHeads: a.heads, dQK: dHead + ropeDim, mla };
}

/**
 * The four kinds of attention, each counted from the model's own shape: MHA (g = h), GQA (the model's g, or
 * `groupsFor(h)`), MQA (g = 1) and MLA (the model's own latent, or `mlaOf`). Keys and values keep the model's
 * widths (an MLA model's: qk_nope_head_dim + qk_rope_head_dim and v_head_dim). Each: { kind, label, own, shape },
 * shape null where the kind does not exist for this h (GQA with no g between 1 and h).
 */
export function kindsOf(a) {
  const mha = mhaOf(a);
  const g = a.kind === "GQA" ? a.kvHeads : groupsFor(a.heads);
  const mla = mlaOf(a);
  const { kvRank, ropeDim } = mla.mla;
  const proportions = a.mla ? "" : " (DeepSeek-V2's proportions)";
  return [
    { kind: "MHA", label: `MHA, ${grouped(a.heads)} key/value ${a.heads === 1 ? "head" : "heads"}`, shape: mha },
    g === null
      ? { kind: "GQA", label: `GQA: no g between 1 and ${grouped(a.heads)} divides ${grouped(a.heads)}`, shape: null }
      : { kind: "GQA", label: `GQA, g = ${grouped(g)}`, shape: { ...mha, kind: "GQA", kvHeads: g } },
    { kind: "MQA", label: "MQA, g = 1", shape: { ...mha, kind: "MQA", kvHeads: 1 } },
    { kind: "MLA", label: `MLA, d_c = ${grouped(kvRank)}, rotary ${grouped(ropeDim)}${proportions}`, shape: mla },
  ].map((row) => ({ ...row, own: row.kind === a.kind }));
}

/**
 * The cache of every kind in `kindsOf(a)`, per token and at each of CONTEXTS, in bytes, for `dtype` and
 * `batch`. `rows` holds the four in order MHA, GQA, MQA, MLA, each { kind, label, own, elements, how,
 * perToken, contexts, saving } (saving: MHA's bytes over the row's; all null for a kind that does not exist);
 * `model` is the model's own row, `mha` the MHA row, and `saving` the model's.
 */
export function cacheTable(a, { dtype = "bfloat16", batch = 1 } = {}) {
  const mhaElements = cacheElements(mhaOf(a));
  const line = ({ kind, label, own, shape }) =>
    shape
      ? {
          kind,
          label,
          own,
          elements: cacheElements(shape),
          how: cacheElementsHow(shape),
          perToken: cacheBytes(shape, { dtype }),
          contexts: CONTEXTS.map((tokens) => cacheBytes(shape, { dtype, tokens, batch })),
          saving: mhaElements / cacheElements(shape),
        }
      : { kind, label, own, elements: null, how: null, perToken: null, contexts: CONTEXTS.map(() => null), saving: null };
  const rows = kindsOf(a).map(line);
  const model = rows.find((row) => row.own);
  return { rows, model, mha: rows[0], saving: model.saving };
}

const UNITS = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** Bytes in binary units to three significant figures at most: 131072 -> "128 KiB", 69120 -> "67.5 KiB". */
export function humanBytes(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${grouped(value)} ${value === 1 ? "byte" : "bytes"}`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

/** A ratio to three significant figures: 4 -> "4×", 71.111 -> "71.1×". */
export function ratioText(ratio) {
  const digits = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2;
  return `${Number(ratio.toFixed(digits))}×`;
}

/** The model's attention in a sentence: "grouped-query attention (GQA): 32 query heads share 8 key/value heads…". */
export function describeAttention(a) {
  const heads = (n, what) => [grouped(n), what, n === 1 ? "head" : "heads"].filter(Boolean).join(" ");
  const layers = `${grouped(a.layers)} ${a.layers === 1 ? "layer" : "layers"}, d_model ${grouped(a.dModel)}`;
  const name = `${KIND_NAMES[a.kind]} (${a.kind})`;
  if (a.mla) {
    const { kvRank, qRank, ropeDim, nopeDim, vDim } = a.mla;
    const queries = qRank ? `queries through a latent of ${grouped(qRank)}` : "queries straight from the input";
    return (
      `${name}: ${heads(a.heads, "query")} with keys ${grouped(nopeDim)} + ${grouped(ropeDim)} and values ` +
      `${grouped(vDim)} wide, all rebuilt from a key/value latent of ${grouped(kvRank)} and one rotary key of ` +
      `${grouped(ropeDim)}, the two things cached; ${queries}; ${layers}.`
    );
  }
  const width = a.dQK === a.dV ? `of width ${grouped(a.dQK)}` : `keys ${grouped(a.dQK)}, values ${grouped(a.dV)} wide`;
  if (a.kind === "MHA") return `${name}: ${heads(a.heads, "")} ${width}, each with its own keys and values; ${layers}.`;
  return `${name}: ${heads(a.heads, "query")} ${width} share ${heads(a.kvHeads, "key/value")}; ${layers}.`;
}
