// Predict-then-reveal: a small form asks the reader to guess, and Reveal answers from the live numbers (the
// same endpoints the figures use), then says how the guess compares. Each prompt is an
// `<aside data-predict="key">` holding a form and a hidden answer paragraph.

import { Api } from "./api.js";

const api = new Api({ limit: 10 });
const MASK_LABEL = { neg_inf: "−∞", zero: "×0", none: "no mask" };
const percent = (x) => `${(Math.round(x * 10) / 10).toFixed(1)}%`;

/** The figures' own query-string keys, so the answer is about the view the reader is looking at. */
function param(name, fallback) {
  return new URLSearchParams(window.location.search).get(name) || fallback;
}

const ANSWERS = {
  /** Figure 1 at one head: which relation does the single head serve best? */
  async "one-head"(form, pageData) {
    const sentence = param("sentence", pageData.defaultSentence ?? "the river bank was steep");
    const params = new URLSearchParams({ sentence, heads: "1", mask: "none", trained: "true" });
    const data = await api.get(`/api/attention?${params}`);
    const relations = [...data.relations].sort((a, b) => b.score - a.score);
    const best = relations[0];
    const guess = form.elements.relation.value;
    const scores = relations.map((r) => `${r.name} ${r.score.toFixed(2)}`).join(", ");
    const verdict = guess === best.name ? "Right." : `Not quite: you guessed ${guess}.`;
    return (
      `${verdict} With one head, on “${data.tokens.join(" ")}”, the relation served best is ${best.name} ` +
      `(scores: ${scores}). No relation gets anywhere near all of the weight: that is what more heads fix.`
    );
  },

  /** Figure 5 under ×0: what share of attention still goes to the future? */
  async leak(form, pageData) {
    const sentence = param("mask_sentence", pageData.defaultSentence ?? "the river bank was steep");
    const heads = param("mask_heads", "3");
    const trained = ["0", "false", "off", "no"].includes(param("mask_trained", "1")) ? "false" : "true";
    const params = new URLSearchParams({ sentence, heads, mask: "zero", trained });
    const data = await api.get(`/api/attention?${params}`);
    const leak = data.future_leak * 100;
    const guess = Number(form.elements.leak.value);
    const off = Math.abs(guess - leak);
    const verdict = off <= 5 ? "Close." : `You guessed ${percent(guess)}, ${off.toFixed(1)} points away.`;
    return (
      `${verdict} Under ×0, ${percent(leak)} of the attention on “${data.tokens.join(" ")}” goes to later ` +
      "words (mean over heads and rows). Under −∞ it is exactly 0%."
    );
  },

  /** Figure 6: which of the three language models has the lowest validation loss? */
  async "lowest-loss"(form) {
    const lm = await api.get("/api/lm");
    const models = [...lm.models].sort((a, b) => a.final_validation - b.final_validation);
    const best = models[0];
    const guess = form.elements.model.value;
    const losses = models.map((m) => `${MASK_LABEL[m.mask] ?? m.mask} ${m.final_validation.toPrecision(2)}`);
    const verdict = guess === best.mask ? "Right." : `Not quite: you guessed ${MASK_LABEL[guess] ?? guess}.`;
    const honest = best.mask === "neg_inf" ? "" : " The lowest loss belongs to a model that can see the future.";
    return `${verdict} Lowest validation loss: ${MASK_LABEL[best.mask] ?? best.mask} (${losses.join(", ")}).${honest}`;
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
