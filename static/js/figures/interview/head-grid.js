// Figure 7's grid of every head, layer by layer: each cell coloured by the head's share of weight on the future
// (or by its entropy, as the reader chooses) and marked with the fingerprint it carries. A click, Enter or the
// arrow keys pick the head that diagnosis.js draws below it.

import { headColour } from "../../lib/colours.js";
import { counted } from "../../lib/counts.js";
import { element, segmentedOption } from "../../lib/dom.js";
import { r1, svg, svgText } from "../../lib/svg.js";
import { VERDICT_COLOUR, headName, signatureMark, signatureMarks, signatureText } from "./signatures.js";

/** The grid of a diagnosis `answer`, drawn into a part of the page; `onPick(layer, head)` hears each pick. The
 * colour choice is kept between redraws. */
export class HeadGrid {
  constructor(answer, onPick) {
    this.answer = answer;
    this.onPick = onPick;
    this.colourBy = "future";
  }

  get layers() {
    return this.answer.grid.signature.length;
  }

  get heads() {
    return this.answer.grid.signature[0].length;
  }

  /** The grid: a cell per head (layers down, heads across), its colour the chosen figure, its mark the
   * fingerprint; a click, Enter or the arrow keys pick the head drawn below. */
  draw(part, boxWidth, [layer, head]) {
    [this.layer, this.head] = [layer, head];
    const { grid } = this.answer;
    const [L, H] = [this.layers, this.heads];
    part.appendChild(element("h4", "upload-grid__title", `Every head: ${counted(L, "layer")} × ${counted(H, "head")}`));

    // The colour choice, as templates/macros.html's `segmented` writes one.
    const controls = element("fieldset", "control upload-grid__controls");
    controls.setAttribute("role", "radiogroup");
    controls.setAttribute("aria-label", "Colour by");
    controls.appendChild(element("legend", "", "Colour by"));
    const choice = element("div", "segmented");
    for (const [value, text] of [
      ["future", "future mass"],
      ["entropy", "entropy"],
    ]) {
      const option = segmentedOption("upload-colour", value, text, value === this.colourBy);
      option.querySelector("input").addEventListener("change", () => {
        this.colourBy = value;
        this.paint();
      });
      choice.appendChild(option);
    }
    controls.appendChild(choice);
    part.appendChild(controls);

    const width = Math.max(240, boxWidth - 4);
    const left = 64;
    const top = 22;
    const cell = Math.max(5, Math.min(30, Math.floor((width - left) / H), Math.floor(560 / L)));
    // Label every k-th head when cells are narrower than "H12" at 11 px (about 7 px a character), and every
    // k-th layer when they are shorter than a line.
    const everyHead = Math.ceil((8 + 7 * (1 + String(H).length)) / cell);
    const everyLayer = Math.ceil(13 / cell);
    const root = svg("svg", {
      class: "upload-grid__svg",
      width: left + H * cell + 2,
      height: top + L * cell + 2,
      role: "group",
      "aria-label":
        `Every head's fingerprint, ${counted(L, "layer")} by ${counted(H, "head")}: ` +
        "click a head, or focus here and use the arrow keys; the head is drawn below",
      tabindex: 0,
    });
    for (let h = 0; h < H; h += everyHead) {
      const at = { class: "upload-grid__axis", x: r1(left + (h + 0.5) * cell), y: 14, "text-anchor": "middle" };
      svgText("text", `H${h + 1}`, at, root);
    }
    for (let l = 0; l < L; l += everyLayer) {
      const at = { class: "upload-grid__axis", x: left - 6, y: r1(top + (l + 0.5) * cell), "text-anchor": "end" };
      svgText("text", `layer ${l + 1}`, { ...at, "dominant-baseline": "central" }, root);
    }
    this.cells = [];
    const side = Math.max(1, cell - (cell > 6 ? 1 : 0));
    for (let l = 0; l < L; l++) {
      const row = [];
      for (let h = 0; h < H; h++) {
        const signature = grid.signature[l][h];
        const verdict = grid.verdict[l][h];
        const data = { "data-layer": l, "data-head": h, "data-signature": signature };
        const g = svg("g", { class: `upload-cell upload-cell--${verdict}`, ...data }, root);
        const rect = svg("rect", { x: left + h * cell, y: top + l * cell, width: side, height: side }, g);
        svg("title", {}, g).textContent = `${headName(l, h)}: ${signatureText(signature)}`;
        const mark = signatureMark(signature);
        if (mark && cell >= 12) {
          const [x, y] = [r1(left + (h + 0.5) * cell), r1(top + (l + 0.5) * cell)];
          const at = { class: "upload-cell__mark", x, y, "text-anchor": "middle", "dominant-baseline": "central" };
          svgText("text", mark, { ...at, "font-size": Math.min(14, cell * 0.6) }, g);
        }
        g.addEventListener("click", () => this.onPick(l, h));
        row.push({ g, rect });
      }
      this.cells.push(row);
    }
    this.cursor = svg("rect", { class: "upload-grid__cursor", width: cell + 1, height: cell + 1 }, root);
    this.geometry = { left, top, cell };
    root.addEventListener("keydown", (event) => this.key(event));
    const wrap = element("div", "upload-grid__wrap");
    wrap.appendChild(root);
    part.appendChild(wrap);
    part.appendChild(this.legend());
    this.paint();
  }

