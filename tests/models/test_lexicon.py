"""Guarantees of the built-in lexicon that the sentence analysis and the sentence generator rely on."""

from __future__ import annotations

import dataclasses

import pytest

from app.models import lexicon, lexicon_entries
from app.models.lexicon import LEXICON, entry_for, lookup, named_sense, transitive_verbs, words
from app.models.lexicon_entries import CONTENT_POS, FIELDS, POS_TAGS, Entry, guess_pos

# fmt: off
DETERMINERS = (
    "the", "a", "an", "this", "that", "these", "those", "his", "her", "their", "my", "our", "some",
    "every", "no",
)
PREPOSITIONS = (
    "by", "on", "in", "near", "under", "over", "with", "at", "from", "to", "across", "along", "behind",
    "into", "of",
)
MORE_AMBIGUOUS = (
    "club", "plant", "seal", "jam", "organ", "palm", "bolt", "key", "note", "scale", "bow", "ring", "trunk",
    "pen", "fan", "star", "board", "current", "mole", "pupil",
)
SPELLINGS_OF_BANK = ("bank", "Bank", "BANK", "bank.", "Bank,", '"bank"', "'bank'", "(bank)!", " bank?")
# fmt: on

AMBIGUOUS = [e for e in LEXICON.values() if e.ambiguous]
AMBIGUOUS_NOUNS = [e for e in AMBIGUOUS if e.pos == "noun"]
# The words of the [ambiguous.*] tables: nouns and adjectives by spelling, verbs by their plain form.
AMBIGUOUS_WORDS = {
    pos: sorted({e.lemma for e in AMBIGUOUS if e.pos == pos and not e.everyday})
    for pos in ("noun", "verb", "adj")
}


def cues(field: str) -> tuple[str, ...]:
    return words("noun", field=field, ambiguous=False)


# --- shape of the constants --------------------------------------------------------------------------------


def test_pos_tags() -> None:
    assert POS_TAGS == ("noun", "verb", "adj", "adv", "det", "pron", "prep", "conj", "num")


def test_fields_are_short_distinct_lowercase_names() -> None:
    assert 16 <= len(FIELDS) <= 24
    assert FIELDS[0] == "water" and FIELDS[-2:] == ("law", "army")  # new fields go at the end
    assert len(set(FIELDS)) == len(FIELDS)
    assert all(f.isalpha() and f.islower() for f in FIELDS)


def test_lexicon_is_read_only() -> None:
    with pytest.raises(TypeError):
        LEXICON["zzz"] = Entry("zzz", "noun", ("water",))  # type: ignore[index]


def test_entries_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        LEXICON["river"].pos = "verb"  # type: ignore[misc]


# --- counts ------------------------------------------------------------------------------------------------


def test_at_least_450_words() -> None:
    assert len(LEXICON) >= 450


def test_at_least_30_ambiguous_nouns() -> None:
    assert len(AMBIGUOUS_NOUNS) >= 30


def test_some_ambiguous_verbs_and_adjectives() -> None:
    assert {e.pos for e in AMBIGUOUS} >= {"noun", "verb", "adj"}


def test_ambiguous_inventory() -> None:
    tables = lexicon.AMBIGUOUS
    assert sum(len(table) for table in tables.values()) >= 170
    assert len(tables["verbs"]) >= 18 and len(tables["adjectives"]) >= 20
    # the built lexicon has exactly the words of the tables as ambiguous words, each under its own part of
    # speech: none was shadowed by an entry listed elsewhere (a verb is keyed "+draw:drew" in its table)
    listed = {
        "noun": sorted(tables["nouns"]),
        "adj": sorted(tables["adjectives"]),
        "verb": sorted(lexicon_entries.verb_forms(token)[0] for token in tables["verbs"]),
    }
    assert listed == AMBIGUOUS_WORDS


@pytest.mark.parametrize("field", FIELDS)
def test_every_field_has_enough_words(field: str) -> None:
    assert len(words("noun", field=field, number="sg", ambiguous=False)) >= 15
    assert len(words("noun", field=field, number="pl", ambiguous=False)) >= 8
    assert len(words("adj", field=field, ambiguous=False)) >= 6
    verbs = {LEXICON[w].lemma for w in words("verb", field=field, ambiguous=False)}
    assert len(verbs) >= 6
    assert len(words("verb", field=field, tense="past", ambiguous=False)) >= 6
    assert len(words("verb", field=field, tense="present", ambiguous=False)) >= 6


