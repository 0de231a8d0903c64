"""Step 1 of the parser: each word's part of speech in its sentence, and its role in the clause structure.

A word's reading (``reading.read``) gives the lexicon's part of speech, or the guess from an unknown word's
ending; the rules here settle from the neighbours what it leaves open, left to right, one named rule per
construction (the conventions are in the package docstring, app/models/grammar/__init__.py).
"""

from __future__ import annotations

from app.models.grammar.place import (
    AUXILIARY_LEMMAS,
    CLAUSE_PREPOSITIONS,
    COORDINATORS,
    COPULAR_LEMMAS,
    DEGREE_WORDS,
    GOING_LEMMAS,
    MODALS,
    PRONOUN_DETERMINERS,
    RELATIVE_PRONOUNS,
    SUBJECT_PRONOUNS,
    TAKES_A_PLAIN_VERB,
    WH_ADVERBS,
    Place,
    asks,
)
from app.models.grammar.reading import Reading, can_be, nominal, read
from app.models.grammar.verbs import (
    after_a_relative_clause,
    noun_before_no_agreement,
    opens_a_clause,
    participle_after_be,
    plain_form_after_be,
    verb_after_a_preposition,
    verb_ending_a_phrase,
    verb_of_a_verbless_clause,
)

# ---------------------------------------------------------------------------------------------------------
# A known word: the first rule that applies gives its (part of speech, role); none keeps the lexicon's.
# ---------------------------------------------------------------------------------------------------------

Found = tuple[str, str] | None


def _back_as_adverb(w: Place) -> Found:
    if w.r.key == "back" and w.prev in ("noun", "pron") and w.nxt is not None and w.nxt.pos == "prep":
        return "adv", ""  # "sew this button back onto my coat"
    return None


def _how_many(w: Place) -> Found:
    if w.r.key in ("many", "much") and w.prev_r is not None and w.prev_r.key == "how":
        # "how many eggs do we need": how -> many, eggs -> need; "how much does it cost": much -> cost
        return "adj", "whdet" if nominal(w.nxt) else "wh"
    return None


def _degree_adverb(w: Place) -> Found:
    nxt, after = w.nxt, w.after
    if w.r.key in DEGREE_WORDS and nxt is not None and nxt.pos in ("adj", "adv"):
        return "adv", ""  # "far too loud", "the most popular dish"
    predicate = (  # "the current is this strong": after a subject's copula, an adjective with no noun
        w.r.key in ("this", "that")
        and w.prev_r is not None
        and w.prev_r.lemma == "be"
        and w.i >= 2
        and w.pos[w.i - 2] in ("noun", "pron")
        and nxt is not None
        and nxt.pos == "adj"
        and not nominal(after)
    )
    return ("adv", "") if predicate else None


def _only_before_a_verb(w: Place, k: int) -> bool:
    """Is word i + k "only", and the word after it a verb ("that only comes out at night")?"""
    reads, j = w.reads, w.i + k
    return j + 1 < len(reads) and reads[j].key == "only" and reads[j + 1].pos == "verb"


def _only_as_adverb(w: Place) -> Found:
    subject = w.prev in ("noun", "pron") or (w.i > 0 and w.role[w.i - 1] in ("rel", "aux", "coord"))
    if subject and _only_before_a_verb(w, 0):
        return "adv", ""  # before a verb: "i only had toast", "can only move", "and only stopped"
    return None


def _predeterminer(w: Place) -> Found:
    if w.r.key in ("all", "both", "half") and w.nxt is not None and w.nxt.pos == "det":
        return "det", ""  # "all our suitcases"
    return None


