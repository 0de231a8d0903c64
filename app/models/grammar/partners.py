"""The parser's last step: each clause's grammar pairs, the links between clauses, and the partners a second
conjunct shares with the first.

Every construction of the package docstring (app/models/grammar/__init__.py) has its own function here: the
subject of a question between its auxiliary and its main verb, the subject of a clause, and the partners of
each kind of chunk (a verb group, a noun phrase, a question word, an adjective, an adverb, a particle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.models.grammar.chunks import Unit
from app.models.grammar.clauses import Clause, aux_only

Pairs = set[tuple[int, int]]


@dataclass(slots=True)
class _Scope:
    """One clause being resolved: its chunks, the verb groups merged into a later one, its main verb group,
    the subject a question puts after its auxiliary, its subject and verb, and the pairs found so far."""

    units: list[Unit]
    merged: set[Unit]
    main: Unit | None
    inverted: Unit | None
    subject: int | None
    verb: int | None
    pos: list[str]
    role: list[str]
    pairs: Pairs
    lemmas: list[str]

    def verb_before(self, k: int) -> int | None:
        g = next((x for x in reversed(self.units[:k]) if x.kind == "vg" and x not in self.merged), None)
        return g.head if g is not None else None

    def verb_after(self, k: int) -> int | None:
        g = next((x for x in self.units[k + 1 :] if x.kind == "vg" and x not in self.merged), None)
        return g.head if g is not None else None


def _inversion(clause: Clause, role: list[str], pairs: Pairs) -> tuple[list[Unit], Unit | None]:
    """The clause's verb groups, and a question's subject between its auxiliary and its main verb ("can you
    swim": can -> swim, you <-> swim), whose auxiliary's group then merges into the main verb's."""
    units = clause.units
    groups = [u for u in units if u.kind == "vg"]
    if clause.kind in ("main", "coord") and len(groups) >= 2 and aux_only(groups[0], role):
        first, second = units.index(groups[0]), units.index(groups[1])
        # the subject between them, and any phrase that qualifies it: "does the bark of your dog scare you"
        between = [
            u for u in units[first + 1 : second] if u.kind != "adv" and (u.kind != "np" or u.prep is None)
        ]
        asking = all(
            u.kind in ("wh", "adv") or (u.kind == "adj" and units[0].kind == "wh") for u in units[:first]
        )
        if asking and len(between) == 1 and between[0].bare:  # "how long will you stay"
            pairs.update((t, groups[1].head) for t in range(groups[0].start, groups[0].head + 1))
            return groups[1:], between[0]
    return groups, None


def _subject(clause: Clause, main: Unit | None, pos: list[str], role: list[str], be: bool) -> int | None:
    """The last bare noun phrase before the main verb group; else a relative clause's pronoun, a question
    word (but not a pronoun before ``be`` and a noun phrase: "what is the capital"), or after a lone
    auxiliary the first bare noun phrase after it ("is the bread warm")."""
    if main is None:
        return None
    units = clause.units
    before = units[: units.index(main)]
    candidates = [u for u in before if u.bare and u.left is None]
    whs = [u for u in before if u.kind == "wh" and pos[u.head] in ("pron", "noun")]
    if candidates:
        return candidates[-1].head
    if clause.kind == "rel":
        return clause.opener
    after = [u for u in units[units.index(main) + 1 :] if u.bare and u.left is None]
    if whs and not (be and after and pos[whs[0].head] == "pron"):
        return whs[0].head  # "who ate the cake", "which month has the most rain"
    if aux_only(main, role):  # "is the bread warm", "there are two cats", "what is the capital"
        return after[0].head if after else None
    return None


def _verb_group(s: _Scope, k: int, u: Unit) -> None:
    units, pairs = s.units, s.pairs
    if u is s.main:
        if k and units[k - 1].kind == "inf":
            pairs.add((units[k - 1].head, u.head))
        return
    before = units[k - 1] if k else None
    if before is not None and before.kind == "inf":
        pairs.add((before.head, u.head))
        target = units[k - 2] if k >= 2 else None
        if target is not None and target.kind == "adj":
            pairs.add((u.head, target.head))  # "too hot to drink"
            return
    previous = s.verb_before(k)
    if previous is not None:
        pairs.add((u.head, previous))  # "wants to swim", "stopped working"


def _noun_phrase(s: _Scope, k: int, u: Unit) -> None:
    if u.bare and u.head != s.subject:
        target = s.verb_before(k) if s.verb_before(k) is not None else s.verb
        if target is not None:
            s.pairs.add((u.head, target))  # objects, "last week", "home"


def _question_word(s: _Scope, k: int, u: Unit) -> None:
    if u.head + 1 < len(s.pos) and s.pos[u.head + 1] in ("adj", "adv"):
        s.pairs.add((u.head, u.head + 1))  # "how old"
    elif u.head != s.subject and s.verb is not None:
        s.pairs.add((u.head, s.verb))  # "what did you eat", "when will the bus arrive"


def _adjective(s: _Scope, k: int, u: Unit) -> None:
    previous = next((x for x in reversed(s.units[:k]) if x.kind != "adv"), None)
    if (
        previous is not None
        and previous.bare
        and previous.head != s.subject
        and previous is not s.inverted
        and s.verb_before(k) is not None
    ):
        s.pairs.add((u.head, previous.head))  # "left the door open"
        return
    main, subject = s.main, s.subject
    if (
        s.inverted is not None
        and u.head < s.inverted.head
        and s.verb is not None
        and s.lemmas[s.verb] != "be"
    ):
        s.pairs.add((u.head, s.verb))  # "how long will you stay": long -> stay
        return
    fronted = main is not None and aux_only(main, s.role) and subject is not None and subject > u.head
    if subject is not None and (s.verb_before(k) is not None or s.inverted is not None or fronted):
        s.pairs.add((u.head, subject))  # "the bank was steep", "is the bread still warm", "how old is he"
    elif subject is None and s.units[0].kind == "vg" and s.lemmas[s.units[0].head] == "be":
        s.pairs.add((u.head, s.verb_before(k)))  # an order with no subject: "be careful": careful -> be


def _adverb(s: _Scope, k: int, u: Unit) -> None:
    pos, role = s.pos, s.role
    negates = s.lemmas[u.head] == "not" and s.verb_before(k) is not None  # "is not ripe": not -> is
    if u.head + 1 < len(pos) and pos[u.head + 1] in ("adj", "adv") and role[u.head + 1] == "" and not negates:
        s.pairs.add((u.head, u.head + 1))  # "very long", "still warm"
        return
    previous_unit = s.units[k - 1] if k else None
    target = s.verb_before(k)
    if target is None or (previous_unit is not None and previous_unit.kind == "coord"):
        target = s.verb_after(k) if s.verb_after(k) is not None else target
    if target is not None:
        s.pairs.add((u.head, target))


def _particle(s: _Scope, k: int, u: Unit) -> None:
    target = s.verb_before(k)
    if target is not None:
        s.pairs.add((u.head, target))  # a particle: "she got up"


_PARTNERS_OF: dict[str, Callable[[_Scope, int, Unit], None]] = {
    "vg": _verb_group,
    "np": _noun_phrase,
    "wh": _question_word,
    "adj": _adjective,
    "adv": _adverb,
    "prep": _particle,
}


def _relative_pronoun(
    clause: Clause, subject: int | None, verb: int | None, pos: list[str], pairs: Pairs
) -> None:
    """The relative pronoun -> the noun it stands for, and -> its verb when it is not the subject."""
    if clause.kind == "rel" and clause.opener is not None:
        if clause.antecedent is not None:
            pairs.add((clause.opener, clause.antecedent))
        first = clause.units[0] if clause.units else None
        if first is not None and pos[clause.opener] == "det" and first.start == clause.opener + 1:
            pairs.add((clause.opener, first.head))  # "the girl whose bike was stolen": whose -> girl, bike
        elif verb is not None and subject != clause.opener:
            pairs.add((clause.opener, verb))


def resolve(clause: Clause, pos: list[str], role: list[str], pairs: Pairs, lemmas: list[str]) -> None:
    """Add the clause's pairs by the conventions in the package docstring; set its subject and verb."""
    units = clause.units
    groups, inverted = _inversion(clause, role, pairs)
    merged = {u for u in units if u.kind == "vg"} - set(groups)
    main = groups[0] if groups else None
    verb = main.head if main is not None else None
    for g in groups:  # auxiliaries and adverbs inside a verb group -> its main verb
        pairs.update((t, g.head) for t in range(g.start, g.head))
    be = verb is not None and lemmas[verb] == "be"
    subject = inverted.head if inverted is not None else _subject(clause, main, pos, role, be)
    clause.subject, clause.verb = subject, verb
    clause.verbs = [g.head for g in groups]
    if subject is not None and verb is not None:
        pairs.update({(subject, verb), (verb, subject)})
    _relative_pronoun(clause, subject, verb, pos, pairs)
    scope = _Scope(units, merged, main, inverted, subject, verb, pos, role, pairs, lemmas)
    for k, u in enumerate(units):
        if u.left is not None or u is inverted or u in merged:
            continue  # second conjuncts take their partners from the first, later
        partners = _PARTNERS_OF.get(u.kind)
        if partners is not None:
            partners(scope, k, u)
    if clause.kind in ("sub", "comp") and clause.opener is not None and verb is None:
        phrase = next((u for u in units if u.kind == "np"), None)
        if phrase is not None:  # "than the dog", "as a child": the conjunction acts as a preposition
            pairs.update({(clause.opener, phrase.head), (phrase.head, clause.opener)})


def link_clauses(clauses: list[Clause], pairs: Pairs) -> None:
    """A subordinate or complement clause's conjunction -> its verb and the verb of the clause it hangs on
    (with no conjunction, its verb -> that verb); a coordinating conjunction -> the verbs of both clauses."""
    for c in clauses:
        parent_verb = c.parent.verb if c.parent is not None else None
        if c.parent is not None and c.kind in ("sub", "comp"):
            start = c.opener if c.opener is not None else c.units[0].start if c.units else None
            before = [v for v in c.parent.verbs if start is not None and v < start]
            if before:  # after two verbs, the nearer: "remember to charge the phone before we left"
                parent_verb = before[-1]
        if c.kind in ("sub", "comp") and c.verb is not None:
            if c.opener is not None:
                pairs.add((c.opener, c.verb))
                if parent_verb is not None:
                    pairs.add((c.opener, parent_verb))
            elif parent_verb is not None:
                pairs.add((c.verb, parent_verb))
        elif c.kind == "coord" and c.opener is not None:
            for verb in (c.left.verb if c.left is not None else None, c.verb):
                if verb is not None:
                    pairs.add((c.opener, verb))


def share(coordinations: list[tuple[int, Unit | None, Unit]], role: list[str], pairs: Pairs) -> None:
    """The conjunction points at both conjuncts; the second takes the first one's partners, and a second verb
    with no auxiliary of its own the first one's ("we should clean the house and buy flowers": should ->
    buy)."""
    for conj, left, right in coordinations:
        pairs.add((conj, right.head))
        if left is None:
            continue
        pairs.add((conj, left.head))
        if left.kind == right.kind == "vg" and right.start == right.head:
            pairs.update((t, right.head) for t in range(left.start, left.head) if role[t] == "aux")
        if right.kind == "np" and right.prep is not None:
            continue  # "in the morning and in the evening": the second has its own preposition
        # "with butter and honey": with -> both; "with rice and a green salad": with -> rice alone
        alone = left.kind == "np" and left.prep is not None and right.start != right.head
        for a, b in [pair for pair in pairs if pair[0] == left.head and pair[1] != conj]:
            pairs.add((right.head, b))
            if (b, a) in pairs and not (alone and b == left.prep):
                pairs.add((b, right.head))