def test_the_law_and_army_fields_have_their_own_words() -> None:
    assert LEXICON["law"].fields == ("law",) and LEXICON["army"].fields == ("army",)
    assert {"judge", "jury", "prison", "verdict"} <= set(cues("law"))
    assert {"soldier", "war", "battle", "rifle"} <= set(cues("army"))


def test_every_field_has_plural_nouns_somewhere() -> None:
    assert len(words("noun", number="pl")) >= 40


# --- well-formedness ---------------------------------------------------------------------------------------


def test_keys_match_words_and_are_single_lowercase_tokens() -> None:
    for key, entry in LEXICON.items():
        assert key == entry.word
        assert key.isalpha() and key.islower(), key


def test_pos_and_fields_are_known() -> None:
    for entry in LEXICON.values():
        assert entry.pos in POS_TAGS, entry
        assert set(entry.fields) <= set(FIELDS), entry
        assert len(set(entry.fields)) == len(entry.fields), entry
        assert entry.number in ("sg", "pl", ""), entry
        assert entry.tense in ("past", "present", ""), entry
        assert entry.lemma, entry


def test_function_words_have_no_fields() -> None:
    for entry in LEXICON.values():
        if entry.pos not in CONTENT_POS:
            assert entry.fields == (), entry


def test_content_words_have_fields_unless_they_are_general() -> None:
    general = {w for text in lexicon.GENERAL_WORDS.values() for w in text.split()}
    general |= {token.split(":")[0] for token in lexicon.GENERAL_WORDS["verb"].split()}
    for entry in LEXICON.values():
        if entry.everyday:
            continue  # the reader's words: a field only where one is obvious (tests below)
        if entry.pos in ("noun", "adj") and not entry.fields:
            assert entry.word in general, entry
        if entry.pos == "verb" and not entry.fields:
            assert entry.lemma in general | {"be", "have", "do", "will", "can", "shall", "may", "must"}, entry


def test_everyday_words_are_known() -> None:
    for word in "old new big good saw see went made told swim sell where how".split():
        assert lookup(word) is not None, word
    assert lookup("swim").fields == ("water",) and lookup("swim").tense == "present"
    assert lookup("fish").pos == "noun"  # a plain verb form never displaces a noun


def test_only_verbs_are_transitive() -> None:
    assert all(e.pos == "verb" for e in LEXICON.values() if e.transitive)


@pytest.mark.parametrize("word", DETERMINERS)
def test_determiners(word: str) -> None:
    assert LEXICON[word].pos == "det"


@pytest.mark.parametrize("word", PREPOSITIONS)
def test_prepositions(word: str) -> None:
    assert LEXICON[word].pos == "prep"


@pytest.mark.parametrize("word", ["is", "was", "are", "were", "has", "had", "will", "can"])
def test_auxiliaries_are_field_less_verbs(word: str) -> None:
    entry = LEXICON[word]
    assert entry.pos == "verb"
    assert entry.fields == ()


def test_other_closed_classes_present() -> None:
    for pos in ("pron", "conj", "num", "adv"):
        assert len(words(pos)) >= 5, pos


def test_plurals_point_at_singulars_of_the_same_field() -> None:
    for entry in LEXICON.values():
        if entry.pos == "noun" and entry.number == "pl" and entry.lemma != entry.word:
            base = LEXICON[entry.lemma]
            assert base.number == "sg" and base.fields == entry.fields, entry
    assert LEXICON["feet"].lemma == "foot"
    # a cue's plural whose singular has another field stands alone, its own lemma
    assert all(e.lemma == e.word for e in LEXICON.values() if e.number == "pl" and e.lemma not in LEXICON)


# --- ambiguity ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", AMBIGUOUS, ids=lambda e: e.word)
def test_ambiguous_senses_each_have_four_cue_nouns(entry: Entry) -> None:
    assert len(entry.fields) == 2
    assert entry.fields[0] != entry.fields[1]
    assert entry.topics == ()
    for field in entry.fields:
        singular = words("noun", field=field, number="sg", ambiguous=False)
        assert len(singular) >= 4, (entry.word, field)
        assert all(not LEXICON[c].ambiguous and LEXICON[c].fields == (field,) for c in cues(field))


def test_a_word_moved_to_the_ambiguous_tables_is_not_left_among_the_general_words() -> None:
    # A general word already listed elsewhere is silently skipped, so a leftover would go unnoticed.
    general = {t.split(":")[0] for text in lexicon.GENERAL_WORDS.values() for t in text.split()}
    assert not {w for w in general if LEXICON[w].ambiguous}


