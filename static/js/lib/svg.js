// SVG helpers: create elements in the SVG namespace and set their attributes in one call.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Set every attribute in `attrs` on `el` (null or undefined removes the attribute); returns `el`. */
export function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) el.removeAttribute(name);
    else el.setAttribute(name, String(value));
  }
  return el;
}

/** A new SVG element `tag` with `attrs`, appended to `parent` when one is given. */
export function svg(tag, attrs = {}, parent = null) {
  const el = setAttrs(document.createElementNS(SVG_NS, tag), attrs);
  if (parent) parent.appendChild(el);
  return el;
}

/** An SVG <text> (or <title>, <tspan>) whose content is set as text, never parsed as markup. */
export function svgText(tag, text, attrs = {}, parent = null) {
  const el = svg(tag, attrs, parent);
  el.textContent = text;
  return el;
}

/** Remove all children of `el`. */
export function clear(el) {
  el.replaceChildren();
  return el;
}

/** Round to 0.1 so path strings stay short. */
export const r1 = (x) => Math.round(x * 10) / 10;
