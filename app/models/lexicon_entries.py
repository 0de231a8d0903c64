"""One word of the lexicon (``Entry``), what it may hold, and the spelling rules that write entries.

The parts of speech, the semantic fields, and the checks every entry passes; how the notations of
lexicon.toml and sense_cues.txt spell a word's forms; the lexicon's key for a typed word (``normalise``), the
dictionary forms an inflected spelling may come from (``stems``) and the part of speech an unknown word's
ending suggests (``guess``). app/models/lexicon.py builds the table from the data files with these and
answers the look-ups.

Verb notation, used in the field blocks and the ambiguous table:

* ``walk``               regular: walked / walks
* ``swim:swam``          irregular past, regular present: swam / swims
* ``fly:flew:flies``     both forms spelled out (only needed where the rule below would go wrong)
* a leading ``+``        marks a transitive verb (``+sell:sold`` -> "the farmer sold the horse")

Plural notation: ``rivers`` is the plural of ``river`` (drop the final s); anything else is written
``singular:plural`` (``foot:feet``, ``bus:buses``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass

POS_TAGS: tuple[str, ...] = ("noun", "verb", "adj", "adv", "det", "pron", "prep", "conj", "num")

FIELDS: tuple[str, ...] = (
    "water",
    "money",
    "land",
    "animal",
    "sport",
    "music",
    "food",
    "weather",
    "plant",
    "body",
    "building",
    "people",
    "tool",
    "technology",
    "fire",
    "time",
    "travel",
    "school",
    "clothing",
    "space",
    "law",
    "army",
)

# Parts of speech that carry meaning and therefore a semantic field. Adverbs are deliberately left out:
# "quickly" or "often" say nothing about the topic of a sentence, so they are stored without fields, like
# determiners and prepositions. Auxiliary verbs (is, was, has, can, ...) are verbs without fields too.
CONTENT_POS: frozenset[str] = frozenset({"noun", "verb", "adj"})

NUMBERS: tuple[str, ...] = ("sg", "pl", "")
TENSES: tuple[str, ...] = ("past", "present", "")


@dataclass(frozen=True)
class Entry:
    """One word of the lexicon.

    ``number`` is "sg"/"pl" for nouns, pronouns, determiners, numbers and finite verb forms that agree
    with a subject, "" elsewhere. ``tense`` is "past"/"present" for finite verbs, "" elsewhere.
    ``lemma`` is the dictionary form ("flew" -> "fly", "feet" -> "foot"); it defaults to the word itself.
    ``everyday`` marks a word from lexicon.toml's [everyday] section, which ``words`` never returns.
    ``also`` lists the other parts of speech the word can take ("hard": adv; "open": verb; "bark": verb,
    because barked and barks are listed); the analysis picks one from the neighbours.
    ``topics`` are the side topics of an unambiguous content word: fields it evokes besides its own
    ("fish": water, food; "cave": animal). Empty for every other word.
    """

    word: str
    pos: str
    fields: tuple[str, ...]
    number: str = ""
    tense: str = ""
    transitive: bool = False
    lemma: str = ""
    everyday: bool = False
    also: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.lemma:
            object.__setattr__(self, "lemma", self.word)

    @property
    def ambiguous(self) -> bool:
        """True when the word belongs to more than one semantic field (bank: water and money)."""
        return len(self.fields) > 1


_WORD_SHAPE = re.compile(r"[a-z]+")
_VOWELS = frozenset("aeiou")


def _regular_past(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if lemma.endswith("y") and len(lemma) > 1 and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ied"
    return lemma + "ed"


def _third_person(lemma: str) -> str:
    if lemma.endswith("y") and len(lemma) > 1 and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ies"
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lemma + "es"
    return lemma + "s"


def verb_forms(token: str) -> tuple[str, str, str, bool]:
    """Expand a verb token of the notation in the module docstring: (lemma, past, present, transitive)."""
    transitive = token.startswith("+")
    parts = token.removeprefix("+").split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"bad verb token {token!r}")
    lemma = parts[0]
    past = parts[1] if len(parts) > 1 else _regular_past(lemma)
    present = parts[2] if len(parts) > 2 else _third_person(lemma)
    return lemma, past, present, transitive


def verb_entries(token: str, fields: tuple[str, ...]) -> list[Entry]:
    """A verb token's past and third-person entries (its plain form fills a gap later, if free)."""
    lemma, past, present, transitive = verb_forms(token)
    return [
        Entry(past, "verb", fields, number="", tense="past", transitive=transitive, lemma=lemma),
        Entry(present, "verb", fields, number="sg", tense="present", transitive=transitive, lemma=lemma),
    ]


def plural_entry(token: str, field: str) -> Entry:
    """The entry of a plural noun written in the plural notation."""
    singular, _, plural = token.rpartition(":")
    if not singular:
        if not plural.endswith("s"):
            raise ValueError(f"plural {plural!r} needs the singular:plural form")
        singular = plural[:-1]
    return Entry(plural, "noun", (field,), number="pl", lemma=singular)


