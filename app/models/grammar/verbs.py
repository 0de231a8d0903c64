"""Where a word the lexicon lists as a noun is a clause's verb, and where one it lists as a verb is not: the
checks the tagger (tagging.py) makes once it has read the neighbours, or the whole sentence."""

from __future__ import annotations

from app.models.grammar.place import AUXILIARY_LEMMAS, CLAUSE_PREPOSITIONS, Place
from app.models.grammar.reading import Reading, nominal
from app.models.lexicon import LEXICON

Found = tuple[str, str] | None  # a part of speech and a role, as tagging.py's rules give them
# Participles that name a state after be ("its wing was broken"); other participles there are passives.
STATES = frozenset({"broken", "frozen", "swollen", "torn", "worn", "burnt", "bent", "cracked", "soaked"})


def verb_form(r: Reading) -> bool:
    """Can the word be a verb: listed as one too, or the -s form of a listed verb ("leaves", "ends")?"""
    if "verb" in r.also:
        return True
    key = r.key
    stems = (key[:-1], key[:-2]) if key.endswith("es") else (key[:-1],) if key.endswith("s") else ()
    return any(
        (stem := LEXICON.get(s)) is not None and (stem.pos == "verb" or "verb" in stem.also) for s in stems
    )


def opens_a_clause(reads: list[Reading], pos: list[str], role: list[str], i: int) -> bool:
    """Is word i, a plural noun by the lexicon, the verb of a clause opened by a conjunction or by after,
    before, until or since, whose subject is the noun phrase between ("after my meeting ends": ends)? It must
    end in -s on the plain form of a verb ("end" can be a verb), and the phrase open with a determiner and
    hold only adjectives, numbers and nouns besides."""
    key = reads[i].key
    if not key.endswith("s") or not verb_form(Reading(key, True, "noun", (), key, "", "", (), "", False)):
        return False
    q = i - 1
    while q >= 0 and pos[q] in ("det", "adj", "num", "noun") and role[q] == "":
        q -= 1
    opened = q >= 0 and (role[q] == "sub" or (pos[q] == "prep" and reads[q].key in CLAUSE_PREPOSITIONS))
    return opened and pos[q + 1] == "det"


def verb_of_a_verbless_clause(reads: list[Reading], pos: list[str], role: list[str]) -> None:
    """A stretch between two clause openers with no verb: "the farm dogs bark at every car that ..." is a
    subject and its verb, not a compound. Its first noun after a noun that can be a verb (or is the -s form
    of one: "the last train to london leaves at nine", or a plural after a singular: "the teacher marks
    our essays") and ends the phrase becomes one."""
    n = len(reads)
    bounds = [0] + [i for i in range(1, n) if role[i] in ("coord", "sub", "rel", "comp")] + [n]
    for a, b in zip(bounds, bounds[1:], strict=False):
        if "verb" in pos[a:b]:
            continue
        for i in range(a + 1, b):
            last = i + 1 == n or not nominal(reads[i + 1])
            single = reads[i - 1].number == "sg" and not reads[i - 1].key.endswith("s")
            agrees = single and reads[i].key.endswith("s") and reads[i].number == "pl"
            if pos[i] == "noun" and pos[i - 1] == "noun" and (verb_form(reads[i]) or agrees) and last:
                pos[i] = "verb"
                break


def verb_ending_a_phrase(w: Place) -> Found:
    """A verb after a noun in a preposition's phrase heads that phrase when another verb follows, or the
    clause has its verb: "the pipe under the kitchen sink has", "a sharp knife for the lamb chops"."""
    r, nxt, pos, j = w.r, w.nxt, w.pos, w.i - 1
    if r.pos != "verb" or r.lemma in AUXILIARY_LEMMAS or w.prev != "noun" or r.key.endswith("ed"):
        return None
    while j >= 0 and pos[j] in ("det", "adj", "num", "noun") and w.role[j] == "":
        j -= 1
    if j < 0 or pos[j] != "prep" or w.role[j] == "inf" or w.reads[j].key in CLAUSE_PREPOSITIONS:
        return None
    ends = nxt is None and w.has_verb and not w.asked and "rel" not in w.role[: w.i]
    return ("noun", "") if (nxt is not None and nxt.pos == "verb") or ends else None


def after_a_relative_clause(w: Place) -> bool:
    """Has a relative clause with its verb opened since a noun that still waits for its verb ("the coach that
    took us to the museum | broke down")?"""
    q = max((x for x in range(w.i) if w.role[x] == "rel"), default=None)
    return q is not None and "verb" not in w.pos[:q] and not any(w.role[x] for x in range(q + 1, w.i))


def participle_after_be(w: Place) -> Found:
    """A word listed only as a noun is a participle after be when it ends in -ing ("she was running"), and
    after have when "a" or a possessive follows it ("the snake has shed its skin")."""
    if w.r.pos != "noun" or w.governor != "aux":
        return None
    if w.r.key.endswith("ing") and w.governor_lemma == "be":
        return "verb", ""
    nxt = w.nxt
    if w.governor_lemma == "have" and nxt is not None and nxt.key in _ARTICLES_AND_POSSESSIVES:
        return "verb", ""
    return None


_ARTICLES_AND_POSSESSIVES = frozenset({"a", "an", "its", "his", "her", "their", "my", "your", "our"})


def noun_before_no_agreement(w: Place) -> Found:
    """After after/before/until/since and a singular noun, a verb's plain form cannot be the verb of a clause
    (it would not agree): it heads the phrase ("after the snowball fight we drank")."""
    r, prev_r, pos = w.r, w.prev_r, w.pos
    if r.pos != "verb" or r.tense != "present" or r.number != "pl" or r.lemma in AUXILIARY_LEMMAS:
        return None
    if w.prev != "noun" or prev_r is None or prev_r.number != "sg" or prev_r.key.endswith("s"):
        return None
    j = w.i - 1
    while j >= 0 and pos[j] in ("det", "adj", "num", "noun") and w.role[j] == "":
        j -= 1
    return ("noun", "") if j >= 0 and w.reads[j].key in CLAUSE_PREPOSITIONS else None


def plain_form_after_be(w: Place) -> Found:
    """A verb's plain form cannot follow be as a verb: it is the adjective ("the pastry is light"); so is
    a participle that names a state, with no object or agent after it ("its wing was broken")."""
    r, nxt = w.r, w.nxt
    if r.pos != "verb" or r.lemma in AUXILIARY_LEMMAS or w.governor != "aux" or w.governor_lemma != "be":
        return None
    plain = r.tense == "present" and r.number == "pl"
    state = r.key in STATES and (nxt is None or nxt.pos not in ("det", "pron", "prep"))
    return ("adj", "") if plain or state else None


def verb_after_a_preposition(w: Place) -> Found:
    """A verb of the lexicon right after a preposition is a noun when it can be one ("after work"), or when
    it ends the sentence ("in march", "since march")."""
    r, prev_r = w.r, w.prev_r
    ends = w.nxt is None and not r.key.endswith("ing") and r.lemma not in AUXILIARY_LEMMAS
    after = w.prev == "prep" or (ends and prev_r is not None and prev_r.key in CLAUSE_PREPOSITIONS)
    if r.pos == "verb" and after and w.role[w.i - 1] != "inf" and ("noun" in r.also or ends):
        return "noun", ""
    return None