def test_plurals_of_ambiguous_nouns_have_both_senses_and_are_never_drawn() -> None:
    plurals = [e for e in AMBIGUOUS_NOUNS if e.number == "pl"]
    assert {"banks", "clouds", "windows", "stories", "mice"} <= {e.word for e in plurals}
    for entry in plurals:
        assert entry.everyday and entry.fields == LEXICON[entry.lemma].fields, entry
    assert not set(words("noun", number="pl", ambiguous=True))


def test_a_plural_of_a_word_that_is_not_ambiguous_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lexicon.EVERYDAY, "ambiguous", {"plural": "rivers"})
    with pytest.raises(ValueError, match="'river' is no ambiguous noun"):
        lexicon._build()


@pytest.mark.parametrize(
    ("word", "senses"),
    [
        ("bank", {"water", "money"}),
        ("bat", {"animal", "sport"}),
        ("pitch", {"sport", "music"}),
        ("bark", {"plant", "animal"}),
        ("bass", {"music", "animal"}),
        ("match", {"sport", "fire"}),
        ("mouse", {"animal", "technology"}),
        ("crane", {"animal", "tool"}),
    ],
)
def test_known_ambiguous_nouns(word: str, senses: set[str]) -> None:
    entry = LEXICON[word]
    assert entry.pos == "noun"
    assert entry.ambiguous
    assert set(entry.fields) == senses


def test_spring_has_a_water_sense() -> None:
    assert "water" in LEXICON["spring"].fields
    assert LEXICON["spring"].pos == "noun"


def test_ambiguous_words_listed_in_the_brief() -> None:
    for word in MORE_AMBIGUOUS:
        assert LEXICON[word].ambiguous, word


@pytest.mark.parametrize(
    ("word", "pos", "senses"),
    [
        ("tank", "noun", {"water", "army"}),
        ("sentence", "noun", {"school", "law"}),
        ("window", "noun", {"building", "technology"}),
        ("school", "noun", {"school", "animal"}),
        ("served", "verb", {"food", "sport"}),
        ("serve", "verb", {"food", "sport"}),
        ("shot", "verb", {"sport", "army"}),
        ("drew", "verb", {"school", "sport"}),
        ("bright", "adj", {"space", "school"}),
        ("dear", "adj", {"money", "people"}),
    ],
)
def test_more_ambiguous_words(word: str, pos: str, senses: set[str]) -> None:
    entry = LEXICON[word]
    assert (entry.pos, set(entry.fields)) == (pos, senses)


def test_ball_stays_an_unambiguous_sport_noun() -> None:
    # "he hit the ball with a heavy wooden bat": ball is the cue that settles bat, so it has one sense
    assert not LEXICON["ball"].ambiguous and "ball" in cues("sport")


# --- the example sentence -----------------------------------------------------------------------------------


def test_river_bank_was_steep() -> None:
    the, river, bank, was, steep = (lookup(w) for w in ("the", "river", "bank", "was", "steep"))
    assert the is not None and the.pos == "det"
    assert river is not None and river.pos == "noun" and river.fields == ("water",) and not river.ambiguous
    assert bank is not None and set(bank.fields) == {"water", "money"}
    assert was is not None and was.pos == "verb" and was.tense == "past"
    assert steep is not None and steep.pos == "adj"


def test_money_cues() -> None:
    assert {"loan", "cash", "coin"} <= set(cues("money"))
    assert {"river", "lake", "brook"} <= set(cues("water"))
    assert LEXICON["vault"].ambiguous and LEXICON["stream"].ambiguous  # pole vault, a video stream


# --- side topics -------------------------------------------------------------------------------------------


def evokes(word: str) -> dict[str, float]:
    """The fields a known unambiguous content word calls to mind: its own (1) and its side topics (0.5)."""
    entry = lookup(word)
    if entry is None or entry.pos not in CONTENT_POS or len(entry.fields) != 1:
        return {}
    return {entry.fields[0]: 1.0, **dict.fromkeys(entry.topics, 0.5)}


def strongest_cue(sentence: str, word: str) -> str | None:
    """The cue of an ambiguous word by the meaning rule, read off this lexicon alone: a known unambiguous
    noun, verb or adjective of the sentence that evokes one of the word's two senses and not the other; a noun
    beats a verb or an adjective, then a main topic a side topic, then the nearer word."""
    tokens = sentence.split()
    at = tokens.index(word)
    senses = LEXICON[word].fields
    ranked = []
    for j, token in enumerate(tokens):
        hits = [evokes(token)[s] for s in senses if s in evokes(token)]
        if j != at and len(hits) == 1:
            ranked.append((lookup(token).pos != "noun", -hits[0], abs(j - at), j, token))
    return min(ranked)[-1] if ranked else None


