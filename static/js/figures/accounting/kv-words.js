// How figure 2 writes its numbers: counts (the table of costs' too), and the key/value cache's bytes in binary
// units, ratios, and a model's attention in a sentence. Pure functions, no DOM.

/** A count with thousands separators: 4,096. */
export const grouped = (x) => x.toLocaleString("en-US");

/** The names the figure gives each kind of attention. */
export const KIND_NAMES = {
  MHA: "multi-head attention",
  GQA: "grouped-query attention",
  MQA: "multi-query attention",
  MLA: "multi-head latent attention",
};

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
