"""The words of the translator's two vocabularies, from the bilingual lexicon (training/french_lexicon.py):
every English and French word form the grammar writes, the English words by kind, and the (English, French)
pairs an alignment may link.
"""

from __future__ import annotations

from training.french_lexicon import (
    ADJECTIVES,
    AND,
    AVOIR,
    BEFORE_VOWEL,
    BUT,
    CONTRACTIONS,
    COPULA_ENGLISH,
    DETERMINERS,
    DO_ENGLISH,
    ETRE_PAST,
    ETRE_PRESENT,
    GAMES,
    IT,
    MODAL_ENGLISH,
    MODAL_FRENCH,
    MORE,
    NOT,
    NOUNS,
    OBJECT_PRONOUNS,
    OF,
    PARTICLES,
    PLACE_WORDS,
    PLEASE,
    PREPOSITIONS,
    PRONOUNS,
    QUANTITIES,
    QUESTION,
    RELATIVE,
    SOME,
    SUBORDINATORS,
    THAN,
    THERE,
    THERE_BE,
    TIME_WORDS,
    TO,
    VERB,
    VERBS,
    VERY,
    WHAT,
    WHERE,
    WHO,
    participle,
)


def lexicon_entries() -> list[tuple[str, str]]:
    """Every entry of the lexicon once, as (English dictionary form, part of speech): ("river bank", "noun"),
    ("open", "adj") and ("open", "verb") are two entries."""
    entries = [
        *((n.english[0], "noun") for n in NOUNS),
        *((a.english, "adj") for a in ADJECTIVES),
        *((v.english[1], "verb") for v in VERBS),
        ("be", "verb"),
        *((d.english, "det") for d in DETERMINERS),
        *((" ".join(p.english), "prep") for p in PREPOSITIONS),
        *((p.english, "pron") for p in PRONOUNS),
        *((p.english, "pron") for p in OBJECT_PRONOUNS if p.english not in {q.english for q in PRONOUNS}),
        (IT[0], "pron"),
        (THERE[0], "adv"),
        ("do", "verb"),
        ("can", "verb"),
        ("must", "verb"),
        ("will", "verb"),
        (PLEASE[0], "adv"),
        (MORE[0], "adv"),
        (THAN[0], "conj"),
        (VERY[0], "adv"),
        ("want", "verb"),
        (WHERE[0], "adv"),
        (WHO[0], "pron"),
        (WHAT[0], "pron"),
        *((" ".join(t.english), "adv") for t in TIME_WORDS),
        *((" ".join(p.english), "adv") for p in PLACE_WORDS),
        *((" ".join(g.english), "noun") for g in GAMES),
        (SOME, "det"),
        *((" ".join(q), "det") for q in QUANTITIES if q != (MORE[0],)),
        *((w, "conj") for w in SUBORDINATORS if w != RELATIVE[1]),
        (NOT[0], "adv"),
        (AND[0], "conj"),
        (BUT[0], "conj"),
        (OF[0], "prep"),
        (TO[0], "prep"),
    ]
    return list(dict.fromkeys(entries))  # "on sunday" is one entry, in the past and in the present


# ---------------------------------------------------------------------------------------------------------
# Vocabularies, and the word pairs an alignment may link.
# ---------------------------------------------------------------------------------------------------------