@pytest.mark.parametrize(
    ("sentence", "word", "cue"),
    [
        ("the bat flew out of the cave at night", "bat", "cave"),  # a noun by a side topic beats a verb
        ("he hit the ball with a heavy wooden bat", "bat", "ball"),
        ("we sat on the bank and watched the fish swim", "bank", "fish"),
        ("the old bank by the river was closed", "bank", "river"),
        ("the river bank was steep", "bank", "river"),
    ],
)
def test_the_example_sentences_have_their_cue(sentence: str, word: str, cue: str) -> None:
    assert strongest_cue(sentence, word) == cue


def test_the_example_cues_have_the_fields_and_topics_they_need() -> None:
    assert "water" in LEXICON["fish"].topics and LEXICON["fish"].fields == ("animal",)
    assert "animal" in LEXICON["cave"].topics and LEXICON["cave"].pos == "noun"
    assert LEXICON["flew"].fields == ("animal",) and LEXICON["flew"].pos == "verb"
    assert (LEXICON["river"].pos, LEXICON["river"].fields) == ("noun", ("water",))
    assert (LEXICON["ball"].pos, LEXICON["ball"].fields) == ("noun", ("sport",))
    assert (LEXICON["steep"].pos, LEXICON["steep"].fields) == ("adj", ("land",))


def test_side_topics_are_well_formed() -> None:
    with_topics = [e for e in LEXICON.values() if e.topics]
    assert len({e.lemma for e in with_topics}) >= 120
    for entry in with_topics:
        # a content word with a field, or a noun of none that the cues name for one field (sense_cues.txt)
        assert entry.pos in CONTENT_POS and len(entry.fields) <= 1, entry
        assert entry.fields or (entry.pos == "noun" and len(entry.topics) == 1), entry
        assert 1 <= len(entry.topics) <= lexicon.MAX_TOPICS, entry
        assert set(entry.topics) <= set(FIELDS) and not set(entry.fields) & set(entry.topics), entry
        assert len(set(entry.topics)) == len(entry.topics), entry


def test_plurals_and_verb_forms_take_the_topics_of_their_word() -> None:
    assert LEXICON["caves"].topics == LEXICON["cave"].topics == ("animal",)
    assert "caves" not in lexicon.TOPICS
    assert LEXICON["sailed"].topics == LEXICON["sails"].topics == LEXICON["sail"].topics == ("water",)
    assert LEXICON["flies"].topics == LEXICON["flew"].topics == LEXICON["fly"].topics
    assert LEXICON["eaten"].topics == ()  # a participle without a field takes none


@pytest.mark.parametrize(
    ("topics", "message"),
    [
        pytest.param({"fish": ["water", "nonsense"]}, "unknown fields", id="unknown-topic"),
        pytest.param({"river": ["water"]}, "its own field", id="own-field"),
        pytest.param({"fish": ["water", "water"]}, "repeated topic", id="repeated"),
        pytest.param({"bank": ["land"]}, "only an unambiguous", id="ambiguous-word"),
        pytest.param({"the": ["water"]}, "only an unambiguous", id="function-word"),
        pytest.param({"thing": ["water"]}, "only an unambiguous", id="general-word-without-field"),
        pytest.param({"zorblax": ["water"]}, "not listed", id="unlisted"),
        pytest.param({"fish": ["water", "food", "sport"]}, "1 to 2", id="three-topics"),
        pytest.param({"fish": []}, "1 to 2", id="no-topic"),
        pytest.param({"cave": ["animal"], "caves": ["animal"]}, "has them already", id="lemma-twice"),
    ],
)
def test_a_bad_side_topic_fails_the_build(
    monkeypatch: pytest.MonkeyPatch, topics: dict[str, list[str]], message: str
) -> None:
    monkeypatch.setattr(lexicon, "TOPICS", topics)
    with pytest.raises(ValueError, match=message):
        lexicon._build()


# --- lookup and guessing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", SPELLINGS_OF_BANK)
def test_lookup_ignores_case_and_punctuation(text: str) -> None:
    assert lookup(text) is LEXICON["bank"]


