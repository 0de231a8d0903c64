// Figure 9, the blueprint: the Transformer drawn by the template, made explorable. Hovering or focusing a block
// shows a card with its job; activating a lit block (click, Enter or Space) jumps to the figure that derives it.
//
// How a jump sets another figure's state without touching its DOM: every figure mirrors its state in the query
// string and reads it when it starts, so a jump is a link. The target is the article with this page's query
// string plus the block's parameters (mask=neg_inf, gen_mode=cross) and the figure's anchor (lib/landing.js's
// jumpUrl). When the query string does not change, the figure already shows that state and the jump only lands
// (scroll, focus, held in place while the figures around it draw); when it does, the browser loads the link, the
// figure starts in the new state and the page lands on load. No widget needs to know about the blueprint.

import { follow, jumpUrl } from "../lib/landing.js";
import { Widget } from "../lib/widget.js";
import { WidthWatch } from "../lib/width-watch.js";

export { jumpUrl };

export class Blueprint extends Widget {
  constructor(figure, pageData = {}) {
    const parts = ["stage", "scroll", "scroll-hint", "card", "card-name", "card-job", "card-go"];
    super(figure, pageData, { name: "blueprint", parts });
    this.blocks = [...figure.querySelectorAll('[data-part="block"]')];
    this.jobs = new Map([...figure.querySelectorAll('[data-part="jobs"] li')].map((li) => [li.dataset.block, li]));
    this.current = null; // the block whose card is showing
  }

  start() {
    for (const block of this.blocks) {
      block.addEventListener("pointerenter", () => this.showCard(block));
      block.addEventListener("pointerleave", () => {
        if (document.activeElement !== block) this.hideCard();
      });
      block.addEventListener("focus", () => this.showCard(block));
      block.addEventListener("blur", () => this.hideCard());
      block.addEventListener("click", () => this.activate(block));
      block.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.activate(block);
        } else if (event.key === "Escape") {
          this.hideCard();
        }
      });
    }
    window.addEventListener("resize", () => this.current && this.place(this.current));
    this.showScrollHint();
    new WidthWatch(this.el.scroll, () => this.showScrollHint());
  }

  /** On a screen narrower than the drawing (blueprint.css keeps it wide enough to read), say it scrolls. */
  showScrollHint() {
    const { scroll } = this.el;
    this.el.scrollHint.hidden = scroll.scrollWidth <= scroll.clientWidth + 1;
  }

  /** A lit (or dashed) block jumps to its figure; a muted block shows its card (a tap on a phone). */
  activate(block) {
    const target = block.dataset.target;
    if (!target) {
      this.showCard(block);
      return;
    }
    const url = jumpUrl(target, JSON.parse(block.dataset.params || "{}"));
    if (window.self !== window.top) {
      // Embedded in someone's slides: the article opens in a tab of its own rather than inside the frame.
      window.open(url, "_blank", "noopener");
      return;
    }
    follow(url);
  }

  showCard(block) {
    const job = this.jobs.get(block.dataset.block);
    this.current = block;
    for (const b of this.blocks) b.classList.toggle("is-active", b === block);
    this.el.cardName.textContent = block.getAttribute("aria-label");
    this.el.cardJob.textContent = job?.textContent ?? "";
    this.el.cardGo.textContent = job?.dataset.go ? `${job.dataset.go} Click or press Enter.` : "";
    this.el.cardGo.hidden = !job?.dataset.go;
    this.el.card.hidden = false;
    this.place(block);
  }

  hideCard() {
    this.current = null;
    for (const b of this.blocks) b.classList.remove("is-active");
    this.el.card.hidden = true;
  }

  /** Put the card beside the block, inside the stage: on the drawing's outer side when there is room (so it
   * hides the other stack as little as possible), else on the inner side, else below the block. */
  place(block) {
    const stage = this.el.stage.getBoundingClientRect();
    const box = block.getBoundingClientRect();
    const card = this.el.card.getBoundingClientRect();
    const gap = 8;
    const right = box.right - stage.left + gap;
    const left = box.left - stage.left - card.width - gap;
    const fitsRight = right + card.width <= stage.width;
    const fitsLeft = left >= 0;
    const outwardLeft = box.left + box.width / 2 < stage.left + stage.width / 2;
    let x;
    let y = box.top - stage.top;
    if (outwardLeft ? fitsLeft : fitsRight) x = outwardLeft ? left : right;
    else if (fitsLeft || fitsRight) x = fitsLeft ? left : right;
    else {
      x = Math.max(0, Math.min(stage.width - card.width, box.left - stage.left));
      y = box.bottom - stage.top + gap;
    }
    y = Math.max(0, Math.min(y, stage.height - card.height));
    this.el.card.style.left = `${Math.round(x)}px`;
    this.el.card.style.top = `${Math.round(y)}px`;
  }
}

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Blueprint(figure, pageData);
  widget.start();
  return widget;
}
