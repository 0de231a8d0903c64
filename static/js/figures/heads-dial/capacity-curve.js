// Figure 1's capacity curve, from the page data: the final training loss of the layer trained at each head
// count (both axes logarithmic), the dial's current count marked, and the head spread measured at that count.
// Under it, what the curve shows in one or two sentences; how it was measured folds away (`method`).

import { chart, drawLogAxis, formatLoss, logScale } from "../../lib/log-axis.js";
import { fontFamily, measure } from "../../lib/measure.js";
import { clear, r1, setAttrs, svg, svgText } from "../../lib/svg.js";
import { plural } from "./words.js";

export class CapacityCurve {
  /** `capacity`: the page data's record ({d_model, heads: [{heads, head_width, final_loss, …}], …}). */
  constructor({ box, text, spread, method }, capacity) {
    this.box = box;
    this.text = text;
    this.spread = spread;
    this.method = method;
    this.capacity = capacity;
    this.points = capacity?.heads ?? [];
    this.mark = null; // the current head count's ring and label, once drawn
    // The width of the layer the record trained: stated there, else heads × head width of any point.
    this.dModel = capacity?.d_model ?? (this.points[0] ? this.points[0].heads * this.points[0].head_width : null);
  }

  /** Draw the curve to the box's width (or hide its panel when the page data has none). */
  draw() {
    const { box, points } = this;
    if (!points.length) {
      box.closest(".panel").hidden = true;
      return;
    }
    clear(box);
    const width = Math.max(260, Math.min(520, box.clientWidth || 420));
    const height = 170;
    const m = { left: 48, right: 14, top: 26, bottom: 50 };
    const losses = points.map((p) => p.final_loss).filter((x) => x > 0);
    const xMax = Math.max(...points.map((p) => Math.log2(p.heads))) || 1;
    const pad = 12; // keeps the first tick clear of the row titles
    const X = (h) => m.left + pad + (Math.log2(h) / xMax) * (width - m.left - m.right - pad);
    // Losses span orders of magnitude, so the y-axis is logarithmic too.
    const lo = Math.log10(Math.min(...losses) / 1.5);
    const hi = Math.log10(Math.max(...losses) * 1.3);
    const Y = logScale(lo, hi, m.top, height - m.bottom);

    const label =
      "Final training loss by head count: " +
      points.map((p) => `${plural(p.heads, "head")} ${formatLoss(p.final_loss)}`).join(", ");
    const { root, axes } = chart("capacity", width, height, label);
    drawLogAxis(axes, { lo, hi, y: Y, left: m.left, right: width - m.right, title: "final training loss (log scale)" });
    const base = height - m.bottom;
    const tick = (text, attrs) => svgText("text", text, attrs, axes);
    // Counts close together on the log scale (12 and 16 of a narrow chart) would print over each other: such a
    // tick keeps its mark and loses its labels (the ring's label and the slider still name every count).
    const font = `700 11px ${fontFamily(box)}`;
    const room = (p) => Math.max(measure(String(p.heads), font), measure(String(p.head_width), font));
    let last = null;
    for (const p of points) {
      const px = r1(X(p.heads));
      svg("line", { class: "chart__tickmark", x1: px, x2: px, y1: base, y2: base + 4 }, axes);
      if (last && px - X(last.heads) < (room(p) + room(last)) / 2 + 4) continue;
      last = p;
      const at = { x: px, "text-anchor": "middle" };
      tick(String(p.heads), { class: "chart__tick chart__tick--x", ...at, y: base + 15, "data-heads": p.heads });
      tick(String(p.head_width), { class: "chart__tick chart__tick--width", ...at, y: base + 29 });
    }
    tick("heads", { class: "chart__tick", x: m.left - 6, y: base + 15, "text-anchor": "end" });
    tick("width", { class: "chart__tick chart__tick--width", x: m.left - 6, y: base + 29, "text-anchor": "end" });
    tick(`heads on a log scale; width = ${this.dModel} / heads`, {
      class: "chart__tick chart__axis-title",
      x: m.left,
      y: height - 4,
    });

    const line = points.map((p, idx) => `${idx ? "L" : "M"}${r1(X(p.heads))} ${r1(Y(p.final_loss))}`).join("");
    svg("path", { class: "chart__line", d: line, fill: "none" }, root);
    this.dots = new Map();
    for (const p of points) {
      const dot = svg("circle", { class: "chart__dot", cx: r1(X(p.heads)), cy: r1(Y(p.final_loss)), r: 3.5 }, root);
      this.dots.set(p.heads, dot);
    }
    const mark = svg("g", { class: "chart__current" }, root);
    this.mark = {
      ring: svg("circle", { class: "chart__ring", r: 7 }, mark),
      label: svgText("text", "", { class: "chart__label", "text-anchor": "middle" }, mark),
      X,
      Y,
      width,
      top: m.top,
    };
    box.appendChild(root);
    this.text.textContent = `Stored from training, not your sentence${this.finding()}`;
    if (this.method) {
      const sentences = this.capacity.heldout_sentences;
      this.method.textContent =
        `Each point is the same ${this.dModel}-wide layer, trained from scratch with the dial at that count ` +
        "(python -m training.train_relations); lower loss means it delivers the three relations better. " +
        `Head spread: how differently the heads look${sentences ? `, over ${sentences} held-out sentences` : ""}; ` +
        "0 when every head looks at the same words, 1 when no two heads overlap.";
    }
  }

