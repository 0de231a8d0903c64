// Landing on an anchor: a contents link, a section's "#", a blueprint jump, a placements link, or a page
// loaded with `#section`. The target's top comes to the viewport's top and keyboard focus moves into it (its
// heading or caption, focused without scrolling). While the figures around it finish drawing, a keeper holds the
// target in place; it lets go as soon as the reader scrolls, touches or presses a key, or once the layout has
// been still for a moment with the figures near the target drawn. Every figure reserves its space (static/css),
// so the keeper rarely has anything to do; it is there for what a reservation cannot know (a reader's own
// sentence in the URL, a slow font).
//
// Jumps that carry figure state (`?mask=neg_inf#mask-lab`) keep the rest of the page's state: the target is
// this page's query string with the link's parameters set (see jumpUrl). When that query string is the one
// already shown, the jump only lands; otherwise the browser loads it and the landing happens on load.

const ARTICLE = "/";
const QUIET_MS = 500; // the layout unchanged for this long, and the figures near the target drawn: landed
const LONGEST_MS = 12000; // never hold the page longer than this
const READER_MOVES = ["wheel", "touchstart", "keydown", "pointerdown"];

const reducedMotion = () => Boolean(window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);

/** The URL of a jump: the article, `current` query kept, `params` set, `#target` as the anchor. */
export function jumpUrl(target, params = {}, current = window.location) {
  const url = new URL(ARTICLE, current.href);
  const search = new URLSearchParams(current.pathname === ARTICLE ? current.search : "");
  for (const [key, value] of Object.entries(params)) search.set(key, value);
  url.search = search.toString();
  url.hash = target;
  return url;
}

/** The element `hash` ("#id") names on this page, or null. */
export function targetOf(hash) {
  if (!hash || hash.length < 2) return null;
  try {
    return document.getElementById(decodeURIComponent(hash.slice(1)));
  } catch {
    return null;
  }
}

/** What takes focus on landing at `target`: a section's heading, a figure's caption, else the target. */
function focusPoint(target) {
  let el = target;
  if (target.matches("section")) el = target.querySelector("h2, h3") ?? target;
  else if (target.matches("figure")) el = target.querySelector("figcaption") ?? target;
  if (!el.matches("a[href], button, input, select, textarea, [tabindex]")) el.setAttribute("tabindex", "-1");
  return el;
}

/** How far below the viewport's top `target` should sit: its scroll-margin-top. */
const marginOf = (target) => parseFloat(getComputedStyle(target).scrollMarginTop) || 0;

/** True while a figure near the viewport is still starting or still waiting for its drawing's data. */
function figuresDrawing() {
  const h = window.innerHeight;
  for (const figure of document.querySelectorAll("figure[data-widget]")) {
    const box = figure.getBoundingClientRect();
    if (box.bottom < -h || box.top > 2 * h) continue;
    if (!figure.dataset.ready || figure.getAttribute("aria-busy") === "true") return true;
  }
  return false;
}

let keeper = null;

/** Holds `target` at the viewport's top until the page around it settles or the reader moves. */
class Keeper {
  constructor(target, smooth, focus) {
    this.target = target;
    this.focus = focus;
    this.margin = marginOf(target);
    this.began = performance.now();
    this.changed = this.began; // the last time the layout moved or the keeper scrolled
    this.height = document.documentElement.scrollHeight;
    this.smoothing = smooth;
    this.lastY = window.scrollY;
    this.stillFrames = 0;
    this.stop = this.stop.bind(this);
    for (const type of READER_MOVES) window.addEventListener(type, this.stop, { capture: true, passive: true });
    document.documentElement.dataset.landing = "true";
    if (smooth) target.scrollIntoView({ behavior: "smooth", block: "start" });
    else this.align();
    this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Scroll, at once, so that the target's top sits at its margin (as near as the page's length allows). */
  align() {
    const off = this.target.getBoundingClientRect().top - this.margin;
    const most = document.documentElement.scrollHeight - window.innerHeight;
    const want = Math.max(0, Math.min(most, window.scrollY + off));
    if (Math.abs(want - window.scrollY) < 1) return false;
    window.scrollTo({ top: want, behavior: "instant" });
    return true;
  }

