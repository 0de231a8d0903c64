// Figure 11's grid of thumbnails: a small attention map per head, a row per layer, each a button that opens
// its head. The maps are painted into <canvas> elements (one ImageData each), not SVG cells: 72 maps of up to
// ~70 x 70 pieces would otherwise be hundreds of thousands of nodes. The grid is one Tab stop; arrow keys move.

import { headColour } from "../../lib/colours.js";

const THUMB_PX = 96; // a thumbnail's canvas is painted at least this many pixels wide (then scaled by CSS)

/** "r,g,b" of a CSS hex colour. */
function rgb(hex) {
  const v = Number.parseInt(hex.replace("#", ""), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** Paint `weights` (n x n) onto `canvas` as blocks of `colour`, alpha growing with the weight. */
export function paintThumbnail(canvas, weights, colour) {
  const n = weights.length;
  const k = Math.max(1, Math.ceil(THUMB_PX / n)); // pixels per cell
  const size = n * k;
  if (canvas.width !== size) canvas.width = canvas.height = size;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(size, size);
  const px = image.data;
  const [r, g, b] = rgb(colour);
  for (let i = 0; i < n; i++) {
    const row = weights[i];
    for (let j = 0; j < n; j++) {
      const w = row[j];
      if (w <= 0.005) continue; // transparent: the button's background
      const alpha = Math.round(255 * Math.min(1, 0.08 + 0.92 * w ** 0.7));
      for (let y = i * k; y < (i + 1) * k; y++) {
        let o = (y * size + j * k) * 4;
        for (let x = 0; x < k; x++, o += 4) {
          px[o] = r;
          px[o + 1] = g;
          px[o + 2] = b;
          px[o + 3] = alpha;
        }
      }
    }
  }
  ctx.putImageData(image, 0, 0);
}

export class ThumbnailGrid {
  /** The grid inside `root` (data-part=grid); built on the first paint. */
  constructor(root) {
    this.root = root;
    this.thumbs = []; // [layer][head] -> { button, canvas }
    this.layerEls = []; // the row labels
    this.cursor = 0; // index (layer * heads + head) of the thumbnail that Tab lands on
    root.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** Build the buttons for `layers` x `heads` maps, unless they are there already. */
  build(layers, heads) {
    if (this.thumbs.length === layers && this.thumbs[0]?.length === heads) return;
    const grid = this.root;
    grid.replaceChildren();
    grid.style.setProperty("--heads", String(heads));
    this.thumbs = [];
    this.layerEls = [];
    for (let l = 0; l < layers; l++) {
      const name = document.createElement("span");
      name.className = "real-grid__layer";
      name.setAttribute("aria-hidden", "true");
      const word = document.createElement("span");
      word.className = "real-grid__layer-word";
      word.textContent = "Layer ";
      name.append(word, String(l + 1));
      grid.appendChild(name);
      this.layerEls.push(name);
      const row = [];
      for (let k = 0; k < heads; k++) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "real-thumb";
        button.dataset.layer = String(l);
        button.dataset.head = String(k);
        button.tabIndex = -1;
        button.setAttribute("aria-label", `Layer ${l + 1}, head ${k + 1}`);
        const canvas = document.createElement("canvas");
        canvas.setAttribute("aria-hidden", "true");
        button.appendChild(canvas);
        grid.appendChild(button);
        row.push({ button, canvas });
      }
      this.thumbs.push(row);
    }
  }

  /** Paint every map of `layers` ([layer][head][i][j]) over `tokens` tokens, each in its head's colour. */
  paint(layers, tokens) {
    const heads = layers[0]?.length ?? 0;
    this.build(layers.length, heads);
    const colours = Array.from({ length: heads }, (_, k) => headColour(k));
    layers.forEach((maps, l) => {
      maps.forEach((weights, k) => paintThumbnail(this.thumbs[l][k].canvas, weights, colours[k]));
    });
    this.root.dataset.tokens = String(tokens);
  }

  /** Attributes only: the open layer's row, the picked head (`head`, 0-based or null), the Tab stop. */
  emphasise(layer, head) {
    this.thumbs.forEach((row, l) =>
      row.forEach(({ button }, k) => {
        button.tabIndex = l * row.length + k === this.cursor ? 0 : -1;
        button.classList.toggle("is-open-layer", l === layer);
        if (l === layer && k === head) button.setAttribute("aria-current", "true");
        else button.removeAttribute("aria-current");
      }),
    );
    this.layerEls.forEach((el, l) => el.classList.toggle("is-open", l === layer));
  }

  /** Arrow keys move between thumbnails (a row per layer), Home/End to a row's ends. */
  onKey(event) {
    const thumb = event.target.closest("button[data-layer]");
    if (!thumb || !this.thumbs.length) return;
    const L = this.thumbs.length;
    const H = this.thumbs[0].length;
    let l = Number(thumb.dataset.layer);
    let k = Number(thumb.dataset.head);
    const moves = {
      ArrowRight: () => (k = Math.min(H - 1, k + 1)),
      ArrowLeft: () => (k = Math.max(0, k - 1)),
      ArrowDown: () => (l = Math.min(L - 1, l + 1)),
      ArrowUp: () => (l = Math.max(0, l - 1)),
      Home: () => (k = 0),
      End: () => (k = H - 1),
    };
    if (!moves[event.key]) return;
    event.preventDefault();
    moves[event.key]();
    this.cursor = l * H + k;
    for (const row of this.thumbs) for (const { button } of row) button.tabIndex = -1;
    const next = this.thumbs[l][k].button;
    next.tabIndex = 0;
    next.focus();
  }
}
