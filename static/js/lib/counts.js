// Counts in words, the one way the page writes them: "1 layer", "12 layers", "2,048 heads".

/** `n` and its noun, in the singular for one; thousands grouped with commas. */
export const counted = (n, one, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
