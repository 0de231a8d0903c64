"""The words figure 1's training sentences are made of: the function words the sentence writer
(training/relation_writer.py) draws from its own lists, and the content words of the lexicon in pools by part
of speech, form and field.

Held out by construction: about one content word in seven (by a hash of its dictionary form, so every form
of a word goes the same way) never appears in a training sentence. ``pools(False)`` holds the trained words,
``pools(True)`` the held-out ones, from which training/relation_corpus.py writes ``novel_sentences``. The
article's own sentence (DEFAULT_SENTENCE) is made of trained words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

from app.models.grammar.place import AUXILIARY_LEMMAS, DEGREE_WORDS
from app.models.lexicon import LEXICON
from app.models.lexicon_entries import Entry

DEFAULT_SENTENCE = ("the", "river", "bank", "was", "steep")
HELD_OUT_PERCENT = 15  # content words, by dictionary form, that training never sees
KEPT_IN_TRAINING = frozenset(DEFAULT_SENTENCE)  # the article's own sentence is made of trained words

DETERMINERS_SG = (
    "the",
    "the",
    "the",
    "a",
    "this",
    "that",
    "my",
    "his",
    "her",
    "their",
    "our",
    "your",
    "every",
)
DETERMINERS_PL = ("the", "the", "these", "those", "my", "his", "her", "their", "our", "some", "many", "two")
PREPOSITIONS = (
    "by", "near", "on", "under", "behind", "across", "along", "at", "in", "with", "from", "into", "over",
    "beside", "past", "around", "through", "after", "before", "without", "of", "for", "to", "inside",
)  # fmt: skip
SUBJECT_PRONOUNS = (("i", "pl"), ("you", "pl"), ("he", "sg"), ("she", "sg"), ("we", "pl"), ("they", "pl"))
OBJECT_PRONOUNS = ("me", "you", "him", "her", "it", "us", "them")
DEGREE = ("very", "really", "quite", "too", "so", "rather", "extremely")
ADVERBS = (
    "quickly", "slowly", "quietly", "often", "always", "never", "sometimes", "carefully", "suddenly",
    "happily", "again", "soon", "already", "still", "usually", "finally", "today", "yesterday",
)  # fmt: skip
SUBORDINATORS = ("because", "when", "if", "while", "although", "before", "after", "until", "since")
COORDINATORS = ("and", "and", "but", "or")
MODALS = ("can", "could", "will", "would", "should", "must", "might", "may")


def held_out(lemma: str) -> bool:
    """Is this dictionary form one of the content words training never sees?"""
    if lemma in KEPT_IN_TRAINING:
        return False
    digest = hashlib.sha256(lemma.encode("utf-8")).digest()
    return int.from_bytes(digest[:2], "little") % 100 < HELD_OUT_PERCENT


@dataclass(frozen=True)
class Pools:
    """Word pools by part of speech, form and field, drawn once from the lexicon, split by ``held_out``."""

    nouns: dict[tuple[str, str], tuple[str, ...]]  # (field or "", "sg"/"pl") -> unambiguous nouns
    side_nouns: dict[str, tuple[str, ...]]  # field -> singular nouns that evoke it as a side topic
    adjectives: dict[str, tuple[str, ...]]  # field or "" -> unambiguous adjectives
    verbs: dict[tuple[str, str, bool], tuple[str, ...]]  # (field or "", form, transitive) -> verb forms
    ambiguous: dict[str, tuple[Entry, ...]]  # "noun" / "adj" / "verb:<form>" -> ambiguous entries


def _form(e: Entry) -> str:
    """A verb form's name: past, 3sg (present singular), plain (present plural and infinitive), other."""
    if e.tense == "past":
        return "past"
    if e.tense == "present":
        return "3sg" if e.number == "sg" else "plain"
    return "other"


@cache
def pools(novel: bool) -> Pools:
    """The pools of trained words (``novel`` False) or of held-out ones (True). Function words, auxiliaries
    and words without a dictionary form of their own are shared by both."""

    def side(e: Entry) -> bool:
        return held_out(e.lemma) == novel

    nouns: dict[tuple[str, str], list[str]] = {}
    side_nouns: dict[str, list[str]] = {}
    adjectives: dict[str, list[str]] = {}
    verbs: dict[tuple[str, str, bool], list[str]] = {}
    ambiguous: dict[str, list[Entry]] = {}
    for e in sorted(LEXICON.values(), key=lambda e: e.word):
        if e.pos not in ("noun", "adj", "verb") or e.lemma in AUXILIARY_LEMMAS or not side(e):
            continue
        if e.word in DEGREE_WORDS:
            continue  # far, more, enough, ...: words of quantity, not adjectives to describe a noun with
        field = e.fields[0] if len(e.fields) == 1 else ""
        if e.ambiguous:
            key = e.pos if e.pos != "verb" else f"verb:{_form(e)}"
            ambiguous.setdefault(key, []).append(e)
        elif e.pos == "noun" and e.number in ("sg", "pl"):
            nouns.setdefault((field, e.number), []).append(e.word)
            if e.number == "sg":
                for topic in getattr(e, "topics", ()):
                    side_nouns.setdefault(topic, []).append(e.word)
        elif e.pos == "adj":
            adjectives.setdefault(field, []).append(e.word)
        elif e.pos == "verb":
            verbs.setdefault((field, _form(e), e.transitive), []).append(e.word)

    def frozen(d: dict) -> dict:  # type: ignore[type-arg]
        return {k: tuple(v) for k, v in d.items()}

    return Pools(frozen(nouns), frozen(side_nouns), frozen(adjectives), frozen(verbs), frozen(ambiguous))