def _determiner_alone(w: Place) -> Found:
    """this/that/her/... with no noun after them are pronouns; "that" after a noun is a relative pronoun, also
    before a noun and its verb ("the cake that mum baked"), and after a verb a conjunction."""
    k, nxt, after = w.r.key, w.nxt, w.after
    clause = w.prev == "noun" and nxt is not None and nxt.pos == "noun" and after is not None
    alone = not nominal(nxt) or _only_before_a_verb(w, 1) or (k == "that" and clause and after.pos == "verb")
    if w.r.pos != "det" or k not in PRONOUN_DETERMINERS or not alone:
        return None
    participle = nxt is not None and (nxt.key.endswith(("ed", "en")) or nxt.tense == "" and nxt.pos == "verb")
    if participle and after is not None and after.pos == "noun":
        return None  # "treat her broken wrist"
    if k in ("his", "her") and nxt is not None:
        plural = nxt.pos == "verb" and nxt.key.endswith("s")  # "treated his burns": a plural noun
        degree = nxt.pos == "adv" and after is not None and after.pos == "adj"  # "her very old dog"
        if plural or degree:
            return None
    rel = "rel" if w.prev in ("noun", "pron") else "comp" if w.prev == "verb" else ""
    return "pron", rel if k == "that" and nxt is not None else ""


def _question_determiner(w: Place) -> Found:
    nxt, after = w.nxt, w.after
    if w.r.key not in ("which", "what") or nxt is None or nxt.pos == "num":
        return None
    modifier = (  # "which search engine": a plain verb form before a noun is the noun's modifier
        nxt.pos == "verb"
        and nxt.lemma not in AUXILIARY_LEMMAS
        and nxt.key == nxt.lemma
        and after is not None
        and after.pos == "noun"
    )
    if not (nominal(nxt) or modifier):
        return None
    opens = w.i == 0 or w.role[w.i - 1] == "coord"
    return "det", "whdet" if opens else ""  # opens a question: "which song did the band perform"


def _relative_pronoun(w: Place) -> Found:
    if w.r.key in RELATIVE_PRONOUNS and (w.r.key != "whose" or w.prev in ("noun", "pron")):
        return w.r.pos, "rel" if w.prev in ("noun", "pron") else "wh"  # "whose coat is this": a determiner
    return None


def _what(w: Place) -> Found:
    return (w.r.pos, "wh") if w.r.key == "what" else None


def _wh_adverb(w: Place) -> Found:
    k, nxt = w.r.key, w.nxt
    if k not in WH_ADVERBS:
        return None
    question = w.i == 0 or w.role[w.i - 1] == "coord"
    if k == "where" and w.prev == "noun":
        rl = "rel"  # "the town where i live"
    elif k == "when" and not (question and nxt is not None and nxt.lemma in AUXILIARY_LEMMAS):
        rl = "sub"
    elif not question and w.prev in ("verb", "noun", "pron") and nxt is not None:
        rl = "sub" if nxt.pos not in ("adj", "adv") else ""  # "knows why the lights went out"
    else:
        rl = "wh"
    return w.r.pos, rl


def _clause_preposition(w: Place) -> Found:
    nxt, after = w.nxt, w.after
    if w.r.key == "once" and w.i == 0 and nxt is not None and nxt.pos in ("det", "pron"):
        return "conj", "sub"  # "once the paint dries | the door can be closed"
    if (
        w.r.key in CLAUSE_PREPOSITIONS
        and nxt is not None
        and nxt.key in SUBJECT_PRONOUNS - {"who"}
        and (nxt.key not in ("it", "you") or (after is not None and can_be(after, "verb")))
    ):
        return "conj", "sub"  # "after we left": a subject pronoun, not an object, follows
    return None


def _conjunction(w: Place) -> Found:
    if w.r.pos != "conj":
        return None
    k, nxt = w.r.key, w.nxt
    if (k == "so" and nxt is not None and nxt.pos in ("adj", "adv")) or (k == "yet" and nxt is None):
        return "adv", ""  # "so tight", "not ripe yet"
    return "conj", "coord" if k in COORDINATORS or k == "so" else "sub"


def _infinitive(w: Place) -> Found:
    nxt = w.nxt
    after = w.after
    unknown = nxt is not None and not nxt.known and not nxt.proper
    if unknown and after is not None and after.known and after.pos == "verb":
        return None  # "the train to glasgow leave": a place, not a verb, before a verb
    if not (w.r.key == "to" and nxt is not None and (can_be(nxt, "verb") or unknown)):
        return None
    marks = nxt.pos not in ("det", "pron", "num") and not (
        nxt.pos == "noun" and nxt.known and "verb" not in nxt.also
    )
    destination = (  # "walks to work", "go to sleep"; not "went to visit the zoo"
        w.prev == "verb"
        and w.prev_r is not None
        and w.prev_r.lemma in GOING_LEMMAS
        and can_be(nxt, "noun")
        and (after is None or after.pos not in ("det", "pron", "num"))
    )
    marks = marks and not destination
    return w.r.pos, "inf" if marks else ""  # "to swim", "going to rain"; not "to school"


