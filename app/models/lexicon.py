"""A small hand-written English lexicon: every word's part of speech, semantic fields and inflection.

The sentence analysis reads two things from here. The part of speech finds the subject and its verb ("bank"
is the subject of "was" in "the river bank was steep"), and the semantic fields settle an ambiguous word:
"bank" belongs to both the water and the money field, and an unambiguous neighbour such as "river" (water
only) tells which sense is meant. The sentence generator draws its template slots from the same tables
through ``words``.

A word's field is its main topic. An unambiguous content word may also have one or two *side topics*, fields
it calls to mind without belonging to them: "fish" is an animal, and it also makes one think of water and of
food, so in "we sat on the bank and watched the fish swim" it can settle "bank" (water, not money), though
more weakly than a word of the water field itself such as "river".

The data is plain text in ``lexicon.toml`` beside this module:

* one block per semantic field ([fields.water], ...) listing its nouns, plural nouns, adjectives and verbs;
* the ambiguous words ([ambiguous.nouns], [ambiguous.adjectives], [ambiguous.verbs]), each with exactly
  two different senses, which are fields;
* the side topics ([topics]): ``fish = ["water", "food"]``. The word must be listed as an unambiguous noun,
  verb or adjective with a field; it has at most two topics, each a field other than its own. A noun's
  plurals take its topics (list "cave", and "caves" has them too), as do all the forms of a verb (list the
  plain form "sail": sailed and sails follow);
* the function words, the general words (content words of no one topic) and the auxiliaries;
* the everyday words ([everyday.*]): words readers type that the sentence generator must not draw, among
  them the plurals of the ambiguous nouns ([everyday.ambiguous]), which take both senses of their singular.

Beside it, ``sense_cues.txt`` lists for each sense of each ambiguous word the words a person names as settling
it, written by hand from the senses alone (``_add_sense_cues`` says how they enter the table).

Everything is expanded into ``Entry`` records once, at import, and checked (one entry per word, known tags
and fields, plural nouns whose singular exists, well-formed side topics) so that a typo fails loudly instead
of silently skewing the data.

Verb notation, used in the field blocks and the ambiguous table:

* ``walk``               regular: walked / walks
* ``swim:swam``          irregular past, regular present: swam / swims
* ``fly:flew:flies``     both forms spelled out (only needed where the rule below would go wrong)
* a leading ``+``        marks a transitive verb (``+sell:sold`` -> "the farmer sold the horse")

Plural notation: ``rivers`` is the plural of ``river`` (drop the final s); anything else is written
``singular:plural`` (``foot:feet``, ``bus:buses``).
"""

from __future__ import annotations

import dataclasses
import re
import string
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

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


# ---------------------------------------------------------------------------------------------------------
# The data: lexicon.toml beside this module.
# ---------------------------------------------------------------------------------------------------------

_DATA = tomllib.loads((Path(__file__).with_name("lexicon.toml")).read_text(encoding="utf-8"))
FIELD_WORDS: dict[str, dict[str, str]] = _DATA["fields"]  # field -> noun, plural, adj, verb lists
AMBIGUOUS: dict[str, dict[str, list[str]]] = _DATA["ambiguous"]  # nouns, adjectives, verbs -> word -> senses
FUNCTION_WORDS: dict[str, str] = _DATA["function_words"]  # "det", "det sg", ...: part of speech [number]
GENERAL_WORDS: dict[str, str] = _DATA["general_words"]  # part of speech -> words of no one topic
AUXILIARIES: str = _DATA["auxiliaries"]["table"]  # word, tense, number, lemma; "-" for empty
EVERYDAY: dict[str, dict[str, str]] = _DATA["everyday"]  # general, fields.<field>, ambiguous, also
TOPICS: dict[str, list[str]] = _DATA["topics"]  # word -> its side topics

MAX_TOPICS = 2  # side topics of one word

# ---------------------------------------------------------------------------------------------------------
# Building the table.
# ---------------------------------------------------------------------------------------------------------

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


def _verb_forms(token: str) -> tuple[str, str, str, bool]:
    """Expand a verb token of the notation in the module docstring: (lemma, past, present, transitive)."""
    transitive = token.startswith("+")
    parts = token.removeprefix("+").split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"bad verb token {token!r}")
    lemma = parts[0]
    past = parts[1] if len(parts) > 1 else _regular_past(lemma)
    present = parts[2] if len(parts) > 2 else _third_person(lemma)
    return lemma, past, present, transitive