  /** Where the loss is lowest, against one head, and whether the narrowest heads lose it again, as the end of
   *  a sentence (the numbers are the ring's label, which follows the dial: the words say where to look). */
  finding() {
    const { points } = this;
    const best = points.reduce((a, b) => (b.final_loss < a.final_loss ? b : a));
    const one = points.find((p) => p.heads === 1);
    const last = points[points.length - 1];
    if (!one || best.heads === 1) return ".";
    const lowest = `: lowest at ${plural(best.heads, "head")} of width ${best.head_width}`;
    if (last.heads !== best.heads && last.final_loss > 2 * best.final_loss) {
      return `${lowest}, up again at ${plural(last.heads, "head")} of width ${last.head_width}.`;
    }
    return `${lowest}.`;
  }

  /** Mark head count `h` on the curve and write the head spread measured there. */
  highlight(h) {
    const p = this.points.find((q) => q.heads === h);
    if (this.mark && p) {
      const { ring, label, X, Y, width, top } = this.mark;
      const cx = X(h);
      const cy = Y(p.final_loss);
      setAttrs(ring, { cx: r1(cx), cy: r1(cy) });
      if (cy - 12 < top + 2) {
        // Above the ring the label would run into the axis title: beside it instead, on the side with room.
        const right = cx < width - 110;
        setAttrs(label, { x: r1(right ? cx + 11 : cx - 11), y: r1(cy + 4), "text-anchor": right ? "start" : "end" });
      } else {
        const anchor = cx > width - 60 ? "end" : cx < 90 ? "start" : "middle";
        setAttrs(label, {
          x: r1(anchor === "end" ? cx + 6 : anchor === "start" ? cx - 6 : cx),
          y: r1(cy - 12),
          "text-anchor": anchor,
        });
      }
      label.textContent = `${plural(h, "head")}: ${formatLoss(p.final_loss)}`;
      for (const [heads, dot] of this.dots) dot.classList.toggle("is-current", heads === h);
      for (const tick of this.box.querySelectorAll(".chart__tick--x")) {
        tick.classList.toggle("is-current", Number(tick.dataset.heads) === h);
      }
    }
    this.spread.textContent = p ? this.spreadText(p, h) : "";
  }

  /** The head spread at head count `h` (point `p`), trained and untrained, in words. */
  spreadText(p, h) {
    if (h === 1) return "Head spread (how differently the heads look): with one head there is nothing to compare.";
    const trained = p.heldout?.head_spread;
    const untrained = p.untrained_head_spread;
    if (typeof trained !== "number" || typeof untrained !== "number") return "";
    return (
      `Head spread at ${plural(h, "head")} (0: all alike, 1: no overlap): trained ${trained.toFixed(2)}, ` +
      `untrained ${untrained.toFixed(2)}.`
    );
  }
}
