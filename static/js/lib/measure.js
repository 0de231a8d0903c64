// Text measuring for drawings laid out before they are drawn: the font family an element draws in, how wide a
// label is in a given CSS font, and a label cut short with an ellipsis to fit a width. One offscreen canvas
// serves the whole page.

let context = null;

/** Width of `text` in px for a CSS `font` (e.g. "12px sans-serif"), measured on an offscreen canvas. */
export function measure(text, font) {
  context ??= document.createElement("canvas").getContext("2d");
  context.font = font;
  return context.measureText(text).width;
}

/** `text`, shortened with an ellipsis until it fits in `maxWidth` px in `font`. */
export function fitLabel(text, maxWidth, font) {
  if (measure(text, font) <= maxWidth) return text;
  let cut = text;
  while (cut.length > 1 && measure(`${cut}…`, font) > maxWidth) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The CSS font family `el` draws its text in (reading it forces a style calculation: read it once a draw). */
export const fontFamily = (el) => getComputedStyle(el).fontFamily || "sans-serif";
