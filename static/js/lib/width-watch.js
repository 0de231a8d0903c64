// A drawing laid out for its width, redrawn when that width changes: one ResizeObserver per drawing, deaf to
// changes under 2 px (a scrollbar coming and going) and redrawing at most once a frame. The width it keeps
// lets a figure lay out without reading layout (which would force one) each time it draws.

export class WidthWatch {
  /** Watch `el`: `px` is its width (0 before it is laid out); `redraw()` runs on the frame after a change. */
  constructor(el, redraw) {
    this.px = el.clientWidth;
    this.frame = 0;
    new ResizeObserver(() => {
      const px = el.clientWidth;
      if (Math.abs(px - this.px) < 2) return;
      this.px = px;
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => redraw());
    }).observe(el);
  }
}
