// Which relation's wanted pairs figure 1 shows: the one whose control (its entry in the key, its item in the
// relation list) the reader points at or has focused. Pointing shows, leaving hides (unless a control still
// holds the focus), focus shows, blur hides, Escape hides. Like lib/token-focus.js for words: the figure hears
// each change and restyles, never rebuilds.

export class RelationFocus {
  /** `change(name)` hears the relation now shown (its name, or null for none) whenever that changes. */
  constructor(change) {
    this.change = change;
    this.name = null; // the relation shown
    this.focused = null; // the relation whose control holds the keyboard focus
    this.els = [];
  }

  /** Forget the controls bound so far (their drawing is being replaced): no relation is shown. */
  reset() {
    this.name = null;
    this.focused = null;
    this.els = [];
  }

  /** Watch `area` (pointer) and `control` (focus; `area` itself by default), both of relation `name`. */
  bind(area, name, control = area) {
    area.addEventListener("pointerenter", () => this.set(name));
    area.addEventListener("pointerleave", () => this.set(this.focused));
    control.addEventListener("focus", () => {
      this.focused = name;
      this.set(name);
    });
    control.addEventListener("blur", () => {
      this.focused = null;
      this.set(null);
    });
    this.els.push({ el: area, name });
  }

  /** Escape: hide whatever is shown (the focus stays where it is). */
  escape() {
    this.focused = null;
    this.set(null);
  }

  /** Show relation `name`'s pairs (null: none). */
  set(name) {
    if (this.name === name) return;
    this.name = name;
    this.change(name);
  }

  /** Give the controls of the relation shown, and no other, the class is-showing. */
  mark() {
    for (const { el, name } of this.els) el.classList.toggle("is-showing", name === this.name);
  }
}
