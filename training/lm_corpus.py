"""What figure 7's tiny language models are trained on: random sentences of the grammar of
app/models/lm_grammar.py (everyday English words), and the word-piece vocabulary the models read them with.

The vocabulary holds most of the grammar's words whole, so that a model writes words, not spellings. About
one content word in seven (by a hash of its dictionary form, so every form of a verb goes the same way) is
left out of it and appears in training only in pieces: ``tokenizers``' WordPiece trainer learns those pieces
from these words as the training sentences use them, and every character of app/models/word_pieces.ALPHABET
is added alone and after ``##``. So the models learn to read a word they do not know whole, as they must for
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


def learn_vocabulary(train: list[list[str]], pieces: int) -> list[str]:
    """The specials, the grammar's words but the spelled ones, then about ``pieces`` word pieces WordPiece
    learns from the spelled words as the training sentences use them, then any character (alone or after ##)
    it did not keep."""
    whole = [w for c, ws in CLASSES.items() for w in ws if c not in CONTENT_CLASSES or not spelled(w)]
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # training only

    tokenizer = Tokenizer(models.WordPiece(unk_token=SPECIALS[0]))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordPieceTrainer(
        vocab_size=pieces + len(SPECIALS),
        special_tokens=list(SPECIALS),
        initial_alphabet=list(ALPHABET),
        continuing_subword_prefix=PREFIX,
        show_progress=False,
    )
    kept = set(whole)
    tokenizer.train_from_iterator((" ".join(w for w in s if w not in kept) for s in train), trainer)
    learned = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    vocabulary = [*SPECIALS, *sorted(kept)]
    vocabulary += [piece for piece, _ in learned if piece not in SPECIALS and piece not in kept]
    known = set(vocabulary)
    return vocabulary + [p for ch in ALPHABET for p in (ch, PREFIX + ch) if p not in known]
