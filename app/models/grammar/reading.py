"""What the lexicon, or a guess from the ending, says about one spelling before any neighbour is seen.

A contraction is read as the word its ending hangs on: "doesn't" as does, "they're" as they. An unknown word
keeps the lexicon's guess from its ending (``entry_for``), with the ending itself and whether it is
capitalised, which the tagger weighs against the neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.models.grammar.derived import derived
from app.models.lexicon import LEXICON, entry_for, lookup
from app.models.lexicon_entries import normalise

_NEGATED_STEMS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}
_NOMINAL = frozenset({"noun", "adj", "num"})


@dataclass(frozen=True, slots=True)
class Reading:
    """What the lexicon, or a guess from the ending, says about one spelling, before any neighbour is seen."""

    key: str
    known: bool
    pos: str
    fields: tuple[str, ...]
    lemma: str
    tense: str
    number: str
    also: tuple[str, ...]
    ending: str  # for unknown words: "ing", "ed", "s", "ly" or ""
    proper: bool  # capitalised unknown word


@lru_cache(maxsize=8192)
def read(text: str) -> Reading:
    """The reading of one spelling (made once per spelling and shared: Readings are frozen)."""
    key = normalise(text)
    entry = lookup(text)
    if entry is None and "'" in key:  # doesn't, can't, they're, we'll: read the word the ending hangs on
        stem, _, tail = key.partition("'")
        if tail == "t" and stem.endswith("n"):
            aux = LEXICON.get(_NEGATED_STEMS.get(stem[:-1], stem[:-1]))
            if aux is not None and aux.pos == "verb":
                return Reading(key, True, "verb", (), aux.lemma, aux.tense, aux.number, (), "", False)
        base = LEXICON.get(stem)
        if base is not None and base.pos == "pron":
            entry = base
    if entry is not None:
        return Reading(
            key, True, entry.pos, entry.fields, entry.lemma, entry.tense, entry.number, entry.also, "", False
        )
    guess = entry_for(key)
    ending = next((e for e in ("ing", "ed", "ly", "s") if key.endswith(e) and len(key) - len(e) >= 3), "")
    proper = text[:1].isupper()
    base = derived(key)
    if base is not None:  # a listed word's irregular past, comparative or -ing form: its base's class
        pos, tense, lemma = base
        ing = "ing" if key.endswith("ing") else ""
        return Reading(key, False, pos, (), lemma, tense, "", (), ing, proper)
    return Reading(key, False, guess.pos, (), key, guess.tense, guess.number, (), ending, proper)


def nominal(r: Reading | None) -> bool:
    """Can this word continue a noun phrase (a noun, adjective or number, or an unknown word)?"""
    return r is not None and (r.pos in _NOMINAL or (not r.known and r.pos != "adv" and r.ending != "ed"))


def can_be(r: Reading, pos: str) -> bool:
    """Is ``pos`` the word's part of speech, or one it can also take ("open": verb)?"""
    return r.pos == pos or pos in r.also
