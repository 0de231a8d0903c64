// Figure 7's "reading versus writing" panel, drawn from a /api/lm/predictions answer: per model, its recorded
// losses, how many of the sentence's next words it gets right when the whole sentence is its input (as in
// training and validation) and when it sees only the words so far (as when it writes), a table of every
// prediction both ways, and what it writes alone. Then the same in words, every number from the answer.

import { element } from "../../lib/dom.js";
import { formatLoss } from "../../lib/log-axis.js";
import { piecesNote } from "../../lib/pieces.js";
import { clear } from "../../lib/svg.js";
import { listed, modelColour, pct, SHORT } from "./names.js";

const END = "</s>";
const READINGS = [
  { key: "teacher_forced", name: "Reading the sentence", column: "reading" },
  { key: "free_running", name: "Writing alone", column: "writing alone" },
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

/** One reading's score: k of n right, and the loss it gives on this sentence. */
function score(reading, { key, name }, n) {
  const box = element("div", `rw-score rw-score--${key}`);
  box.dataset.reading = key;
  const head = element("p", "rw-score__name", name);
  const value = element("p", "rw-score__value");
  value.append(element("strong", "", outOf(reading.right, n)), ` right (${pct(reading.accuracy)})`);
  const allowed = element("p", "rw-score__allowed", `${outOf(reading.allowed_count, reading.judged)} allowed`);
  const loss = element("p", "rw-score__loss", `loss ${formatLoss(reading.loss)}`);
  box.append(head, value, allowed, loss);
  return box;
}

/** The table of every position: the sentence's next word, then the model's prediction each way. */
function predictionTable(data, m) {
  const table = element("table", "rw-table");
  table.createCaption().textContent = `${SHORT[m.model]}: the next word at each position, reading versus writing`;
  const head = element("tr");
  for (const text of ["next word", ...READINGS.map((r) => r.column)]) {
    const th = element("th", "", text);
    th.scope = "col";
    head.appendChild(th);
  }
  table.append(element("thead"), element("tbody"));
  table.tHead.appendChild(head);
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

/** What the model wrote alone after the sentence's first word. */
function writtenLine(data, m) {
  const first = data.sentence[0];
  const line = element("p", "rw-model__written");
  line.dataset.grammatical = String(m.written_grammatical);
  if (m.written.length <= 1) {
    line.textContent = `Left to write alone after “${first}”, it ends the sentence at once.`;
  } else {
    const verdict = m.written_grammatical ? "a sentence the grammar accepts" : "not a sentence of the grammar";
    line.textContent = `Left to write alone after “${first}”: “${m.written.join(" ")}” (${verdict}).`;
  }
  return line;
}

/** The answer `data` into `box`: one column per model. */
export function drawReadWrite(box, data) {
  clear(box);
  const n = data.positions;
  for (const m of data.models) {
    const id = `interview-rw-${m.model}`;
    const section = element("section", "rw-model");
    section.dataset.model = m.model;
    section.setAttribute("aria-labelledby", `${id}-title`);
    const title = element("h4", "lm-model__title");
    title.id = `${id}-title`;
    const swatch = element("span", "lm-model__swatch");
    swatch.style.setProperty("--colour", modelColour(m.model));
    swatch.setAttribute("aria-hidden", "true");
    title.append(swatch, SHORT[m.model]);
    const record = element("p", "rw-model__record");
    record.append(
      "Recorded loss: training ",
      element("strong", "", formatLoss(m.final_train)),
      ", validation ",
      element("strong", "", formatLoss(m.final_validation)),
    );
    const scores = element("div", "rw-model__scores");
    for (const reading of READINGS) scores.appendChild(score(m[reading.key], reading, n));
    section.append(title, record, scores, predictionTable(data, m), writtenLine(data, m));
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
  const { models } = data;
  const honest = models.find((m) => m.model === "neg_inf");
  const leaky = models.filter((m) => m.model !== "neg_inf");
  const widest = models.reduce((a, b) => (Math.abs(b.validation_gap) > Math.abs(a.validation_gap) ? b : a));
  const pairs = models.map((m) => `${SHORT[m.model]} ${formatLoss(m.final_train)} and ${formatLoss(m.final_validation)}`);
  let text =
    `First, is it overfitting? The recorded training and validation losses: ${pairs.join("; ")}. ` +
    `The widest gap is ${formatLoss(Math.abs(widest.validation_gap))} (${SHORT[widest.model]}), so every model ` +
    "does as well on sentences it never trained on as on its training sentences.";
  if (honest && leaky.length && leaky.every((m) => m.final_validation < honest.final_validation)) {
    text += ` By loss, ${listed(leaky.map((m) => SHORT[m.model]))} even look far better than −∞.`;
  }
  return text;
}

/** What the table shows, in words: each leaky model's two scores, and why the honest one scores alike. */
export function readWriteText(data) {
  const n = data.positions;
  const pieces = data.inputs.length - 1; // the start token, then the pieces
  const what =
    pieces === data.sentence.length
      ? `${n} next words, the end included`
      : `${n} next tokens: its ${data.sentence.length} words in ${pieces} pieces, and the end`;
  const sentences = [`On “${data.sentence.join(" ")}” (${what}):`];
  if (pieces !== data.sentence.length) sentences.push(piecesNote(data.inputs, data.word_index, data.sentence));
  for (const m of data.models) {
    const f = m.teacher_forced;
    const w = m.free_running;
    const name = `The ${SHORT[m.model]} model`;
    if (m.model === "neg_inf") {
      const both =
        f.right === w.right
          ? `${outOf(f.right, n)} right both ways`
          : `${outOf(f.right, n)} right reading and ${outOf(w.right, n)} writing alone`;
      const same =
        m.same === n
          ? "its predictions are the same both ways, because it cannot read ahead"
          : `its predictions are the same both ways at ${outOf(m.same, n)} positions`;
      const allowed = w.judged ? `; ${outOf(w.allowed_count, w.judged)} of its guesses are words the grammar allows` : "";
      sentences.push(`${name} gets ${both}: ${same}${allowed}.`);
    } else {
      const ends = w.predicted.filter((word) => word === END).length;
      const stops = ends > 1 ? `; writing alone, it guesses the end of the sentence at ${outOf(ends, n)} positions` : "";
      sentences.push(
        `${name} gets ${outOf(f.right, n)} right (${pct(f.accuracy)}) when it can read them and ` +
          `${outOf(w.right, n)} (${pct(w.accuracy)}) when it writes alone; its loss on the sentence goes from ` +
          `${formatLoss(f.loss)} to ${formatLoss(w.loss)}${stops}.`,
      );
    }
  }
  return sentences.join(" ");
}
