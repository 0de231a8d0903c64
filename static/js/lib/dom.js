// HTML elements built in one call, as lib/svg.js builds SVG ones: text is always set as text, never parsed.

/** A new `tag` element with `className` and, when given, `text` as its text. */
export function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}
