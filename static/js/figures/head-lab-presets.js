// The head lab's presets: embeddings, each head's projections (rows are input dimensions) and W_O.

const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
const times = (m, s) => m.map((row) => row.map((x) => x * s));

// k_j = 3 e_{j+1}: a key that announces "the word before me is here", so q_i · k_j is large when j = i - 1.
const NEXT = [
  [0, 3, 0, 0],
  [0, 0, 3, 0],
  [0, 0, 0, 3],
  [0, 0, 0, 0],
];

export const PRESETS = {
  journey: {
    label: "Your journey starts with one step",
    tokens: ["Your", "journey", "starts", "with", "one", "step"],
    x: [
      [0.43, 0.15, 0.89],
      [0.55, 0.87, 0.66],
      [0.57, 0.85, 0.64],
      [0.22, 0.58, 0.33],
      [0.77, 0.25, 0.1],
      [0.05, 0.8, 0.55],
    ],
    heads: [
      {
        wq: [
          [0.2961, 0.5166],
          [0.2517, 0.6886],
          [0.074, 0.8665],
        ],
        wk: [
          [0.1366, 0.1025],
          [0.1841, 0.7264],
          [0.3153, 0.6871],
        ],
        wv: [
          [0.0756, 0.1966],
          [0.3164, 0.4017],
          [0.1186, 0.8274],
        ],
      },
      // Hand-set: queries and keys read only the third coordinate, values deliver the first two.
      {
        wq: [[0], [0], [3]],
        wk: [[0], [0], [3]],
        wv: [
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      },
    ],
    // Averages the two heads' context vectors.
    wo: [
      [0.5, 0],
      [0, 0.5],
      [0.5, 0],
      [0, 0.5],
    ],
    token: 2,
  },
  previous: {
    label: "One-hot words: itself and the word before",
    tokens: ["the", "cat", "sat", "down"],
    x: identity(4),
    heads: [
      { wq: times(identity(4), 3), wk: times(identity(4), 3), wv: identity(4) },
      { wq: times(identity(4), 3), wk: NEXT, wv: identity(4) },
    ],
    wo: null,
    token: 3,
  },
};

export const DEFAULT_PRESET = "journey";
