// An error box drawn inside a figure: shows a message as text (role=alert) and hides itself when cleared.

export class ErrorBox {
  /** `el` is the figure's (initially hidden) error element. */
  constructor(el) {
    this.el = el;
    this.el.setAttribute("role", "alert");
    this.clear();
  }

  /** Show `message` (plain text; never parsed as HTML). */
  show(message) {
    this.el.textContent = message || "Something went wrong.";
    this.el.hidden = false;
  }

  clear() {
    this.el.textContent = "";
    this.el.hidden = true;
  }

  get visible() {
    return !this.el.hidden;
  }
}
