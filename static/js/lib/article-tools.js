// Page-wide reading tools: the table of contents, a visible anchor on every section heading, the light/dark
// theme switch (remembered in localStorage; the system's preference until the reader chooses) and the
// predict-then-reveal prompts.

import { startPredictions } from "./predict.js";

const THEME_KEY = "theme";

/** Fill the contents list from the article's sections (each `section[id]` with an h2), and unhide it. */
export function buildContents(nav, sections) {
  const list = nav.querySelector("ol");
  if (!list) return;
  const items = sections.map((section) => {
    const heading = section.querySelector("h2");
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `#${section.id}`;
    a.textContent = heading.textContent.replace(/\s+/g, " ").replace(/#$/, "").trim();
    li.appendChild(a);
    return li;
  });
  list.replaceChildren(...items);
  nav.hidden = items.length === 0;
}

/** A "#" link beside each section heading, so a reader can link to (or copy the address of) any section. */
export function addAnchors(sections) {
  for (const section of sections) {
    const heading = section.querySelector("h2");
    if (heading.querySelector(".heading-anchor")) continue;
    const a = document.createElement("a");
    a.className = "heading-anchor";
    a.href = `#${section.id}`;
    a.textContent = "#";
    a.setAttribute("aria-label", `Link to this section: ${heading.textContent.replace(/\s+/g, " ").trim()}`);
    heading.append(" ", a);
  }
}

const systemDark = () => Boolean(window.matchMedia?.("(prefers-color-scheme: dark)").matches);

/** The theme on screen now: the reader's choice, else the system's. */
export const currentTheme = () => document.documentElement.dataset.theme || (systemDark() ? "dark" : "light");

/** Show `theme`, remember it, and tell the figures (they redraw their colours on "themechange"). */
export function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try {
    window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Not remembered when storage is off; the switch still works for this visit.
  }
  document.dispatchEvent(new CustomEvent("themechange", { detail: { theme } }));
}

function wireThemeToggle(button) {
  const show = () => button.setAttribute("aria-pressed", String(currentTheme() === "dark"));
  show();
  button.hidden = false;
  button.addEventListener("click", () => {
    setTheme(currentTheme() === "dark" ? "light" : "dark");
    show();
  });
  window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", show);
}

export function startArticleTools(pageData = {}) {
  const sections = [...document.querySelectorAll(".article > section[id]")].filter((s) => s.querySelector("h2"));
  addAnchors(sections);
  const nav = document.querySelector("[data-toc]");
  if (nav) buildContents(nav, sections);
  for (const button of document.querySelectorAll("[data-theme-toggle]")) wireThemeToggle(button);
  startPredictions(document, pageData);
}
