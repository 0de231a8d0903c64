"""What to offer for a word a model does not know: the known words a reader most likely meant, that fit where
the word stands.

A word the English lexicon (app/models/lexicon.py) holds is a real word, not a typo, so it gets known words
by meaning, never by spelling ("went" is not "wet", "not" is not "hot"):

1. the same word in another form, of the form the place asks for: "went" -> "went"'s other forms the model
   knows, "goes" after "she" and "go" after "they"; "apples" -> "apple" after "an", and nothing after "three";
2. else words of the same kind and the same field, in the same form: "piano" -> "guitar" when the model knows
   an instrument and not the piano; those that call the same side topics to mind first ("winter", a time of
   weather, -> "day" before "clock").

The place's form is read from the word before: after a form of "be" only an -ing form or an adjective fits,
so a verb is offered there only in its -ing form ("the cat is sleeping": never "sleeps"); after "to", a modal
or "do", the plain form; elsewhere a present tense agrees with the subject just before it (he, she, it or a
singular noun: "sleeps"; otherwise "sleep"), and a past stays past where the model knows the past. Nothing is
offered rather than a word that breaks the sentence.

A word the lexicon does not hold is taken for a typo and gets known words by spelling
(app/models/close_words.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from app.models.close_words import CloseWords
from app.models.lexicon import inflected, lookup
from app.models.lexicon_entries import Entry

BE = frozenset({"am", "is", "are", "was", "were", "be", "been", "being"})
PLAIN_AFTER = frozenset({"to", "can", "could", "will", "would", "shall", "should", "may", "might", "must"})
PLAIN_AFTER |= {"do", "does", "did", "let", "please"}
SINGULAR_SUBJECTS = frozenset({"he", "she", "it", "this", "that"})
PLURAL_SUBJECTS = frozenset({"i", "you", "we", "they", "these", "those"})
SINGULAR_DETERMINERS = frozenset({"a", "an", "one", "this", "that", "every", "each", "another"})
PLURAL_DETERMINERS = frozenset({"these", "those", "many", "few", "several", "both"})


def _entry(word: str) -> tuple[Entry | None, str]:
    """The lexicon's entry for ``word`` and its form: "ing" for a verb's -ing form the lexicon reads through
    its verb (``inflected``), else "" (the entry says the form)."""
    entry = lookup(word)
    if entry is not None:
        return entry, ""
    stem = inflected(word)
    if stem is not None and stem.pos == "verb" and word.endswith("ing"):
        return stem, "ing"
    return stem, ""


def _form(entry: Entry, ing: str) -> tuple[str, str, str]:
    """(part of speech, tense or "ing", number) of a known word, what a slot is matched on."""
    return entry.pos, ing or entry.tense, entry.number


class Suggestions:
    """Known words to offer for unknown ones, for one vocabulary (see the module's note)."""

    def __init__(self, vocabulary: Iterable[str], n: int = 3) -> None:
        self.words = sorted(set(vocabulary))
        self.n = n
        self.spelling = CloseWords(self.words, n)
        # the vocabulary's words by lemma and part of speech, and by field, part of speech and form
        self.by_lemma: dict[tuple[str, str], list[tuple[str, tuple[str, str, str]]]] = {}
        self.by_field: dict[tuple[str, tuple[str, str, str]], list[tuple[str, frozenset[str]]]] = {}
        for word in self.words:
            entry, ing = _entry(word)
            if entry is None:
                continue
            form = _form(entry, ing)
            self.by_lemma.setdefault((entry.lemma, entry.pos), []).append((word, form))
            if len(entry.fields) == 1:
                self.by_field.setdefault((entry.fields[0], form), []).append((word, frozenset(entry.topics)))
        self.find = lru_cache(maxsize=4096)(self._find)

    def _find(self, word: str, before: str) -> tuple[str, ...]:
        """Up to ``n`` known words for ``word``, which follows ``before`` ("" at the start)."""
        entry, ing = _entry(word)
        if entry is None:
            return self.spelling.find(word)
        wanted = self._wanted(entry, ing, before)
        if wanted is None:
            return ()
        rank = {form: k for k, form in enumerate(wanted)}  # the likeliest form first
        forms = self.by_lemma.get((entry.lemma, entry.pos), [])
        same = [w for _, w in sorted((rank[f], w) for w, f in forms if w != word and f in rank)]
        kin: list[str] = []
        if len(entry.fields) == 1:
            topics = set(entry.topics)
            for form in wanted:
                found = self.by_field.get((entry.fields[0], form), [])
                shared = sorted((-len(topics & t), w) for w, t in found)  # most side topics in common first
                kin += [w for _, w in shared if w not in same and w != word]
        return tuple((same + kin)[: self.n])

    def _wanted(self, entry: Entry, ing: str, before: str) -> list[tuple[str, str, str]] | None:
        """The forms that fit where the word stands, the likeliest first; None when none can be offered."""
        pos, tense, number = _form(entry, ing)
        if pos == "verb":
            if before in BE:
                return [("verb", "ing", "")]
            if before in PLAIN_AFTER:
                return [("verb", "present", "pl")]
            agree = self._agreement(before)
            either = [("verb", "present", "sg"), ("verb", "present", "pl")]
            present = [("verb", "present", agree)] if agree else either
            past = [("verb", "past", ""), ("verb", "past", "sg"), ("verb", "past", "pl")]
            return past + present if tense == "past" else present + (past if not agree else [])
        if pos == "noun":
            if before in SINGULAR_DETERMINERS:
                return [("noun", "", "sg")]
            counter = lookup(before)
            if before in PLURAL_DETERMINERS or (counter is not None and counter.pos == "num"):
                return [("noun", "", "pl")]
            return [("noun", "", number)]
        return [(pos, tense, number)]

    @staticmethod
    def _agreement(before: str) -> str:
        """ "sg" or "pl" for a present-tense verb after ``before``, "" when it cannot be told."""
        if before in SINGULAR_SUBJECTS:
            return "sg"
        if before in PLURAL_SUBJECTS:
            return "pl"
        entry = lookup(before)
        if entry is not None and entry.pos == "noun" and entry.number in ("sg", "pl"):
            return entry.number
        return ""
