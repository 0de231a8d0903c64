// Predict-then-reveal: a small form asks the reader to guess, and Reveal answers from the live numbers (the
// same endpoints the figures use), then says how the guess compares. Each prompt is an
// `<aside data-predict="key">` holding a form and a hidden answer paragraph.

import { Api } from "./api.js";
import { formatLoss } from "./log-axis.js";
import { relationInfo } from "./relations.js";
import { parse, readState } from "./url-state.js";

const api = new Api({ limit: 10 });
const percent = (x) => `${(Math.round(x * 10) / 10).toFixed(1)}%`;

/** The figures' own query-string keys, so the answer is about the view the reader is looking at. */
function param(name, fallback) {
  return new URLSearchParams(window.location.search).get(name) || fallback;
}

/** A relation's name as the page writes it in running text ("meaning"). */
const lower = (name) => relationInfo(name).label.toLowerCase();
const f2 = (x) => x.toFixed(2);

/** On "the score one head gets on every relation", this much or more on each is serving them all well. */
const SERVES_ALL = 0.5;

/** Figure 1's view as the reader has it (its URL state, parsed as figure 1 parses it; the heads it draws). */
function figureOneView(pageData) {
  const fallback = pageData.defaultSentence ?? "the river bank was steep";
  const state = readState({
    sentence: { fallback, parse: parse.text(pageData.maxChars ?? 500) },
    trained: { fallback: true, parse: parse.boolean },
  });
  const drawn = document.getElementById("heads-dial")?.exportData?.();
  return { ...state, heads: drawn?.heads ?? Number(param("heads", "3")) };
}

/** "meaning 0.98, grammar 0.97, position 1.00", a relation without pairs said so ("no meaning pair"). */
function scoreList(relations) {
  return relations.map((r) => (r.score === null ? `no ${lower(r.name)} pair` : `${lower(r.name)} ${f2(r.score)}`));
}

/** One pair that counts for two relations at once, in words ("dogs → bark, meaning and grammar"), or "". */
function sharedPair(data) {
  for (const r of data.relations) {
    const shared = r.shared_pairs?.[0];
    if (r.score !== null && shared) {
      const [i, j] = shared.pair;
      return `${data.tokens[i]} → ${data.tokens[j]} is a ${lower(r.name)} pair and a ${lower(shared.also)} pair`;
    }
  }
  return "";
}

