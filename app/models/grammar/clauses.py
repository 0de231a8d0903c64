"""Step 3 of the parser: the chunks distributed over clauses, left to right.

who/which/that after a noun open a relative clause, a subordinating conjunction a subordinate clause, "that"
after a verb a complement clause, and/or/but before a subject and a verb a coordinated one (also before an
auxiliary, its subject and a verb: "... or will the sky stay clear"); a clause that hangs on another ends when
a second verb group arrives while the other still lacks a verb (the conventions are in the package
docstring, app/models/grammar/__init__.py). ``partners`` then reads each clause's pairs.
"""

from __future__ import annotations

from app.models.grammar.chunks import Unit
from app.models.grammar.place import BEFORE_A_VERB


class Clause:
    __slots__ = ("kind", "opener", "parent", "antecedent", "left", "units", "subject", "verb", "verbs")

    def __init__(
        self,
        kind: str,
        opener: int | None = None,
        parent: Clause | None = None,
        antecedent: int | None = None,
        left: Clause | None = None,
    ) -> None:
        self.kind = kind  # "main", "sub", "rel", "comp" or "coord"
        self.opener = opener
        self.parent = parent
        self.antecedent = antecedent
        self.left = left  # a coordinated clause's partner
        self.units: list[Unit] = []
        self.subject: int | None = None
        self.verb: int | None = None
        self.verbs: list[int] = []  # the heads of its verb groups, but an auxiliary merged into a later one

    def has_verb(self) -> bool:
        return any(u.kind == "vg" for u in self.units)


def _next_content(units: list[Unit], k: int) -> int:
    """Index of the first unit from k on that is not an adverb (len(units) if none)."""
    while k < len(units) and units[k].kind == "adv":
        k += 1
    return k


_OBJECT_PRONOUNS = frozenset({"me", "him", "us", "them"})


def distribute(
    units: list[Unit], coordinations: list[tuple[int, Unit | None, Unit]], keys: list[str]
) -> list[Clause]:
    """Distribute the chunks over clauses, left to right; record coordinated chunks in ``coordinations``.
    ``keys`` are the words' spellings."""
    main = Clause("main")
    clauses, cur = [main], main
    pending: tuple[int, Unit | None] | None = None  # a conjunction waiting for its second conjunct
    for ui, u in enumerate(units):
        if u.kind == "coord":
            k = _next_content(units, ui + 1)
            nxt = units[k] if k < len(units) else None
            m = _next_content(units, k + 1)
            while m < len(units) and units[m].kind == "np" and units[m].prep is not None:
                m = _next_content(units, m + 1)  # "and the man in the hat | left"
            then = units[m] if m < len(units) else None
            p = _next_content(units, m + 1)
            opens = nxt is not None and nxt.bare and then is not None and then.kind == "vg"
            # "... or will the sky stay clear": an auxiliary, its subject and its verb, a coordinated question
            asks = nxt is not None and nxt.kind == "vg" and then is not None and then.bare
            asks = asks and p < len(units) and units[p].kind == "vg"
            if (opens or asks) and cur.has_verb():
                cur = Clause(
                    "coord", opener=u.head, parent=cur.parent, left=cur
                )  # "... and the farmers lost"
                clauses.append(cur)
                continue
            if nxt is not None and nxt.kind == "vg":
                left = next((x for x in reversed(cur.units) if x.kind == "vg"), None)
            elif nxt is not None:
                same = [x for x in cur.units if x.kind == nxt.kind and (x.prep is None) == (nxt.prep is None)]
                if nxt.kind == "np" and nxt.bare:
                    same = [x for x in cur.units if x.kind == "np"]
                left = same[-1] if same else (cur.units[-1] if cur.units else None)
            else:
                left = cur.units[-1] if cur.units else None
            pending = (u.head, left)
            cur.units.append(u)
            continue
        if u.kind in ("sub", "comp"):
            cur = Clause(u.kind, opener=u.head, parent=cur)
            clauses.append(cur)
            continue
        if u.kind == "rel":
            before = units[ui - 1] if ui else None
            antecedent = before.head if before is not None and before.kind == "np" else None
            cur = Clause("rel", opener=u.head, parent=cur, antecedent=antecedent)
            clauses.append(cur)
            continue
        if _contact_relative(cur, units, ui, keys):  # "the film | we watched last night | was scary"
            cur = Clause("rel", parent=cur, antecedent=units[ui - 1].head)
            clauses.append(cur)
        if pending is not None and u.kind != "adv":
            conj, left = pending
            pending = None
            u.left = left
            coordinations.append((conj, left, u))
        elif u.kind == "vg" and cur.has_verb() and not (cur.units and cur.units[-1].kind == "inf"):
            k = _trailing_subject(cur, keys)
            if _question_so_far(cur):
                pass  # "can you swim": the verb groups merge when the clause is resolved
            elif cur.kind in ("sub", "rel", "comp") and cur.parent is not None and not cur.parent.has_verb():
                parent = cur.parent
                if k is not None and not any(x.bare for x in parent.units):
                    parent.units.extend(cur.units[k:])  # "if it rains tomorrow | we will stay"
                    del cur.units[k:]
                elif cur.kind == "rel":
                    parent.units.extend(_adverbs_after_the_last_phrase(cur, keys))
                cur = parent
            elif k is not None:
                moved = cur.units[k:]  # "i think | the movie was boring": a complement clause with no "that"
                del cur.units[k:]
                cur = Clause("comp", parent=cur)
                clauses.append(cur)
                cur.units.extend(moved)
        cur.units.append(u)
    return clauses