def _english_forms() -> list[str]:
    words: list[str] = []
    for n in NOUNS:
        words += n.en("sg") + (n.en("pl") if n.english[1] else [])
    words += [a.english for a in ADJECTIVES]
    words += [w for v in VERBS for w in v.forms]
    words += [w for forms in COPULA_ENGLISH.values() for w in forms]
    words += [w for forms in DO_ENGLISH.values() for w in forms] + [NOT[0]]
    words += [w for forms in MODAL_ENGLISH.values() for w in forms] + [WHERE[0], WHO[0], WHAT[0], VERY[0]]
    words += [w for a in ADJECTIVES for w in a.comparative] + [MORE[0], THAN[0], *RELATIVE[:2]]
    words += [w for t in TIME_WORDS for w in t.english]
    words += [w for p in (*PLACE_WORDS, *GAMES) for w in p.english] + [SOME]
    words += [d.english for d in DETERMINERS]
    words += [w for p in PREPOSITIONS for w in p.english]
    words += [p.english for p in PRONOUNS] + [p.english for p in OBJECT_PRONOUNS] + [IT[0], THERE[0]]
    words += [AND[0], BUT[0], OF[0], TO[0], *SUBORDINATORS, *(w for q in QUANTITIES for w in q), PLEASE[0]]
    return list(dict.fromkeys(words))