def _verb_entries(token: str, fields: tuple[str, ...]) -> list[Entry]:
    lemma, past, present, transitive = _verb_forms(token)
    return [
        Entry(past, "verb", fields, number="", tense="past", transitive=transitive, lemma=lemma),
        Entry(present, "verb", fields, number="sg", tense="present", transitive=transitive, lemma=lemma),
    ]


def _plural_entry(token: str, field: str) -> Entry:
    singular, _, plural = token.rpartition(":")
    if not singular:
        if not plural.endswith("s"):
            raise ValueError(f"plural {plural!r} needs the singular:plural form")
        singular = plural[:-1]
    return Entry(plural, "noun", (field,), number="pl", lemma=singular)


def _check(entry: Entry) -> None:
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


def _stems(key: str) -> list[tuple[str, str]]:
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


def _build() -> dict[str, Entry]:
    entries: list[Entry] = []

    for field, block in FIELD_WORDS.items():
        if field not in FIELDS:
            raise ValueError(f"field block {field!r} is not in FIELDS")
        only = (field,)
        entries += [Entry(w, "noun", only, number="sg") for w in block["noun"].split()]
        entries += [_plural_entry(t, field) for t in block["plural"].split()]
        entries += [Entry(w, "adj", only) for w in block["adj"].split()]
        for token in block["verb"].split():
            entries += _verb_entries(token, only)

    for word, senses in AMBIGUOUS["nouns"].items():
        entries.append(Entry(word, "noun", tuple(senses), number="sg"))
    for word, senses in AMBIGUOUS["adjectives"].items():
        entries.append(Entry(word, "adj", tuple(senses)))
    for token, senses in AMBIGUOUS["verbs"].items():
        entries += _verb_entries(token, tuple(senses))
    for senses_of in AMBIGUOUS.values():
        for word, senses in senses_of.items():
            if len(senses) != 2 or len(set(senses)) != 2:
                raise ValueError(f"ambiguous word {word!r} needs two different senses")

    for key, text in FUNCTION_WORDS.items():
        pos, _, number = key.partition(" ")
        entries += [Entry(w, pos, (), number=number) for w in text.split()]

    for line in AUXILIARIES.strip().splitlines():
        word, tense, number, lemma = line.split()
        entries.append(Entry(word, "verb", (), number=number.strip("-"), tense=tense.strip("-"), lemma=lemma))

    table: dict[str, Entry] = {}
    for entry in entries:
        _check(entry)
        if entry.word in table:
            raise ValueError(f"{entry.word!r} is listed twice ({table[entry.word].pos} and {entry.pos})")
        table[entry.word] = entry

    # Gap fillers: general words, then every verb's plain form ("swim", "sell"), unless the word is taken.
    fillers = [
        Entry(w, pos, (), number="sg" if pos == "noun" else "")
        for pos, text in GENERAL_WORDS.items()
        if pos != "verb"
        for w in text.split()
    ]
    for token in GENERAL_WORDS["verb"].split():
        fillers += _verb_entries(token, ())
    fillers += [
        Entry(e.lemma, "verb", e.fields, number="pl", tense="present", transitive=e.transitive, lemma=e.lemma)
        for e in [*table.values(), *fillers]
        if e.pos == "verb" and e.tense == "past" and e.lemma != "be"
    ]
    for entry in fillers:
        _check(entry)
        table.setdefault(entry.word, entry)

    _add_everyday(table)
    _add_topics(table)
    _add_sense_cues(table)

    # A plural must point at a singular noun of the same field, which catches misspelt plurals.
    for entry in table.values():
        if entry.pos == "noun" and entry.number == "pl":
            base = table.get(entry.lemma)
            if base is None or base.pos != "noun" or base.fields != entry.fields:
                raise ValueError(f"plural {entry.word!r} has no matching singular {entry.lemma!r}")
    return table


def _block_entries(block: Mapping[str, str], fields: tuple[str, ...]) -> list[Entry]:
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
                entries += _verb_entries(token, fields)
            elif pos == "participle":  # see:seen
                lemma, _, participle = token.partition(":")
                entries.append(Entry(participle, "verb", fields, lemma=lemma))
            else:
                entries.append(Entry(token, pos, fields if pos in CONTENT_POS else (), number=number))
    return entries


