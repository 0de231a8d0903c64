// HTML elements built in one call, as lib/svg.js builds SVG ones: text is always set as text, never parsed.

/** A new `tag` element with `className` and, when given, `text` as its text. */
export function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A <table> of `className`, its <caption> `caption` when given, a header row of `columns` (each a
 * <th scope="col">) and an empty <tbody> for the caller's rows. */
export function headedTable(className, columns, caption) {
  const table = element("table", className);
  if (caption !== undefined) table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  for (const text of columns) {
    const th = element("th", "", text);
    th.scope = "col";
    head.appendChild(th);
  }
  table.createTBody();
  return table;
}

/** One option of a segmented radio group (the markup of templates/macros.html's `segmented`), built in the
 * browser: <label class="segmented__option"><input type="radio"><span>text</span></label>. */
export function segmentedOption(name, value, text, checked) {
  const label = element("label", "segmented__option");
  const input = document.createElement("input");
  input.type = "radio";
  input.name = name;
  input.value = String(value);
  input.checked = checked;
  label.append(input, element("span", "", text));
  return label;
}