def _adverbs_after_the_last_phrase(clause: Clause, keys: list[str]) -> list[Unit]:
    """The adverbs that stand before a verb (always, never, ...) after a relative clause's last noun phrase,
    taken off the clause: they go with the verb that ends it ("the pupil who sits near the door | always
    finishes"); others stay ("the man who cut my hair yesterday | has moved")."""
    units = clause.units
    k = len(units)
    while k and units[k - 1].kind == "adv" and keys[units[k - 1].head] in BEFORE_A_VERB:
        k -= 1
    if k == len(units) or not k or units[k - 1].kind != "np":
        return []
    moved = units[k:]
    del units[k:]
    return moved


def _contact_relative(clause: Clause, units: list[Unit], ui: int, keys: list[str]) -> bool:
    """Does unit ui, a subject pronoun right after a noun phrase in a clause with no verb yet and before a
    verb group, open a relative clause with no relative pronoun ("the cake | we made | was sweet")?"""
    u, before = units[ui], units[ui - 1] if ui else None
    after = units[ui + 1] if ui + 1 < len(units) else None
    if not (u.bare and keys[u.head] in _SUBJECTS and before is not None and before.bare):
        return False
    return (
        after is not None
        and after.kind == "vg"
        and not clause.has_verb()
        and keys[before.head] not in _SUBJECTS
    )


_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they"})


def _trailing_subject(clause: Clause, keys: list[str]) -> int | None:
    """Where the subject of a verb group that arrives after the clause has its verb starts: the last bare noun
    phrase after that verb, with only phrases that own a preposition and adverbs after it ("the tailor said
    | the collar on my shirt was", "when the liquids were mixed | the beaker suddenly turned")."""
    units = clause.units
    k = len(units) - 1
    while k >= 0 and (units[k].kind == "adv" or (units[k].kind == "np" and units[k].prep is not None)):
        k -= 1
    if k < 0 or not units[k].bare or units[k].left is not None or not any(x.kind == "vg" for x in units[:k]):
        return None
    return None if keys[units[k].head] in _OBJECT_PRONOUNS else k  # "made me laugh", "see him | tell"


def _question_so_far(clause: Clause) -> bool:
    """[wh | adverb]* auxiliary [adverb]* noun-phrase [adverb | phrase with a preposition]*: a question
    waiting for its main verb ("does the bark of your dog | scare")."""
    if clause.kind not in ("main", "coord"):
        return False
    kinds = [u for u in clause.units if u.kind != "adv" and (u.kind != "np" or u.prep is None)]
    while kinds and (kinds[0].kind == "wh" or (kinds[0].kind == "adj" and clause.units[0].kind == "wh")):
        kinds = kinds[1:]  # "how long will you stay"
    return len(kinds) == 2 and kinds[0].kind == "vg" and kinds[1].bare


def aux_only(unit: Unit, role: list[str]) -> bool:
    return unit.kind == "vg" and role[unit.head] == "aux"