def _add_everyday(table: dict[str, Entry]) -> None:
    """Add the [everyday] section to ``table``, marked so that ``words`` skips it, then the ``also`` readings.

    Runs after every other entry is in place, so no earlier word changes: an everyday word that is already
    listed is an error, and the plain forms of everyday verbs only fill gaps.
    """
    entries = _block_entries(EVERYDAY["general"], ())
    for field, block in EVERYDAY["fields"].items():
        if field not in FIELDS:
            raise ValueError(f"everyday block {field!r} is not in FIELDS")
        entries += _block_entries(block, (field,))
    # The plurals of ambiguous nouns ("clouds", "windows") have both senses of their singular. They are
    # everyday words because the generator's ambiguous word is always a singular noun.
    for token in EVERYDAY["ambiguous"]["plural"].split():
        singular, _, plural = token.rpartition(":")
        singular = singular or plural[:-1]
        base = table.get(singular)
        if base is None or base.pos != "noun" or not base.ambiguous:
            raise ValueError(f"plural {plural!r} of [everyday.ambiguous]: {singular!r} is no ambiguous noun")
        entries.append(Entry(plural, "noun", base.fields, number="pl", lemma=singular))
    plain = [
        Entry(e.lemma, "verb", e.fields, number="pl", tense="present", transitive=e.transitive, lemma=e.lemma)
        for e in entries
        if e.pos == "verb" and e.lemma != e.word
    ]
    for entry in entries:
        _check(entry)
        if entry.word in table:
            raise ValueError(f"everyday word {entry.word!r} is already listed ({table[entry.word].pos})")
        table[entry.word] = dataclasses.replace(entry, everyday=True)
    for entry in plain:
        _check(entry)
        if entry.word not in table:
            table[entry.word] = dataclasses.replace(entry, everyday=True)

    also: dict[str, set[str]] = {}
    for pos, text in EVERYDAY["also"].items():
        for word in text.split():
            if word not in table or pos not in POS_TAGS or table[word].pos == pos:
                raise ValueError(f"also-reading {pos} {word!r}: the word must be listed with another tag")
            also.setdefault(word, set()).add(pos)
    # A noun or adjective that is the plain form of a listed verb can be that verb too ("bark": barked).
    verb_lemmas = {e.lemma for e in table.values() if e.pos == "verb"}
    for word, entry in table.items():
        if entry.pos in ("noun", "adj") and word in verb_lemmas:
            also.setdefault(word, set()).add("verb")
    for word, readings in also.items():
        table[word] = dataclasses.replace(table[word], also=tuple(sorted(readings)))


Forms = dict[tuple[str, str, tuple[str, ...]], list[str]]


def _forms(table: dict[str, Entry]) -> Forms:
    """Every entry's spelling under (part of speech, lemma, fields): a noun's plurals, a verb's forms."""
    forms: Forms = {}
    for word, entry in table.items():
        forms.setdefault((entry.pos, entry.lemma, entry.fields), []).append(word)
    return forms


def _give_topics(table: dict[str, Entry], forms: Forms, entry: Entry, topics: tuple[str, ...]) -> None:
    """Give ``entry`` and every other form of its lemma (same part of speech and fields) these side topics."""
    for form in forms[(entry.pos, entry.lemma, entry.fields)]:
        table[form] = dataclasses.replace(table[form], topics=topics)


def _add_topics(table: dict[str, Entry]) -> None:
    """Give each word of the [topics] table its side topics, with the other forms of the same lemma.

    A noun's topics go to its plurals, a verb's to all its forms: every entry of the same part of speech,
    lemma and field as the listed word. A bad row raises: an unknown word, one that is ambiguous, not a
    content word or has no field, more than ``MAX_TOPICS`` topics, a topic that is no field, is repeated or
    is the word's own field, or a lemma given topics twice.
    """
    forms = _forms(table)
    for word, topics in TOPICS.items():
        entry = table.get(word)
        if entry is None:
            raise ValueError(f"side topics of {word!r}: the word is not listed")
        if entry.pos not in CONTENT_POS or len(entry.fields) != 1:
            raise ValueError(
                f"side topics of {word!r}: only an unambiguous noun, verb or adjective with a field has them"
            )
        if not isinstance(topics, list) or not 1 <= len(topics) <= MAX_TOPICS:
            raise ValueError(f"side topics of {word!r}: give a list of 1 to {MAX_TOPICS} fields")
        unknown = set(topics) - set(FIELDS)
        if unknown:
            raise ValueError(f"side topics of {word!r}: unknown fields {sorted(unknown)}")
        if len(set(topics)) != len(topics) or entry.fields[0] in topics:
            raise ValueError(f"side topics of {word!r}: a repeated topic, or its own field {entry.fields}")
        for form in forms[(entry.pos, entry.lemma, entry.fields)]:
            if table[form].topics:
                raise ValueError(f"side topics of {word!r}: {form!r} of the same lemma has them already")
        _give_topics(table, forms, entry, tuple(topics))


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


