"""What figure 7's tiny language models are trained on: random sentences of the grammar of
app/models/lm_grammar.py (everyday English words), and the word-piece vocabulary the models read them with.

The vocabulary holds most of the grammar's words whole, so that a model writes words, not spellings. About
one content word in seven (by a hash of its dictionary form, so every form of a verb goes the same way) is
left out of it and appears in training only in pieces: ``learn_pieces`` learns those pieces from these
words as the training sentences use them (byte-pair merges, ties broken alphabetically, so that a run
always gives the same vocabulary), and every character of app/models/word_pieces.ALPHABET is added alone and
after ``##``. So the models learn to read a word they do not know whole, as they must for
most words a reader types.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator

from app.models.lexicon import LEXICON
from app.models.lm_grammar import CLASSES, CONTENT_CLASSES, GRAMMAR, Alt, Node, Seq, Sym
from app.models.tiny_lm import SPECIALS
from app.models.word_pieces import ALPHABET, PREFIX


def _walk(node: Node, rng: random.Random, out: list[str]) -> None:
    """Append the classes of one random path down the grammar's tree, each choice as often as it says."""
    if isinstance(node, Sym):
        out.append(node.code)
    elif isinstance(node, Seq):
        for part in node.parts:
            _walk(part, rng, out)
    elif isinstance(node, Alt):
        _walk(rng.choices(node.options, node.weights)[0], rng, out)
    elif rng.random() < node.p:
        _walk(node.inner, rng, out)


def write(rng: random.Random) -> list[str]:
    """One random sentence of the grammar, its words drawn uniformly from their classes ("a" before a
    consonant, "an" before a vowel)."""
    codes: list[str] = []
    _walk(GRAMMAR, rng, codes)
    words = [rng.choice(CLASSES[c]) for c in codes]
    for k, w in enumerate(words[:-1]):
        if w in ("a", "an"):
            words[k] = "an" if words[k + 1][0] in "aeiou" else "a"
    return words


def sentences(seed: int) -> Iterator[list[str]]:
    """An endless reproducible stream of sentences (words)."""
    rng = random.Random(seed)
    while True:
        yield write(rng)


def split_corpus(train: int, validation: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    """Distinct training and validation sentences: no validation sentence appears in training."""
    seen: set[str] = set()
    chosen: list[list[str]] = []
    for words in sentences(seed):
        text = " ".join(words)
        if text not in seen:
            seen.add(text)
            chosen.append(words)
        if len(chosen) == train + validation:
            return chosen[:train], chosen[train:]
    raise AssertionError("unreachable: the stream is endless")


SPELLED_PERCENT = 15  # content words, by dictionary form, that the vocabulary holds only in pieces


def spelled(word: str) -> bool:
    """Is this word one the vocabulary holds only in pieces?"""
    entry = LEXICON.get(word)
    lemma = entry.lemma if entry is not None else word
    return (
        int.from_bytes(hashlib.sha256(lemma.encode("utf-8")).digest()[:2], "little") % 100 < SPELLED_PERCENT
    )


def learn_pieces(counts: dict[str, int], merges: int) -> list[str]:
    """Word pieces learnt from words and how often each is used, by byte-pair merging: every word starts as
    its characters (all but the first after ##), and each step joins the pair of neighbouring pieces used most
    often, the alphabetically first on a tie, so that a run always learns the same pieces. The pieces of the
    words once ``merges`` steps are taken."""
    split = {w: [w[0], *(PREFIX + ch for ch in w[1:])] for w in counts}
    learned: set[str] = {piece for parts in split.values() for piece in parts}
    for _ in range(merges):
        pairs: dict[tuple[str, str], int] = {}
        for word, parts in split.items():
            for pair in zip(parts, parts[1:], strict=False):
                pairs[pair] = pairs.get(pair, 0) + counts[word]
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        joined = best[0] + best[1].removeprefix(PREFIX)
        learned.add(joined)
        for word, parts in split.items():
            k, out = 0, []
            while k < len(parts):
                if k + 1 < len(parts) and (parts[k], parts[k + 1]) == best:
                    out.append(joined)
                    k += 2
                else:
                    out.append(parts[k])
                    k += 1
            split[word] = out
    return sorted(learned)


def learn_vocabulary(train: list[list[str]], pieces: int) -> list[str]:
    """The specials, the grammar's words but the spelled ones, then the pieces ``pieces`` merges learn from
    the spelled words as the training sentences use them, then any character (alone, after ##) not yet in."""
    kept = {w for c, ws in CLASSES.items() for w in ws if c not in CONTENT_CLASSES or not spelled(w)}
    counts: dict[str, int] = {}
    for sentence in train:
        for word in sentence:
            if word not in kept:
                counts[word] = counts.get(word, 0) + 1
    vocabulary = [*SPECIALS, *sorted(kept)]
    vocabulary += [p for p in learn_pieces(counts, pieces) if p not in kept]
    known = set(vocabulary)
    return vocabulary + [p for ch in ALPHABET for p in (ch, PREFIX + ch) if p not in known]
