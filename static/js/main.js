// Entry point: reads the page data, finds the article's figures and starts their widgets (lazily below the fold).

import { startArticleTools } from "./lib/article-tools.js";
import { addFigureTools } from "./lib/figure-tools.js";

const WIDGETS = {
  "heads-dial": () => import("./figures/heads-dial/index.js"),
  "accounting": () => import("./figures/accounting.js"),
  "head-lab": () => import("./figures/head-lab/index.js"),
  "mask-lab": () => import("./figures/mask-lab.js"),
  "interview": () => import("./figures/interview/index.js"),
  "generator": () => import("./figures/generator/index.js"),
  "blueprint": () => import("./figures/blueprint.js"),
  "order": () => import("./figures/order.js"),
  "real-heads": () => import("./figures/real-heads/index.js"),
};

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
  const load = WIDGETS[figure.dataset.widget];
  if (!load || figure.dataset.started) return;
  figure.dataset.started = "true";
  const module = await load();
  module.start(figure, pageData);
  figure.dataset.ready = "true"; // its listeners are in place (data-started only guards against starting twice)
  figure.dispatchEvent(new CustomEvent("figure:started"));
}

function main() {
  const pageData = readPageData();
  const figures = [...document.querySelectorAll("figure[data-widget]")];
  // Teaching tools: a link and export toolbar on every figure (not in an embed), the contents, theme, prompts.
  const embed = "embed" in document.body.dataset;
  if (!embed) for (const figure of figures) addFigureTools(figure, { alone: "figurePage" in document.body.dataset });
  startArticleTools(pageData);
  // Figures marked data-lazy start when they come within a screen of the viewport; the rest start now.
  const lazy = "IntersectionObserver" in window ? figures.filter((f) => "lazy" in f.dataset) : [];
  for (const figure of figures) if (!lazy.includes(figure)) startFigure(figure, pageData);
  if (!lazy.length) return;
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        startFigure(entry.target, pageData);
      }
    },
    { rootMargin: "100% 0px" },
  );
  for (const figure of lazy) observer.observe(figure);
}

main();