def _add_sense_cues(table: dict[str, Entry]) -> None:
    """Add what sense_cues.txt says: the words a person names as settling each sense of each ambiguous word
    (bat, animal: cave, wings, night ...), written by hand from the senses alone.

    A word the lexicon lacks is added with the sense's field, as an everyday word (the sentence generator
    never draws it); when senses of two fields list it, the first is its field and the second a side topic.
    A noun ending in s whose singular is listed too is its plural; a verb ending in ed is a past form, any
    other verb a plain form with its regular forms; a participle (-ing, or -ed of a listed stem) is left to
    the analysis, which reads it as a form of its verb. A listed word keeps its own field, and the sense
    becomes its side topic if it has none yet: "jaw" stays body and calls sport to mind (a boxer's punch).
    A noun of no field takes one only where two senses of a field name it, more than any other field
    ("voice": music). Side topics from the [topics] table come first, and a word takes at most one from
    these lists, the first that names it, so that no list can swamp what a word evokes."""
    rows = read_sense_cues(SENSE_CUES.read_text(encoding="utf-8"))
    forms = _forms(table)

    def add_topic(cue: str, sense: str) -> None:
        entry = table[cue]
        one_field = entry.pos in CONTENT_POS and len(entry.fields) == 1
        if one_field and sense != entry.fields[0] and not entry.topics:
            _give_topics(table, forms, entry, (sense,))

    senses_of = {
        w.lstrip("+").split(":")[0]: senses for table_ in AMBIGUOUS.values() for w, senses in table_.items()
    }
    new: dict[str, Entry] = {}
    for word, sense, pos, cues in rows:
        if word not in senses_of:
            raise ValueError(f"sense cues of {word!r}: not an ambiguous word")
        if sense not in senses_of[word]:
            raise ValueError(f"sense cues of {word!r}: {sense!r} is not one of its senses {senses_of[word]}")
        listed = set(cues)
        for cue in cues:
            if cue in table:
                add_topic(cue, sense)
                continue
            if cue in new:
                first = new[cue]
                if first.pos == pos and sense not in first.fields and not first.topics:
                    new[cue] = dataclasses.replace(first, topics=(sense,))
                continue
            if pos == "noun" and cue.endswith("s") and cue[:-1] in listed:
                entry = Entry(cue, "noun", (sense,), number="pl", lemma=cue[:-1])
            elif pos == "noun":
                entry = Entry(cue, "noun", (sense,), number="sg")
            elif cue.endswith("ing") or (
                cue.endswith("ed") and any(stem in listed or stem in table for stem, _ in _stems(cue))
            ):
                continue  # a participle: the analysis reads it as a verb form, its meaning through its stem
            elif pos == "verb" and cue.endswith("ed"):
                entry = Entry(cue, "verb", (sense,), tense="past")
            elif pos == "verb":
                for form in _verb_entries(cue, (sense,)):
                    if form.word not in table and form.word not in listed:
                        new.setdefault(form.word, dataclasses.replace(form, everyday=True))
                entry = Entry(cue, "verb", (sense,), number="pl", tense="present")
            else:
                entry = Entry(cue, "adj", (sense,))
            _check(entry)
            new[cue] = dataclasses.replace(entry, everyday=True)
    # A noun of no one field that people name for two or more senses of one field, more than for any other
    # ("voice" for deep, bass, pitch, ... in music) calls that field to mind: a side topic, never its field.
    named: dict[str, Counter[str]] = {}
    for _, sense, pos, cues in rows:
        for cue in cues:
            entry = table.get(cue)
            if pos == "noun" and entry is not None and entry.pos == "noun" and not entry.fields:
                named.setdefault(entry.lemma, Counter())[sense] += 1
    for lemma, senses in named.items():
        (best, count), *rest = senses.most_common(2) + [("", 0)]
        if count >= 2 and count > rest[0][1]:
            _give_topics(table, forms, table[lemma], (best,))
    for cue, entry in new.items():
        singular = new.get(entry.lemma) or table.get(entry.lemma)
        if entry.number == "pl" and (
            singular is None or singular.pos != "noun" or singular.fields != entry.fields
        ):
            entry = dataclasses.replace(entry, number="sg", lemma=cue)  # its singular has another field
        elif entry.number == "pl" and singular is not None:
            # a plural evokes what its singular does
            entry = dataclasses.replace(entry, topics=singular.topics)
        table[cue] = entry