def _verb_in_a_phrase(w: Place) -> Found:
    r, nxt = w.r, w.nxt
    if r.pos == "verb" and w.inside_phrase and r.lemma not in AUXILIARY_LEMMAS:  # "in the park"
        return ("adj" if (r.tense == "past" and nominal(nxt) and nxt.pos != "adj") else "noun"), ""
    return None


def _adjective_in_a_phrase(w: Place) -> Found:
    if w.r.pos in ("adv", "noun") and "adj" in w.r.also and w.inside_phrase and nominal(w.nxt):
        return "adj", ""  # "a fast car"
    nxt, after = w.nxt, w.after
    ends = (
        nxt is None
        or nxt.pos == "prep"
        or (nxt.key in COORDINATORS and after is not None and after.pos == "det")
    )
    if w.r.pos == "adj" and w.prev_r is not None and w.prev_r.key in ("a", "an") and ends:
        return "noun", ""  # "has a cold and a runny nose": no noun after it, it is the noun
    return None


def _verb_by_its_place(w: Place) -> Found:
    """A word that can be a verb is one after a modal or "to", at the start of an order, after "please" or
    after a subject pronoun whose clause has no verb yet: "will rain", "open the door", "they clean"."""
    r, nxt, prev_r, i = w.r, w.nxt, w.prev_r, w.i
    if r.pos == "noun" and prev_r is not None and prev_r.key == "please" and w.i == 1:
        return "verb", ""  # an order, even with a verb listed only as a noun: "please switch off the lights"
    if r.pos == "verb" or "verb" not in r.also:
        return None
    governed = (
        w.governor == "aux" and w.governor_lemma in TAKES_A_PLAIN_VERB and not _subject_of_a_question(w)
    ) or w.governor == "inf"
    order = i == 0 and nxt is not None and nxt.pos in ("det", "pron")
    second_order = (  # "open a terminal and type this command"
        i > 0 and w.role[i - 1] == "coord" and w.pos[0] == "verb" and nxt is not None and nxt.pos == "det"
    )
    after_please = prev_r is not None and prev_r.key == "please"
    after_subject = prev_r is not None and prev_r.key in SUBJECT_PRONOUNS and not w.has_verb
    if governed or order or second_order or after_please or after_subject:
        return "verb", ""
    return None


def _verb_of_a_question(w: Place) -> Found:
    r = w.r
    verb_next = w.nxt is not None and w.nxt.pos == "verb"  # "does our dune airstrike update": in the phrase
    if r.pos in ("noun", "adj") and w.asked and w.prev == "noun" and not nominal(w.nxt) and not verb_next:
        return "verb", ""  # "did the dog bark at the mailman", "will our suitcases fit in the trunk"
    return None


def _subject_of_a_question(w: Place) -> bool:
    """In a question that opens with do or a modal, is word i (right after it) the subject, a noun or the
    start of a noun phrase before the verb ("can passengers stand", "can pure water conduct electricity")?"""
    nxt, after = w.nxt, w.after
    if not (w.asked and w.governor == "aux" and w.governor_lemma in TAKES_A_PLAIN_VERB) or nxt is None:
        return False
    if nxt.pos == "verb" and nxt.lemma not in AUXILIARY_LEMMAS:
        return w.r.pos != "adv"
    return nxt.pos == "noun" and after is not None and can_be(after, "verb") and w.r.pos in ("noun", "adj")


def _verb_of_a_modal(w: Place) -> Found:
    if _subject_of_a_question(w):
        return None
    prev_r = w.prev_r
    negated = prev_r is not None and (prev_r.key in ("not", "never") or prev_r.key.endswith("n't"))
    governs = w.governor_lemma in MODALS or (w.governor_lemma == "do" and negated)
    if w.r.pos in ("noun", "adj") and w.governor == "aux" and governs and w.prev != "det":
        return "verb", ""  # a modal's verb, even one listed only as a noun: "you can heat up some soup"
    return None


