"""The sentence analysis behind figure 1: tokens, three relations found by rules, and the 48 input numbers.

Three relations are read off any sentence by explicit rules over the lexicon:

* **meaning**: an ambiguous word (bank, bat, spring, ...) and the word that settles its sense point at each
  other. A word settles a sense when it evokes that sense's field and not the other's: its own field, or a
  side topic (fish evokes water and food besides animal). The strongest cue wins (``cue_strength``): a noun
  over a verb or adjective, a word's own field over a side topic, then the nearest; an ambiguous adjective
  takes the noun it describes first. In "the bat flew out of the cave", bat <-> cave, not the verb flew;
* **grammar**: every word points at its grammatical partner(s), by the conventions below (in "the river
  bank was steep": the -> bank, river -> bank, bank <-> was, steep -> bank);
* **position**: every word points at the word before it.

The attention heads never see these targets. They read each token's 48 input numbers (``features``), which
carry what the earlier layers of a real model would already know about a word: its own part of speech (the
lexicon's, or the guess from its ending: ``Token.pos``, never changed by the neighbours), a code of the
fields it evokes, whether it is ambiguous, a 4-number signature that tells it apart from its neighbours, a
code of where it stands, and the same code for where the parser puts its grammatical partners (the mean
when it has several). The last two depend on word order; everything else on the word alone (figure 10 clears
them). Training asks the layer to deliver each partner's signature; which head learns which relation is left
to the optimiser.

How the grammar relation is read
--------------------------------
1. *Tagging* (``Token.tag``). A word's part of speech comes from the lexicon; an unknown word's from its
   ending (-ly adverb, -ed/-ing verb, -ous/-ful/-ive/-able adjective, -tion/-ness/-ment noun, ...). The
   neighbours then settle what the lexicon or the ending leaves open: a verb form right after a determiner
   is a noun ("in the park"); an unknown word after a determiner is an adjective when a noun follows ("the
   glorpy zibbets") and a noun when the phrase ends there; an -ing/-ed word after an auxiliary is a verb
   ("were snurfling"), an unknown word after "was" at the end an adjective ("was crumbly"); an unknown word
   after a subject that has no verb yet is its verb; a word that can be an adverb is one after an ordinary
   verb ("studied hard"); this/that/her/... with no noun after them are pronouns; "that" after a noun is a
   relative pronoun and after a verb a conjunction; "to" before a verb marks an infinitive; with no verb
   anywhere, a noun that can be a verb after another noun is one ("the dogs bark").
2. *Chunking.* Noun phrases are [determiners] [adverb? adjective | number | adjective and adjective]*
   noun+ (the head is the last noun) or a single pronoun; a preposition right before a phrase owns it. A verb
   group is a chain of auxiliaries (be, have, do, the modals, and their n't forms), with adverbs between,
   ending at its main verb ("did not finish", "has been", "were barking").
3. *Clauses.* who/which/that after a noun open a relative clause; because/if/when/while/although/... (and
   after/before/until/since when a subject and verb follow) open a subordinate clause; "that" after a verb a
   complement clause; and/or/but followed by a subject and a verb, once the clause has its verb, open a
   coordinated clause. A subordinate or relative clause ends when a second verb group arrives while the
   clause it hangs on still lacks a verb ("the man who lives next door | has a parrot").

Grammar partners, construction by construction (query -> key; <-> marks a pair in both directions):

* noun phrase: determiners, numbers, adjectives and modifying nouns -> the head noun ("the quick brown fox":
  the, quick, brown -> fox); an adverb before an adjective -> that adjective ("a very old man": very -> old);
* each clause's subject <-> its verb. The verb is the main verb of the verb group, or the copula when there
  is none ("the dogs ... were barking": dogs <-> barking; "the bank was steep": bank <-> was);
* an auxiliary or modal -> its main verb ("were -> barking", "can -> swim", "did -> finish"), also when the
  subject stands between them in a question ("can you swim": can -> swim, you <-> swim);
* an object, or any noun phrase after the verb without a preposition -> the nearest verb before it
  ("she saw the crane": crane -> saw; "stay home": home -> stay);
* a predicate adjective -> the subject it describes ("the bank was steep": steep -> bank), or the object
  when it follows one ("left the door open": open -> door);
* a preposition <-> the head of its noun phrase ("in the park": in <-> park); one with no phrase after it
  (a particle) -> the verb before it ("the sun came out": out -> came);
* an adverb (not, never, where, why, ...) -> the adjective or adverb right after it ("still warm",
  "too hot"), otherwise -> the verb of its clause: the verb before it, or the next one when none comes before
  ("quickly ate", "ate quickly");
* an infinitive: "to" -> its verb, and that verb -> the adjective or verb it completes ("too hot to
  drink": drink -> hot; "wants to swim": swim -> wants); a verb that follows a verb directly -> that verb;
* questions: the subject after an auxiliary is the clause's subject ("is the bread warm": bread <-> is); a
  wh-pronoun is the subject when no other subject is found ("who ate the cake": who <-> ate) and otherwise
  the object ("what did you eat": what -> eat);
* coordination (and, or, but): the conjunction -> both conjuncts (the heads of the two phrases, or the two
  verbs); the second conjunct takes the first one's partners (in "my brother and my sister live",
  sister <-> live as brother <-> live; in "they ate the pizza and drank", drank <-> they);
* relative clause: the relative pronoun -> the noun it stands for and is the clause's subject (<-> its verb)
  or, when the clause has another subject, its object (-> its verb) ("the man who lives": who -> man,
  who <-> lives; "the book that i borrowed": that -> book, that -> borrowed, i <-> borrowed);
* subordinate and complement clauses: the conjunction -> its own clause's verb and the verb of the clause it
  depends on ("... finish ... because the lesson was long": because -> was, because -> finish); the
  clause's own subject and verb point at each other; a complement clause with no "that" -> its verb points
  at the main verb ("i think the movie was boring": was -> think).

``Analysis.subject`` and ``Analysis.verb`` are the main clause's subject and verb (the first clause with a
verb when the main clause has none).

Every sentence of figure 1's training grammar (training/relation_corpus.py) gets exactly the analysis it got
before these constructions were added: its words and shapes never reach the new rules, and a test compares.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from app.models.lexicon import LEXICON, POS_TAGS, entry_for, inflected, lookup, normalise

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
KNOWN = 46
BIAS = 47
# The columns that depend on where words stand rather than on the word itself (figure 10 clears them).
ORDER_SLICES: tuple[slice, ...] = (POSITION_SLICE, PARTNER_SLICE)


def _place_names(prefix: str) -> list[str]:
    return [f"{prefix}:{fn}{k + 1}" for k in range(PLACE_DIM // 2) for fn in ("sin", "cos")]


FEATURE_NAMES: tuple[str, ...] = (
    *(f"pos:{name}" for name in POS_TAGS_IN),
    *(f"field:{k}" for k in range(FIELD_DIM)),
    "ambiguous",
    *_place_names("position"),
    *_place_names("partner"),
    *(f"signature:{k}" for k in range(SIGNATURE_DIM)),
    "known",
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


# ---------------------------------------------------------------------------------------------------------
# Reading the words: the lexicon's entry, or a guess; then the neighbours settle the part of speech.
# ---------------------------------------------------------------------------------------------------------

AUXILIARY_LEMMAS = frozenset({"be", "have", "do", "will", "can", "shall", "may", "must"})
# Verbs after which an adjective describes the subject ("tasted salty"); after any other verb a word that can
# be an adverb is one ("studied hard").
COPULAR_LEMMAS = frozenset(
    {"be", "become", "seem", "look", "feel", "taste", "smell", "sound", "appear", "remain", "stay", "get",
     "grow", "turn", "fall", "go", "keep"}
)  # fmt: skip
COORDINATORS = frozenset({"and", "or", "but", "nor"})
CLAUSE_PREPOSITIONS = frozenset({"after", "before", "until", "since"})
# Verbs whose particle comes before their object ("turn off the oven": off -> turn, oven -> turn), by
# lemma. After any other verb a preposition before a noun phrase heads that phrase ("sat on the bank").
PHRASAL_VERBS = {
    "turn": {"off", "on", "up", "down"},
    "switch": {"off", "on"},
    "put": {"on", "off", "away", "out"},
    "take": {"off", "out", "away"},
    "pick": {"up"},
    "throw": {"away", "out"},
    "give": {"up", "back", "away"},
    "bring": {"back", "up"},
    "wake": {"up"},
    "clean": {"up"},
    "wash": {"up"},
    "fill": {"in", "up"},
    "write": {"down"},
    "shut": {"down", "off"},
    "set": {"up"},
    "try": {"on"},
    "call": {"off"},
    "hand": {"in", "out"},
    "let": {"out", "in"},
    "burn": {"out", "down"},
    "break": {"down"},
    "look": {"up"},
    "find": {"out"},
    "work": {"out"},
    "heat": {"up"},
    "warm": {"up"},
}
WH_ADVERBS = frozenset({"where", "when", "why", "how"})
RELATIVE_PRONOUNS = frozenset({"who", "whom", "which"})
PRONOUN_DETERMINERS = frozenset(
    {"this", "that", "these", "those", "her", "his", "some", "any", "all", "many", "few", "several", "both",
     "each", "either", "neither", "another", "mine", "no", "much"}
)  # fmt: skip
SUBJECT_PRONOUNS = frozenset({"i", "you", "he", "she", "it", "we", "they", "who"})
_NEGATED_STEMS = {"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}
_NOMINAL = frozenset({"noun", "adj", "num"})
_TAKES_A_PLAIN_VERB = frozenset({"do", "will", "can", "shall", "may", "must"})
_MODALS = _TAKES_A_PLAIN_VERB - {"do"}


@dataclass(frozen=True, slots=True)
class _Reading:
    """What the lexicon, or a guess from the ending, says about one spelling, before any neighbour is seen."""

    key: str
    known: bool
    pos: str
    fields: tuple[str, ...]
    lemma: str
    tense: str
    number: str
    also: tuple[str, ...]
    ending: str  # for unknown words: "ing", "ed", "s", "ly" or ""
    proper: bool  # capitalised unknown word


@lru_cache(maxsize=8192)
def _read(text: str) -> _Reading:
    key = normalise(text)
    entry = lookup(text)
    if entry is None and "'" in key:  # doesn't, can't, they're, we'll: read the word the ending hangs on
        stem, _, tail = key.partition("'")
        if tail == "t" and stem.endswith("n"):
            aux = LEXICON.get(_NEGATED_STEMS.get(stem[:-1], stem[:-1]))
            if aux is not None and aux.pos == "verb":
                return _Reading(key, True, "verb", (), aux.lemma, aux.tense, aux.number, (), "", False)
        base = LEXICON.get(stem)
        if base is not None and base.pos == "pron":
            entry = base
    if entry is not None:
        return _Reading(
            key, True, entry.pos, entry.fields, entry.lemma, entry.tense, entry.number, entry.also, "", False
        )
    guess = entry_for(key)
    ending = next((e for e in ("ing", "ed", "ly", "s") if key.endswith(e) and len(key) - len(e) >= 3), "")
    proper = text[:1].isupper()
    return _Reading(key, False, guess.pos, (), key, guess.tense, guess.number, (), ending, proper)


def _nominal(r: _Reading | None) -> bool:
    """Can this word continue a noun phrase (a noun, adjective or number, or an unknown word)?"""
    return r is not None and (r.pos in _NOMINAL or (not r.known and r.pos != "adv" and r.ending != "ed"))


def _can_be(r: _Reading, pos: str) -> bool:
    return r.pos == pos or pos in r.also


def _opens_a_clause(reads: list[_Reading], pos: list[str], role: list[str], i: int) -> bool:
    """Is word i, a plural noun by the lexicon, the verb of a clause opened by a conjunction or by after,
    before, until or since, whose subject is the noun phrase between ("after my meeting ends": ends)? It must
    end in -s on the plain form of a verb ("end" can be a verb), and the phrase open with a determiner and
    hold only adjectives, numbers and nouns besides."""
    key = reads[i].key
    stems = (key[:-1], key[:-2]) if key.endswith("es") else (key[:-1],) if key.endswith("s") else ()
    if not any(
        (stem := LEXICON.get(s)) is not None and (stem.pos == "verb" or "verb" in stem.also) for s in stems
    ):
        return False
    q = i - 1
    while q >= 0 and pos[q] in ("det", "adj", "num", "noun") and role[q] == "":
        q -= 1
    opened = q >= 0 and (role[q] == "sub" or (pos[q] == "prep" and reads[q].key in CLAUSE_PREPOSITIONS))
    return opened and pos[q + 1] == "det"


def _tag(words: list[str]) -> tuple[list[_Reading], list[str], list[str]]:
    """Each word's reading, its part of speech in this sentence, and its role in the clause structure.

    Roles: "aux" (auxiliary or modal), "inf" (infinitive "to"), "coord" (and, or, but, nor), "sub"
    (subordinating conjunction), "rel" (relative pronoun), "comp" (complementiser "that"), "wh" (question
    word), "whdet" (a question's which or what before its noun), or "" for everything else.
    """
    reads = [_read(w) for w in words]
    n = len(reads)
    pos = [""] * n
    role = [""] * n
    verb_since_boundary = False
    asked = False  # the sentence opened with do or a modal ("did the dog ...") and awaits its main verb
    for i, r in enumerate(reads):
        k, p, rl = r.key, r.pos, ""
        prev = pos[i - 1] if i else ""
        prev_r = reads[i - 1] if i else None
        nxt = reads[i + 1] if i + 1 < n else None
        after = reads[i + 2] if i + 2 < n else None
        # The word before, skipping adverbs: does an auxiliary, "to", or a determiner govern this one?
        j = i - 1
        while j >= 0 and pos[j] == "adv" and role[j] == "":
            j -= 1
        governor = role[j] if j >= 0 else ""
        governor_lemma = reads[j].lemma if j >= 0 else ""
        inside_phrase = prev in ("det", "num") or (
            prev == "adj" and i >= 2 and pos[i - 2] in ("det", "adj", "num", "adv", "prep")
        )
        if r.known:
            if k == "back" and prev in ("noun", "pron") and nxt is not None and nxt.pos == "prep":
                p = "adv"  # "sew this button back onto my coat"
            elif k in ("many", "much") and prev_r is not None and prev_r.key == "how":
                # "how many eggs do we need": how -> many, eggs -> need; "how much does it cost": much -> cost
                p, rl = "adj", "whdet" if _nominal(nxt) else "wh"
            elif k in ("all", "both", "half") and nxt is not None and nxt.pos == "det":
                p = "det"  # "all our suitcases"
            elif (
                p == "det"
                and k in PRONOUN_DETERMINERS
                and not _nominal(nxt)
                and not (
                    nxt is not None and nxt.key.endswith("ed") and after is not None and after.pos == "noun"
                )
            ):
                p = "pron"
                if k == "that" and nxt is not None:
                    rl = "rel" if prev in ("noun", "pron") else "comp" if prev == "verb" else ""
            elif (
                k in ("which", "what")
                and nxt is not None
                and nxt.pos != "num"
                and (
                    _nominal(nxt)
                    or (  # "which search engine": a plain verb form before a noun is the noun's modifier
                        nxt.pos == "verb"
                        and nxt.lemma not in AUXILIARY_LEMMAS
                        and nxt.key == nxt.lemma
                        and after is not None
                        and after.pos == "noun"
                    )
                )
            ):
                p = "det"
                if i == 0 or role[i - 1] == "coord":
                    rl = "whdet"  # opens a question: "which song did the band perform"
            elif k in RELATIVE_PRONOUNS:
                rl = "rel" if prev in ("noun", "pron") else "wh"
            elif k == "what":
                rl = "wh"
            elif k in WH_ADVERBS:
                question = i == 0 or role[i - 1] == "coord"
                if k == "where" and prev == "noun":
                    rl = "rel"  # "the town where i live"
                elif k == "when" and not (question and nxt is not None and nxt.lemma in AUXILIARY_LEMMAS):
                    rl = "sub"
                elif not question and prev in ("verb", "noun", "pron") and nxt is not None:
                    rl = "sub" if nxt.pos not in ("adj", "adv") else ""  # "knows why the lights went out"
                else:
                    rl = "wh"
            elif (
                k in CLAUSE_PREPOSITIONS
                and nxt is not None
                and nxt.key in SUBJECT_PRONOUNS - {"who"}
                and (nxt.key not in ("it", "you") or (after is not None and _can_be(after, "verb")))
            ):
                p, rl = "conj", "sub"  # "after we left": a subject pronoun, not an object, follows
            elif p == "conj":
                if k == "so" and nxt is not None and nxt.pos in ("adj", "adv"):
                    p = "adv"
                else:
                    rl = "coord" if k in COORDINATORS or k == "so" else "sub"
            elif (
                k == "to" and nxt is not None and (_can_be(nxt, "verb") or (not nxt.known and not nxt.proper))
            ):
                if nxt.pos not in ("det", "pron", "num") and not (
                    nxt.pos == "noun" and nxt.known and "verb" not in nxt.also
                ):
                    rl = "inf"  # "to swim", "going to rain"; not "to school"
            elif p == "verb" and inside_phrase and r.lemma not in AUXILIARY_LEMMAS:  # "in the park"
                p = "adj" if (r.tense == "past" and _nominal(nxt) and nxt.pos != "adj") else "noun"
            elif p == "verb" and prev == "prep" and role[i - 1] != "inf" and "noun" in r.also:
                p = "noun"  # "after work"
            elif p in ("adv", "noun") and "adj" in r.also and inside_phrase and _nominal(nxt):
                p = "adj"  # "a fast car"
            elif (
                p != "verb"
                and "verb" in r.also
                and (
                    (governor == "aux" and governor_lemma in _TAKES_A_PLAIN_VERB)
                    or governor == "inf"
                    or (i == 0 and nxt is not None and nxt.pos in ("det", "pron"))
                    or (  # a second order: "open a terminal and type this command"
                        i
                        and role[i - 1] == "coord"
                        and pos[0] == "verb"
                        and nxt is not None
                        and nxt.pos == "det"
                    )
                    or (prev_r is not None and prev_r.key == "please")
                    or (prev_r is not None and prev_r.key in SUBJECT_PRONOUNS and not verb_since_boundary)
                )
            ):
                p = "verb"  # "will rain", "open the door", "they clean"
            elif p in ("noun", "adj") and "verb" in r.also and asked and prev == "noun" and not _nominal(nxt):
                p = "verb"  # "did the dog bark at the mailman", "will our suitcases fit in the trunk"
            elif p in ("noun", "adj") and governor == "aux" and governor_lemma in _MODALS and prev != "det":
                p = "verb"  # a modal's verb, even one listed only as a noun: "you can heat up some soup"
            elif (
                p == "adj"
                and (
                    "verb" in r.also or (k.endswith("ed") and nxt is not None and nxt.pos in ("det", "pron"))
                )
                and prev in ("noun", "pron")
                and not verb_since_boundary
                and not asked
                and not _nominal(nxt)
            ):
                p = "verb"  # "our coach broke down", "a heavy shower ruined our picnic"
            elif (
                p == "adj"
                and "adv" in r.also
                and prev == "verb"
                and prev_r is not None
                and prev_r.lemma not in COPULAR_LEMMAS
                and not _nominal(nxt)
            ):
                p = "adv"  # "studied hard"
            if p == "verb" and rl == "" and r.lemma in AUXILIARY_LEMMAS:
                rl = "aux"
        else:
            p = _guess_from_neighbours(
                r, prev, prev_r, nxt, after, governor, governor_lemma, inside_phrase, i, verb_since_boundary
            )
        if p == "noun" and prev == "noun" and not _nominal(nxt) and _opens_a_clause(reads, pos, role, i):
            p = "verb"  # "after my meeting ends", "when the bell rings"
        elif p in ("noun", "adj") and asked and prev_r is not None and prev_r.key in SUBJECT_PRONOUNS:
            p = "verb"  # a question's verb after its subject, even one listed only as a noun: "will it rain"
        elif p == "noun" and asked and prev == "noun" and nxt is not None and nxt.pos == "det":
            p = "verb"  # "did the president sign the new law": a noun cannot follow a noun's phrase here
        elif (
            p == "noun"
            and prev_r is not None
            and prev_r.key in ("i", "we", "they", "he", "she")
            and not verb_since_boundary
            and (nxt is None or nxt.pos in ("det", "pron", "prep", "adv"))
        ):
            p = "verb"  # a subject pronoun's verb, even one listed only as a noun: "after we shape the clay"
        elif p == "adj" and prev == "prep" and (nxt is None or nxt.pos == "prep"):
            p = "noun"  # "after dark"
        pos[i], role[i] = p, rl
        opened = max((x + 1 for x in range(i) if role[x] == "coord"), default=0)  # the clause's first word
        asked = asked or (
            rl == "aux" and r.lemma in _TAKES_A_PLAIN_VERB and all(x == "wh" for x in role[opened:i])
        )
        asked = asked and not (p == "verb" and rl != "aux")
        if p == "verb":
            verb_since_boundary = True
        elif rl in ("coord", "sub", "rel", "comp"):
            verb_since_boundary = False
    if "verb" not in pos:  # no verb at all: "the dogs bark" is a subject and its verb, not a compound
        for i in range(1, n):
            last = i + 1 == n or not _nominal(reads[i + 1])
            if pos[i] == "noun" and pos[i - 1] == "noun" and "verb" in reads[i].also and last:
                pos[i] = "verb"
                break
    return reads, pos, role


def _guess_from_neighbours(
    r: _Reading,
    prev: str,
    prev_r: _Reading | None,
    nxt: _Reading | None,
    after: _Reading | None,
    governor: str,
    governor_lemma: str,
    inside_phrase: bool,
    i: int,
    has_verb: bool,
) -> str:
    """The part of speech of an unknown word, from its ending and its neighbours."""
    if r.proper and i > 0:
        return "noun"  # a name in the middle of a sentence
    if r.pos == "adv" and nxt is not None and nxt.pos in ("adj", "adv"):
        return "adv"  # an -ly word before an adjective: "the unbelievably steep bank", "was oddly quiet"
    if inside_phrase:
        if nxt is not None and nxt.pos == "verb" and nxt.known:
            return "noun"  # "the zibbets were"
        if (
            nxt is not None
            and not nxt.known
            and nxt.ending == "ed"
            and after is not None
            and after.pos == "det"
        ):
            return "noun"  # "the zibbet glorped the ..."
        if _nominal(nxt) and nxt is not None and nxt.pos != "num" and r.ending != "s":
            return "adj"  # "the glorpy zibbets", "a lovely garden"; not a plural: "our suitcases fit"
        return "noun"
    if prev == "prep" and governor != "inf" and not _nominal(nxt):
        return "noun"  # the whole phrase after a preposition: "the capital of portugal"
    predicative = governor == "aux" and governor_lemma == "be" and r.ending in ("", "ly") and prev != "det"
    if predicative and (nxt is None or nxt.pos not in ("noun", "adj", "verb")):
        return "adj"  # "the bread was crumbly", "the soup is glorpish"
    if governor in ("aux", "inf") and r.pos != "adv":
        return "noun" if r.ending == "s" else "verb"  # "were snurfling", "can glorp"; "were flarbs"
    if prev in ("noun", "pron") and r.pos != "adv" and not has_verb:
        if r.ending in ("ed", "s") or (prev_r is not None and prev_r.key in SUBJECT_PRONOUNS):
            return "verb"  # "the dog zanned", "she glorps"
        if nxt is None or nxt.pos in ("det", "pron", "prep"):
            return "verb"
    return r.pos


# ---------------------------------------------------------------------------------------------------------
# Chunks: noun phrases, verb groups and single words.
# ---------------------------------------------------------------------------------------------------------


class _Unit:
    """A chunk of the sentence: kind is "np", "vg", "adj", "adv", "prep", "coord", "sub", "rel", "comp",
    "wh", "inf" or "other"; ``head`` is its head token; ``prep`` the preposition that owns a noun phrase."""

    __slots__ = ("kind", "head", "start", "prep", "left")

    def __init__(self, kind: str, head: int, start: int | None = None, prep: int | None = None) -> None:
        self.kind = kind
        self.head = head
        self.start = head if start is None else start
        self.prep = prep
        self.left: _Unit | None = None  # for the second of two coordinated chunks: the first

    @property
    def bare(self) -> bool:
        """A noun phrase with no preposition."""
        return self.kind == "np" and self.prep is None


def _noun_phrase(i: int, pos: list[str], role: list[str]) -> tuple[int, int] | None:
    """(start, head) of the noun phrase starting at i: [det]* [adv? adj | num | adj and adj]* noun+."""
    n, j = len(pos), i
    while j < n and pos[j] == "det":
        j += 1
    while j < n:
        modifier = pos[j] in ("adj", "num")
        degree = pos[j] == "adv" and role[j] == "" and j + 1 < n and pos[j + 1] == "adj"  # "very old"
        joined = (
            role[j] == "coord"
            and j > i
            and pos[j - 1] == "adj"
            and j + 1 < n
            and pos[j + 1] in ("adj", "adv")
        )
        if not (modifier or degree or joined):
            break
        j += 1
    k = j
    while k < n and pos[k] == "noun":
        k += 1
    if k == j and j > i and pos[j - 1] == "num":
        return (i, j - 1)  # a number with no noun heads its phrase: "until eleven"
    return (i, k - 1) if k > j else None


def _chunk(
    reads: list[_Reading], pos: list[str], role: list[str], pairs: set[tuple[int, int]]
) -> list[_Unit]:
    """Split the tagged sentence into chunks, adding the pairs inside noun phrases to ``pairs``."""
    units: list[_Unit] = []
    n, i = len(pos), 0

    def phrase(start: int, head: int, prep: int | None) -> None:
        for t in range(start, head):
            if pos[t] == "adv":
                pairs.add((t, t + 1))
            elif role[t] == "coord":
                pairs.update({(t, t - 1), (t, t + 1)})
            else:
                pairs.add((t, head))
        if prep is not None:
            pairs.update({(prep, head), (head, prep)})
        asks = prep is None and role[start] == "whdet"  # "which song": the question word's phrase
        units.append(_Unit("wh" if asks else "np", head, start, prep))

    while i < n:
        p, rl = pos[i], role[i]
        if rl in ("coord", "sub", "rel", "comp", "wh", "inf"):
            units.append(_Unit(rl, i))
            i += 1
        elif (
            p == "prep"
            and i
            and pos[i - 1] == "verb"
            and reads[i].key in PHRASAL_VERBS.get(reads[i - 1].lemma, ())
        ):
            units.append(_Unit("prep", i))  # a particle: "turn off the oven"
            i += 1
        elif p == "prep":
            found = _noun_phrase(i + 1, pos, role) if i + 1 < n and pos[i + 1] != "pron" else None
            if i + 1 < n and pos[i + 1] == "pron":
                found = (i + 1, i + 1)
            if found is None:
                units.append(_Unit("prep", i))
                i += 1
                continue
            start, head = found
            if reads[i].key in CLAUSE_PREPOSITIONS and head + 1 < n and pos[head + 1] == "verb":
                units.append(_Unit("sub", i))  # "after we ate": a clause, not a phrase
                phrase(start, head, None)
            else:
                phrase(start, head, i)
            i = head + 1
        elif p == "pron":
            units.append(_Unit("np", i))
            i += 1
        elif p == "verb":
            start = head = i
            while role[head] == "aux":  # auxiliaries, adverbs between, up to the main verb
                k = head + 1
                while k < n and pos[k] == "adv" and role[k] == "":
                    k += 1
                if k < n and pos[k] == "verb" and role[k] in ("", "aux"):
                    head = k
                else:
                    break
            units.append(_Unit("vg", head, start))
            i = head + 1
        else:
            found = _noun_phrase(i, pos, role) if p in ("det", "adj", "num", "noun", "adv") else None
            if found is not None:
                phrase(*found, None)
                i = found[1] + 1
            else:
                units.append(_Unit(p if p in ("adj", "adv") else "other", i))
                i += 1
    return units


# ---------------------------------------------------------------------------------------------------------
# Clauses: which chunks belong together, then each clause's partners.
# ---------------------------------------------------------------------------------------------------------


class _Clause:
    __slots__ = ("kind", "opener", "parent", "antecedent", "left", "units", "subject", "verb")

    def __init__(
        self,
        kind: str,
        opener: int | None = None,
        parent: _Clause | None = None,
        antecedent: int | None = None,
        left: _Clause | None = None,
    ) -> None:
        self.kind = kind  # "main", "sub", "rel", "comp" or "coord"
        self.opener = opener
        self.parent = parent
        self.antecedent = antecedent
        self.left = left  # a coordinated clause's partner
        self.units: list[_Unit] = []
        self.subject: int | None = None
        self.verb: int | None = None

    def has_verb(self) -> bool:
        return any(u.kind == "vg" for u in self.units)


def _next_content(units: list[_Unit], k: int) -> int:
    """Index of the first unit from k on that is not an adverb (len(units) if none)."""
    while k < len(units) and units[k].kind == "adv":
        k += 1
    return k


def _clauses(units: list[_Unit], coordinations: list[tuple[int, _Unit | None, _Unit]]) -> list[_Clause]:
    """Distribute the chunks over clauses, left to right; record coordinated chunks in ``coordinations``."""
    main = _Clause("main")
    clauses, cur = [main], main
    pending: tuple[int, _Unit | None] | None = None  # a conjunction waiting for its second conjunct
    for ui, u in enumerate(units):
        if u.kind == "coord":
            k = _next_content(units, ui + 1)
            nxt = units[k] if k < len(units) else None
            m = _next_content(units, k + 1)
            then = units[m] if m < len(units) else None
            if nxt is not None and nxt.bare and then is not None and then.kind == "vg" and cur.has_verb():
                cur = _Clause(
                    "coord", opener=u.head, parent=cur.parent, left=cur
                )  # "... and the farmers lost"
                clauses.append(cur)
                continue
            if nxt is not None and nxt.kind == "vg":
                left = next((x for x in reversed(cur.units) if x.kind == "vg"), None)
            elif nxt is not None:
                same = [x for x in cur.units if x.kind == nxt.kind and (x.prep is None) == (nxt.prep is None)]
                if nxt.kind == "np" and nxt.bare:
                    same = [x for x in cur.units if x.kind == "np"]
                left = same[-1] if same else (cur.units[-1] if cur.units else None)
            else:
                left = cur.units[-1] if cur.units else None
            pending = (u.head, left)
            cur.units.append(u)
            continue
        if u.kind in ("sub", "comp"):
            cur = _Clause(u.kind, opener=u.head, parent=cur)
            clauses.append(cur)
            continue
        if u.kind == "rel":
            before = units[ui - 1] if ui else None
            antecedent = before.head if before is not None and before.kind == "np" else None
            cur = _Clause("rel", opener=u.head, parent=cur, antecedent=antecedent)
            clauses.append(cur)
            continue
        if pending is not None and u.kind != "adv":
            conj, left = pending
            pending = None
            u.left = left
            coordinations.append((conj, left, u))
        elif u.kind == "vg" and cur.has_verb() and not (cur.units and cur.units[-1].kind == "inf"):
            last = cur.units[-1] if cur.units else None
            trailing = last if last is not None and last.bare and _after_a_verb(cur, last) else None
            if _question_so_far(cur):
                pass  # "can you swim": the verb groups merge when the clause is resolved
            elif cur.kind in ("sub", "rel", "comp") and cur.parent is not None and not cur.parent.has_verb():
                parent = cur.parent
                if trailing is not None and not any(x.bare for x in parent.units):
                    cur.units.pop()  # "if it rains tomorrow | we will stay": we is the main clause's
                    parent.units.append(trailing)
                cur = parent
            elif trailing is not None:
                cur.units.pop()  # "i think | the movie was boring": a complement clause with no "that"
                cur = _Clause("comp", parent=cur)
                clauses.append(cur)
                cur.units.append(trailing)
        cur.units.append(u)
    return clauses


def _after_a_verb(clause: _Clause, unit: _Unit) -> bool:
    units = clause.units
    return any(x.kind == "vg" for x in units[: units.index(unit)])


def _question_so_far(clause: _Clause) -> bool:
    """[wh | adverb]* auxiliary [adverb]* noun-phrase [adverb]*: a question waiting for its main verb."""
    if clause.kind not in ("main", "coord"):
        return False
    kinds = [u for u in clause.units if u.kind != "adv"]
    while kinds and kinds[0].kind == "wh":
        kinds = kinds[1:]
    return len(kinds) == 2 and kinds[0].kind == "vg" and kinds[1].bare


def _aux_only(unit: _Unit, role: list[str]) -> bool:
    return unit.kind == "vg" and role[unit.head] == "aux"


def _resolve(clause: _Clause, pos: list[str], role: list[str], pairs: set[tuple[int, int]]) -> None:
    """Add the clause's pairs by the conventions in the module docstring; set its subject and verb."""
    units = clause.units
    groups = [u for u in units if u.kind == "vg"]
    inverted: _Unit | None = None
    if clause.kind in ("main", "coord") and len(groups) >= 2 and _aux_only(groups[0], role):
        first, second = units.index(groups[0]), units.index(groups[1])
        # the subject between them, and any phrase that qualifies it: "does the bark of your dog scare you"
        between = [
            u for u in units[first + 1 : second] if u.kind != "adv" and (u.kind != "np" or u.prep is None)
        ]
        if all(u.kind in ("wh", "adv") for u in units[:first]) and len(between) == 1 and between[0].bare:
            inverted = between[0]  # "can you swim": can -> swim, you <-> swim
            pairs.update((t, groups[1].head) for t in range(groups[0].start, groups[0].head + 1))
            groups = groups[1:]
    merged = {u for u in units if u.kind == "vg"} - set(groups)
    main = groups[0] if groups else None
    verb = main.head if main is not None else None
    for g in groups:  # auxiliaries and adverbs inside a verb group -> its main verb
        pairs.update((t, g.head) for t in range(g.start, g.head))

    subject: int | None = None
    if inverted is not None:
        subject = inverted.head
    elif main is not None:
        before = units[: units.index(main)]
        candidates = [u for u in before if u.bare and u.left is None]
        whs = [u for u in before if u.kind == "wh" and pos[u.head] in ("pron", "noun")]
        if candidates:
            subject = candidates[-1].head
        elif clause.kind == "rel":
            subject = clause.opener
        elif whs:
            subject = whs[0].head
        elif _aux_only(main, role):  # "is the bread warm", "there are two cats"
            after = [u for u in units[units.index(main) + 1 :] if u.bare and u.left is None]
            subject = after[0].head if after else None
    clause.subject, clause.verb = subject, verb
    if subject is not None and verb is not None:
        pairs.update({(subject, verb), (verb, subject)})
    if clause.kind == "rel" and clause.opener is not None:
        if clause.antecedent is not None:
            pairs.add((clause.opener, clause.antecedent))
        if verb is not None and subject != clause.opener:
            pairs.add((clause.opener, verb))

    def verb_before(k: int) -> int | None:
        g = next((x for x in reversed(units[:k]) if x.kind == "vg" and x not in merged), None)
        return g.head if g is not None else None

    def verb_after(k: int) -> int | None:
        g = next((x for x in units[k + 1 :] if x.kind == "vg" and x not in merged), None)
        return g.head if g is not None else None

    for k, u in enumerate(units):
        if u.left is not None or u is inverted or u in merged:
            continue  # second conjuncts take their partners from the first, later
        if u.kind == "vg" and u is not main:
            before = units[k - 1] if k else None
            if before is not None and before.kind == "inf":
                pairs.add((before.head, u.head))
                target = units[k - 2] if k >= 2 else None
                if target is not None and target.kind == "adj":
                    pairs.add((u.head, target.head))  # "too hot to drink"
                    continue
            previous = verb_before(k)
            if previous is not None:
                pairs.add((u.head, previous))  # "wants to swim", "stopped working"
        elif u.kind == "vg" and k and units[k - 1].kind == "inf":
            pairs.add((units[k - 1].head, u.head))
        elif u.bare and u.head != subject:
            target = verb_before(k) if verb_before(k) is not None else verb
            if target is not None:
                pairs.add((u.head, target))  # objects, "last week", "home"
        elif u.kind == "wh" and u.head + 1 < len(pos) and pos[u.head + 1] in ("adj", "adv"):
            pairs.add((u.head, u.head + 1))  # "how old"
        elif u.kind == "wh" and u.head != subject and verb is not None:
            pairs.add((u.head, verb))  # "what did you eat", "when will the bus arrive"
        elif u.kind == "adj":
            previous = next((x for x in reversed(units[:k]) if x.kind != "adv"), None)
            if (
                previous is not None
                and previous.bare
                and previous.head != subject
                and previous is not inverted
                and verb_before(k) is not None
            ):
                pairs.add((u.head, previous.head))  # "left the door open"
                continue
            fronted = main is not None and _aux_only(main, role) and subject is not None and subject > u.head
            if subject is not None and (verb_before(k) is not None or inverted is not None or fronted):
                pairs.add(
                    (u.head, subject)
                )  # "the bank was steep", "is the bread still warm", "how old is he"
        elif u.kind == "adv":
            if u.head + 1 < len(pos) and pos[u.head + 1] in ("adj", "adv") and role[u.head + 1] == "":
                pairs.add((u.head, u.head + 1))  # "very long", "still warm"
                continue
            previous_unit = units[k - 1] if k else None
            target = verb_before(k)
            if target is None or (previous_unit is not None and previous_unit.kind == "coord"):
                target = verb_after(k) if verb_after(k) is not None else target
            if target is not None:
                pairs.add((u.head, target))
        elif u.kind == "prep":
            target = verb_before(k)
            if target is not None:
                pairs.add((u.head, target))  # a particle: "she got up"
    if clause.kind in ("sub", "comp") and clause.opener is not None and verb is None:
        phrase = next((u for u in units if u.kind == "np"), None)
        if phrase is not None:  # "than the dog", "as a child": the conjunction acts as a preposition
            pairs.update({(clause.opener, phrase.head), (phrase.head, clause.opener)})


def _link_clauses(clauses: list[_Clause], pairs: set[tuple[int, int]]) -> None:
    for c in clauses:
        parent_verb = c.parent.verb if c.parent is not None else None
        if c.kind in ("sub", "comp") and c.verb is not None:
            if c.opener is not None:
                pairs.add((c.opener, c.verb))
                if parent_verb is not None:
                    pairs.add((c.opener, parent_verb))
            elif parent_verb is not None:
                pairs.add((c.verb, parent_verb))
        elif c.kind == "coord" and c.opener is not None:
            for verb in (c.left.verb if c.left is not None else None, c.verb):
                if verb is not None:
                    pairs.add((c.opener, verb))


def _share(coordinations: list[tuple[int, _Unit | None, _Unit]], pairs: set[tuple[int, int]]) -> None:
    """The conjunction points at both conjuncts; the second takes the first one's partners."""
    for conj, left, right in coordinations:
        pairs.add((conj, right.head))
        if left is None:
            continue
        pairs.add((conj, left.head))
        if right.kind == "np" and right.prep is not None:
            continue  # "in the morning and in the evening": the second has its own preposition
        for a, b in [pair for pair in pairs if pair[0] == left.head and pair[1] != conj]:
            pairs.add((right.head, b))
            if (b, a) in pairs:
                pairs.add((b, right.head))


def _grammar(
    words: list[str],
) -> tuple[list[_Reading], list[str], list[tuple[int, int]], int | None, int | None]:
    """Readings, parts of speech, grammar pairs, and the main clause's subject and verb."""
    reads, pos, role = _tag(words)
    pairs: set[tuple[int, int]] = set()
    units = _chunk(reads, pos, role, pairs)
    coordinations: list[tuple[int, _Unit | None, _Unit]] = []
    clauses = _clauses(units, coordinations)
    for clause in clauses:
        _resolve(clause, pos, role, pairs)
    _link_clauses(clauses, pairs)
    _share(coordinations, pairs)
    n = len(words)  # sorted as the numbers a·n + b, which order as the pairs (a, b) do and sort faster
    codes = sorted({a * n + b for a, b in pairs if a != b})
    main = next((c for c in clauses if c.verb is not None), clauses[0])
    if clauses[0].verb is not None:
        main = clauses[0]
    grammar = [divmod(c, n) for c in codes]
    return reads, pos, grammar, main.subject if main.verb is not None else None, main.verb


def cue_strength(cue: Token, senses: tuple[str, ...]) -> float | None:
    """How strongly ``cue`` settles a word whose two senses are ``senses``: the weight with which it evokes
    the sense it evokes more strongly (MAIN_TOPIC or SIDE_TOPIC), plus NOUN_CUE for a noun; None when it
    evokes neither sense, or both equally (then it settles nothing). A phone is technology first, so it
    settles "charge" though a phone bill makes it call money to mind too."""
    return _strength(cue.evokes(), cue.pos, senses)


def _strength(evoked: dict[str, float], pos: str, senses: tuple[str, ...]) -> float | None:
    matched = sorted((evoked[f] for f in senses if f in evoked), reverse=True)
    if not matched or (len(matched) > 1 and matched[0] == matched[1]):
        return None  # it evokes neither sense, or both equally: it settles nothing
    return matched[0] + (NOUN_CUE if pos == "noun" else 0.0)


def sense_cues(tokens: tuple[Token, ...], grammar: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """(i, j) for every ambiguous word i that has a cue j. An ambiguous adjective takes the noun it describes
    (its grammatical partner in ``grammar``) when that noun settles its sense: "the cake was too sweet for the
    children" is about food. Otherwise, and for nouns and verbs, the word that settles the sense most
    strongly (``cue_strength``); of two equally strong, the head of a noun phrase over the noun modifying it
    ("steel beams": beams, where both evoke the sense alike), then the nearer, then the earlier."""
    ambiguous = [i for i, t in enumerate(tokens) if t.ambiguous]
    if not ambiguous:
        return []
    described = {(i, j) for i, j in grammar if tokens[i].pos == "adj"}
    # a noun modifying another noun ("steel" in "steel beams"): the phrase's head is the cue between the two
    modifies = {j: k for j, k in grammar if tokens[j].pos == tokens[k].pos == "noun" and k == j + 1}
    evoking = [(j, e, c.pos) for j, c in enumerate(tokens) if (e := c.evokes())]  # each word's fields, once
    cues = []
    for i in ambiguous:
        senses = tokens[i].fields
        strengths = {
            j: strength
            for j, evoked, pos in evoking
            if (strength := _strength(evoked, pos, senses)) is not None
        }
        ranked = [
            ((i, j) in described, strength, strengths.get(modifies.get(j, -1)) != strength, -abs(j - i), -j)
            for j, strength in strengths.items()
        ]
        if ranked:
            cues.append((i, -max(ranked)[4]))
    return cues


@lru_cache(maxsize=16384)
def word_token(text: str, tag: str = "") -> Token:
    """A word's Token: what the lexicon, or a guess, says about the spelling, and the part of speech the rules
    settled on in its sentence (``tag``). The same spelling and tag always make the same Token, so it is made
    once and shared (Tokens are frozen)."""
    r = _read(text)
    if r.known:
        entry = lookup(text)
        return Token(text, True, r.pos, r.fields, tag, entry.topics if entry is not None else ())
    # an inflection the lexicon does not list (chirping, rowing) evokes what its listed word evokes
    base = inflected(text)
    if base is not None and base.pos == r.pos:
        return Token(text, False, r.pos, base.fields, tag, base.topics)
    return Token(text=text, known=False, pos=r.pos, fields=(), tag=tag)


def analyse(words: list[str]) -> Analysis:
    """Tag every word and derive the three relations by the rules in the module docstring."""
    _, pos, grammar, subject, verb = _grammar(words)
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
    signature, known flag and bias (the place columns are zero here)."""
    row = np.zeros(D_MODEL)
    if token.pos in POS_TAGS_IN:
        row[POS_SLICE.start + POS_TAGS_IN.index(token.pos)] = 1.0
    if token.content:
        row[FIELD_SLICE] = field_code(token, field_codes)
    row[AMBIGUOUS] = float(token.ambiguous)
    row[SIGNATURE_SLICE] = signature(token.text)
    row[KNOWN] = float(token.known)
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
    its place code and the mean place code of its grammatical partners (``partner_code``). ``row``, when
    given, gives a spelling's ``token_row`` with these field codes (app.models.heads passes one that
    remembers the rows of words it has seen)."""
    T = len(analysis.tokens)
    rows = [row(t.text) if row else token_row(t, field_codes) for t in analysis.tokens]
    x = np.array(rows) if T else np.zeros((0, D_MODEL))  # (T, 48)
    x[:, POSITION_SLICE] = _position_code(T)
    x[:, PARTNER_SLICE] = partner_code(T, analysis.targets["grammar"])
    return x


@lru_cache(maxsize=128)
def _position_code(n: int) -> NDArray[np.float64]:
    """position_code(n), worked out once per length and shared, so read-only."""
    code = position_code(n)
    code.flags.writeable = False
    return code
