// Entry point: reads the page data, finds the article's figures and starts their widgets.
//
// Every figure starts at load: its module is imported and its listeners wired at once, so a control clicked the
// moment a figure scrolls into view is never undone by a late start, and `figure[data-ready]` means "listening".
// What waits is the network: a figure marked data-lazy holds its requests (lib/api.js, via lib/widget.js) until
// it comes within a screen of the viewport. Its space is reserved by CSS (static/css/reserve.css), so drawing it
// late never moves the text around it: lazy drawing, not lazy layout (lib/reservation.js says when a reservation
// ends). Landings on an anchor: lib/landing.js.
//
// A figure's module is not named here: the page data's `widgets` gives each figure's by its versioned address
// (app/figures.py finds it from the figure's slug, app/routes/pages.py writes the addresses).

import { startArticleTools } from "./lib/article-tools.js";
import { addFigureTools } from "./lib/figure-tools.js";
import { startLandings } from "./lib/landing.js";
import { watchReservation } from "./lib/reservation.js";

function readPageData() {
  const el = document.getElementById("page-data");
  if (!el) return {};
  try {
    return JSON.parse(el.textContent);
  } catch {
    return {};
  }
}

async function startFigure(figure, pageData) {
  const address = pageData.widgets?.[figure.dataset.widget];
  if (!address || figure.dataset.started) return;
  figure.dataset.started = "true";
  const module = await import(address);
  module.start(figure, pageData);
  figure.dataset.ready = "true"; // its listeners are in place (data-started only guards against starting twice)
  figure.dispatchEvent(new CustomEvent("figure:started"));
}

/**
 * For each figure marked data-lazy, `figure.nearby`: a promise that resolves once the figure comes within a
 * screen of the viewport (then `data-near` is set). Widgets hold their requests until it does.
 */
function holdUntilNear(figures) {
  if (!("IntersectionObserver" in window)) return;
  const open = new Map();
  for (const figure of figures) {
    figure.nearby = new Promise((resolve) => open.set(figure, resolve));
  }
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        entry.target.dataset.near = "true";
        open.get(entry.target)();
      }
    },
    { rootMargin: "100% 0px" },
  );
  for (const figure of figures) observer.observe(figure);
}

function main() {
  const pageData = readPageData();
  const figures = [...document.querySelectorAll("figure[data-widget]")];
  // Teaching tools: a link and export toolbar on every figure (not in an embed), the contents, theme, prompts.
  const embed = "embed" in document.body.dataset;
  if (!embed) for (const figure of figures) addFigureTools(figure, { alone: "figurePage" in document.body.dataset });
  startArticleTools(pageData);
  holdUntilNear(figures.filter((f) => "lazy" in f.dataset));
  for (const figure of figures) {
    watchReservation(figure);
    startFigure(figure, pageData);
  }
  startLandings();
}

main();
