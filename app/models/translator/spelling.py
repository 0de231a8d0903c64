"""French elision, applied to what the translator's decoder writes: spelling, not translation.

Before a word that begins with a vowel or a mute h, "le", "la", "de", "je", "ne", "me" and "que" lose their
vowel ("l' arbre", "n' attrape", "m' aider", "qu' elle"), "ce" becomes "cet" and "ma", "ta", "sa" become
"mon", "ton", "son"; "si" becomes "s'" before "il" and "ils" only. Which form is right depends only on the
spelling of the next French word, which the decoder has not written yet when it writes the short word. So
the network writes the full forms ("ne attrape") and this rule spells them, one token for one token: each
step keeps its own word and its attention. Training pairs hold the full forms too
(training/parallel_phrases.py), and their French as a reader sees it is ``spell`` of them.
"""

from __future__ import annotations

from collections.abc import Sequence

# A short word and its form before a vowel ("le arbre" -> "l' arbre", "ce arbre" -> "cet arbre").
ELISION = {
    "le": "l'",
    "la": "l'",
    "de": "d'",
    "je": "j'",
    "ne": "n'",
    "me": "m'",
    "que": "qu'",
    "ce": "cet",
    "ma": "mon",
    "ta": "ton",
    "sa": "son",
}
VOWELS = tuple("aeiouyàâäéèêëîïôöûüœh")
# "si" elides before "il" and "ils" only: "s' il pleut", "si elle".
SI = ("si", "s'", ("il", "ils"))


def begins_with_vowel(word: str) -> bool:
    """True if a French word takes elision before it (a vowel, or h: the lexicon's h is always mute)."""
    return word.startswith(VOWELS)


def spell(tokens: Sequence[str]) -> list[str]:
    """The tokens with every short word before a vowel in its elided form, the same number of tokens."""
    following = [*tokens[1:], ""][: len(tokens)]
    return [
        ELISION[word]
        if word in ELISION and begins_with_vowel(after)
        else SI[1]
        if word == SI[0] and after in SI[2]
        else word
        for word, after in zip(tokens, following, strict=True)
    ]