def check(entry: Entry) -> None:
    """Raise ValueError for a malformed entry: its spelling, part of speech, fields, number or tense."""
    if not _WORD_SHAPE.fullmatch(entry.word):
        raise ValueError(f"{entry.word!r}: words are single lowercase tokens")
    if entry.pos not in POS_TAGS:
        raise ValueError(f"{entry.word!r}: unknown part of speech {entry.pos!r}")
    unknown = set(entry.fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"{entry.word!r}: unknown fields {sorted(unknown)}")
    if len(set(entry.fields)) != len(entry.fields):
        raise ValueError(f"{entry.word!r}: repeated field")
    if entry.number not in NUMBERS or entry.tense not in TENSES:
        raise ValueError(f"{entry.word!r}: bad number {entry.number!r} or tense {entry.tense!r}")


def stems(key: str) -> list[tuple[str, str]]:
    """The dictionary forms an inflected spelling may come from, each with the part of speech the ending
    allows: swimming, baking, chirping -> swim, bake, chirp (verb); tried, carried -> try, carry; boxes,
    berries -> box, berry; organised -> organise (and organize)."""
    found: list[tuple[str, str]] = []
    for ending, pos in (("ing", "verb"), ("ed", "verb"), ("es", ""), ("s", "")):
        if not key.endswith(ending) or len(key) - len(ending) < 2:
            continue
        stem = key[: -len(ending)]
        candidates = [stem, stem + "e"]
        if len(stem) > 2 and stem[-1] == stem[-2]:
            candidates.append(stem[:-1])  # swimming -> swim, stopped -> stop
        if stem.endswith("i"):
            candidates.append(stem[:-1] + "y")  # tried -> try, berries -> berry
        found += [(c, pos) for c in candidates]
    if "is" in key:
        found.append((key.replace("is", "iz", 1), ""))  # organised -> organized
    return found


def block_entries(block: Mapping[str, str], fields: tuple[str, ...]) -> list[Entry]:
    """The entries of one [everyday.*] block: nouns, plurals, adjectives, verbs and closed-class words."""
    entries: list[Entry] = []
    for key, text in block.items():
        pos, _, number = key.partition(" ")
        for token in text.split():
            if pos == "noun":
                entries.append(Entry(token, "noun", fields, number="sg"))
            elif pos == "plural":
                singular, _, plural = token.rpartition(":")
                entries.append(Entry(plural, "noun", fields, number="pl", lemma=singular or plural[:-1]))
            elif pos == "verb":
                entries += verb_entries(token, fields)
            elif pos == "participle":  # see:seen
                lemma, _, participle = token.partition(":")
                entries.append(Entry(participle, "verb", fields, lemma=lemma))
            else:
                entries.append(Entry(token, pos, fields if pos in CONTENT_POS else (), number=number))
    return entries


_CUE_TAGS = {"n": "noun", "v": "verb", "adj": "adj"}


def read_sense_cues(text: str) -> list[tuple[str, str, str, list[str]]]:
    """The rows of sense_cues.txt: (ambiguous word, sense, part of speech, cue words), one per part of speech.

    A line is ``word | sense | n: cue cue ... | v: cue ... | adj: cue ...``; ``#`` starts a comment line."""
    rows = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, sense, *parts = (part.strip() for part in line.split("|"))
        for part in parts:
            tag, _, words = part.partition(":")
            pos = _CUE_TAGS.get(tag.strip())
            if pos is None:
                raise ValueError(f"sense_cues.txt line {number}: unknown tag {tag!r}")
            rows.append((word, sense, pos, words.split()))
    return rows


# Suffix rules for words the lexicon does not know, tried in order (the first match wins).
_SUFFIX_RULES: tuple[tuple[str, str], ...] = (
    ("ly", "adv"),
    ("ed", "verb"),
    ("ing", "verb"),
    ("ous", "adj"),
    ("ful", "adj"),
    ("ive", "adj"),
    ("able", "adj"),
    ("ible", "adj"),
    ("less", "adj"),
    ("ish", "adj"),
    ("al", "adj"),
    ("tion", "noun"),
    ("sion", "noun"),
    ("ness", "noun"),
    ("ment", "noun"),
    ("ity", "noun"),
    ("ship", "noun"),
    ("hood", "noun"),
    ("ism", "noun"),
    ("ist", "noun"),
    ("ance", "noun"),
    ("ence", "noun"),
    ("s", "noun"),
)
_MIN_STEM = 3  # "fly", "bed" and "king" are too short to have a meaningful suffix


def guess(word: str) -> tuple[str, str, str]:
    """(pos, number, tense) guessed from the spelling alone."""
    for suffix, pos in _SUFFIX_RULES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            if suffix == "ed":
                return pos, "", "past"
            if suffix == "s":
                # "glass", "bonus" and "axis" end in s without being plurals.
                return pos, ("sg" if word.endswith(("ss", "us", "is")) else "pl"), ""
            return pos, "", ""
    return "noun", "sg", ""


def guess_pos(word: str) -> str:
    """A part of speech for a word the lexicon lacks, read from its ending alone.

    -ly: adv; -ed, -ing: verb; -ous, -ful, -ive, -able, -ible, -less, -ish, -al: adj; -tion, -ness, -ment,
    -ity, ... and anything else (plural -s included): noun. The sentence analysis then corrects the guess
    from the word's neighbours ("the glorpy zibbets": an adjective before a noun).
    """
    return guess(normalise(word))[0]


_STRIP = string.punctuation + string.whitespace + "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014"


def normalise(word: str) -> str:
    """The lexicon's key for a word: lowercase, outer punctuation stripped, curly apostrophes straightened."""
    return word.strip(_STRIP).lower().replace("\u2019", "'")