def _verb_after_a_subject(w: Place) -> Found:
    r, nxt = w.r, w.nxt
    past_before_object = r.key.endswith("ed") and nxt is not None and nxt.pos in ("det", "pron")
    if (
        r.pos == "adj"
        and ("verb" in r.also or past_before_object)
        and w.prev in ("noun", "pron")
        and (not w.has_verb or after_a_relative_clause(w))
        and not w.asked
        and not nominal(nxt)
    ):
        return "verb", ""  # "our coach broke down", "a heavy shower ruined our picnic"
    return None


def _verb_before_its_object(w: Place) -> int | None:
    """The verb right before the noun phrase that ends just before word i (adverbs between skipped), or
    before the phrases with a preposition that end there, if any: "finished the test | early", "leave the
    meeting | so early", "operate on the old man | early"."""
    pos, role = w.pos, w.role
    j = w.i - 1
    while j >= 0 and pos[j] == "adv" and role[j] == "":
        j -= 1
    while j >= 0 and pos[j] == "noun":  # a phrase, and the phrases with a preposition before it
        while j >= 0 and pos[j] in ("det", "adj", "num", "noun") and role[j] == "":
            j -= 1
        if j >= 0 and pos[j] == "prep" and role[j] == "":
            j -= 1
    return j if j >= 0 and pos[j] == "verb" else None


def _adverb_after_a_verb(w: Place) -> Found:
    """A word that can be an adverb is one after an ordinary verb ("studied hard") or after its object
    ("finished the test early")."""
    r, prev_r = w.r, w.prev_r
    if r.pos != "adj" or "adv" not in r.also or nominal(w.nxt):
        return None
    if w.prev == "verb" and prev_r is not None and prev_r.lemma not in COPULAR_LEMMAS:
        return "adv", ""  # "studied hard"
    verb = _verb_before_its_object(w)
    if verb is not None and w.reads[verb].lemma not in COPULAR_LEMMAS and w.role[verb] != "aux":
        return "adv", ""  # "finished the test early"
    return None


_KNOWN_WORD_RULES = (
    _back_as_adverb,
    _how_many,
    _degree_adverb,
    _only_as_adverb,
    _predeterminer,
    _determiner_alone,
    _question_determiner,
    _relative_pronoun,
    _what,
    _wh_adverb,
    _clause_preposition,
    _conjunction,
    _infinitive,
    _verb_in_a_phrase,
    verb_ending_a_phrase,
    noun_before_no_agreement,
    verb_after_a_preposition,
    _adjective_in_a_phrase,
    _verb_by_its_place,
    _verb_of_a_question,
    _verb_of_a_modal,
    participle_after_be,
    plain_form_after_be,
    _verb_after_a_subject,
    _adverb_after_a_verb,
)


def _tag_known(w: Place) -> tuple[str, str]:
    """A listed word's part of speech and role: the first rule that applies, or the lexicon's part of speech;
    a verb that is an auxiliary or modal by its lemma and has no other role gets the role "aux"."""
    p, rl = w.r.pos, ""
    for rule in _KNOWN_WORD_RULES:
        found = rule(w)
        if found is not None:
            p, rl = found
            break
    if p == "verb" and rl == "" and w.r.lemma in AUXILIARY_LEMMAS:
        rl = "aux"
    return p, rl


