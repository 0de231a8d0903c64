// Where figure 1's lanes go: one lane (small multiple) per head, as many side by side as keep every word
// readable (small lanes from 8 heads on, or where wide ones would stand one to a row), and inside a lane where
// each word sits and the path of an arc from word i to word j (above: looking back, below: looking ahead, a
// small loop: itself). Pure geometry: lanes-view.js draws with it.

import { arcPath } from "../../lib/arcs.js";
import { measure } from "../../lib/measure.js";
import { r1 } from "../../lib/svg.js";

export const COMPACT_HEADS = 8; // from this many heads, lanes are small and laid out several to a row
const PREFERRED_SLOT = { wide: 58, compact: 32 }; // px per word a lane is given when the width allows
const MIN_SLOT = 28; // px per word below which a lane cannot show its words: the figure draws grids instead
const GAP = { wide: 16, compact: 8 }; // px between lanes
const FONT = { wide: 13, compact: 11 }; // px: the words' size (the smallest text of the figure stays >= 11)

const clamp = (lo, hi, x) => Math.max(lo, Math.min(hi, x));

/**
 * The lanes of `h` heads over `tokens` in `width` px (font family `font`), or null when the words do not fit
 * even one lane to a row (the figure then draws a grid per head).
 * @returns {{compact: boolean, columns: number, rows: number, gap: number, laneW: number, laneH: number,
 *   height: number, fontSize: number, origin: (k: number) => {x: number, y: number}, lane: object}}
 */
export function lanesLayout(width, tokens, h, font) {
  if (h >= COMPACT_HEADS) return layoutOf("compact", width, tokens, h, font);
  // Wide lanes, unless they would stand one to a row where small ones sit side by side (a phone): heads are
  // compared across, and a column of tall lanes is read one at a time.
  const wide = layoutOf("wide", width, tokens, h, font);
  if (wide && (wide.columns > 1 || h === 1)) return wide;
  const small = layoutOf("compact", width, tokens, h, font);
  return small && small.columns > 1 ? small : wide;
}

/** The layout of lanes of `kind` ("wide" or "compact"), or null when the words do not fit one lane to a row. */
function layoutOf(kind, width, tokens, h, font) {
  const n = tokens.length;
  const compact = kind === "compact";
  const fontSize = FONT[kind];
  const gap = GAP[kind];
  const wordW = Math.max(...tokens.map((t) => measure(t, `${fontSize}px ${font}`))) + (compact ? 0 : 12);
  const slotMin = Math.max(MIN_SLOT, wordW);
  const preferred = Math.max(PREFERRED_SLOT[kind], slotMin);
  const most = clamp(1, h, Math.floor((width + gap) / (n * preferred + gap)));
  const rows = Math.ceil(h / most);
  const columns = Math.ceil(h / rows); // rows as even as the count allows: 4 heads are 2 × 2, not 3 + 1
  const laneW = Math.floor((width - (columns - 1) * gap) / columns);
  if (laneW / n < slotMin) return null;
  const lane = laneGeometry(laneW, n, fontSize, compact);
  const rowGap = compact ? 10 : 14;
  return {
    compact,
    columns,
    rows,
    gap,
    laneW,
    laneH: lane.height,
    height: rows * lane.height + (rows - 1) * rowGap,
    fontSize,
    origin: (k) => ({ x: (k % columns) * (laneW + gap), y: Math.floor(k / columns) * (lane.height + rowGap) }),
    lane,
  };
}

/** Inside one lane `laneW` px wide: its header, the row of `n` words, and the arcs' paths. */
function laneGeometry(laneW, n, fontSize, compact) {
  const slot = laneW / n;
  const header = compact ? 40 : 46; // the head's name, and its verdict under it
  const rise = clamp(28, 84, laneW * 0.14); // the tallest arc
  const boxH = Math.round(fontSize * 1.5 + 4);
  const yMid = header + rise + 6 + boxH / 2;
  const above = yMid - boxH / 2 - 1;
  const below = yMid + boxH / 2 + 1;
  const height = Math.round(below + rise + 8);
  const x = (i) => slot * (i + 0.5);
  const anchor = Math.min(slot * 0.14, 9); // departures and arrivals sit on opposite sides of a word
  const lift = (dist) => (n <= 2 ? 0.55 : 0.25 + (0.75 * (dist - 1)) / (n - 2)) * rise;
  const loop = Math.min(18, rise * 0.45);
  const half = Math.min(10, slot * 0.14);
  /** The arc from word i to word j (the cubic's middle reaches 3/4 of the way to its control points). */
  const path = (i, j) => {
    if (i === j) {
      const top = r1(above - loop / 0.75);
      const cx = x(i);
      return `M${r1(cx - 3)} ${r1(above)}C${r1(cx - half)} ${top} ${r1(cx + half)} ${top} ${r1(cx + 3)} ${r1(above)}`;
    }
    const back = j < i; // a key to the left: drawn above
    const y0 = back ? above : below;
    const x1 = x(i) + (back ? -anchor : anchor);
    const x2 = x(j) + (back ? anchor : -anchor);
    return arcPath(x1, y0, x2, y0, y0 + (lift(Math.abs(i - j)) / 0.75) * (back ? -1 : 1));
  };
  return { slot, header, rise, boxH, yMid, height, x, path, strokeScale: clamp(0.45, 1, slot / 110) };
}
