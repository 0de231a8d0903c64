// The row of head chips a figure isolates a head with: one toggle button per head, with its swatch and name.
// Rebuilt only when the head count or the colour scheme changes; pressing a chip and fading the others only
// rewrite attributes.

import { isDark } from "./colours.js";
import { clear } from "./svg.js";
import { headSwatch } from "./swatch.js";

export class HeadChips {
  /** `el`: the chips' container; `press(k)` hears a press of head k's chip (0-based). */
  constructor(el, press) {
    this.el = el;
    el.addEventListener("click", (event) => {
      const chip = event.target.closest("button[data-head]");
      if (chip) press(Number(chip.dataset.head));
    });
  }

  /** One chip per head for `h` heads, unless they are there already (in this colour scheme). */
  draw(h) {
    const scheme = isDark() ? "dark" : "light";
    if (this.el.childElementCount === h && this.el.dataset.scheme === scheme) return;
    this.el.dataset.scheme = scheme;
    clear(this.el);
    for (let k = 0; k < h; k++) {
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = "head-chip";
      chip.dataset.head = String(k);
      chip.setAttribute("aria-pressed", "false");
      chip.append(headSwatch(k), `Head ${k + 1}`);
      this.el.appendChild(chip);
    }
  }

  /** Show head `iso` (0-based) isolated: its chip pressed, the others faded; null: none. */
  isolate(iso) {
    for (const chip of this.el.querySelectorAll("button[data-head]")) {
      const k = Number(chip.dataset.head);
      chip.setAttribute("aria-pressed", String(k === iso));
      chip.classList.toggle("is-faded", iso !== null && k !== iso);
    }
  }
}