def _guess_from_neighbours(w: Place) -> str:
    """The part of speech of an unknown word, from its ending and its neighbours."""
    r, prev, prev_r, nxt, after, governor = w.r, w.prev, w.prev_r, w.nxt, w.after, w.governor
    if r.proper and w.i > 0:
        return "noun"  # a name in the middle of a sentence
    if r.pos == "adv" and nxt is not None and nxt.pos in ("adj", "adv"):
        return "adv"  # an -ly word before an adjective: "the unbelievably steep bank", "was oddly quiet"
    if w.inside_phrase:
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
        if nominal(nxt) and nxt is not None and nxt.pos != "num" and r.ending != "s":
            return "adj"  # "the glorpy zibbets", "a lovely garden"; not a plural: "our suitcases fit"
        return "noun"
    if prev == "prep" and governor != "inf" and not nominal(nxt):
        return "noun"  # the whole phrase after a preposition: "the capital of portugal"
    predicative = governor == "aux" and w.governor_lemma == "be" and r.ending in ("", "ly") and prev != "det"
    if predicative and (nxt is None or nxt.pos not in ("noun", "adj", "verb")):
        return "adj"  # "the bread was crumbly", "the soup is glorpish"
    if _subject_of_a_question(w):
        return "adj" if nxt is not None and nxt.pos == "noun" else "noun"  # "can pure water conduct"
    if governor in ("aux", "inf") and r.pos != "adv":
        return "noun" if r.ending == "s" else "verb"  # "were snurfling", "can glorp"; "were flarbs"
    compound = prev == "noun" and nxt is not None and nxt.known and nxt.pos == "verb"  # "garden shears are"
    if prev in ("noun", "pron") and r.pos != "adv" and not w.has_verb and not compound:
        if r.ending in ("ed", "s") or (prev_r is not None and prev_r.key in SUBJECT_PRONOUNS):
            return "verb"  # "the dog zanned", "she glorps"
        if nxt is None or nxt.pos in ("det", "pron", "prep"):
            return "verb"
    return r.pos


def _settle(w: Place, p: str) -> str:
    """The last word on a known or unknown word's part of speech ``p``: a verb where a clause needs one."""
    prev, nxt = w.prev, w.nxt
    if p == "noun" and prev == "noun" and not nominal(nxt) and opens_a_clause(w.reads, w.pos, w.role, w.i):
        return "verb"  # "after my meeting ends", "when the bell rings"
    if p in ("noun", "adj") and w.asked and w.governor_lemma in SUBJECT_PRONOUNS:  # adverbs between skipped
        return "verb"  # a question's verb after its subject, even one listed only as a noun: "will it rain"
    if p == "noun" and w.asked and prev == "noun" and nxt is not None and nxt.pos == "det":
        return "verb"  # "did the president sign the new law": a noun cannot follow a noun's phrase here
    if (
        p == "noun"
        and prev in ("pron", "adv")
        and w.governor_lemma in ("i", "you", "we", "they", "he", "she")  # adverbs between skipped
        and not w.has_verb
        and (nxt is None or nxt.pos in ("det", "pron", "prep", "adv"))
    ):
        return "verb"  # a subject pronoun's verb, even one listed only as a noun: "after we shape the clay"
    if p == "adj" and prev == "prep" and (nxt is None or nxt.pos == "prep"):
        return "noun"  # "after dark"
    return p


def tag(words: list[str]) -> tuple[list[Reading], list[str], list[str]]:
    """Each word's reading, its part of speech in this sentence, and its role in the clause structure.

    Roles: "aux" (auxiliary or modal), "inf" (infinitive "to"), "coord" (and, or, but, nor), "sub"
    (subordinating conjunction), "rel" (relative pronoun), "comp" (complementiser "that"), "wh" (question
    word), "whdet" (a question's which or what before its noun), or "" for everything else.
    """
    reads = [read(w) for w in words]
    n = len(reads)
    pos = [""] * n
    role = [""] * n
    verb_since_boundary = False
    asked = False  # the sentence opened with do or a modal ("did the dog ...") and awaits its main verb
    for i, r in enumerate(reads):
        w = Place(reads, pos, role, i, verb_since_boundary, asked)
        p, rl = _tag_known(w) if r.known else (_guess_from_neighbours(w), "")
        p = _settle(w, p)
        pos[i], role[i] = p, rl
        opened = max((x + 1 for x in range(i) if role[x] == "coord"), default=0)  # the clause's first word
        asked = asked or (rl == "aux" and r.lemma in TAKES_A_PLAIN_VERB and asks(pos, role, opened, i))
        asked = asked and not (p == "verb" and rl != "aux")
        if p == "verb":
            verb_since_boundary = True
        elif rl in ("coord", "sub", "rel", "comp"):
            verb_since_boundary = False
    verb_of_a_verbless_clause(reads, pos, role)
    return reads, pos, role
