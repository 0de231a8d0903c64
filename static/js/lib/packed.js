// The packed form of an answer (GET /api/attention?format=packed; app/web/answers.py writes it): a JSON head, then
// one block of numbers three bytes each. Read back, it is the JSON answer itself: the block becomes the
// nested arrays of plain numbers the head's `<name>_shape` describes, under `<name>`.

/** The answer in `buffer` (an ArrayBuffer of the packed form), as the JSON form would have parsed. */
export function unpack(buffer) {
  const headLength = new DataView(buffer).getUint32(0, true);
  const head = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, headLength)));
  const key = Object.keys(head).find((k) => k.endsWith("_shape"));
  if (!key) throw new Error("a packed answer without the shape of its numbers");
  const shape = head[key];
  delete head[key];
  head[key.slice(0, -"_shape".length)] = nest(float24(new Uint8Array(buffer, 4 + headLength)), shape);
  return head;
}

/** Three little-endian bytes a number -> the float32s they are the top of (a zero byte put below each). */
export function float24(bytes) {
  const count = Math.floor(bytes.length / 3);
  const bits = new Uint32Array(count);
  for (let i = 0, b = 0; i < count; i += 1, b += 3) {
    bits[i] = ((bytes[b] << 8) | (bytes[b + 1] << 16) | (bytes[b + 2] << 24)) >>> 0;
  }
  return new Float32Array(bits.buffer);
}

/** A flat array of numbers as nested arrays of `shape`, row-major: [2, 3] -> [[a, b, c], [d, e, f]]. */
export function nest(flat, shape) {
  const size = shape.reduce((a, b) => a * b, 1);
  if (flat.length !== size) throw new Error(`a packed answer of ${flat.length} numbers, not ${size}`);
  const build = (offset, depth) => {
    if (depth === shape.length - 1) return Array.from(flat.subarray(offset, offset + shape[depth]));
    const step = shape.slice(depth + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[depth] }, (_, k) => build(offset + k * step, depth + 1));
  };
  return shape.length ? build(0, 0) : [];
}
