// A figure's drawings as one standalone SVG (each with its computed styles written onto it, so it looks right
// without the page's CSS) and as a PNG: what the toolbar's SVG and PNG buttons save (figure-tools.js).

import { SVG_NS } from "./svg.js";

// Computed styles copied onto the exported SVG as presentation attributes, so it looks right without the page's CSS.
const STYLE_PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "stroke-linecap",
  "stroke-linejoin",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "text-anchor",
  "dominant-baseline",
  "visibility",
  "display",
];

/** The figure's drawings worth exporting: its visible SVGs of a useful size, in document order. */
function mainSvgs(figure) {
  return [...figure.querySelectorAll("svg")].filter((el) => {
    if (el.closest(".figure-tools, .figure-numbers") || el.parentElement?.closest("svg")) return false;
    const box = el.getBoundingClientRect();
    return box.width >= 60 && box.height >= 40;
  });
}

/** A copy of `source` (an SVG subtree) whose elements carry their computed styles as attributes. */
function inlineStyles(source) {
  const copy = source.cloneNode(true);
  const from = [source, ...source.querySelectorAll("*")];
  const to = [copy, ...copy.querySelectorAll("*")];
  from.forEach((el, i) => {
    const target = to[i];
    target.removeAttribute("class");
    const style = getComputedStyle(el);
    for (const prop of STYLE_PROPS) {
      const value = style.getPropertyValue(prop);
      if (value) target.setAttribute(prop, value);
    }
  });
  return copy;
}

/**
 * A drawing's size on the page, grown to take in what it draws past its box: a label may run over its edge
 * (CSS overflow: visible), and the export keeps it whole ("row sum" lost its foot and its last letter).
 */
function drawnExtent(el) {
  const box = el.getBoundingClientRect();
  let content = null;
  try {
    content = el.getBBox(); // in the drawing's own units
  } catch {
    return { width: box.width, height: box.height };
  }
  const view = el.viewBox?.baseVal;
  const scale = view && view.width > 0 ? box.width / view.width : 1;
  const right = (content.x + content.width - (view?.x ?? 0)) * scale;
  const bottom = (content.y + content.height - (view?.y ?? 0)) * scale;
  return { width: Math.max(box.width, right), height: Math.max(box.height, bottom) };
}

/** One standalone SVG document holding the figure's drawings stacked, on the page's background colour. */
export function figureSvg(figure) {
  const drawings = mainSvgs(figure);
  if (!drawings.length) return null;
  const gap = 16;
  const boxes = drawings.map((el) => el.getBoundingClientRect());
  const extents = drawings.map(drawnExtent); // what each draws, labels past its box included
  const width = Math.ceil(Math.max(...extents.map((b) => b.width)));
  const height = Math.ceil(extents.reduce((sum, b) => sum + b.height, 0) + gap * (extents.length - 1));
  const root = document.createElementNS(SVG_NS, "svg");
  root.setAttribute("xmlns", SVG_NS);
  root.setAttribute("width", String(width));
  root.setAttribute("height", String(height));
  root.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const title = document.createElementNS(SVG_NS, "title");
  title.textContent = figure.querySelector("figcaption")?.textContent.replace(/\s+/g, " ").trim() ?? "";
  root.appendChild(title);
  const background = document.createElementNS(SVG_NS, "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", getComputedStyle(figure).backgroundColor || "#ffffff");
  root.appendChild(background);
  let y = 0;
  drawings.forEach((el, i) => {
    const copy = inlineStyles(el);
    copy.setAttribute("x", "0");
    copy.setAttribute("y", String(Math.round(y)));
    copy.setAttribute("width", String(Math.round(boxes[i].width)));
    copy.setAttribute("height", String(Math.round(boxes[i].height)));
    // A drawing on the page may let a label run past its box (CSS overflow: visible); a nested SVG clips to
    // its box unless told not to, which cut the foot of "row sum" in the PNG.
    copy.setAttribute("overflow", "visible");
    root.appendChild(copy);
    y += extents[i].height + gap;
  });
  return { root, width, height };
}

/** `root` as an SVG file's text. */
export function svgText(root) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(root)}`;
}

/** The figure's drawing as a PNG blob at twice its size (drawn from a data: URL, which the CSP allows). */
export function pngBlob({ root, width, height }) {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const scale = 2;
      const canvas = document.createElement("canvas");
      canvas.width = width * scale;
      canvas.height = height * scale;
      const ctx = canvas.getContext("2d");
      ctx.scale(scale, scale);
      ctx.drawImage(image, 0, 0, width, height);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no PNG"))), "image/png");
    };
    image.onerror = () => reject(new Error("the drawing could not be rendered"));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText(root))}`;
  });
}
