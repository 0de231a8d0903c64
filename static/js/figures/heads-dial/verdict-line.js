// A head's verdict drawn as one line of figure 1's SVG, under the head's name in both views (lanes-view.js,
// heatmaps-view.js): the longest wording that fits, coloured by the relation the head serves.

import { relationColour } from "../../lib/colours.js";
import { measure } from "../../lib/measure.js";
import { svg, svgText } from "../../lib/svg.js";

/**
 * Head's `verdict` (verdict.js `worded`) into `parent` at (`x`, `y`): the first of its lines that fits `room` px
 * at `size` px in `font`, else the shortest. Shortened to fit, the verdict keeps its whole wording as a tooltip
 * (on a group: the text stays its own). `attrs` are the text's other attributes.
 */
export function drawVerdictLine(parent, verdict, { x, y, size, room, font, attrs = {} }) {
  const text = verdict.lines.find((t) => measure(t, `600 ${size}px ${font}`) <= room) ?? verdict.lines.at(-1);
  const single = verdict.kind === "serves" ? verdict.relations[0] : null;
  const line = svg("g", { class: "lane__verdict-line" }, parent);
  if (text !== verdict.lines[0]) svgText("title", verdict.lines[0], {}, line);
  svgText(
    "text",
    text,
    {
      class: `lane__verdict lane__verdict--${verdict.kind}`,
      x,
      y,
      "font-size": size,
      ...attrs,
      ...(single ? { fill: relationColour(single) } : {}),
    },
    line,
  );
}
