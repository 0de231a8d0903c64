// Figure 7's "reading versus writing" panel, drawn from a /api/lm/predictions answer. Shown: how many of the
// sentence's next words each model gets right when the whole sentence is its input (as in training and
// validation) and when it sees only the words so far (as when it writes), and what it writes alone, one row
// per model; then what that says, in words. Folded: per model, its loss on the sentence and a table of every
// prediction both ways. And the overfitting check of the loss panel, from the same answer.

import { element, headedTable } from "../../lib/dom.js";
import { formatLoss } from "../../lib/log-axis.js";
import { piecesNote } from "../../lib/pieces.js";
import { clear } from "../../lib/svg.js";
import { listed, modelColour, modelName } from "./names.js";

const END = "</s>";
const READINGS = [
  { key: "teacher_forced", name: "reading the sentence", column: "reading" },
  { key: "free_running", name: "writing alone", column: "writing alone" },
];
// A prediction's mark: the sentence's own word, another word the grammar allows there, one it forbids, or
// (after words that begin no sentence of the grammar) nothing to judge by.
const MARKS = {
  right: { mark: "✓", said: "the sentence's word" },
  allowed: { mark: "○", said: "another word the grammar allows there" },
  wrong: { mark: "✗", said: "a word the grammar forbids there" },
  unjudged: { mark: "·", said: "not judged: inside a word, a piece of one, or after words no sentence begins with" },
};

/** A word as the reader sees it: the end token is "(end)". */
const shown = (word) => (word === END ? "(end)" : word);

/** "3 of 8" */
const outOf = (k, n) => `${k} of ${n}`;

function kindOf(reading, t) {
  if (reading.correct[t]) return "right";
  if (reading.allowed[t] === null) return "unjudged";
  return reading.allowed[t] ? "allowed" : "wrong";
}

/** A model's name with its colour's swatch. */
function swatchedName(tag, mask) {
  const name = element(tag, "lm-model__title");
  const swatch = element("span", "lm-model__swatch");
  swatch.style.setProperty("--colour", modelColour(mask));
  swatch.setAttribute("aria-hidden", "true");
  name.append(swatch, modelName(mask));
  return name;
}

/** A table cell holding `word` and its mark; the mark's meaning is in the cell's text for screen readers. */
function predictionCell(word, kind) {
  const td = element("td", `rw-cell rw-cell--${kind}`);
  td.dataset.kind = kind;
  const mark = element("span", "rw-cell__mark", MARKS[kind].mark);
  mark.setAttribute("aria-hidden", "true");
  td.append(element("span", "rw-cell__word", shown(word)), " ", mark);
  td.appendChild(element("span", "visually-hidden", `(${MARKS[kind].said})`));
  return td;
}

/** The table of every position: the sentence's next word, then the model's prediction each way. */
function predictionTable(data, m) {
  const columns = ["next word", ...READINGS.map((r) => r.column)];
  const caption = `${modelName(m.model)}: the next word at each position, reading versus writing`;
  const table = headedTable("rw-table", columns, caption);
  data.targets.forEach((target, t) => {
    const tr = element("tr");
    const th = element("th", "rw-table__target", shown(target));
    th.scope = "row";
    tr.appendChild(th);
    for (const { key } of READINGS) tr.appendChild(predictionCell(m[key].predicted[t], kindOf(m[key], t)));
    table.tBodies[0].appendChild(tr);
  });
  return table;
}

/** A count of right guesses with a bar as long as its share of the `n` positions. */
function countCell(reading, key, n) {
  const td = element("td", "rw-count");
  td.dataset.reading = key;
  const bar = element("span", "rw-count__bar");
  bar.style.setProperty("--share", String(reading.right / n));
  bar.setAttribute("aria-hidden", "true");
  td.append(element("span", "rw-count__value", String(reading.right)), bar);
  return td;
}

/** What the model writes alone after the sentence's first word, marked by the grammar's verdict. */
function writtenCell(m) {
  const td = element("td", "rw-written");
  td.dataset.grammatical = String(m.written_grammatical);
  const text = m.written.length <= 1 ? `“${m.written.join(" ")}”, then it stops` : `“${m.written.join(" ")}”`;
  const mark = element("span", "rw-written__mark", m.written_grammatical ? "✓" : "✗");
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", m.written_grammatical ? "a sentence the grammar accepts" : "not a sentence of the grammar");
  td.append(element("span", "rw-written__text", text), " ", mark);
  return td;
}

