// The three relations of figures 1 and 11 (app/models/relations.py derives them): how the page names them.

export const RELATIONS = {
  meaning: {
    label: "Meaning",
    what: "an ambiguous word and the word that settles its sense",
    does: "links a word to the word that settles its sense",
  },
  grammar: {
    label: "Grammar",
    what: "each word and its grammatical partner (subject ↔ verb)",
    does: "links words to their grammatical partners",
  },
  position: { label: "Position", what: "each word and the word just before it", does: "tracks the previous word" },
};

/** How the page names relation `name`; a name it does not know is shown as it is. */
export const relationInfo = (name) =>
  RELATIONS[name] ?? { label: name, what: "", does: `tracks ${name}` };

/** A relation's list item, headed by its name and what it pairs; the caller appends the result. With
 * `control`, the name is a button (class relation__label) the caller gives a job, such as showing the
 * relation's pairs while it has the focus. */
export function relationItem(name, { control = false } = {}) {
  const info = relationInfo(name);
  const li = document.createElement("li");
  li.className = "relation";
  li.dataset.relation = name;
  const heading = document.createElement("div");
  heading.className = "relation__name";
  const strong = document.createElement(control ? "button" : "strong");
  if (control) {
    strong.type = "button";
    strong.className = "relation__label";
  }
  strong.textContent = info.label;
  const what = document.createElement("span");
  what.className = "relation__what";
  what.textContent = info.what;
  heading.append(strong, what);
  li.appendChild(heading);
  return li;
}
