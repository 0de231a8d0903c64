"""The sentence analysis behind figure 1: tokens, three relations found by rules, and the 24 input numbers.

Three relations are read off any sentence by explicit rules over the lexicon:

* **meaning**: an ambiguous word (bank, bat, spring, ...) reaches for the nearest unambiguous content word
  whose semantic field is one of its senses, and that word reaches back (in "the river bank was steep",
  bank -> river and river -> bank);
* **grammar**: every word points at its grammatical head: the subject's head noun and its verb point at each
  other (bank -> was, was -> bank), determiners and modifiers at their noun (the -> bank, river -> bank),
  objects at the verb, a predicate adjective at the subject it describes (steep -> bank);
* **position**: every word points at the word before it.

The attention heads never see these targets. They read each token's 24 input numbers (``features``), which
carry what the earlier layers of a real model would already know about a word: its part of speech, its
syntactic role, a code for its semantic field, where it sits, and a 4-number signature that tells it apart
from its neighbours. Training asks the layer to deliver each partner's signature; which head learns which
relation is left to the optimiser.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.models.lexicon import guess_pos, lookup

D_MODEL = 24
RELATIONS: tuple[str, ...] = ("meaning", "grammar", "position")
SIGNATURE_DIM = 4
FIELD_DIM = 5

# Layout of the 24 input numbers of a token.
POS_GROUPS: tuple[str, ...] = ("noun", "verb", "adj", "det", "prep", "other")
POS_SLICE = slice(0, 6)
SUBJECT, VERB = 6, 7
FIELD_SLICE = slice(8, 13)
AMBIGUOUS = 13
POSITION_SLICE = slice(14, 18)
SIGNATURE_SLICE = slice(18, 22)
KNOWN = 22
BIAS = 23
FEATURE_NAMES: tuple[str, ...] = (
    *(f"pos:{name}" for name in POS_GROUPS),
    "role:subject",
    "role:verb",
    *(f"field:{k}" for k in range(FIELD_DIM)),
    "ambiguous",
    "position:sin1",
    "position:cos1",
    "position:sin2",
    "position:cos2",
    *(f"signature:{k}" for k in range(SIGNATURE_DIM)),
    "known",
    "bias",
)

# Two rotation speeds for the position code: with these, the code of position p rotated back by one step is
# closer to the code of p-1 than to any other position within 20 places (found by a small grid search).
POSITION_FREQUENCIES = (1.36, 0.26)

CONTENT_POS = frozenset({"noun", "verb", "adj"})


@dataclass(frozen=True)
class Token:
    """One analysed word: what the lexicon (or a guess, for unknown words) says about it."""

    text: str
    known: bool
    pos: str
    fields: tuple[str, ...]

    @property
    def ambiguous(self) -> bool:
        return len(self.fields) > 1

    @property
    def content(self) -> bool:
        return self.pos in CONTENT_POS


@dataclass(frozen=True)
class Analysis:
    """A sentence's tokens, the subject and verb the rules found, and each relation's (query, key) pairs."""

    tokens: tuple[Token, ...]
    subject: int | None
    verb: int | None
    targets: dict[str, list[tuple[int, int]]]


def analyse_token(text: str) -> Token:
    entry = lookup(text)
    if entry is None:
        return Token(text=text, known=False, pos=guess_pos(text.lower()), fields=())
    return Token(text=text, known=True, pos=entry.pos, fields=tuple(entry.fields))


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: [det] [adj | num]* noun+ (or a lone pronoun); its head is the last noun."""

    start: int
    head: int
    after_preposition: int | None


def noun_phrases(tokens: tuple[Token, ...]) -> list[Phrase]:
    """Chunk the tokens into noun phrases, left to right."""
    phrases: list[Phrase] = []
    i, n = 0, len(tokens)
    while i < n:
        if tokens[i].pos == "pron":
            prep = i - 1 if i > 0 and tokens[i - 1].pos == "prep" else None
            phrases.append(Phrase(start=i, head=i, after_preposition=prep))
            i += 1
            continue
        j = i
        while j < n and tokens[j].pos == "det":
            j += 1
        while j < n and tokens[j].pos in ("adj", "num"):
            j += 1
        k = j
        while k < n and tokens[k].pos == "noun":
            k += 1
        if k > j:  # at least one noun: a phrase from i to k - 1
            prep = i - 1 if i > 0 and tokens[i - 1].pos == "prep" else None
            phrases.append(Phrase(start=i, head=k - 1, after_preposition=prep))
            i = k
        else:
            i += 1
    return phrases


def find_subject_and_verb(tokens: tuple[Token, ...], phrases: list[Phrase]) -> tuple[int | None, int | None]:
    """The verb is the first verb; the subject is the head of the first phrase before it outside a
    prepositional phrase. In "the river bank by the lake was steep" that is bank, and the verb is was."""
    verb = next((i for i, t in enumerate(tokens) if t.pos == "verb"), None)
    if verb is None:
        return None, None
    subject = next((p.head for p in phrases if p.head < verb and p.after_preposition is None), None)
    return subject, verb


