// Figure 5's "About this model" panel: how the translator was built, trained and measured, all from its record
// (/api/translate/about).

import { element } from "../../lib/dom.js";
import { pct, quote, written } from "./view.js";

const para = (text, cls = "panel-text") => element("p", cls, text);

/** Write the record `a` into `el`. */
export function showAbout(el, a) {
  const num = (x) => x.toLocaleString("en");
  const seconds = a.training_seconds;
  const took = seconds >= 90 ? `${Math.round(seconds / 60)} minutes` : `${Math.round(seconds)} seconds`;
  const others = (a.alignment_by_layer ?? [])
    .map((x, l) => (l === a.best_layer ? null : `layer ${l + 1}: ${pct(x)}`))
    .filter(Boolean);
  const layerNote = others.length ? ` (${others.join(", ")})` : "";
  const parts = [
    para(
      `The model: an ${a.architecture}; ${a.encoder_layers} encoder and ${a.layers} decoder layers, ` +
        `${a.heads} heads, width ${a.d_model}, ${num(a.parameters)} parameters. It was trained here, ` +
        `from scratch, in about ${took}, on ${num(a.training_pairs)} English–French sentence pairs ` +
        `written by the project's own little grammar (${num(a.lexicon_entries)} dictionary entries). ` +
        "The page runs it in numpy, one step per French word.",
    ),
    para(
      `From the record of that training run (python -m training.train_translator reproduces it): on ` +
        `${num(a.heldout_pairs)} held-out pairs, whose English it never saw in training, it writes the ` +
        `reference translation exactly ${pct(a.exact_match)} of the time. For the ` +
        `${num(a.aligned_words)} French words there whose English source is known, the cross-attention ` +
        `of decoder layer ${a.best_layer + 1}, averaged over its heads, peaks on the right English word ` +
        `${pct(a.alignment)} of the time${layerNote}. That is how the page picks the layer it names best ` +
        "aligned.",
    ),
    ...(a.novel ? [novelPara(a)] : []),
    para(
      "Attention was never a training target: the model was only ever asked for the next French word. " +
        "Where it looks is what it learned it needed in order to answer.",
    ),
  ];
  const miss = a.misses?.[0];
  if (miss) {
    const wrote = `${quote(miss.source)} came out as ${quote(written(miss.translation))}`;
    parts.push(para(`It is not perfect. ${wrote}; the reference is ${quote(written(miss.reference))}.`));
  }
  if (a.vocabulary?.length) {
    const details = element("details", "gen-vocab");
    const summary = element("summary", "", `The ${num(a.vocabulary.length)} English words it knows`);
    details.append(summary, para(a.vocabulary.join(", "), "gen-vocab__list"));
    parts.push(details);
  }
  el.replaceChildren(...parts);
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

/** Say in `el` that the record could not be loaded, and why. */
export function showAboutFailure(el, message) {
  el.replaceChildren(para(`The model's record could not be loaded: ${message}`));
}
