// One head of an uploaded file, read in the browser from the reader's own copy of the file.
//
// The server judges an upload head by head and never sends its weights back. For a .npy it answers where
// the numbers start (`layout`: the byte offset after the .npy header, the dtype, the shape): to draw the
// head a reader picks, the page slices that head's bytes out of the File it still holds, so a 75 MB export
// costs one head (512 × 512 × 2 bytes for float16) per click, and nothing leaves the machine again. A .json
// or .csv (2 MB at most) is parsed here as the server reads it, once per file.

/** Bytes per number and how to read one from a DataView, for the dtypes the server accepts. */
const READERS = {
  f2: [2, (v, o, le) => halfToNumber(v.getUint16(o, le))],
  f4: [4, (v, o, le) => v.getFloat32(o, le)],
  f8: [8, (v, o, le) => v.getFloat64(o, le)],
  i1: [1, (v, o) => v.getInt8(o)],
  u1: [1, (v, o) => v.getUint8(o)],
  b1: [1, (v, o) => v.getUint8(o)],
  i2: [2, (v, o, le) => v.getInt16(o, le)],
  u2: [2, (v, o, le) => v.getUint16(o, le)],
  i4: [4, (v, o, le) => v.getInt32(o, le)],
  u4: [4, (v, o, le) => v.getUint32(o, le)],
  i8: [8, (v, o, le) => Number(v.getBigInt64(o, le))],
  u8: [8, (v, o, le) => Number(v.getBigUint64(o, le))],
};

/** An IEEE 754 half-precision number (its 16 bits) as a JavaScript number: sign, 5 exponent bits, 10 fraction
 * bits; exponent 0 is subnormal (fraction × 2^-24), exponent 31 is ±Infinity or NaN. */
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** The byte order and reader of a numpy dtype string such as "<f2", "|u1" or ">f8"; null if unsupported. */
export function dtypeReader(dtype) {
  const match = /^([<>|=])([a-z]\d)$/.exec(dtype ?? "");
  if (!match || !READERS[match[2]]) return null;
  const [size, read] = READERS[match[2]];
  return { size, read, littleEndian: match[1] !== ">" };
}

/** Head `index` (layer × heads + head, C order) of the .npy `file` the server described by `layout`, as n rows
 * of n numbers (NaN kept: a fully masked row reads as NaN, as in the file). */
export async function readHead(file, layout, index) {
  const n = layout.shape[layout.shape.length - 1];
  const reader = dtypeReader(layout.dtype);
  if (!reader) throw new Error(`cannot draw numbers of dtype ${layout.dtype}`);
  const start = layout.offset + index * n * n * reader.size;
  const buffer = await file.slice(start, start + n * n * reader.size).arrayBuffer();
  if (buffer.byteLength < n * n * reader.size) throw new Error("the file is shorter than its header says");
  const view = new DataView(buffer);
  const rows = [];
  for (let i = 0, o = 0; i < n; i++) {
    const row = new Float64Array(n);
    for (let j = 0; j < n; j++, o += reader.size) row[j] = reader.read(view, o, reader.littleEndian);
    rows.push(row);
  }
  return rows;
}

const parsedText = new WeakMap(); // File -> its heads, each rows of numbers

/** The heads of a .json or .csv attention file, as the server reads it (app/core/matrix_files.py): a .csv is
 * one matrix, a line per query row; a .json is nested lists, or an object whose "weights" are, with `null`
 * or `NaN` for a missing number (NaN here). Each head is rows of numbers, in (layer, head) order. */
async function textHeads(file) {
  if (parsedText.has(file)) return parsedText.get(file);
  const text = (await file.text()).replace(/^\uFEFF/, "");
  let heads;
  if (/\.csv$/i.test(file.name)) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim());
    heads = [lines.map((line) => line.split(",").map(Number))]; // "nan" and "NaN" read as NaN
  } else {
    const data = JSON.parse(text.replace(/(?<=[[,\s])NaN(?=[\],\s])/g, "null")); // JSON itself has no NaN
    heads = [];
    const walk = (x) => (Array.isArray(x[0]?.[0]) ? x.forEach(walk) : heads.push(x));
    walk(Array.isArray(data) ? data : data.weights);
    heads = heads.map((rows) => rows.map((row) => row.map((v) => (v === null ? NaN : Number(v)))));
  }
  parsedText.set(file, heads);
  return heads;
}

/** Head `index` (layer · heads + head) of a .json or .csv attention file the server has judged. */
export async function readTextHead(file, index) {
  const head = (await textHeads(file))[index];
  if (!head) throw new Error(`the file holds no head ${index + 1}`);
  return head;
}

/** Whether the page reads `file`'s heads by parsing its text (a .json or .csv) rather than its bytes. */
export const isTextFile = (file) => /\.(json|csv)$/i.test(file?.name ?? "");
