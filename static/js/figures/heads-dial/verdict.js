// Figure 1's verdicts in words: what each head does, as the server judged it (the answer's `verdicts`, from
// app/models/verdicts.py), with the scores behind it (relations[].head_scores), and the one-line story of all
// the heads together. The page judges nothing: the kind of each verdict and the relations it names come in
// the answer; this module only words them.

import { relationInfo } from "../../lib/relations.js";

const name = (relation) => relationInfo(relation).label.toLowerCase();
const f2 = (x) => x.toFixed(2);
const WAYS = { 2: "two", 3: "three" };

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
 * Head `k`'s verdict (the answer's `verdicts[k]`) in words: {kind, relations (best first), texts (the verdict
 * without numbers, longest first), lines (the verdict with the scores it rests on, "serves meaning · 0.98",
 * longest first, so a narrow drawing takes the first that fits), predicate (the verdict after "the head")}.
 */
export function worded(data, k) {
  const { kind, relations } = data.verdicts[k];
  const scores = headScores(data, k);
  const scoreOf = new Map(scores.map((s) => [s.relation, s.score]));
  const named = relations.filter((r) => scoreOf.has(r));
  const numbers = named.map((r) => f2(scoreOf.get(r))).join(", ");
  const top = scores.length ? f2(Math.max(...scores.map((s) => s.score))) : null;
  const words = named.map(name);
  const withScores = (texts, short = numbers) => [
    ...texts.map((t) => `${t} · ${numbers}`),
    ...(short !== numbers ? [`${texts.at(-1)} · ${short}`] : []),
  ];
  const result = (texts, predicate, lines) => ({ kind, relations, texts, predicate, lines });

  if (!scores.length) {
    const texts = ["no relation in this sentence", "no relation"];
    return result(texts, "has no relation to serve in this sentence", texts);
  }
  if (kind === "serves") {
    const text = `serves ${words[0]}`;
    return result([text], text, withScores([text]));
  }
  if (kind === "shares") {
    const texts = [`serves ${listWords(words)}`, `serves ${words.join(", ")}`];
    return result(texts, texts[0], withScores(texts, top));
  }
  if (kind === "torn") {
    const ways = WAYS[words.length] ?? String(words.length);
    const texts = [`torn between ${listWords(words)}`, `torn: ${words.join(", ")}`, `torn ${ways} ways`];
    return result(texts, `is ${texts[0]}`, withScores(texts, top));
  }
  if (kind === "leans") {
    const text = `leans to ${words[0]}`;
    return result([text], `only ${text}`, withScores([text]));
  }
  const texts = ["no clear job"];
  return result(texts, "has no clear job", [`no clear job · at most ${top}`, `no clear job · ≤ ${top}`]);
}

/** Every head's verdict for the answer `data`, in words. */
export const verdicts = (data) => data.verdicts.map((_, k) => worded(data, k));

/** Relation `relation`'s own head in the answer `data` (its `own_heads`, judged on the server), 0-based, or null. */
export const ownHead = (data, relation) => data.own_heads?.[relation] ?? null;

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
    const own = present.every((r) => ownHead(data, r) !== null);
    const each = missing.length ? "Each relation in this sentence" : "Each relation";
    const owned = present
      .map((r) => [ownHead(data, r), r])
      .sort((a, b) => a[0] - b[0])
      .map(([k, r], idx) => `Head ${k + 1} ${idx ? "" : "serves "}${name(r)}`);
    parts.push(own ? `${each} has a head of its own: ${listWords(owned)}.` : `${listWords(items)}.`);
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
