// Figure 1's key to its drawing: the three relations' colours and dashes, each a button that shows, while the
// reader points at or focuses it, the pairs that relation wants (in every lane, or outlined in every grid);
// the grey of an arc no relation wants; and, when the sentence has one, how a word outside the lexicon is
// drawn. Rebuilt with the drawing; the words of the sentence reach the DOM only as text.

import { relationColour, relationDash, RELATION_NAMES } from "../../lib/colours.js";
import { relationInfo } from "../../lib/relations.js";
import { clear, svg } from "../../lib/svg.js";

const KEY_W = 30;

/** A small aria-hidden SVG: the caller draws into it. */
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
 * Fill `list` with the key for the answer `data` drawn as `mode` ("lanes" or "heatmap"); `bindRelation(el,
 * name)` makes a relation's button show that relation's pairs; `hintId` is the id of the text that says so.
 */
export function drawLegend(list, data, mode, { bindRelation, hintId }) {
  clear(list);
  for (const name of RELATION_NAMES) {
    const stroke = {
      stroke: relationColour(name),
      "stroke-width": 3,
      "stroke-dasharray": relationDash(name, 3),
      "stroke-linecap": name === "position" ? "round" : "butt",
    };
    const li = document.createElement("li");
    li.dataset.relation = name;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "dial-legend__relation";
    button.dataset.relation = name;
    if (hintId) button.setAttribute("aria-describedby", hintId);
    button.append(key(line(stroke)), relationInfo(name).label.toLowerCase());
    li.appendChild(button);
    list.appendChild(li);
    bindRelation(button, name);
  }
  if (mode === "lanes") item(list, line({ stroke: relationColour(null), "stroke-width": 3 }), "other word");
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