def _allowed_links() -> set[tuple[str, str]]:
    """(English word, French token) pairs that the lexicon says may translate each other."""
    links: set[tuple[str, str]] = set()
    for n in NOUNS:
        for number in ("sg", "pl"):
            if n.english[number == "pl"] is not None:
                links |= {(w, n.fr(number)) for w in n.en(number)}  # type: ignore[arg-type]
    for a in ADJECTIVES:
        links |= {(a.english, f) for f in a.french}
    for v in VERBS:
        third, plural, past = v.english
        links |= {(third, v.french[0])} | {(plural, f) for f in v.french[1:]}
        if v.past_is_plain:  # never in the past ("we read")
            continue
        if v.auxiliary == "avoir" and v.frame == "transitive":  # "la tarte qu' elle a faite"
            links |= {(past, aux) for aux in AVOIR}
            links |= {(past, participle(v.participle, g, n)) for g in ("m", "f") for n in ("sg", "pl")}
        elif v.auxiliary == "avoir":
            links |= {(past, aux) for aux in AVOIR} | {(past, v.participle)}
        else:
            links |= {(past, aux) for aux in ETRE_PRESENT}
            links |= {(past, participle(v.participle, g, n)) for g in ("m", "f") for n in ("sg", "pl")}
    for tense, english in COPULA_ENGLISH.items():
        french = ETRE_PRESENT if tense == "present" else ETRE_PAST
        links |= set(zip(english, french, strict=True))
    # negation: "he does not sleep" -> "il ne dort pas" (the verb aligned to does and sleep), "she did not
    # fall" -> "elle n' est pas tombée" (the auxiliary to did, the participle to fall)
    links |= {(NOT[0], NOT[1]), (NOT[0], NOT[2])}
    for v in VERBS:
        plain = v.english[1]
        links |= {(plain, v.french[0])} | set(zip(DO_ENGLISH["present"], v.french, strict=True))
        if v.past_is_plain:
            continue
        if v.auxiliary == "avoir":
            links |= {(plain, v.participle)} | {(DO_ENGLISH["past"][0], aux) for aux in AVOIR}
            if v.frame == "transitive":  # "did she see her" -> "est-ce que elle la a vue"
                links |= {(plain, participle(v.participle, g, n)) for g in ("m", "f") for n in ("sg", "pl")}
        else:
            links |= {(plain, participle(v.participle, g, n)) for g in ("m", "f") for n in ("sg", "pl")}
            links |= {(DO_ENGLISH["past"][0], aux) for aux in ETRE_PRESENT}
    for v in VERBS:  # the progressive: "is sleeping" -> "dort", "are sleeping" -> "dorment"
        links |= {(w, f) for w in v.forms[3:] for f in v.french}
        links |= set(zip(COPULA_ENGLISH["present"], v.french, strict=True))
    # modals: "can sleep" -> "peut dormir", "wants to sleep" -> "veut dormir"; in a question, do-support:
    # "does she want to sleep" -> "est-ce qu' elle veut dormir" (veut aligned to does, want and to)
    for modal, english in MODAL_ENGLISH.items():
        links |= set(zip(english, MODAL_FRENCH[modal], strict=True))
    links |= {(w, f) for w in (TO[0], "want", *DO_ENGLISH["present"]) for f in MODAL_FRENCH["want"]}
    links |= {(v.english[1], v.infinitive) for v in VERBS if v.frame != "clause"}  # never "can say that"
    links |= {
        (TO[0], v.infinitive) for v in VERBS if v.frame != "clause"
    }  # "came to see us" -> "… nous voir"
    links |= {(SOME, f) for f in ("du", "de", "la", "le", "des")}  # "some bread" -> "du pain"
    # questions: est-ce que to the word that opens the question; "does the dog sleep": dort to does and sleep
    openers = [*DO_ENGLISH["present"], *DO_ENGLISH["past"], *MODAL_ENGLISH["can"], *COPULA_ENGLISH["present"]]
    openers += MODAL_ENGLISH["will"]
    links |= {(w, f) for w in [*openers, *COPULA_ENGLISH["past"]] for f in QUESTION}
    links |= {WHERE, WHO, WHAT, VERY, MORE, THAN} | {(e, f) for e in RELATIVE[:2] for f in RELATIVE[2:]}
    for a in ADJECTIVES:  # "taller" -> "plus grand", "more famous" -> "plus célèbre"
        links |= {(w, f) for w in a.comparative for f in (*a.french, MORE[1])}
    for t in (*TIME_WORDS, *PLACE_WORDS, *GAMES):
        links |= {(t.english[e], f) for f, source in zip(t.french, t.alignment, strict=True) for e in source}
    for d in DETERMINERS:
        links |= {(d.english, f) for f in d.french if f is not None}
        if {"un", "une"} & set(d.french):  # after a negation: "does not have a car" -> "… pas de voiture"
            links.add((d.english, "de"))
    for p in PREPOSITIONS:
        links |= {(e, f) for e in p.english for f in p.french}
    links |= {(who.english, who.french) for who in PRONOUNS}
    # object pronouns: "saw her" -> "la a vue", "gave her" -> "lui a donné", "with her" -> "avec elle"
    links |= {(p.english, f) for p in OBJECT_PRONOUNS for f in (p.direct, p.indirect, p.stressed)}
    # "there is" -> "il y a", "there were" -> "il y avait"; "it rains" -> "il pleut"
    links |= {(THERE[0], THERE[1]), (THERE[0], THERE[2]), IT}
    links |= {(w, THERE_BE[tense]) for tense, forms in COPULA_ENGLISH.items() for w in forms}
    links |= {AND, BUT, OF, TO} | {(PLEASE[0], f) for f in PLEASE[1]}
    # "because" -> "parce que"; "i think it is raining" -> "je pense que il pleut", "que" to the verb
    links |= {(e, f) for e, french in SUBORDINATORS.items() for f in french}
    links |= {(w, SUBORDINATORS["that"][0]) for v in VERBS if v.frame == "clause" for w in v.forms}
    for past, (word, _) in PARTICLES.items():  # "waited for" -> "a attendu", "attendu" to both words
        v = VERB[past]
        forms = {*v.french, v.infinitive, v.participle} | {
            participle(v.participle, p.gender, p.number)
            for p in OBJECT_PRONOUNS  # "waited for her"
        }
        links |= {(w, f) for w in (word, past, v.english[1]) for f in forms}  # "waited for us": "attendus"
    # "many birds" -> "beaucoup de oiseaux", "a lot of bread" -> "beaucoup de pain": "de" to the last word
    links |= {(w, french) for q, french in QUANTITIES.items() for w in q[: len(q) - (q[-1] == OF[0])]}
    links |= {(q[-1], OF[1]) for q in QUANTITIES}
    for (
        n
    ) in NOUNS:  # a bare object's article belongs to its noun: "bread" -> "du pain", "apples" -> "des pommes"
        if n.use == "mass":
            links |= {(w, a) for w in n.en("sg") for a in ("du", "de", "la", "le")}
        if n.english[1] is not None:  # and after a negation "de": "no apples" -> "pas de pommes"
            links |= {(w, a) for w in n.en("pl") for a in ("des", "les", "de")}
    for (prep, article), contracted in CONTRACTIONS.items():
        links |= {(e, contracted) for e, f in list(links) if f in (prep, article)}
    for before, after in BEFORE_VOWEL.items():
        links |= {(e, after) for e, f in list(links) if f == before}
    return links


