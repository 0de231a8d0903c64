// Entry point: reads the page data, finds the article's figures and starts their widgets (lazily below the fold).

const WIDGETS = {
  "heads-dial": () => import("./figures/heads-dial.js"),
  "accounting": () => import("./figures/accounting.js"),
  "head-lab": () => import("./figures/head-lab.js"),
  "mask-lab": () => import("./figures/mask-lab.js"),
  "interview": () => import("./figures/interview.js"),
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
}

function main() {
  const pageData = readPageData();
  const figures = [...document.querySelectorAll("figure[data-widget]")];
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