def test_lookup_possessive_and_unknown() -> None:
    assert lookup("River's") is LEXICON["river"]
    assert lookup("River\u2019s") is LEXICON["river"]
    assert lookup("zorblax") is None
    assert lookup("") is None


def test_verb_forms() -> None:
    flew, flies = LEXICON["flew"], LEXICON["flies"]
    assert (flew.tense, flew.lemma, flies.tense, flies.number) == ("past", "fly", "present", "sg")
    assert LEXICON["sold"].transitive and LEXICON["sold"].lemma == "sell"
    assert LEXICON["paid"].fields == ("money",) and LEXICON["pays"].tense == "present"
    assert LEXICON["swam"].lemma == "swim" and not LEXICON["swam"].transitive
    assert LEXICON["grew"].fields == ("plant",)


@pytest.mark.parametrize(
    ("word", "pos"),
    [
        ("happily", "adv"),
        ("glorped", "verb"),
        ("glimmering", "verb"),
        ("famous", "adj"),
        ("hopeful", "adj"),
        ("massive", "adj"),
        ("readable", "adj"),
        ("tropical", "adj"),
        ("gadgets", "noun"),
        ("zorblax", "noun"),
        ("Quickly,", "adv"),
        ("hopeless", "adj"),
        ("sturdiness", "noun"),
        ("contentment", "noun"),
        ("celebration", "noun"),
    ],
)
def test_guess_pos(word: str, pos: str) -> None:
    assert guess_pos(word) == pos


def test_entry_for_falls_back_to_a_guess() -> None:
    assert entry_for("river") is LEXICON["river"]
    guessed = entry_for("Glorped")
    assert (guessed.word, guessed.pos, guessed.tense, guessed.fields) == ("glorped", "verb", "past", ())
    assert entry_for("gadgets").number == "pl"


# --- the generator's accessors ------------------------------------------------------------------------------


def test_words_is_sorted_and_deterministic() -> None:
    nouns = words("noun", field="water")
    assert list(nouns) == sorted(nouns)
    assert words("noun", field="water") == nouns
    assert "bank" in nouns and "river" in nouns
    assert "bank" not in words("noun", field="water", ambiguous=False)
    assert set(words("noun", ambiguous=True)) == {e.word for e in AMBIGUOUS_NOUNS if not e.everyday}


def test_words_filters() -> None:
    assert all(LEXICON[w].number == "pl" for w in words("noun", number="pl"))
    assert all(LEXICON[w].tense == "past" for w in words("verb", tense="past"))
    assert "sold" in words("verb", field="money", tense="past")
    assert "sells" not in words("verb", field="money", tense="past")
    assert set(transitive_verbs()) <= set(words("verb", tense="past"))
    assert all(LEXICON[w].transitive for w in transitive_verbs("money"))


def test_words_rejects_unknown_pos_and_field() -> None:
    with pytest.raises(ValueError):
        words("noun", field="nonsense")
    with pytest.raises(ValueError):
        words("adjective")


def test_templates_can_be_filled_for_every_sense() -> None:
    # "the [cue] [ambiguous noun] [verb-past] [adjective]" for each sense of each ambiguous noun
    for entry in AMBIGUOUS_NOUNS:
        for field in entry.fields:
            cue = cues(field)[0]
            assert LEXICON[cue].fields == (field,)
    assert words("verb", tense="past", ambiguous=False)
    assert words("adj", ambiguous=False)
    # "the [noun] [verb] the [noun] by the [noun]" needs transitive verbs
    assert len(transitive_verbs()) >= 40


# --- the everyday words: for the reader's sentences, never for the generator -------------------------------


def test_everyday_words_are_marked_and_never_drawn_by_the_generator() -> None:
    everyday = {w for w, e in LEXICON.items() if e.everyday}
    assert len(everyday) >= 400
    for word in "quick lazy fresh warm park dock jumped puppy coffee seen".split():
        assert lookup(word) is not None, word
    assert {"quick", "lazy", "nice", "dock", "jumped", "coffee"} <= everyday
    drawn = {w for pos in POS_TAGS for w in words(pos)}
    drawn |= {w for pos in POS_TAGS for f in FIELDS for w in words(pos, field=f)}
    assert not drawn & everyday
    assert "coffee" not in words("noun", field="food") and LEXICON["coffee"].fields == ("food",)