def grammar_heads(
    tokens: tuple[Token, ...], phrases: list[Phrase], subject: int | None, verb: int | None
) -> list[tuple[int, int]]:
    """Every word that has a grammatical head points at it.

    Inside a noun phrase, determiners, adjectives and modifying nouns point at the head noun; the subject
    and its verb point at each other; an object points at the verb; a preposition points at its noun and
    that noun back at the preposition; an adjective or adverb after the verb points at the subject it
    describes or the verb it qualifies.
    """
    pairs: list[tuple[int, int]] = []
    in_phrase: set[int] = set()
    for p in phrases:
        pairs.extend((i, p.head) for i in range(p.start, p.head))
        in_phrase.update(range(p.start, p.head + 1))
        if p.after_preposition is not None:
            pairs.append((p.after_preposition, p.head))
            pairs.append((p.head, p.after_preposition))
        elif verb is not None and p.head > verb:
            pairs.append((p.head, verb))
    if subject is not None and verb is not None:
        pairs.extend([(subject, verb), (verb, subject)])
    if verb is not None:
        for i in range(verb + 1, len(tokens)):
            if i in in_phrase:
                continue
            if tokens[i].pos == "adj" and subject is not None:
                pairs.append((i, subject))
            elif tokens[i].pos in ("adv", "verb"):
                pairs.append((i, verb))
    return sorted(set(pairs))


def sense_cue(tokens: tuple[Token, ...], i: int) -> int | None:
    """For an ambiguous word, the nearest unambiguous content word in one of its senses' fields."""
    word = tokens[i]
    candidates = [
        j
        for j, t in enumerate(tokens)
        if j != i and t.known and t.content and not t.ambiguous and set(t.fields) & set(word.fields)
    ]
    return min(candidates, key=lambda j: (abs(j - i), j), default=None)


def analyse(words: list[str]) -> Analysis:
    """Tag every word and derive the three relations by the rules in the module docstring."""
    tokens = tuple(analyse_token(w) for w in words)
    phrases = noun_phrases(tokens)
    subject, verb = find_subject_and_verb(tokens, phrases)
    cues = [(i, j) for i, t in enumerate(tokens) if t.ambiguous and (j := sense_cue(tokens, i)) is not None]
    meaning = sorted(set(cues) | {(j, i) for i, j in cues})
    grammar = grammar_heads(tokens, phrases, subject, verb)
    position = [(i, i - 1) for i in range(1, len(tokens))]
    return Analysis(
        tokens=tokens,
        subject=subject,
        verb=verb,
        targets={"meaning": meaning, "grammar": grammar, "position": position},
    )


def signature(word: str) -> NDArray[np.float64]:
    """A fixed unit 4-vector per spelling, from a hash, so the same word always carries the same signature."""
    digest = hashlib.sha256(word.lower().encode("utf-8")).digest()
    raw = np.frombuffer(digest[: 2 * SIGNATURE_DIM], dtype="<i2").astype(np.float64)
    return raw / np.linalg.norm(raw)


def position_code(n: int) -> NDArray[np.float64]:
    """(n, 4): sin and cos of p * omega for the two position frequencies."""
    p = np.arange(n, dtype=np.float64)[:, None]
    angles = p * np.asarray(POSITION_FREQUENCIES)[None, :]  # (n, 2)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n, 4)  # (n, 2, 2) -> (n, 4)


def pos_group(pos: str) -> int:
    return POS_GROUPS.index(pos) if pos in POS_GROUPS else POS_GROUPS.index("other")


def features(analysis: Analysis, field_codes: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """The (T, 24) matrix of input numbers, laid out as FEATURE_NAMES says.

    An ambiguous word's field code is the normalised sum of its senses' codes: it sits between them.
    """
    T = len(analysis.tokens)
    x = np.zeros((T, D_MODEL))
    for i, token in enumerate(analysis.tokens):
        x[i, POS_SLICE.start + pos_group(token.pos)] = 1.0
        if token.content and token.fields:
            code = np.sum([field_codes[f] for f in token.fields if f in field_codes], axis=0)
            norm = np.linalg.norm(code)
            if norm > 0:
                x[i, FIELD_SLICE] = code / norm
        x[i, AMBIGUOUS] = float(token.ambiguous)
        x[i, SIGNATURE_SLICE] = signature(token.text)
        x[i, KNOWN] = float(token.known)
        x[i, BIAS] = 1.0
    if analysis.subject is not None:
        x[analysis.subject, SUBJECT] = 1.0
    if analysis.verb is not None:
        x[analysis.verb, VERB] = 1.0
    x[:, POSITION_SLICE] = position_code(T)
    return x