  /** Each cell's fill: future mass (vermillion, as the leak meter) or entropy as a share of log n (blue). */
  paint() {
    const { grid } = this.answer;
    const n = this.answer.shape[this.answer.shape.length - 1];
    const most = Math.max(...grid.future_mass.flat());
    this.cells.forEach((row, l) =>
      row.forEach(({ rect }, h) => {
        const signature = grid.signature[l][h];
        const verdict = grid.verdict[l][h];
        let colour;
        let opacity;
        if (this.colourBy === "entropy") {
          colour = headColour(0);
          opacity = 0.08 + 0.92 * Math.min(1, (grid.entropy[l][h] ?? 0) / Math.log(n)); // null: no valid row
        } else {
          colour = headColour(VERDICT_COLOUR[verdict]);
          const mass = grid.future_mass[l][h] ?? 0; // null: every row NaN or empty
          opacity = verdict === "leaks" ? 0.3 + 0.7 * Math.sqrt(mass / most) : verdict === "broken" ? 0.55 : 0.12;
        }
        rect.setAttribute("fill", colour);
        rect.style.setProperty("fill-opacity", opacity.toFixed(3));
      }),
    );
    this.place(this.layer, this.head);
  }

  legend() {
    const counts = this.answer.signatures ?? {};
    const list = element("ul", "upload-grid__legend");
    for (const [name, mark] of signatureMarks()) {
      if (!counts[name]) continue;
      const item = element("li");
      if (mark) item.appendChild(element("b", "upload-grid__legend-mark", mark));
      item.append(element("code", "", name), ` ${counted(counts[name], "head")}: ${signatureText(name)}`);
      list.appendChild(item);
    }
    return list;
  }

  /** Mark the head at (`layer`, `head`) as the one drawn below. */
  place(layer, head) {
    [this.layer, this.head] = [layer, head];
    const { left, top, cell } = this.geometry;
    this.cursor.setAttribute("x", left + this.head * cell - 0.5);
    this.cursor.setAttribute("y", top + this.layer * cell - 0.5);
    for (const row of this.cells) for (const { g } of row) g.classList.remove("is-picked");
    this.cells[this.layer][this.head].g.classList.add("is-picked");
  }

  key(event) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const layer = Math.max(0, Math.min(this.layers - 1, this.layer + move[0]));
    const head = Math.max(0, Math.min(this.heads - 1, this.head + move[1]));
    this.onPick(layer, head);
  }
}
