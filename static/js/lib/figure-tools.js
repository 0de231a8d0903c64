// The toolbar every figure gets (copy a link to this view, export the drawing as SVG or PNG, export the numbers
// as JSON or CSV) and the figure's numbers as tables for screen readers. Generic: a widget only opts in to the
// numbers by setting `figure.exportData = () => ({ matrices: [{ name, rows, columns, values }], ... })`, and
// main.js fires "figure:started" on the figure once its widget runs. The drawing is made by figure-drawing.js,
// the CSV and the tables by figure-numbers.js.

import { figureSvg, pngBlob, svgText } from "./figure-drawing.js";
import { dataCsv, numbersTables } from "./figure-numbers.js";

/** The link to figure `name` alone, in the state the query string holds now (without `embed`). */
export function figureLink(name, search = window.location.search) {
  const params = new URLSearchParams(search);
  params.delete("embed");
  const query = params.toString();
  return `${window.location.origin}/figure/${encodeURIComponent(name)}${query ? `?${query}` : ""}`;
}

function button(label, name, part) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "figure-tools__button";
  b.textContent = label;
  b.dataset.tool = part;
  if (name !== label) b.setAttribute("aria-label", name);
  return b;
}

/** Offer `blob` as a download named `filename`. */
function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The figure's numbers (its widget's export hook), labelled with the figure and the view's link; or null. */
export function figureData(figure, name) {
  const data = typeof figure.exportData === "function" ? figure.exportData() : null;
  if (!data || !data.matrices?.length) return null;
  return { figure: name, link: figureLink(name), ...data };
}

/** The toolbar and the numbers' tables of one figure. */
export class FigureTools {
  constructor(figure, { name = figure.id, alone = false } = {}) {
    this.figure = figure;
    this.name = name;
    this.label = figure.querySelector(".figure-num")?.textContent.replace(/\.$/, "").trim() || "this figure";

    this.bar = document.createElement("div");
    this.bar.className = "figure-tools";
    this.bar.setAttribute("role", "group");
    this.bar.setAttribute("aria-label", `${this.label}: link and export`);
    this.link = button("Copy link", "Copy link to this view", "link");
    this.svg = button("SVG", "Export SVG", "svg");
    this.png = button("PNG", "Export PNG", "png");
    this.json = button("JSON", "Export data as JSON", "json");
    this.csv = button("CSV", "Export data as CSV", "csv");
    this.json.hidden = this.csv.hidden = true; // until the widget shows it has numbers
    this.bar.append(this.link, this.svg, this.png, this.json, this.csv);
    if (!alone) {
      const open = document.createElement("a");
      open.className = "figure-tools__open";
      open.href = figureLink(name);
      open.textContent = "Open alone";
      open.setAttribute("aria-label", `Open alone: ${this.label}`);
      open.addEventListener("focus", () => (open.href = figureLink(name)));
      open.addEventListener("pointerenter", () => (open.href = figureLink(name)));
      this.open = open;
      this.bar.append(open);
    }
    this.status = document.createElement("p");
    this.status.className = "figure-tools__status";
    this.status.setAttribute("aria-live", "polite");
    this.status.dataset.tool = "status";
    this.linkBox = document.createElement("input");
    this.linkBox.type = "text";
    this.linkBox.readOnly = true;
    this.linkBox.className = "figure-tools__link";
    this.linkBox.dataset.tool = "link-text";
    this.linkBox.setAttribute("aria-label", `Link to this view of ${this.label}`);
    this.linkBox.hidden = true;

    const caption = figure.querySelector("figcaption");
    (caption ?? figure.firstChild)?.after(this.bar, this.status, this.linkBox);

    this.link.addEventListener("click", () => this.copyLink());
    this.svg.addEventListener("click", () => this.exportSvg());
    this.png.addEventListener("click", () => this.exportPng());
    this.json.addEventListener("click", () => this.exportData("json"));
    this.csv.addEventListener("click", () => this.exportData("csv"));
    figure.addEventListener("figure:started", () => this.onStarted());
    if (typeof figure.exportData === "function") this.onStarted();
  }

  say(text) {
    this.status.textContent = text;
  }

  async copyLink() {
    const link = figureLink(this.name);
    this.linkBox.value = link;
    this.linkBox.hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      this.say("Link copied to the clipboard.");
    } catch {
      this.say("Copy this link:");
      this.linkBox.focus();
      this.linkBox.select();
    }
  }

  exportSvg() {
    const drawing = figureSvg(this.figure);
    if (!drawing) return this.say("This figure has no drawing to export yet.");
    download(new Blob([svgText(drawing.root)], { type: "image/svg+xml" }), `${this.name}.svg`);
    this.say(`Saved ${this.name}.svg.`);
  }

  async exportPng() {
    const drawing = figureSvg(this.figure);
    if (!drawing) return this.say("This figure has no drawing to export yet.");
    try {
      download(await pngBlob(drawing), `${this.name}.png`);
      this.say(`Saved ${this.name}.png.`);
    } catch (error) {
      this.say(`The PNG could not be made: ${error.message}.`);
    }
  }

  /** Download the figure's numbers. A figure drawn from a compact answer (lib/packed.js) offers
   *  `exportFullData`, which fetches the same numbers in full float64 precision for the file. */
  async exportData(kind) {
    let data;
    try {
      const full = typeof this.figure.exportFullData === "function" ? await this.figure.exportFullData() : null;
      data = full ? { figure: this.name, link: figureLink(this.name), ...full } : figureData(this.figure, this.name);
    } catch (error) {
      return this.say(`The numbers could not be fetched: ${error.message}.`);
    }
    if (!data) return this.say("The numbers are not ready yet.");
    const blob =
      kind === "json"
        ? new Blob([JSON.stringify(data, null, 1)], { type: "application/json" })
        : new Blob([dataCsv(data)], { type: "text/csv" });
    download(blob, `${this.name}.${kind}`);
    this.say(`Saved ${this.name}.${kind}.`);
  }

  // ---- the numbers as tables ---------------------------------------------------------------------------

  onStarted() {
    if (typeof this.figure.exportData !== "function" || this.details) return;
    this.json.hidden = this.csv.hidden = false;
    this.details = document.createElement("details");
    this.details.className = "figure-numbers";
    const summary = document.createElement("summary");
    summary.textContent = "Show the numbers as a table";
    this.tables = document.createElement("div");
    this.tables.className = "figure-numbers__body";
    this.details.append(summary, this.tables);
    this.figure.appendChild(this.details);
    this.shown = "";
    this.details.addEventListener("toggle", () => this.details.open && this.renderTables());
    // While open, follow the figure: any change outside the tables may mean new numbers.
    let frame = 0;
    new MutationObserver((records) => {
      if (!this.details.open || records.every((r) => this.details.contains(r.target) || this.bar.contains(r.target)))
        return;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => this.renderTables());
    }).observe(this.figure, { subtree: true, childList: true, attributes: true, characterData: true });
  }

  renderTables() {
    const data = figureData(this.figure, this.name);
    const key = data ? JSON.stringify(data.matrices) : "";
    if (key === this.shown) return;
    this.shown = key;
    if (!data) {
      const p = document.createElement("p");
      p.textContent = "The numbers are not ready yet.";
      this.tables.replaceChildren(p);
      return;
    }
    this.tables.replaceChildren(...numbersTables(data));
  }
}

/** Add the tools to `figure` (`alone`: on its own page, where "Open alone" would lead nowhere new). */
export function addFigureTools(figure, options = {}) {
  return new FigureTools(figure, options);
}
