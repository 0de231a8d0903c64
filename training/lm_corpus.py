"""What figure 6's tiny language models are trained on: random sentences of the little language of
app/models/lm_grammar.py, which its parser accepts by construction, and the token list the models use."""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.models.lm_grammar import CLASSES, VOCABULARY
from app.models.tiny_lm import SPECIALS


def default_vocabulary() -> list[str]:
    """The token list the models are trained with: the three specials, then the grammar's words."""
    return [*SPECIALS, *VOCABULARY]


def _noun_phrase(rng: random.Random) -> list[str]:
    adjective = [rng.choice(CLASSES["ADJ"])] if rng.random() < 0.4 else []
    return [rng.choice(CLASSES["DET"]), *adjective, rng.choice(CLASSES["NOUN"])]


def sentence(rng: random.Random) -> list[str]:
    """One random sentence of the grammar, 3 to 11 words."""
    subject = _noun_phrase(rng)
    kind = rng.random()
    if kind < 0.25:
        return [*subject, "was", rng.choice(CLASSES["ADJ"])]
    phrase = [rng.choice(CLASSES["PREP"]), *_noun_phrase(rng)] if rng.random() < 0.5 else []
    if kind < 0.55:
        return [*subject, rng.choice(CLASSES["INTRANSITIVE"]), *phrase]
    return [*subject, rng.choice(CLASSES["TRANSITIVE"]), *_noun_phrase(rng), *phrase]


def sentences(seed: int) -> Iterator[list[str]]:
    """An endless reproducible stream of sentences."""
    rng = random.Random(seed)
    while True:
        yield sentence(rng)


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
