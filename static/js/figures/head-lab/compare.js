// The head lab's comparison above the grids: a card per head with the chosen token's row as arcs (lib/arcs.js)
// and where it looks most (or that it spreads evenly, lib/row-words.js), then the tie note, written from the
// server's head 1 against head 2 difference.

import { drawRowArcs } from "../../lib/arcs.js";
import { formatNumber } from "./matrix.js";
import { rowFocus } from "../../lib/row-words.js";
import { headDot } from "../../lib/swatch.js";

/** Fill `compare` with a card per head of `data` for token `i` (0-based) of `tokens`. */
export function drawCompare(compare, data, tokens, i) {
  const cards = data.weights.map((w, k) => {
    const card = document.createElement("div");
    card.className = "lab-compare__card";
    card.dataset.head = String(k);
    const title = document.createElement("p");
    title.className = "lab-compare__title";
    title.append(headDot(k), `Head ${k + 1}`);
    const focus = rowFocus(w[i]);
    const summary = document.createElement("p");
    summary.className = "lab-compare__summary";
    summary.dataset.even = String(focus.even);
    // The weights themselves are written under the arcs: the summary names the word, not the number again.
    summary.textContent = focus.even
      ? `“${tokens[i]}” spreads its attention evenly over ${focus.count} tokens`
      : `“${tokens[i]}” looks most at “${tokens[focus.j]}”`;
    card.append(title, summary);
    return card;
  });
  compare.replaceChildren(...cards);
  // Drawn at the width the cards got, so the words stay legible on a phone (one layout read per draw).
  const width = Math.max(200, (cards[0]?.clientWidth ?? 400) - 26);
  cards.forEach((card, k) => {
    const row = data.weights[k][i];
    const described = row.map((w, j) => `${tokens[j]} ${formatNumber(w)}`).join(", ");
    const label = `Head ${k + 1}, the row of ${tokens[i]}: ${described}`;
    const arcs = drawRowArcs({ tokens, row, query: i, head: k, width, format: formatNumber, label });
    card.insertBefore(arcs, card.lastChild);
  });
}

/** The tie note: how far head 1's and head 2's context vectors are apart (`data.head_difference`). */
export function writeTieNote(note, data, tied) {
  if (data.context.length < 2) {
    note.textContent = "Add a second head to compare two heads.";
    return;
  }
  const diff = data.head_difference;
  note.dataset.diff = diff === null ? "" : String(diff);
  if (tied) {
    note.textContent =
      `Tied: head 2 uses head 1's W_Q, W_K and W_V, so its weights and context vectors are identical to ` +
      `head 1's (largest difference: ${diff === 0 ? "exactly 0" : formatNumber(diff)}).`;
  } else if (diff === null) {
    note.textContent = "Head 1 and head 2 have different value widths, so their context vectors differ in shape.";
  } else {
    note.textContent = `Head 1's and head 2's context vectors differ by up to ${formatNumber(diff)}.`;
  }
}
