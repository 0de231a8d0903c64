"""Step 2 of the parser: the tagged sentence in chunks, noun phrases, verb groups and single words.

The conventions are in the package docstring (app/models/grammar/__init__.py): noun phrases with their
determiners, modifiers and the preposition that owns them; verb groups from the first auxiliary to the main
verb; every other word a chunk of its own, by its role or part of speech.
"""

from __future__ import annotations

from app.models.grammar.place import CLAUSE_PREPOSITIONS
from app.models.grammar.reading import Reading

# Verbs whose particle comes before their object ("turn off the oven": off -> turn, oven -> turn), by
# lemma. After any other verb a preposition before a noun phrase heads that phrase ("sat on the bank").
PHRASAL_VERBS = {
    "turn": {"off", "on", "up", "down"},
    "switch": {"off", "on"},
    "put": {"on", "off", "away", "out"},
    "take": {"off", "out", "away"},
    "pick": {"up"},
    "throw": {"away", "out"},
    "give": {"up", "back", "away"},
    "bring": {"back", "up"},
    "wake": {"up"},
    "clean": {"up"},
    "wash": {"up"},
    "fill": {"in", "up"},
    "write": {"down"},
    "shut": {"down", "off"},
    "set": {"up"},
    "try": {"on"},
    "call": {"off"},
    "hand": {"in", "out"},
    "let": {"out", "in"},
    "burn": {"out", "down"},
    "break": {"down"},
    "look": {"up"},
    "find": {"out"},
    "work": {"out"},
    "heat": {"up"},
    "warm": {"up"},
    "cut": {"off", "down", "up"},
    "knock": {"down", "over", "out"},
    "print": {"out"},
    "pull": {"on", "off", "down"},
    "pay": {"in", "back", "off"},
    "blow": {"out", "up"},
    "hang": {"up"},
    "sort": {"out"},
    "tidy": {"up"},
    "lock": {"up"},
    "tear": {"up", "down"},
}


class Unit:
    """A chunk of the sentence: kind is "np", "vg", "adj", "adv", "prep", "coord", "sub", "rel", "comp",
    "wh", "inf" or "other"; ``head`` is its head token; ``prep`` the preposition that owns a noun phrase."""

    __slots__ = ("kind", "head", "start", "prep", "left")

    def __init__(self, kind: str, head: int, start: int | None = None, prep: int | None = None) -> None:
        self.kind = kind
        self.head = head
        self.start = head if start is None else start
        self.prep = prep
        self.left: Unit | None = None  # for the second of two coordinated chunks: the first

    @property
    def bare(self) -> bool:
        """A noun phrase with no preposition."""
        return self.kind == "np" and self.prep is None


def _noun_phrase(i: int, pos: list[str], role: list[str]) -> tuple[int, int] | None:
    """(start, head) of the noun phrase starting at i: [det]* [adv? adj | num | adj and adj]* noun+."""
    n, j = len(pos), i
    while j < n and pos[j] == "det":
        j += 1
    while j < n:
        modifier = pos[j] in ("adj", "num")
        degree = pos[j] == "adv" and role[j] == "" and j + 1 < n and pos[j + 1] == "adj"  # "very old"
        joined = (
            role[j] == "coord"
            and j > i
            and pos[j - 1] == "adj"
            and j + 1 < n
            and pos[j + 1] in ("adj", "adv")
        )
        if not (modifier or degree or joined):
            break
        j += 1
    k = j
    while k < n and pos[k] == "noun":
        k += 1
    if k == j and j > i and pos[j - 1] == "num":
        return (i, j - 1)  # a number with no noun heads its phrase: "until eleven"
    return (i, k - 1) if k > j else None


def _phrasal(i: int, reads: list[Reading], pos: list[str]) -> bool:
    """Is the preposition i the particle of the verb before it, its object no bare noun ("pay in this
    cheque", not "paid in cash")?"""
    bare = i + 1 < len(pos) and pos[i + 1] == "noun"
    return reads[i].key in PHRASAL_VERBS.get(reads[i - 1].lemma, ()) and not bare


def _particle_before_a_subject(i: int, pos: list[str], role: list[str]) -> bool:
    """Is the preposition i a particle that ends a subordinate clause opening the sentence, the phrase after
    it the main clause's subject ("when the lights go out | the ward becomes quiet")?"""
    if role[0] != "sub" or any(r in ("sub", "rel", "comp", "coord") for r in role[1:i]):
        return False
    found = _noun_phrase(i + 1, pos, role) if i + 1 < len(pos) else None
    return found is not None and found[1] + 1 < len(pos) and pos[found[1] + 1] == "verb"


def chunk(reads: list[Reading], pos: list[str], role: list[str], pairs: set[tuple[int, int]]) -> list[Unit]:
    """Split the tagged sentence into chunks, adding the pairs inside noun phrases to ``pairs``."""
    units: list[Unit] = []
    n, i = len(pos), 0

    def phrase(start: int, head: int, prep: int | None) -> None:
        for t in range(start, head):
            if pos[t] == "adv":
                pairs.add((t, t + 1))
            elif role[t] == "coord":
                pairs.update({(t, t - 1), (t, t + 1)})
            else:
                pairs.add((t, head))
        if prep is not None:
            pairs.update({(prep, head), (head, prep)})
        asks = prep is None and role[start] == "whdet"  # "which song": the question word's phrase
        units.append(Unit("wh" if asks else "np", head, start, prep))

    while i < n:
        p, rl = pos[i], role[i]
        if rl in ("coord", "sub", "rel", "comp", "wh", "inf"):
            units.append(Unit(rl, i))
            i += 1
        elif (
            p == "prep"
            and i
            and pos[i - 1] == "verb"
            and (_phrasal(i, reads, pos) or _particle_before_a_subject(i, pos, role))
        ):
            units.append(Unit("prep", i))  # a particle: "turn off the oven"
            i += 1
        elif p == "prep":
            found = _noun_phrase(i + 1, pos, role) if i + 1 < n and pos[i + 1] != "pron" else None
            if i + 1 < n and pos[i + 1] == "pron":
                found = (i + 1, i + 1)
            if found is None:
                units.append(Unit("prep", i))
                i += 1
                continue
            start, head = found
            # "after we ate": a clause; but "the lesson after lunch was long": the subject's phrase
            subject_waits = "verb" not in pos[:i] and any(x in ("noun", "pron") for x in pos[:i])
            if (
                reads[i].key in CLAUSE_PREPOSITIONS
                and head + 1 < n
                and pos[head + 1] == "verb"
                and not subject_waits
            ):
                units.append(Unit("sub", i))
                phrase(start, head, None)
            else:
                phrase(start, head, i)
            i = head + 1
        elif p == "pron":
            units.append(Unit("np", i))
            i += 1
        elif p == "verb":
            start = head = i
            while role[head] == "aux":  # auxiliaries, adverbs between, up to the main verb
                k = head + 1
                while k < n and pos[k] == "adv" and role[k] == "":
                    k += 1
                if k < n and pos[k] == "verb" and role[k] in ("", "aux"):
                    head = k
                else:
                    break
            units.append(Unit("vg", head, start))
            i = head + 1
        else:
            found = _noun_phrase(i, pos, role) if p in ("det", "adj", "num", "noun", "adv") else None
            if found is not None:
                phrase(*found, None)
                i = found[1] + 1
            else:
                units.append(Unit(p if p in ("adj", "adv") else "other", i))
                i += 1
    return units


# ---------------------------------------------------------------------------------------------------------