const ANSWERS = {
  /** Figure 1 at one head, on the reader's sentence: which relation does the single head serve best? Every
   *  claim is computed from the answers: the ranking, whether one head serves every relation (at least
   *  SERVES_ALL on each), pairs two relations share, and the figure's own head count for comparison. */
  async "one-head"(form, pageData) {
    const view = figureOneView(pageData);
    const { sentence, trained } = view;
    const ask = (heads) => {
      const params = new URLSearchParams({ sentence, heads, mask: "none", trained, format: "packed" });
      return api.get(`/api/attention?${params}`);
    };
    const [data, dial] = await Promise.all([ask(1), view.heads > 1 ? ask(view.heads) : null]);
    const words = `“${data.tokens.join(" ")}”`;
    const layer = trained ? "one head" : "one head (untrained, as the figure is set)";
    const scored = data.relations.filter((r) => r.score !== null).sort((a, b) => b.score - a.score);
    const guess = form.elements.relation.value;
    if (!scored.length) {
      const none = scoreList(data.relations).join(", ");
      return `${words} has no pair of any relation (${none}), so there is nothing for ${layer} to serve.`;
    }
    const best = scored[0];
    const mine = data.relations.find((r) => r.name === guess);
    let verdict = "Right.";
    if (guess !== best.name) {
      if (!mine || mine.score === null) verdict = `Not quite: this sentence has no ${lower(guess)} pair.`;
      else if (f2(mine.score) === f2(best.score)) verdict = `A near tie: ${lower(guess)} scores ${f2(mine.score)} too.`;
      else verdict = `Not quite: you guessed ${lower(guess)}.`;
    }
    const worst = scored[scored.length - 1];
    const all =
      worst.score >= SERVES_ALL
        ? `Here ${layer} puts at least ${f2(SERVES_ALL)} on the partners of every relation the sentence has.`
        : `${relationInfo(worst.name).label} gets only ${f2(worst.score)}: ${layer} cannot give every relation ` +
          "its partners here.";
    const shared = sharedPair(data);
    const sharing = shared ? ` Some pairs count twice (${shared}), so one weight serves both.` : "";
    const more = dial
      ? ` With the figure's ${dial.heads} heads, the best head for each: ${scoreList(dial.relations).join(", ")}.`
      : "";
    return (
      `${verdict} With ${layer}, on ${words}, the relation served best is ${lower(best.name)} ` +
      `(scores: ${scoreList(data.relations).join(", ")}). ${all}${sharing}${more}`
    );
  },

  /** Figure 6 under ×0: what share of its decoder's attention still goes to the future? */
  async leak(form, pageData) {
    const fallback = pageData.maskLab?.defaultSentence ?? "";
    const { sentence } = readState({
      sentence: { param: "mask_sentence", fallback, parse: parse.text(pageData.lmMaxChars ?? 200) },
    }); // as figure 6 reads it: a blank or too long value in the URL falls back to its default
    const ask = (mask) => api.get(`/api/lm/attention?${new URLSearchParams({ model: "neg_inf", mask, sentence })}`);
    const [data, causal] = await Promise.all([ask("zero"), ask("neg_inf")]);
    const leak = data.future_leak * 100;
    const guess = Number(form.elements.leak.value);
    const off = Math.abs(guess - leak);
    const verdict = off <= 5 ? "Close." : `You guessed ${percent(guess)}, ${off.toFixed(1)} points away.`;
    const honest = causal.future_leak === 0 ? "exactly 0%" : percent(causal.future_leak * 100);
    return (
      `${verdict} Under ×0, ${percent(leak)} of the decoder's attention on “${data.tokens.slice(1).join(" ")}” ` +
      `goes to later words (mean over its layers, heads and rows). Under −∞ it is ${honest}.`
    );
  },

  /** Figure 7: which of the language models has the lowest validation loss? (Recorded at the end of
   *  each model's training run: the same for every sentence; written, and the models named, as figure 7
   *  writes them: their names come with the page data, `lmModels`.) */
  async "lowest-loss"(form, pageData) {
    const lm = await api.get("/api/lm");
    const models = lm.models.filter((m) => Number.isFinite(m.final_validation));
    models.sort((a, b) => a.final_validation - b.final_validation);
    const best = models[0];
    if (!best) return "No model's validation loss is on record.";
    const guess = form.elements.model.value;
    const names = new Map((pageData.lmModels ?? []).map((m) => [m.mask, m.name]));
    const label = (mask) => names.get(mask) ?? mask;
    const losses = models.map((m) => `${label(m.mask)} ${formatLoss(m.final_validation)}`);
    const verdict = guess === best.mask ? "Right." : `Not quite: you guessed ${label(guess)}.`;
    const honest = best.mask === "neg_inf" ? "" : " The lowest loss belongs to a model that can see the future.";
    return (
      `${verdict} Lowest validation loss: ${label(best.mask)} (${losses.join(", ")}), as recorded at the end ` +
      `of training.${honest}`
    );
  },
};

function wire(aside, pageData) {
  const form = aside.querySelector("form");
  const answer = aside.querySelector('[data-part="answer"]');
  const reveal = ANSWERS[aside.dataset.predict];
  if (!form || !answer || !reveal) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    answer.hidden = false;
    answer.textContent = "Working it out…";
    try {
      answer.textContent = await reveal(form, pageData);
      aside.classList.add("is-revealed");
    } catch (error) {
      answer.textContent = `The answer could not be computed: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}

export function startPredictions(root, pageData = {}) {
  for (const aside of root.querySelectorAll("[data-predict]")) wire(aside, pageData);
}
