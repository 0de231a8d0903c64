// The key/value cache and the attention weights of one attention shape (figures/accounting/kv-config.js), as
// multi-head (MHA), grouped-query (GQA), multi-query (MQA) and multi-head latent attention (MLA, as
// DeepSeek-V2 describes it). Pure functions and data, no DOM: figure 2 (kv-tables.js) draws what these return,
// and tests/browser/test_kv_cache.py checks them against arithmetic done by hand.

import { grouped } from "./kv-words.js";

/** Bytes per cached element, by the dtype the cache is kept in. */
export const DTYPES = { float32: 4, bfloat16: 2, float16: 2, fp8: 1, int8: 1 };

/** The context lengths the figure prices the cache at: 4k, 32k and 128k tokens. */
export const CONTEXTS = [4096, 32768, 131072];

/** The largest batch the figure takes. */
export const MAX_BATCH = 1024;

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
