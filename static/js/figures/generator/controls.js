// Figure 5's view controls: the Attention radios (in the page), a radio per decoder layer and a chip per head
// (built for the model's shape), and the hint that names the layer best aligned with the English.

import { isDark } from "../../lib/colours.js";
import { element } from "../../lib/dom.js";
import { clear } from "../../lib/svg.js";
import { headSwatch } from "../../lib/swatch.js";
import { layerIndex, pct } from "./view.js";

/** The head (1-based) a chip stands for; null for the Average chip. */
export const chipHead = (chip) => (chip.dataset.head === "mean" ? null : Number(chip.dataset.head) + 1);

/** A radio per layer (★ on the best aligned) and the chips: rebuilt only when the model's shape or the colour
 * scheme changes. `el`: the figure's parts `layers` and `chips`. */
export function buildChoices(el, { layers, heads, best_layer: best }) {
  const box = el.layers;
  if (box.childElementCount !== layers || box.dataset.best !== String(best)) {
    box.dataset.best = String(best);
    clear(box);
    for (let l = 1; l <= layers; l++) {
      const input = element("input");
      Object.assign(input, { type: "radio", name: "generator-layer", value: String(l) });
      input.dataset.part = "layer";
      const span = element("span", "", `layer ${l}`);
      if (l - 1 === best) {
        const mark = span.appendChild(element("small", "gen-best", " ★"));
        mark.setAttribute("aria-hidden", "true");
      }
      const label = element("label", "segmented__option");
      label.append(input, span);
      box.appendChild(label);
    }
  }
  const chips = el.chips;
  const scheme = isDark() ? "dark" : "light";
  if (chips.childElementCount !== heads + 1 || chips.dataset.scheme !== scheme) {
    chips.dataset.scheme = scheme;
    clear(chips);
    const chip = (head, className, ...content) => {
      const button = element("button", className);
      button.type = "button";
      button.dataset.head = head;
      button.append(...content);
      chips.appendChild(button);
    };
    chip("mean", "head-chip gen-chip--mean", "Average");
    for (let k = 0; k < heads; k++) chip(String(k), "head-chip", headSwatch(k), `Head ${k + 1}`);
  }
}

/** Radios and chips from the state: cheap, done on every change. */
export function showChoices(el, modes, data, state) {
  for (const radio of modes) radio.checked = radio.value === state.mode;
  const layer = layerIndex(data, state) + 1;
  for (const radio of el.layers.querySelectorAll("input")) radio.checked = Number(radio.value) === layer;
  for (const chip of el.chips.querySelectorAll("button[data-head]")) {
    chip.setAttribute("aria-pressed", String(chipHead(chip) === state.head));
  }
}

/** The layer hint: every layer's alignment once the model's record is here, else the best layer alone. */
export function layerHint(data, about) {
  const byLayer = about?.alignment_by_layer;
  if (byLayer?.length === data.layers) {
    return `★ best aligned with the English: ${byLayer.map((a, l) => `layer ${l + 1} ${pct(a)}`).join(", ")}`;
  }
  return `★ layer ${data.best_layer + 1}: the best aligned with the English`;
}