  tick() {
    const now = performance.now();
    // Chromium clears focus when it finishes loading a page opened on an anchor: put it back.
    if (document.activeElement === document.body) this.focus.focus({ preventScroll: true });
    if (this.smoothing) {
      // A smooth scroll is under way: let it run, and correct where it ends (the page may have moved meanwhile).
      this.stillFrames = window.scrollY === this.lastY ? this.stillFrames + 1 : 0;
      this.lastY = window.scrollY;
      if (this.stillFrames >= 6) this.smoothing = false;
      this.changed = now;
    } else if (this.align()) {
      this.changed = now;
    }
    const height = document.documentElement.scrollHeight;
    if (height !== this.height) {
      this.height = height;
      this.changed = now;
    }
    const settled = now - this.changed > QUIET_MS && !figuresDrawing();
    if (settled || now - this.began > LONGEST_MS) this.stop();
    else this.frame = requestAnimationFrame(() => this.tick());
  }

  stop() {
    cancelAnimationFrame(this.frame);
    for (const type of READER_MOVES) window.removeEventListener(type, this.stop, { capture: true });
    if (keeper === this) {
      keeper = null;
      delete document.documentElement.dataset.landing;
    }
  }
}

/**
 * Land on `target`: bring its top to the viewport's top (smoothly unless `smooth` is false or the reader
 * prefers reduced motion), move focus into it without scrolling, and keep it there while the page settles.
 */
export function land(target, { smooth = true } = {}) {
  keeper?.stop();
  const focus = focusPoint(target);
  focus.focus({ preventScroll: true });
  keeper = new Keeper(target, smooth && !reducedMotion(), focus);
}

/**
 * Follow `url` (a URL): land in place when it is this page with this query string and its anchor is here,
 * else load it. Returns true when it landed in place.
 */
export function follow(url) {
  const here = window.location;
  const target = targetOf(url.hash);
  if (target && url.origin === here.origin && url.pathname === here.pathname && url.search === here.search) {
    if (url.hash !== here.hash) window.history.pushState(window.history.state, "", url);
    land(target);
    return true;
  }
  window.location.assign(url);
  return false;
}

/** The URL a click on link `a` should follow: its own, or for a `data-jump` link, a jump keeping the state. */
function linkUrl(a) {
  const url = new URL(a.href, window.location.href);
  if (!("jump" in a.dataset) || window.location.pathname !== ARTICLE) return url;
  return jumpUrl(url.hash.slice(1), Object.fromEntries(url.searchParams));
}

function onClick(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return;
  }
  const a = event.target.closest?.("a[href]");
  if (!a || (a.target && a.target !== "_self") || a.hasAttribute("download")) return;
  const url = linkUrl(a);
  if (!url.hash || url.origin !== window.location.origin || url.pathname !== window.location.pathname) return;
  if (!targetOf(url.hash)) return;
  event.preventDefault();
  follow(url);
}

/** The navigation that loaded this page: "navigate", "reload", "back_forward" or "prerender". */
function navigationType() {
  return performance.getEntriesByType?.("navigation")[0]?.type ?? "navigate";
}

/** Watch the page's in-page links and its anchor; land on the anchor the page was opened with. */
export function startLandings() {
  document.addEventListener("click", onClick);
  window.addEventListener("hashchange", () => {
    const target = targetOf(window.location.hash);
    if (target) land(target, { smooth: false });
  });
  // A fresh load lands on its anchor; a reload or a step back keeps the place the browser restores.
  const target = targetOf(window.location.hash);
  if (target && navigationType() === "navigate") land(target, { smooth: false });
}
