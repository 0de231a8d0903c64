// The head lab's answer, drawn: under each head its eight stages (Q, K, V, scores, scaled, masked, weights,
// context) as numbered read-only matrices, then the concatenation, the output and the parameter count. Every
// number is the server's (POST /api/attention/custom); this module only lays them out.

import { formatNumber, matrixView } from "./matrix.js";

const MASK_NOTES = {
  none: "no mask: unchanged",
  neg_inf: "−∞ above the diagonal",
  zero: "0 above the diagonal (the bug)",
};

/** Draw `data` for the rows `tokens` into the editor's slots (editor.js: a block per head, the combine block). */
export function drawStages(editor, data, tokens) {
  const view = (key, title, rows, cols, extra = {}) => {
    const matrix = matrixView({ key, title, rows, rowLabels: tokens, colLabels: cols, ...extra });
    matrix.classList.add("mx--tokens");
    return matrix;
  };

  data.weights.forEach((_, k) => {
    const scaleNote = data.scale
      ? `÷ √${data.q[k][0].length} = ${formatNumber(data.sqrt_d_k[k])}`
      : "scaling off: unchanged";
    const stages = [
      view(`h${k}.q`, `Q = XW^Q_${k + 1}`, data.q[k]),
      view(`h${k}.k`, `K = XW^K_${k + 1}`, data.k[k]),
      view(`h${k}.v`, `V = XW^V_${k + 1}`, data.v[k]),
      view(`h${k}.scores`, "QK^T", data.scores[k], tokens),
      view(`h${k}.scaled`, "÷ √d_k", data.scaled[k], tokens, { note: scaleNote }),
      view(`h${k}.masked`, "mask", data.masked[k], tokens, { note: MASK_NOTES[data.mask] }),
      view(`h${k}.weights`, "softmax", data.weights[k], tokens, { heat: true, note: "rows sum to 1" }),
      view(`h${k}.context`, "· V", data.context[k]),
    ];
    stages.forEach((s, step) => {
      const num = document.createElement("span");
      num.className = "mx__step";
      num.textContent = String(step + 1);
      s.querySelector(".mx__head").prepend(num);
    });
    editor.heads[k].stages.replaceChildren(...stages);
  });

  const columns = data.context.flatMap((c, k) => c[0].map((_, j) => `h${k + 1}·${j + 1}`));
  editor.concatSlot.replaceChildren(view("concat", "Concat(head_1, …)", data.concat, columns));
  if (data.output) {
    editor.outputSlot.replaceChildren(view("output", "output = Concat · W^O", data.output));
  } else {
    const none = document.createElement("p");
    none.className = "lab-none";
    none.textContent = "No W_O: the output is the concatenation itself.";
    editor.outputSlot.replaceChildren(none);
  }

  const p = data.parameters;
  const params = document.createElement("p");
  params.className = "lab-params";
  params.dataset.part = "parameters";
  const perHead = p.per_head.map((c, k) => `head ${k + 1}: ${c}`).join(", ");
  params.textContent = `Weights: ${perHead}${data.output ? `, W_O: ${p.w_o}` : ""}; ${p.total} in all.`;
  editor.combineBlock.stages.replaceChildren(params);
}
