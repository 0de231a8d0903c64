// Figure 1's key to its drawing: the three relations' colours and dashes, the grey of an arc no relation
// wants, the faint ghost of a wanted pair (a target cell's outline in the grids), and, when the sentence has
// one, how a word outside the lexicon is drawn. Rebuilt with the drawing; the words of the sentence reach the
// DOM only as text.

import { isDark, relationColour, relationDash, RELATION_NAMES } from "../../lib/colours.js";
import { relationInfo } from "../../lib/relations.js";
import { clear, svg } from "../../lib/svg.js";

const KEY_W = 30;

/** A small aria-hidden SVG: a stroke across it in `stroke`'s attributes (or the caller draws into it). */
function key(draw) {
  const root = svg("svg", {
    class: "dial-legend__key",
    width: KEY_W,
    height: 14,
    viewBox: `0 0 ${KEY_W} 14`,
    "aria-hidden": "true",
    focusable: "false",
  });
  draw(root);
  return root;
}

const line = (attrs) => (root) => svg("path", { d: `M3 7H${KEY_W - 3}`, fill: "none", ...attrs }, root);

function item(list, drawKey, text, className = "") {
  const li = document.createElement("li");
  if (className) li.className = className;
  li.append(key(drawKey), text);
  list.appendChild(li);
  return li;
}

/**
 * Fill `list` with the key for the answer `data` drawn as `mode` ("lanes" or "heatmap").
 */
export function drawLegend(list, data, mode) {
  clear(list);
  for (const name of RELATION_NAMES) {
    const stroke = {
      stroke: relationColour(name),
      "stroke-width": 3,
      "stroke-dasharray": relationDash(name, 3),
      "stroke-linecap": name === "position" ? "round" : "butt",
    };
    const li = item(list, line(stroke), relationInfo(name).label.toLowerCase());
    li.dataset.relation = name;
  }
  if (mode === "heatmap") {
    item(
      list,
      (root) => {
        const outline = { fill: "none", stroke: relationColour("meaning"), "stroke-width": 1.5 };
        svg("rect", { x: 9, y: 1, width: 12, height: 12, ...outline }, root);
      },
      "outline: a pair a relation wants",
    );
  } else {
    item(list, line({ stroke: relationColour(null), "stroke-width": 3 }), "other word");
    item(
      list,
      line({ stroke: relationColour("meaning"), "stroke-width": 7, opacity: isDark() ? 0.32 : 0.2 }),
      "faint: a pair a relation wants",
    );
  }
  const bars = (root) =>
    RELATION_NAMES.forEach((name, idx) =>
      svg("rect", { x: 3, y: 1 + idx * 4.5, width: 24 - idx * 6, height: 3.5, fill: relationColour(name) }, root),
    );
  item(list, bars, "bars: the head's score on each");
  const unknown = data.tokens.filter((_, i) => !data.known[i]);
  if (unknown.length) {
    const li = item(
      list,
      (root) =>
        svg("rect", { class: "dial-legend__unknown", x: 2, y: 1, width: KEY_W - 4, height: 12, rx: 3 }, root),
      `not in the lexicon: `,
      "dial-legend__item--unknown",
    );
    const words = document.createElement("i");
    words.className = "dial-legend__words";
    words.textContent = [...new Set(unknown)].join(", ");
    li.appendChild(words);
  }
}
