// Figure 1's verdicts: what each head does, in words computed from its relation scores (the answer's
// relations[].head_scores), and the one-line story of all the heads together. No verdict is fixed text: the
// thresholds below decide, the data fills in the names.

import { relationInfo } from "../../lib/relations.js";

export const SERVES = 0.9; // a head that puts this much of its weight on a relation's pairs does that job
export const CLEAR_LEAD = 0.15; // ... and serves that relation alone when it leads every other one by this much
export const SHARE = 0.45; // a relation scoring this much takes a real share of a head's weight

const name = (relation) => relationInfo(relation).label.toLowerCase();

/** "a", "a and b", "a, b and c" (or "a, b or c" with `or`). */
export function listWords(words, conjunction = "and") {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} ${conjunction} ${words[words.length - 1]}`;
}

/** Head `k`'s score on each relation that has pairs in this sentence: [{relation, score}], in the answer's order. */
export function headScores(data, k) {
  return data.relations
    .filter((r) => Array.isArray(r.head_scores))
    .map((r) => ({ relation: r.name, score: r.head_scores[k] }));
}

/**
 * What a head with relation scores `scores` ([{relation, score}]) does:
 * - "serves": one relation scores at least SERVES and leads the others by CLEAR_LEAD;
 * - "shares": several relations score at least SERVES, close together (it serves them all);
 * - "torn": no relation reaches SERVES, and several take a share (SHARE) of the head's weight;
 * - "leans": no relation reaches SERVES and just one takes a share;
 * - "none": no relation takes a share.
 * Returns {kind, relations (the names it serves or is torn between, best first), texts (the verdict in words,
 * longest first, so a narrow drawing can take the first that fits), predicate (the verdict after "the head")}.
 */
export function verdict(scores) {
  const ranked = [...scores].sort((a, b) => b.score - a.score);
  if (!ranked.length) {
    const texts = ["no relation in this sentence", "no relation"];
    return { kind: "none", relations: [], texts, predicate: "has no relation to serve in this sentence" };
  }
  const [top] = ranked;
  const words = (list) => list.map((s) => name(s.relation));
  if (top.score >= SERVES) {
    const close = ranked.filter((s) => s.score >= SERVES && top.score - s.score < CLEAR_LEAD);
    const relations = close.map((s) => s.relation);
    if (close.length === 1) {
      const text = `serves ${name(top.relation)}`;
      return { kind: "serves", relations, texts: [text], predicate: text };
    }
    const w = words(close);
    const texts = [`serves ${listWords(w)}`, `serves ${w.join(", ")}`];
    return { kind: "shares", relations, texts, predicate: texts[0] };
  }
  const sharing = ranked.filter((s) => s.score >= SHARE);
  const relations = sharing.map((s) => s.relation);
  if (sharing.length >= 2) {
    const w = words(sharing);
    const ways = sharing.length === 2 ? "two" : sharing.length === 3 ? "three" : String(sharing.length);
    const texts = [`torn between ${listWords(w)}`, `torn: ${w.join(", ")}`, `torn ${ways} ways`];
    return { kind: "torn", relations, texts, predicate: `is ${texts[0]}` };
  }
  if (sharing.length === 1) {
    const text = `leans to ${name(top.relation)}`;
    return { kind: "leans", relations, texts: [text], predicate: `only ${text}` };
  }
  return { kind: "none", relations: [], texts: ["no clear job"], predicate: "has no clear job" };
}

/** Every head's verdict for the answer `data`. */
export const verdicts = (data) => data.weights.map((_, k) => verdict(headScores(data, k)));

/**
 * The story of all the heads in one or two sentences, from their verdicts `all` and the answer `data`: which
 * head serves which relation, which relations no head serves, and how many heads are torn or idle.
 */
export function story(data, all) {
  const present = data.relations.filter((r) => Array.isArray(r.head_scores)).map((r) => r.name);
  const missing = data.relations.filter((r) => !Array.isArray(r.head_scores)).map((r) => name(r.name));
  const absent = missing.length
    ? ` This sentence has no ${listWords(missing, "or")} pair${missing.length > 1 ? "s" : ""}.`
    : "";
  if (!present.length) return "No relation has a pair in this sentence.";
  if (all.length === 1) return `The one head ${all[0].predicate}.${absent}`;

  const servedBy = new Map(present.map((r) => [r, []]));
  all.forEach((v, k) => {
    if (v.kind === "serves" || v.kind === "shares") for (const r of v.relations) servedBy.get(r)?.push(k + 1);
  });
  const heads = (ks) => (ks.length === 1 ? `Head ${ks[0]}` : `Heads ${listWords(ks.map(String))}`);
  const served = present.filter((r) => servedBy.get(r).length);
  const unserved = present.filter((r) => !servedBy.get(r).length);
  const parts = [];
  if (served.length) {
    const first = (r) => Math.min(...servedBy.get(r));
    const items = served
      .sort((a, b) => first(a) - first(b))
      .map((r, idx) => {
        const ks = servedBy.get(r);
        return `${heads(ks)} ${idx ? "" : ks.length > 1 ? "serve " : "serves "}${name(r)}`;
      });
    const own = unserved.length === 0 && served.every((r) => servedBy.get(r).length === 1);
    const each = missing.length ? "Each relation in this sentence" : "Each relation";
    parts.push(`${own ? `${each} has a head of its own: ` : ""}${listWords(items)}.`);
  }
  if (unserved.length) parts.push(`No head serves ${listWords(unserved.map(name), "or")}.`);
  const count = (kind) => all.filter((v) => v.kind === kind).length;
  const rest = [];
  const [torn, leans, none] = [count("torn"), count("leans"), count("none")];
  if (torn) rest.push(`${torn} ${torn === 1 ? "is" : "are"} torn between relations`);
  if (leans) rest.push(`${leans} only ${leans === 1 ? "leans" : "lean"} to one`);
  if (none) rest.push(`${none} ${none === 1 ? "has" : "have"} no clear job`);
  if (none === all.length) parts.push(`None of the ${all.length} heads has a clear job.`);
  else if (rest.length) parts.push(`Of the ${all.length} heads, ${listWords(rest)}.`);
  return parts.join(" ") + absent;
}
