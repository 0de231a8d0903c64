// Figure 5's "About this model" panel: how often the translator gets an unseen sentence right, then, folded,
// how it was built, trained and measured, all from its record (/api/translate/about).

import { element } from "../../lib/dom.js";
import { pct, quote, written } from "./view.js";

const para = (text, cls = "panel-text") => element("p", cls, text);

/** Write the record `a` into `el`: what the reader needs in one line (how often it gets a sentence it never
 * saw exactly right), and how it was built and measured in a fold. The layer hint states the
 * alignment percentages (index.js); the fold says how they were measured without saying them again. */
export function showAbout(el, a) {
  const num = (x) => x.toLocaleString("en");
  const seconds = a.training_seconds;
  const took = seconds >= 90 ? `${Math.round(seconds / 60)} minutes` : `${Math.round(seconds)} seconds`;
  const parts = [
    para(
      `On ${num(a.heldout_pairs)} held-out pairs, whose English it never saw in training, it writes the ` +
        `reference translation exactly ${pct(a.exact_match)} of the time.` +
        (a.everyday_sets?.length ? ` ${everydaySentence(a.everyday_sets)}` : ""),
    ),
  ];
  const how = [
    para(
      `The model: an ${a.architecture}; ${a.encoder_layers} encoder and ${a.layers} decoder layers, ` +
        `${a.heads} heads, width ${a.d_model}, ${num(a.parameters)} parameters. ` +
        `It was trained here, from scratch, in about ${took} ` +
        `on ${num(a.training_pairs)} English–French sentence pairs written by the project's own little grammar ` +
        `(${num(a.lexicon_entries)} dictionary entries); python -m training.train_translator reproduces the ` +
        "run. The page runs it in numpy, one step per French word.",
    ),
    para(
      `How well a layer is aligned with the English (the Layer hint): for the ${num(a.aligned_words)} French ` +
        `words of the held-out pairs whose English source is known, how often that decoder layer's ` +
        "cross-attention, averaged over its heads, peaks on the right English word. The page names the " +
        `best aligned layer, decoder layer ${a.best_layer + 1}.`,
    ),
    ...(a.novel ? [novelPara(a)] : []),
    ...(a.constructions ? [constructionsPara(Object.values(a.constructions))] : []),
  ];
  const miss = a.misses?.[0];
  if (miss) {
    const wrote = `${quote(miss.source)} came out as ${quote(written(miss.translation))}`;
    how.push(para(`It is not perfect. ${wrote}; the reference is ${quote(written(miss.reference))}.`));
  }
  if (a.unread) how.push(unreadPara(a));
  parts.push(fold("How it was built and measured", how));
  el.replaceChildren(...parts);
}

/** A closed <details class="fold"> headed `summary`, holding `children`. */
function fold(summary, children, cls = "") {
  const details = element("details", `fold ${cls}`.trim());
  details.append(element("summary", "", summary), ...children);
  return details;
}

/** The second held-out set of record `a`: combinations training never saw, and how the model does on them. */
function novelPara(a) {
  const n = a.novel;
  const layer = n.alignment_by_layer?.[a.best_layer];
  const aligned = typeof layer === "number" ? `, and layer ${a.best_layer + 1}'s cross-attention peaks on the ` +
    `right English word ${pct(layer)} of the time` : "";
  const miss = n.misses?.[0];
  const wrong = miss
    ? ` One it gets wrong: ${quote(miss.source)} came out as ${quote(written(miss.translation))}.`
    : "";
  return para(
    `A second held-out set tests what it generalises rather than remembers: ${n.heldout_pairs.toLocaleString("en")} ` +
      `pairs built from ${a.novel_description}. On them it writes the reference exactly ` +
      `${pct(n.exact_match)} of the time${aligned}.${wrong}`,
  );
}

/** The held-out sets of one construction each (`sets`, from the record): a verb in a construction training never
 * gives it, and how often the model writes the reference exactly. */
function constructionsPara(sets) {
  const each = sets.map(
    (set) => `${set.heldout_pairs.toLocaleString("en")} pairs with ${set.description}: ${pct(set.exact_match)} exact`,
  );
  return para(`Each construction has a held-out set of its own: ${each.join("; ")}.`);
}

/** How the translator does on the sets of everyday sentences written blind to its vocabulary (the record's
 * "everyday_sets", in the order they were written): those its grammar grew on afterwards together, then each
 * set scored once after training. */
function everydaySentence(sets) {
  const refused = (s) => (s.refused ? `, refusing ${s.refused} for a word it does not know` : "");
  const grown = sets.filter((s) => !s.blind);
  const blind = sets.filter((s) => s.blind);
  const clauses = [];
  if (grown.length) {
    const right = grown.map((s) => `${s.right} of ${s.sentences}`).join(" and ");
    const refusals = grown.reduce((n, s) => n + s.refused, 0);
    clauses.push(`it writes ${right} right in the sets its grammar then grew on${refused({ refused: refusals })}`);
  }
  for (const s of blind) {
    clauses.push(`of ${s.sentences} written later and scored once after training, ${s.right} right${refused(s)}`);
  }
  return `Of everyday sentences written for the test without looking at its words, ${clauses.join("; ")}.`;
}

/** How the check for words no step read was chosen and how it does, from record `a`'s "unread". */
function unreadPara(a) {
  const u = a.unread;
  const num = (x) => x.toLocaleString("en");
  const named = { negation: "“not”", time: "time word" };
  const kinds = u.kinds.map((k) => named[k] ?? k);
  const which = `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}`;
  return para(
    `Attention as a check: a ${which} is marked “not translated” when no step of the ` +
      `translation put ${u.threshold} or more of its attention on it (decoder layer ${a.best_layer + 1}, its ` +
      `heads averaged). On ${num(u.joined_sentences)} longer sentences made by joining held-out ones, the ` +
      `translations left out ${num(u.left_out)} such words and the check marked ${num(u.caught)}; of the ` +
      `${num(u.right_translations)} held-out pairs translated exactly right, it marked a word in ` +
      `${num(u.right_flagged)}. The threshold is the one that did best there.`,
  );
}

/** Say in `el` that the record could not be loaded, and why. */
export function showAboutFailure(el, message) {
  el.replaceChildren(para(`The model's record could not be loaded: ${message}`));
}
