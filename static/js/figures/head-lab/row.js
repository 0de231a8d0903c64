// The head lab's chosen row: the radios that pick a token, and its row picked out in every matrix that has one
// row per token. Choosing a token only moves this highlight and redraws the comparison (compare.js).

import { segmentedOption } from "../../lib/dom.js";
import { clear } from "../../lib/svg.js";

/** The radio group (`group`) that chooses whose row is highlighted: one radio per name, `chosen` checked. */
export function renderTokenRadios(group, names, chosen) {
  const list = group.querySelector(".token-radios");
  const existing = [...list.querySelectorAll("input")];
  if (existing.length === names.length) {
    existing.forEach((input, i) => {
      input.nextSibling.textContent = names[i];
      input.checked = i === chosen;
    });
    return;
  }
  clear(list);
  names.forEach((name, i) => {
    const label = segmentedOption("head-lab-token", i, name, i === chosen);
    list.appendChild(label);
  });
}

/** Pick out row `chosen` (0-based) in `body`'s per-token matrices and check its radio in `group`. */
export function highlightRow(body, group, chosen) {
  for (const tr of body.querySelectorAll(".mx--tokens tr[data-row], [data-matrix=x] tr[data-row]")) {
    tr.classList.toggle("is-chosen", Number(tr.dataset.row) === chosen);
  }
  const radio = group.querySelector(`input[value="${chosen}"]`);
  if (radio) radio.checked = true;
}