/** One row per model of the answer `data` into `box`: right guesses both ways, and what it writes alone. */
export function drawSummary(box, data) {
  clear(box);
  const n = data.positions;
  const columns = ["model", ...READINGS.map((r) => r.name), `what it writes alone after “${data.sentence[0]}”`];
  const table = headedTable("rw-summary", columns);
  table.setAttribute("aria-label", "Next words right, reading versus writing alone");
  for (const m of data.models) {
    const tr = element("tr");
    tr.dataset.model = m.model;
    const th = swatchedName("th", m.model);
    th.scope = "row";
    tr.appendChild(th);
    for (const { key } of READINGS) tr.appendChild(countCell(m[key], key, n));
    tr.appendChild(writtenCell(m));
    table.tBodies[0].appendChild(tr);
  }
  box.appendChild(table);
}

/** The panel's lead: how many next words the sentence has (and its pieces, when a word is split). */
export function leadText(data) {
  const n = data.positions;
  const pieces = data.inputs.length - 1; // the start token, then the pieces
  const what =
    pieces === data.sentence.length
      ? `${n} next words (the end included)`
      : `${n} next tokens (its ${data.sentence.length} words in ${pieces} pieces, and the end)`;
  const lead = `Of the sentence's ${what}, how many each model gets right:`;
  return pieces === data.sentence.length ? lead : `${piecesNote(data.inputs, data.word_index, data.sentence)} ${lead}`;
}

/** Per model, into the fold `box`: its loss on the sentence both ways, the guesses the grammar allows, and the
 * table of every prediction. */
export function drawReadWrite(box, data) {
  clear(box);
  for (const m of data.models) {
    const id = `interview-rw-${m.model}`;
    const section = element("section", "rw-model");
    section.dataset.model = m.model;
    section.setAttribute("aria-labelledby", `${id}-title`);
    const title = swatchedName("h4", m.model);
    title.id = `${id}-title`;
    const [f, w] = [m.teacher_forced, m.free_running];
    const detail = element(
      "p",
      "rw-model__detail",
      `Loss on the sentence: ${formatLoss(f.loss)} reading, ${formatLoss(w.loss)} writing alone. ` +
        `Guesses the grammar allows: ${outOf(f.allowed_count, f.judged)} reading, ` +
        `${outOf(w.allowed_count, w.judged)} writing alone.`,
    );
    section.append(title, detail, predictionTable(data, m));
    box.appendChild(section);
  }
}

/** The key to the tables' marks. */
export function marksKey() {
  return Object.values(MARKS)
    .slice(0, 3)
    .map(({ mark, said }) => `${mark} ${said}`)
    .join(" · ");
}

/** Step one of the interview answer, from the recorded losses: is it overfitting? */
export function overfittingText(data) {
  const widest = data.models.reduce((a, b) => (Math.abs(b.validation_gap) > Math.abs(a.validation_gap) ? b : a));
  const gap = formatLoss(Math.abs(widest.validation_gap));
  return (
    "Overfitting? No: each model's final training and validation losses differ by at most " +
    `${gap} (${modelName(widest.model)}).`
  );
}

/** What the rows show, in words: the honest model guesses alike both ways; which leaky models do better reading. */
export function readWriteText(data) {
  const n = data.positions;
  const sentences = [];
  const honest = data.models.find((m) => m.model === "neg_inf");
  if (honest) {
    sentences.push(
      honest.same === n
        ? `${modelName("neg_inf")} guesses the same words both ways: it cannot read ahead.`
        : `${modelName("neg_inf")} guesses the same word both ways at ${outOf(honest.same, n)} positions.`,
    );
  }
  const leaky = data.models.filter((m) => m.model !== "neg_inf");
  const helped = leaky.filter((m) => m.teacher_forced.right > m.free_running.right).map((m) => modelName(m.model));
  const not = leaky.filter((m) => m.teacher_forced.right <= m.free_running.right).map((m) => modelName(m.model));
  if (helped.length) {
    const verb = helped.length === 1 ? "gets" : "get";
    sentences.push(
      `${listed(helped)} ${verb} more right reading than writing alone: reading, the mask lets ` +
        `${helped.length === 1 ? "it" : "them"} see the word to guess.`,
    );
  }
  if (not.length) sentences.push(`${listed(not)} ${not.length === 1 ? "gets" : "get"} no more right reading.`);
  return sentences.join(" ");
}
