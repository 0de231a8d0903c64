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
it, written by hand from the senses alone (``_add_sense_cues`` says how they enter the table; ``named_sense``
which sense a list names a word for).

Everything is expanded into ``Entry`` records once, at import, and checked (one entry per word, known tags
and fields, plural nouns whose singular exists, well-formed side topics) so that a typo fails loudly instead
of silently skewing the data. The ``Entry`` record, the checks and the notations the data is written in
(a verb's forms, a plural) are in app/models/lexicon_entries.py.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from app.models.lexicon_entries import (
    CONTENT_POS,
    FIELDS,
    POS_TAGS,
    Entry,
    block_entries,
    check,
    guess,
    normalise,
    plural_entry,
    read_sense_cues,
    stems,
    verb_entries,
)

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


def _build() -> dict[str, Entry]:
    entries: list[Entry] = []

    for field, block in FIELD_WORDS.items():
        if field not in FIELDS:
            raise ValueError(f"field block {field!r} is not in FIELDS")
        only = (field,)
        entries += [Entry(w, "noun", only, number="sg") for w in block["noun"].split()]
        entries += [plural_entry(t, field) for t in block["plural"].split()]
        entries += [Entry(w, "adj", only) for w in block["adj"].split()]
        for token in block["verb"].split():
            entries += verb_entries(token, only)

    for word, senses in AMBIGUOUS["nouns"].items():
        entries.append(Entry(word, "noun", tuple(senses), number="sg"))
    for word, senses in AMBIGUOUS["adjectives"].items():
        entries.append(Entry(word, "adj", tuple(senses)))
    for token, senses in AMBIGUOUS["verbs"].items():
        entries += verb_entries(token, tuple(senses))
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
        check(entry)
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
        fillers += verb_entries(token, ())
    fillers += [
        Entry(e.lemma, "verb", e.fields, number="pl", tense="present", transitive=e.transitive, lemma=e.lemma)
        for e in [*table.values(), *fillers]
        if e.pos == "verb" and e.tense == "past" and e.lemma != "be"
    ]
    for entry in fillers:
        check(entry)
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


def _add_everyday(table: dict[str, Entry]) -> None:
    """Add the [everyday] section to ``table``, marked so that ``words`` skips it, then the ``also`` readings.

    Runs after every other entry is in place, so no earlier word changes: an everyday word that is already
    listed is an error, and the plain forms of everyday verbs only fill gaps.
    """
    entries = block_entries(EVERYDAY["general"], ())
    for field, block in EVERYDAY["fields"].items():
        if field not in FIELDS:
            raise ValueError(f"everyday block {field!r} is not in FIELDS")
        entries += block_entries(block, (field,))
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
        check(entry)
        if entry.word in table:
            raise ValueError(f"everyday word {entry.word!r} is already listed ({table[entry.word].pos})")
        table[entry.word] = dataclasses.replace(entry, everyday=True)
    for entry in plain:
        check(entry)
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


