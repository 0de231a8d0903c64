// Which word of a drawing is in focus: the one under the pointer or holding the keyboard's focus. A figure
// binds each word's element and hears when the word in focus changes, so that it can restyle, never rebuild.

export class TokenFocus {
  /** `change(i)` hears the word now in focus (its index, or null for none) whenever that changes. */
  constructor(change) {
    this.change = change;
    this.index = null;
    this.els = [];
  }

  /** Forget the words bound so far (their drawing is being replaced): no word is in focus. */
  reset() {
    this.index = null;
    this.els = [];
  }

  /** Watch `el`, the element of word `i`: pointing at it or focusing it puts the word in focus. */
  bind(el, i) {
    el.addEventListener("pointerenter", () => this.set(i));
    el.addEventListener("pointerleave", () => {
      if (document.activeElement !== el) this.set(null);
    });
    el.addEventListener("focus", () => this.set(i));
    el.addEventListener("blur", () => this.set(null));
    this.els[i] = el;
  }

  /** Put word `i` in focus (null: none). */
  set(i) {
    if (this.index === i) return;
    this.index = i;
    this.change(i);
  }

  /** Give the element of the word in focus, and no other, the class is-focus. */
  mark() {
    this.els.forEach((el, i) => el.classList.toggle("is-focus", i === this.index));
  }
}
