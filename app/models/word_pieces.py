"""Word pieces: how figure 7's decoders read any word, known or not.

A word the vocabulary holds whole is one token ("river"); any other word is cut, left to right, into the
longest pieces the vocabulary holds, every piece after the first written with ``##`` ("sandcastle" ->
"sand", "##c", "##ast", "##le"). The vocabulary holds every letter a–z, digit and the apostrophe both
alone and after ``##``, so every word made of those characters has pieces; accents are dropped first
("café" reads as "cafe"). Only a character that is none of these is refused, by name.

The vocabulary itself is learned from the training sentences (training/lm_corpus.py); this module only
applies it, the way ``tokenizers``' WordPiece model does (a test checks that the two agree).
"""

from __future__ import annotations

import unicodedata

from app.web.refusal import Refusal

PREFIX = "##"
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789'"


def plain(word: str) -> str:
    """The word lower-cased, accents dropped, a typographic apostrophe made plain ("Café’s" -> "cafe's")."""
    decomposed = unicodedata.normalize("NFKD", word.lower().replace("\u2019", "'"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def unreadable(words: list[str]) -> list[str]:
    """The characters, once each and in order, that no piece can spell."""
    return list(dict.fromkeys(ch for w in words for ch in plain(w) if ch not in ALPHABET))


def pieces(word: str, vocabulary: dict[str, int]) -> list[str]:
    """The word's pieces, longest first from the left (the word already ``plain`` and readable)."""
    out: list[str] = []
    start = 0
    while start < len(word):
        end = len(word)
        while True:
            piece = word[start:end] if start == 0 else PREFIX + word[start:end]
            if piece in vocabulary:
                break
            end -= 1
            if end == start:  # only a vocabulary without the whole alphabet gets here
                raise ValueError(f"the vocabulary has no piece for {word[start]!r}")
        out.append(piece)
        start = end
    return out


def split_words(words: list[str], vocabulary: dict[str, int]) -> tuple[list[str], list[int]]:
    """The pieces of every word and, per piece, the index of the word it belongs to; a Refusal naming the
    characters no piece spells."""
    bad = unreadable(words)
    if bad:
        raise Refusal(
            "the decoders read letters a–z, digits and apostrophes; this sentence also has "
            + ", ".join(repr(ch) for ch in bad),
            fields={"characters": bad},
        )
    out: list[str] = []
    owner: list[int] = []
    for k, word in enumerate(words):
        cut = pieces(plain(word), vocabulary)
        out += cut
        owner += [k] * len(cut)
    return out, owner


def joined(tokens: list[str]) -> list[str]:
    """Pieces put back into words ("sand", "##c", "##ast", "##le" -> "sandcastle")."""
    words: list[str] = []
    for t in tokens:
        if t.startswith(PREFIX) and words:
            words[-1] += t[len(PREFIX) :]
        else:
            words.append(t.removeprefix(PREFIX))
    return words