def english_kinds() -> dict[str, list[str]]:
    """Every English word the corpus writes, by kind (a word may be of two: "open" is an adjective and a
    verb): noun (every word of a noun, "bus" and "drivers" of "bus drivers"), verb, be (its forms), auxiliary
    (do, does, did, can, must, will), negation (not), adjective (and its comparative: "taller"), number (the
    determiners the app's lexicon calls numbers: "two", "three"), determiner, preposition (every word of one:
    "in", "front", "of"), pronoun, conjunction, adverb (very), comparison (more, than), relative (who, that),
    question (where, who), time (the words of a time word but its determiners and prepositions: "morning",
    "last", "sunday"); the place of a place word
    ("home", "work" of "at work") is a noun.
    The page lists the vocabulary by these kinds, and the translator's check for unread words reads nouns,
    verbs, adjectives, numbers, time words and "not" (app.models.translator.omissions)."""
    from app.models.lexicon import lookup

    def is_number(word: str) -> bool:
        entry = lookup(word)
        return entry is not None and entry.pos == "num"

    # the determiners and prepositions of time words ("every", "in", "the", "on") are of their own kinds only
    function_words = {d.english for d in DETERMINERS} | {w for p in PREPOSITIONS for w in p.english}
    kinds: dict[str, list[str]] = {
        "noun": [
            w for n in NOUNS for number in ("sg", "pl") if n.english[number == "pl"] for w in n.en(number)
        ]
        + [p.english[-1] for p in (*PLACE_WORDS, *GAMES)],  # "home", "work" of "at work", "football"
        "verb": [w for v in VERBS for w in v.forms] + list(MODAL_ENGLISH["want"]),
        "be": [w for forms in COPULA_ENGLISH.values() for w in forms],
        "auxiliary": [  # do, and every modal but "want", a verb of its own
            w
            for forms in (*DO_ENGLISH.values(), *(f for m, f in MODAL_ENGLISH.items() if m != "want"))
            for w in forms
        ],
        "negation": [NOT[0]],
        "adjective": [w for a in ADJECTIVES for w in (a.english, *a.comparative) if w != MORE[0]],
        "number": [d.english for d in DETERMINERS if is_number(d.english)],
        "determiner": [d.english for d in DETERMINERS if not is_number(d.english)]
        + [SOME, *(w for q in QUANTITIES for w in q if w not in (MORE[0], OF[0]))],
        "preposition": [w for p in PREPOSITIONS for w in p.english] + [OF[0], TO[0]],
        "pronoun": [p.english for p in (*PRONOUNS, *OBJECT_PRONOUNS)] + [IT[0], THERE[0]],
        "conjunction": [AND[0], BUT[0], *(w for w in SUBORDINATORS if w != RELATIVE[1])],
        "adverb": [VERY[0], PLEASE[0]],
        "comparison": [MORE[0], THAN[0]],
        "relative": list(RELATIVE[:2]),
        "question": [WHERE[0], WHO[0], WHAT[0]],
        "time": [w for t in TIME_WORDS for w in t.english if w not in function_words],
    }
    return {kind: sorted(set(words)) for kind, words in kinds.items()}


ENGLISH_WORDS: tuple[str, ...] = tuple(_english_forms())
ALLOWED_LINKS: frozenset[tuple[str, str]] = frozenset(_allowed_links())
FRENCH_WORDS: tuple[str, ...] = tuple(sorted({f for _, f in ALLOWED_LINKS} | {AND[1]}))