def test_an_everyday_word_never_replaces_an_earlier_entry() -> None:
    # "park" stays the travel verb the generator knows; the noun reading is an extra, for the analysis.
    assert (LEXICON["park"].pos, LEXICON["park"].fields, LEXICON["park"].everyday) == (
        "verb",
        ("travel",),
        False,
    )
    assert "noun" in LEXICON["park"].also
    assert LEXICON["broke"].pos == "adj" and "verb" in LEXICON["broke"].also


def test_also_readings() -> None:
    assert "adv" in LEXICON["hard"].also  # "studied hard"
    assert "verb" in LEXICON["bark"].also  # barked and barks are listed
    assert "verb" in LEXICON["open"].also
    assert all(e.pos not in e.also for e in LEXICON.values())


@pytest.mark.parametrize(
    "text",
    [
        "house car road phone computer doctor teacher kitchen garden window door street city school job",
        "friend family money food water coffee tea breakfast dinner bed chair table book letter movie",
        "police judge lawyer soldier war weapon hospital nurse medicine restaurant shop hotel airport",
        "knife fork spoon umbrella jeans shirt hair neck face pillow sofa phone laptop video app",
        "happy sad tired busy important dangerous difficult beautiful expensive cheap warm cold fresh",
        "went saw made told bought sold paid fought hung caught taught thought brought spent wrote",
    ],
)
def test_everyday_words_readers_type_are_known(text: str) -> None:
    assert [w for w in text.split() if lookup(w) is None] == []


def test_everyday_verbs_have_their_forms_and_participles() -> None:
    assert LEXICON["jumped"].lemma == "jump" and LEXICON["jumped"].tense == "past"
    assert LEXICON["drank"].lemma == "drink" and LEXICON["jump"].pos == "verb"
    assert (LEXICON["seen"].pos, LEXICON["seen"].lemma) == ("verb", "see")
    assert (LEXICON["broken"].pos, LEXICON["break"].pos) == ("verb", "verb")


# ---- the sense cues (sense_cues.txt) -----------------------------------------------------------------------


def test_every_sense_of_every_ambiguous_word_has_its_cues() -> None:
    rows = lexicon_entries.read_sense_cues(lexicon.SENSE_CUES.read_text(encoding="utf-8"))
    listed = {(word, sense) for word, sense, _, cues in rows if cues}
    wanted = {
        (token.lstrip("+").split(":")[0], sense)
        for table in lexicon.AMBIGUOUS.values()
        for token, senses in table.items()
        for sense in senses
    }
    assert listed == wanted


def test_a_cue_the_lexicon_lacked_joins_the_field_of_the_sense_it_settles() -> None:
    hymn, motorway = LEXICON["hymn"], LEXICON["motorway"]  # organ: music; jam: travel
    assert (hymn.pos, hymn.fields, hymn.everyday) == ("noun", ("music",), True)
    assert motorway.fields == ("travel",) and motorway.everyday
    assert "hymn" not in words("noun", field="music")  # the generator never draws one


def test_a_listed_cue_keeps_its_field_and_calls_the_sense_to_mind_on_the_side() -> None:
    cave = LEXICON["cave"]
    assert cave.fields == ("land",) and cave.topics == ("animal",)  # [topics] first: no second from the cues
    assert all(len(e.topics) <= lexicon.MAX_TOPICS for e in LEXICON.values())
    voice = LEXICON["voice"]  # a noun of no field that people name for music, again and again
    assert (voice.fields, voice.topics) == ((), ("music",))


def test_a_participle_is_left_to_the_analysis() -> None:
    """ "chirping" is listed for cricket (animal), but read as a form of chirp, not as an adjective."""
    rows = lexicon_entries.read_sense_cues(lexicon.SENSE_CUES.read_text(encoding="utf-8"))
    assert any("chirping" in cues for *_, cues in rows)
    assert "chirping" not in LEXICON and lexicon.inflected("chirping") is LEXICON["chirp"]


def test_a_bad_sense_cue_line_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tag"):
        lexicon_entries.read_sense_cues("bat | animal | x: cave")


def test_named_sense_reads_the_cue_lists_through_word_forms() -> None:
    """Which sense of an ambiguous word the cue lists name a word for, through plurals and verb forms."""
    assert named_sense("bass", "lake") == "animal" and named_sense("bass", "guitar") == "music"
    assert named_sense("bats", "caves") == "animal"
    assert named_sense("treated", "doctors") == "body"
    assert named_sense("bass", "banana") is None


def test_a_cue_noun_in_the_plural_stays_plural_when_its_singular_has_another_field() -> None:
    from app.models.lexicon import LEXICON

    assert LEXICON["lands"].number == "pl"