def _add_sense_cues(table: dict[str, Entry]) -> None:
    """Add what sense_cues.txt says: the words a person names as settling each sense of each ambiguous word
    (bat, animal: cave, wings, night ...), written by hand from the senses alone.

    A word the lexicon lacks is added with the sense's field, as an everyday word (the sentence generator
    never draws it); when senses of two fields list it, the first is its field and the second a side topic. A
    noun ending in s whose singular is listed too (here or as a noun) is its plural; a verb ending in ed is a
    past form, any other verb a plain form with its regular forms; a participle (-ing, or -ed of a listed
    stem) is left to the analysis, which reads it as a form of its verb. A listed word keeps its own field,
    and the sense becomes its side topic if it has none yet: "jaw" stays body and calls sport to mind (a
    boxer's punch). A noun of no field takes one only where two senses of a field name it, more than any other
    field ("voice": music). Side topics from the [topics] table come first, and a word takes at most one from
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
            singular = cue[:-1] if cue.endswith("s") and not cue.endswith(("ss", "us", "is")) else ""
            known = singular in table and table[singular].pos == "noun"
            if pos == "noun" and (singular in listed or known):
                entry = Entry(cue, "noun", (sense,), number="pl", lemma=cue[:-1])
            elif pos == "noun":
                entry = Entry(cue, "noun", (sense,), number="sg")
            elif cue.endswith("ing") or (
                cue.endswith("ed") and any(stem in listed or stem in table for stem, _ in stems(cue))
            ):
                continue  # a participle: the analysis reads it as a verb form, its meaning through its stem
            elif pos == "verb" and cue.endswith("ed"):
                entry = Entry(cue, "verb", (sense,), tense="past")
            elif pos == "verb":
                for form in verb_entries(cue, (sense,)):
                    if form.word not in table and form.word not in listed:
                        new.setdefault(form.word, dataclasses.replace(form, everyday=True))
                entry = Entry(cue, "verb", (sense,), number="pl", tense="present")
            else:
                entry = Entry(cue, "adj", (sense,))
            check(entry)
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
            # a noun stays plural though its singular has another field; a verb's plain form reads as -s
            entry = dataclasses.replace(entry, number="pl" if entry.pos == "noun" else "sg", lemma=cue)
        elif entry.number == "pl" and singular is not None:
            # a plural evokes what its singular does
            entry = dataclasses.replace(entry, topics=singular.topics)
        table[cue] = entry


SENSE_CUES = Path(__file__).with_name("sense_cues.txt")
LEXICON: Mapping[str, Entry] = MappingProxyType(_build())

# ---------------------------------------------------------------------------------------------------------
# Public helpers.
# ---------------------------------------------------------------------------------------------------------


def lookup(word: str) -> Entry | None:
    """The entry for ``word``, ignoring case and surrounding punctuation; None if it is not listed.

    A possessive is read as its noun: "River's" finds "river".
    """
    key = normalise(word)
    entry = LEXICON.get(key)
    if entry is None and key.endswith("'s"):
        entry = LEXICON.get(key[:-2])
    return entry


def inflected(word: str) -> Entry | None:
    """For a spelling the lexicon lacks, the entry of the listed word it is an inflection of (a verb's -ing,
    -ed and -s forms, a noun's plural), or None. Only the meaning relation reads it (its field says what the
    word evokes); the grammar reads the spelling itself."""
    key = normalise(word)
    if key in LEXICON:
        return None
    for stem, pos in stems(key):
        entry = LEXICON.get(stem)
        if (
            entry is not None
            and entry.pos in CONTENT_POS
            and (not pos or entry.pos == pos or pos in entry.also)
        ):
            return entry
    return None


def entry_for(word: str) -> Entry:
    """The lexicon entry for ``word``, or, for an unknown word, a field-less entry guessed from its ending."""
    entry = lookup(word)
    if entry is not None:
        return entry
    key = normalise(word)
    pos, number, tense = guess(key)
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


def _named_cues() -> dict[tuple[str, str], str]:
    """(ambiguous word, cue) -> the one sense sense_cues.txt names the cue for (none if named for both)."""
    senses: dict[tuple[str, str], set[str]] = {}
    for word, sense, _, cues in read_sense_cues(SENSE_CUES.read_text(encoding="utf-8")):
        for cue in cues:
            senses.setdefault((word, cue), set()).add(sense)
    return {pair: next(iter(s)) for pair, s in senses.items() if len(s) == 1}


NAMED_CUES = _named_cues()


def named_sense(word: str, cue: str) -> str | None:
    """The sense of ambiguous ``word`` that sense_cues.txt names ``cue`` (or the word it is a form of) as
    settling, or None."""
    entry = lookup(word)
    lemma = entry.lemma if entry is not None and entry.lemma else normalise(word)
    key = normalise(cue)
    cue_entry = lookup(key)
    for form in (key, cue_entry.lemma if cue_entry is not None else key, *(s for s, _ in stems(key))):
        sense = NAMED_CUES.get((lemma, form))
        if sense is not None:
            return sense
    return None


__all__ = ["LEXICON", "entry_for", "inflected", "lookup", "named_sense", "transitive_verbs", "words"]
