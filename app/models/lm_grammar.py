"""The little language of figure 7: its words by class, and a parser that checks a sentence.

Sentences are a noun phrase, then a verb phrase:

    S  -> NP VP            NP -> DET [ADJ] NOUN          PP -> PREP NP
    VP -> "was" ADJ  |  INTRANSITIVE [PP]  |  TRANSITIVE NP [PP]

("the old fox chased a goose near the barn", "her cat slept", "this river was cold"). Every word belongs
to exactly one class, so checking a sentence is matching its class sequence against that pattern. The tiny
language models are trained on these sentences; what share of their own output the parser accepts is how
the page tells a model that writes sentences from one that writes garbage. The models were trained on
sentences the same grammar writes (training/lm_corpus.py).
"""

from __future__ import annotations

import re

CLASSES: dict[str, tuple[str, ...]] = {
    "DET": tuple("the this that his her their our every".split()),
    "ADJ": tuple("old young big small wet cold quiet hungry brown rocky sandy sweet".split()),
    "NOUN": tuple(
        """fox goose dog cat horse owl duck goat wolf bear river lake stream pond shore hill cave valley
        meadow cliff apple bread soup cake cheese barn farmer child""".split()
    ),
    "COPULA": ("was",),
    "INTRANSITIVE": tuple("slept ran swam waited howled grazed vanished".split()),
    "TRANSITIVE": tuple("chased found saw watched ate carried followed".split()),
    "PREP": tuple("near under behind by across beside".split()),
}
WORD_CLASS: dict[str, str] = {w: c for c, ws in CLASSES.items() for w in ws}
VOCABULARY: tuple[str, ...] = tuple(w for ws in CLASSES.values() for w in ws)

_CODES = {
    "DET": "d",
    "ADJ": "a",
    "NOUN": "n",
    "COPULA": "c",
    "INTRANSITIVE": "i",
    "TRANSITIVE": "t",
    "PREP": "p",
}
_NP = "da?n"
_PP = f"p{_NP}"
_SENTENCE = re.compile(f"{_NP}(?:ca|i(?:{_PP})?|t{_NP}(?:{_PP})?)")


def grammatical(words: list[str]) -> bool:
    """True when the words are a sentence of the grammar (every word known, classes in the right order)."""
    if any(w not in WORD_CLASS for w in words):
        return False
    return _SENTENCE.fullmatch("".join(_CODES[WORD_CLASS[w]] for w in words)) is not None


# The same pattern spelled out: every class sequence a sentence can have (20 of them), for asking what may
# come next after the first few words.
_NPS = ("dn", "dan")
_PPS = tuple(f"p{np_}" for np_ in _NPS)
_VPS = ("ca", "i", *(f"i{pp}" for pp in _PPS), *(f"t{np_}" for np_ in _NPS))
_VPS += tuple(f"t{np_}{pp}" for np_ in _NPS for pp in _PPS)
SENTENCE_SHAPES: frozenset[str] = frozenset(f"{np_}{vp}" for np_ in _NPS for vp in _VPS)
END = "END"  # what `allowed_next` answers when the words so far are a whole sentence


def allowed_next(words: list[str]) -> set[str] | None:
    """The word classes (and END) the grammar allows after ``words``, or None when ``words`` begin no
    sentence of the grammar (an unknown word, or classes in an order no sentence has)."""
    if any(w not in WORD_CLASS for w in words):
        return None
    codes = "".join(_CODES[WORD_CLASS[w]] for w in words)
    shapes = [s for s in SENTENCE_SHAPES if s.startswith(codes)]
    if not shapes:
        return None
    decode = {code: name for name, code in _CODES.items()}
    return {END if s == codes else decode[s[len(codes)]] for s in shapes}


def fits(words: list[str], following: str | None) -> bool | None:
    """Whether the grammar allows ``following`` after ``words`` (None: the end of the sentence); None when
    ``words`` begin no sentence of the grammar, so nothing can be judged to fit."""
    allowed = allowed_next(words)
    if allowed is None:
        return None
    if following is None:
        return END in allowed
    return WORD_CLASS.get(following) in allowed