SENSE_CUES = Path(__file__).with_name("sense_cues.txt")
LEXICON: Mapping[str, Entry] = MappingProxyType(_build())

# ---------------------------------------------------------------------------------------------------------
# Public helpers.
# ---------------------------------------------------------------------------------------------------------

_STRIP = string.punctuation + string.whitespace + "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014"


def normalise(word: str) -> str:
    """The lexicon's key for a word: lowercase, outer punctuation stripped, curly apostrophes straightened."""
    return word.strip(_STRIP).lower().replace("\u2019", "'")


_normalise = normalise


def lookup(word: str) -> Entry | None:
    """The entry for ``word``, ignoring case and surrounding punctuation; None if it is not listed.

    A possessive is read as its noun: "River's" finds "river".
    """
    key = _normalise(word)
    entry = LEXICON.get(key)
    if entry is None and key.endswith("'s"):
        entry = LEXICON.get(key[:-2])
    return entry


def inflected(word: str) -> Entry | None:
    """For a spelling the lexicon lacks, the entry of the listed word it is an inflection of (a verb's -ing,
    -ed and -s forms, a noun's plural), or None. Only the meaning relation reads it (its field says what the
    word evokes); the grammar reads the spelling itself."""
    key = _normalise(word)
    if key in LEXICON:
        return None
    for stem, pos in _stems(key):
        entry = LEXICON.get(stem)
        if (
            entry is not None
            and entry.pos in CONTENT_POS
            and (not pos or entry.pos == pos or pos in entry.also)
        ):
            return entry
    return None


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


def _guess(word: str) -> tuple[str, str, str]:
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
    return _guess(_normalise(word))[0]


def entry_for(word: str) -> Entry:
    """The lexicon entry for ``word``, or, for an unknown word, a field-less entry guessed from its ending."""
    entry = lookup(word)
    if entry is not None:
        return entry
    key = _normalise(word)
    pos, number, tense = _guess(key)
    return Entry(key, pos, (), number=number, tense=tense)


@lru_cache(maxsize=512)
def words(
    pos: str,
    field: str | None = None,
    number: str | None = None,
    tense: str | None = None,
    ambiguous: bool | None = None,
) -> tuple[str, ...]:
    """Sorted words of one part of speech, optionally narrowed by field, number, tense and ambiguity.

    ``words("noun", field="water", ambiguous=False)`` gives the cue words for the water sense;
    ``words("verb", tense="past", field="money")`` gives sold, paid, ... A filter left as None is not applied.
    """
    if pos not in POS_TAGS:
        raise ValueError(f"unknown part of speech {pos!r}; expected one of {POS_TAGS}")
    if field is not None and field not in FIELDS:
        raise ValueError(f"unknown field {field!r}; expected one of {FIELDS}")
    return tuple(
        sorted(
            e.word
            for e in LEXICON.values()
            if e.pos == pos
            and not e.everyday
            and (field is None or field in e.fields)
            and (number is None or e.number == number)
            and (tense is None or e.tense == tense)
            and (ambiguous is None or e.ambiguous == ambiguous)
        )
    )


def transitive_verbs(field: str | None = None, tense: str = "past") -> tuple[str, ...]:
    """Sorted transitive verb forms (for "the [noun] [verb] the [noun]" templates)."""
    return tuple(w for w in words("verb", field=field, tense=tense) if LEXICON[w].transitive)


__all__ = [
    "CONTENT_POS",
    "FIELDS",
    "LEXICON",
    "POS_TAGS",
    "Entry",
    "entry_for",
    "guess_pos",
    "inflected",
    "lookup",
    "normalise",
    "transitive_verbs",
    "words",
]
