"""The sentence analysis behind figure 1: tokens, three relations found by rules, and the 48 input numbers.

Three relations are read off any sentence by explicit rules over the lexicon:

* **meaning**: an ambiguous word (bank, bat, spring, ...) and the word that settles its sense point at each
  other. A word settles a sense when it evokes that sense's field and not the other's: its own field, or a
  side topic (fish evokes water and food besides animal), or a word sense_cues.txt names for that very
  sense (lake, for bass the fish). The strongest cue wins (``cue_strength``): a noun over a verb or
  adjective; a word's own field over a named word over a side topic; of equal strength a named word, then
  the nearest, then the later. An ambiguous verb takes its object first when the object settles its
  sense. An ambiguous adjective takes the noun it describes, whatever that noun evokes: what it is said of
  settles its sense ("the guide was warm", "the sea was warm"). An ambiguous noun that nothing settles takes
  the noun modifying it, which names its kind ("the car plant"). In "the bat flew out of the cave", bat <->
  cave, not the verb flew; in "we rowed the boat across the lake", rowed <-> boat;
* **grammar**: every word points at its grammatical partner(s), by the conventions of the rule parser,
  app/models/grammar/ (in "the river bank was steep": the -> bank, river -> bank, bank <-> was, steep ->
  bank);
* **position**: every word points at the word before it.

The attention heads are never shown these targets. They read each token's 48 input numbers (``features``),
which carry what the earlier layers of a real model would already know about a word: its own part of speech
(the lexicon's, or the guess from its ending: ``Token.pos``, never changed by the neighbours), a code of the
fields it evokes, whether it is ambiguous, a 4-number signature that tells it apart from its neighbours, a
code of where it stands, the same code for where the parser puts its grammatical partners (the mean when it
has several), and whether the rules make it the word that settles an ambiguous word's sense (``CUE``). The
last three depend on word order or on the other words; everything else on the word alone (figure 10 clears
them). Training asks the layer to deliver each partner's signature; which head learns which relation is left
to the optimiser.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from app.models.grammar import parse
from app.models.grammar.reading import read
from app.models.lexicon import inflected, lookup, named_sense
from app.models.lexicon_entries import POS_TAGS

D_MODEL = 48
RELATIONS: tuple[str, ...] = ("meaning", "grammar", "position")
SIGNATURE_DIM = 4
FIELD_DIM = 16
PLACE_DIM = 8  # a place in the sentence: sin and cos at each of the four POSITION_FREQUENCIES

# Layout of the 48 input numbers of a token.
POS_TAGS_IN: tuple[str, ...] = POS_TAGS  # one column per part of speech of the lexicon
POS_SLICE = slice(0, len(POS_TAGS_IN))  # 0..8
FIELD_SLICE = slice(9, 9 + FIELD_DIM)  # 9..24
AMBIGUOUS = 25
POSITION_SLICE = slice(26, 26 + PLACE_DIM)  # 26..33: where the word stands
PARTNER_SLICE = slice(34, 34 + PLACE_DIM)  # 34..41: where its grammatical partners stand
SIGNATURE_SLICE = slice(42, 42 + SIGNATURE_DIM)  # 42..45
CUE = 46  # 1 for the word that settles an ambiguous word's sense in this sentence (``sense_cues``)
BIAS = 47
# The columns that depend on where words stand, or on the other words, rather than on the word itself (figure
# 10 clears them: the cue is the nearest of equally strong ones).
ORDER_SLICES: tuple[slice, ...] = (POSITION_SLICE, PARTNER_SLICE, slice(CUE, CUE + 1))


def _place_names(prefix: str) -> list[str]:
    return [f"{prefix}:{fn}{k + 1}" for k in range(PLACE_DIM // 2) for fn in ("sin", "cos")]


FEATURE_NAMES: tuple[str, ...] = (
    *(f"pos:{name}" for name in POS_TAGS_IN),
    *(f"field:{k}" for k in range(FIELD_DIM)),
    "ambiguous",
    *_place_names("position"),
    *_place_names("partner"),
    *(f"signature:{k}" for k in range(SIGNATURE_DIM)),
    "cue",
    "bias",
)

# Four rotation speeds for the place code, one slow: with these, the code of position p rotated back by one
# step is closer to the code of p-1 than to any other position of a 64-word sentence by a wide margin (the
# similarity of two codes is the sum of four cosines, 4 for the same place and at most 1.84 for any other
# place up to 63 away; found by a random search), and the slow one lets a head prefer near words to far ones.
POSITION_FREQUENCIES = (0.08, 0.384, 1.846, 2.804)

CONTENT_POS = frozenset({"noun", "verb", "adj"})
# How strongly a word settles an ambiguous word's sense (``cue_strength``): a match on its own field counts
# MAIN_TOPIC, on a side topic SIDE_TOPIC, and a noun adds NOUN_CUE, so that a noun evoking the sense on the
# side (cave, for bat the animal) outranks a verb of the sense itself (flew).
MAIN_TOPIC, SIDE_TOPIC, NOUN_CUE = 1.0, 0.5, 1.0
# A word sense_cues.txt names for this very word's sense (lake, for bass the fish) settles it between a word
# of the sense's own field and one that has the sense as a side topic.
NAMED_CUE = 0.75


@dataclass(frozen=True)
class Token:
    """One analysed word: what the lexicon (or a guess, for unknown words) says about it.

    ``pos`` is the word's own part of speech: the lexicon's, or for an unknown word the guess from its
    ending. It depends on the word alone, and it is what ``features`` feeds the layer, so that without the
    place columns a word's input is the same wherever it stands (figure 10 relies on that). ``tag`` is the
    part of speech the rules settled on in this sentence from the neighbours ("park" after "the" is a noun;
    "glorpy" before a noun an adjective); the grammar relation is read from it. ``fields`` are an ambiguous
    word's two senses or another content word's own field; ``topics`` the fields such a word evokes besides
    its own (fish: water, food), which let it settle an ambiguous word too.
    """

    text: str
    known: bool
    pos: str
    fields: tuple[str, ...]
    tag: str = ""
    topics: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.fields) > 1

    @property
    def content(self) -> bool:
        return self.pos in CONTENT_POS

    def evokes(self) -> dict[str, float]:
        """The fields an unambiguous content word evokes, each with its weight: its own field MAIN_TOPIC,
        each side topic SIDE_TOPIC (a noun of no field may have side topics alone). Nothing for an ambiguous
        or function word, or a word that evokes no field."""
        if self.content and not self.fields:  # a noun of no field that calls one to mind: "voice"
            return dict.fromkeys(self.topics, SIDE_TOPIC)
        if not (self.content and len(self.fields) == 1):
            return {}
        return {self.fields[0]: MAIN_TOPIC} | dict.fromkeys(self.topics, SIDE_TOPIC)


@dataclass(frozen=True)
class Analysis:
    """A sentence's tokens, the subject and verb the rules found, and each relation's (query, key) pairs."""

    tokens: tuple[Token, ...]
    subject: int | None
    verb: int | None
    targets: dict[str, list[tuple[int, int]]]


def cue_strength(cue: Token, senses: tuple[str, ...], word: str = "") -> float | None:
    """How strongly ``cue`` settles a word whose two senses are ``senses``: the weight with which it evokes
    the sense it evokes more strongly (MAIN_TOPIC or SIDE_TOPIC), plus NOUN_CUE for a noun; None when it
    evokes neither sense, or both equally (then it settles nothing). A phone is technology first, so it
    settles "charge" though a phone bill makes it call money to mind too. A noun the sentence uses as a verb
    is a verb there ("the club welcomes ..."). Given the ambiguous ``word``, a cue sense_cues.txt names for
    one of its senses (``named_cue``) settles it at least at NAMED_CUE (plus NOUN_CUE for a noun)."""
    strength = _strength(cue.evokes(), cue.pos if cue.tag in ("", "noun") else cue.tag, senses)
    if word and named_cue(cue, senses, word):
        strength = max(strength or 0.0, NAMED_CUE + (NOUN_CUE if cue.tag == "noun" else 0.0))
    return strength


def named_cue(cue: Token, senses: tuple[str, ...], word: str) -> bool:
    """Whether sense_cues.txt names ``cue``, a content word of one field or none, for a sense of ``word``."""
    return cue.tag in CONTENT_POS and not cue.ambiguous and named_sense(word, cue.text) in senses


def _strength(evoked: dict[str, float], pos: str, senses: tuple[str, ...]) -> float | None:
    matched = sorted((evoked[f] for f in senses if f in evoked), reverse=True)
    if not matched or (len(matched) > 1 and matched[0] == matched[1]):
        return None  # it evokes neither sense, or both equally: it settles nothing
    return matched[0] + (NOUN_CUE if pos == "noun" else 0.0)


def sense_cues(tokens: tuple[Token, ...], grammar: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """(i, j) for every ambiguous word i that has a cue j. An ambiguous adjective takes the noun it describes
    (its grammatical partner in ``grammar``, the nearer of two), whatever that noun evokes: what an adjective
    is said of settles its sense ("the guide was very warm" is about people, "the sea was warm" about
    weather). An ambiguous verb takes its object (a noun after it that points at it, and not back as a
    subject does) first when the object settles its sense: "we rowed the boat across the lake" is about the
    boat. Otherwise, and for nouns and an adjective describing no noun, the word that settles the sense most
    strongly (``cue_strength``); of two equally strong, one sense_cues.txt names for this very word
    (squarely its topic, not merely of its field), then the head of a noun phrase over the noun modifying it
    ("steel beams": beams, where both evoke the sense alike), then the nearer, then the later, the one a
    reader meets after the word ("the collar on my shirt" in "the tailor said the collar on my shirt ..."). An
    ambiguous noun that no word settles takes the noun right before it that modifies it, which names its
    kind: "the car plant closed", "the garden gate was locked"."""
    ambiguous = [i for i, t in enumerate(tokens) if t.ambiguous]
    if not ambiguous:
        return []
    links = set(grammar)
    # what an adjective is said of: the noun it describes (the nearest, should it describe two)
    described = sorted(links, key=lambda p: (-abs(p[0] - p[1]), p))  # the farther first, the nearer after
    said_of = {i: j for i, j in described if tokens[i].pos == "adj" and tokens[j].tag == "noun"}
    # a verb's object: a noun after the verb pointing at it, one way (its subject points back and forth)
    objects = {(k, j) for j, k in links if tokens[k].pos == "verb" and tokens[j].tag == "noun" and j > k}
    objects -= links
    # a noun modifying another noun ("steel" in "steel beams"): the phrase's head is the cue between the two
    modifies = {j: k for j, k in grammar if tokens[j].pos == tokens[k].pos == "noun" and k == j + 1}
    # the noun right before a noun that names its kind ("car" in "the car plant"), as the rules tagged them
    kind_of = {k: j for j, k in links if k == j + 1 and tokens[j].tag == tokens[k].tag == "noun"}
    # each word's fields, once; a noun the sentence uses as a verb is a verb there ("the club welcomes ...")
    cues = []
    for i in ambiguous:
        if i in said_of:
            cues.append((i, said_of[i]))
            continue
        senses, word = tokens[i].fields, tokens[i].text
        strengths = {
            j: strength
            for j, c in enumerate(tokens)
            if (strength := cue_strength(c, senses, word)) is not None
        }
        named = {j for j in strengths if named_cue(tokens[j], senses, word)}  # squarely this word's topic
        ranked = [
            (
                (i, j) in objects,
                strength,
                j in named,
                strengths.get(modifies.get(j, -1)) != strength,
                -abs(j - i),
                j,
            )
            for j, strength in strengths.items()
        ]
        if ranked:
            cues.append((i, max(ranked)[-1]))
        elif i in kind_of and tokens[i].pos == "noun":
            cues.append((i, kind_of[i]))
    return cues


@lru_cache(maxsize=16384)
def word_token(text: str, tag: str = "") -> Token:
    """A word's Token: what the lexicon, or a guess, says about the spelling, and the part of speech the rules
    settled on in its sentence (``tag``). The same spelling and tag always make the same Token, so it is made
    once and shared (Tokens are frozen)."""
    r = read(text)
    if r.known:
        entry = lookup(text)
        return Token(text, True, r.pos, r.fields, tag, entry.topics if entry is not None else ())
    # an inflection the lexicon does not list (chirping, rowing) evokes what its listed word evokes
    base = inflected(text)
    if base is not None and base.pos == r.pos:
        return Token(text, False, r.pos, base.fields, tag, base.topics)
    return Token(text=text, known=False, pos=r.pos, fields=(), tag=tag)


def analyse(words: list[str]) -> Analysis:
    """Tag every word and derive the three relations by the rules in the module docstring (the grammar
    relation by those of app/models/grammar/)."""
    _, pos, grammar, subject, verb = parse(words)
    tokens = tuple(map(word_token, words, pos))
    cues = sense_cues(tokens, grammar)
    meaning = sorted(set(cues) | {(j, i) for i, j in cues})
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
    """(n, 8): sin and cos of p * omega for the four position frequencies."""
    p = np.arange(n, dtype=np.float64)[:, None]
    angles = p * np.asarray(POSITION_FREQUENCIES)[None, :]  # (n, 4)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n, PLACE_DIM)  # (n, 4, 2) -> (n, 8)


def field_code(token: Token, field_codes: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """A content word's unit field code: an ambiguous word's two senses summed (it sits between them),
    another word's own field plus half of each side topic (``Token.evokes``), scaled to length 1; a word of
    no field only its side topics, at half weight; zeros for a word that evokes nothing."""
    weights = dict.fromkeys(token.fields, MAIN_TOPIC) if token.ambiguous else token.evokes()
    code = np.zeros(FIELD_DIM)
    for field, weight in weights.items():
        if field in field_codes:
            code += weight * field_codes[field]
    norm = np.linalg.norm(code)
    return code / norm if norm > 0 and token.fields else code  # a word with side topics alone stays fainter


def token_row(token: Token, field_codes: dict[str, NDArray[np.float64]]) -> NDArray[np.float64]:
    """A token's 48 input numbers that depend on the word alone: its part of speech, field code, ambiguity,
    signature and bias (the place and cue columns are zero here)."""
    row = np.zeros(D_MODEL)
    if token.pos in POS_TAGS_IN:
        row[POS_SLICE.start + POS_TAGS_IN.index(token.pos)] = 1.0
    if token.content:
        row[FIELD_SLICE] = field_code(token, field_codes)
    row[AMBIGUOUS] = float(token.ambiguous)
    row[SIGNATURE_SLICE] = signature(token.text)
    row[BIAS] = 1.0
    return row


def partner_code(n: int, pairs: list[tuple[int, int]]) -> NDArray[np.float64]:
    """(n, 8): for each word, the mean place code of its grammatical partners (zeros for a word without
    one): where the parser, or a real model's earlier layers, would say the word's partners stand."""
    links = np.zeros((n, n))
    for i, j in pairs:
        links[i, j] = 1.0
    counts = links.sum(axis=1, keepdims=True)
    np.divide(links, counts, out=links, where=counts > 0)
    return links @ _position_code(n)  # (n, n) @ (n, 8) -> (n, 8)


def features(
    analysis: Analysis,
    field_codes: dict[str, NDArray[np.float64]],
    row: Callable[[str], NDArray[np.float64]] | None = None,
) -> NDArray[np.float64]:
    """The (T, 48) matrix of input numbers, laid out as FEATURE_NAMES says: each token's ``token_row``, then
    its place code, the mean place code of its grammatical partners (``partner_code``) and its cue mark.
    ``row``, when given, gives a spelling's ``token_row`` with these field codes (app.models.heads passes one
    that remembers the rows of words it has seen)."""
    T = len(analysis.tokens)
    rows = [row(t.text) if row else token_row(t, field_codes) for t in analysis.tokens]
    x = np.array(rows) if T else np.zeros((0, D_MODEL))  # (T, 48)
    x[:, POSITION_SLICE] = _position_code(T)
    x[:, PARTNER_SLICE] = partner_code(T, analysis.targets["grammar"])
    x[:, CUE] = 0.0
    for i, j in analysis.targets["meaning"]:
        if analysis.tokens[i].ambiguous:  # (i, j) and (j, i) are both pairs: mark the ambiguous word's cue
            x[j, CUE] = 1.0
    return x


@lru_cache(maxsize=128)
def _position_code(n: int) -> NDArray[np.float64]:
    """position_code(n), worked out once per length and shared, so read-only."""
    code = position_code(n)
    code.flags.writeable = False
    return code
