// The page's head colours in one place: colour-blind-safe (Okabe–Ito first), plus a dash and marker per head.

// Every head's colour, light and dark: 24 entries, enough for every valid head count.
export const HEAD_PALETTE = [
  // Okabe & Ito (2008), ordered so the first heads get the most distinct hues; yellow and black come last
  // because they need care on a light or dark page.
  { name: "blue", light: "#0072B2", dark: "#3AA0E0" },
  { name: "orange", light: "#E69F00", dark: "#E69F00" },
  { name: "bluish green", light: "#009E73", dark: "#1BC096" },
  { name: "vermillion", light: "#D55E00", dark: "#FF7A2B" },
  { name: "reddish purple", light: "#CC79A7", dark: "#E291BE" },
  { name: "sky blue", light: "#56B4E9", dark: "#56B4E9" },
  { name: "yellow", light: "#C7B600", dark: "#F0E442" }, // #F0E442 darkened on white to stay visible
  { name: "black", light: "#1A1A1A", dark: "#E6E6E6" }, // black on light, near-white on dark
  // Beyond eight heads: Paul Tol's "muted" scheme, then his "light" scheme (both designed for colour-blind
  // readers). Past eight hues no palette stays unambiguous, so every head also has its own dash and marker.
  { name: "indigo", light: "#332288", dark: "#8A7FE0" },
  { name: "teal", light: "#44AA99", dark: "#44AA99" },
  { name: "wine", light: "#882255", dark: "#D05A93" },
  { name: "green", light: "#117733", dark: "#3FB26A" },
  { name: "rose", light: "#CC6677", dark: "#CC6677" },
  { name: "olive", light: "#999933", dark: "#B5B548" },
  { name: "purple", light: "#AA4499", dark: "#C767B7" },
  { name: "cyan", light: "#5FB4D9", dark: "#88CCEE" },
  { name: "sand", light: "#B8A040", dark: "#DDCC77" },
  { name: "light blue", light: "#5E93C9", dark: "#77AADD" },
  { name: "light orange", light: "#E07A52", dark: "#EE8866" },
  { name: "mint", light: "#2EA585", dark: "#44BB99" },
  { name: "pear", light: "#9DAD1F", dark: "#BBCC33" },
  { name: "pink", light: "#E57F95", dark: "#FFAABB" },
  { name: "pale olive", light: "#8F8F00", dark: "#AAAA00" },
  { name: "light cyan", light: "#4FB0C9", dark: "#99DDFF" },
];

// Dash patterns, in multiples of the stroke width (scaled per line by `dashFor`): solid first.
const DASHES = ["", "4 2", "1 1.6", "6 2 1 2", "2.5 2.5", "8 3", "1 2 4 2", "3 1.5 1 1.5"];
// Markers cycle every eight heads, so (colour, dash, marker) is unique for all 24.
const MARKERS = ["circle", "square", "triangle"];

const darkQuery = typeof window !== "undefined" ? window.matchMedia?.("(prefers-color-scheme: dark)") : null;

/** True when the page is drawn on a dark background: the reader's chosen theme, else the system's. */
export const isDark = () => {
  const chosen = typeof document !== "undefined" ? document.documentElement.dataset.theme : undefined;
  return chosen ? chosen === "dark" : Boolean(darkQuery?.matches);
};

/** Call `listener` when the page turns light or dark (colours must then be redrawn). */
export function onSchemeChange(listener) {
  darkQuery?.addEventListener?.("change", listener);
  if (typeof document !== "undefined") document.addEventListener("themechange", listener);
}

/** The colour of head `k` (0-based). */
export function headColour(k) {
  const entry = HEAD_PALETTE[k % HEAD_PALETTE.length];
  return isDark() ? entry.dark : entry.light;
}

/** The stroke-dasharray of head `k` for a line of `width` (null: solid), scaled so dashes stay readable. */
export function dashFor(k, width = 1) {
  return scaledDash(DASHES[k % DASHES.length], width);
}

/** A dash `pattern` in multiples of the stroke width, in px for a line of `width` (null: solid). */
function scaledDash(pattern, width) {
  if (!pattern) return null;
  const unit = Math.max(1.5, width);
  return pattern
    .split(" ")
    .map((n) => Math.round(Number(n) * unit * 10) / 10)
    .join(" ");
}

/** The marker shape of head `k`: "circle", "square" or "triangle". */
export const markerFor = (k) => MARKERS[Math.floor(k / DASHES.length) % MARKERS.length];

/** An SVG path for head `k`'s marker centred at (x, y) with radius `r`. */
export function markerPath(k, x, y, r) {
  const shape = markerFor(k);
  const f = (n) => Math.round(n * 10) / 10;
  if (shape === "square") {
    const s = r * 0.9;
    return `M${f(x - s)} ${f(y - s)}h${f(2 * s)}v${f(2 * s)}h${f(-2 * s)}Z`;
  }
  if (shape === "triangle") {
    return `M${f(x)} ${f(y - r * 1.1)}L${f(x + r)} ${f(y + r * 0.8)}L${f(x - r)} ${f(y + r * 0.8)}Z`;
  }
  return `M${f(x - r)} ${f(y)}a${f(r)} ${f(r)} 0 1 0 ${f(2 * r)} 0a${f(r)} ${f(r)} 0 1 0 ${f(-2 * r)} 0`;
}

// ---- the three relations of figure 1 (meaning, grammar, position), told apart by colour and by dash -------

// Paul Tol's "vibrant" scheme (colour-blind-safe), far from the neutral grey of an arc that serves no relation;
// each relation also has its own dash, so the three stay apart in grey print too.
const RELATION_STYLES = {
  meaning: { light: "#D6336C", dark: "#FF6F9C", dash: "" }, // magenta, solid
  grammar: { light: "#0077BB", dark: "#47B8F0", dash: "3 1.6" }, // blue, dashed
  position: { light: "#E0701F", dark: "#FF9A52", dash: "0 2" }, // orange, dotted (with round caps)
};
const NEUTRAL = { light: "#9AA0A6", dark: "#6F757D" }; // an arc to a word no relation pairs it with

/** The relations that have a colour, in the order legends list them. */
export const RELATION_NAMES = Object.keys(RELATION_STYLES);

/** The colour of relation `name` (null: the neutral grey of "no relation"). */
export function relationColour(name) {
  const entry = RELATION_STYLES[name] ?? NEUTRAL;
  return isDark() ? entry.dark : entry.light;
}

/** The stroke-dasharray of relation `name` for a line of `width` (null: solid); dotted lines need round caps. */
export function relationDash(name, width = 1) {
  return scaledDash(RELATION_STYLES[name]?.dash, width);
}
