"""The bilingual lexicon of the generator's parallel corpus: every English word its grammar writes, and
the French.

The entries are plain text in training/data/french_*.txt, one a line, fields separated by "|" ("-" for "no
such form"), each file's columns named in its opening comment. They are read once, at import, into the
records below; the grammar (training/parallel_phrases.py) builds sentences from them, and the vocabularies and
the word pairs an alignment may link come from them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Gender = Literal["m", "f"]
Number = Literal["sg", "pl"]
Kind = Literal["person", "animal", "thing", "food", "place"]
Use = Literal["count", "mass", "one"]
LIVING: frozenset[str] = frozenset({"person", "animal"})
DATA = Path(__file__).resolve().parent / "data"

# The auxiliaries and "to be", one form per subject (a "row"): 3rd singular, 3rd plural, "nous", "je", "vous".
AVOIR = ("a", "ont", "avons", "ai", "avez")
ETRE_PRESENT = ("est", "sont", "sommes", "suis", "êtes")
ETRE_PAST = (
    "était",
    "étaient",
    "étions",
    "étais",
    "étiez",
)  # the imparfait: "the river bank was steep" -> "la rive était escarpée"
# English "to be" by tense, for the same rows: "i" is "am"/"was", "you" and "we" are "are"/"were".
COPULA_ENGLISH = {
    "present": ("is", "are", "are", "am", "are"),
    "past": ("was", "were", "were", "was", "were"),
}

# Negation: "does not sleep" -> "ne dort pas", "did not sleep" -> "n' a pas dormi", "is not" -> "n' est pas".
# The English auxiliary by tense, for the same rows as the copula.
DO_ENGLISH = {
    "present": ("does", "do", "do", "do", "do"),
    "past": ("did", "did", "did", "did", "did"),
}
NOT = ("not", "ne", "pas")  # the English word and the two French ones around the verb
# The progressive, in the present only: "is sleeping" -> "dort", the French verb aligned to both English words
# (the past progressive would need the imparfait, which the grammar does not write).

# Modals, in the present, for the same rows as the copula: "can sleep" -> "peut dormir", "wants to sleep" ->
# "veut dormir"; the French modal is aligned to the English one (and "to"), the infinitive to the verb.
MODAL_ENGLISH = {
    "can": ("can", "can", "can", "can", "can"),
    "must": ("must", "must", "must", "must", "must"),
    "want": ("wants", "want", "want", "want", "want"),
}
MODAL_FRENCH = {
    "can": ("peut", "peuvent", "pouvons", "peux", "pouvez"),
    "must": ("doit", "doivent", "devons", "dois", "devez"),
    "want": ("veut", "veulent", "voulons", "veux", "voulez"),
}
VERY = ("very", "très")  # before a predicate adjective: "very happy" -> "très heureux"
# Questions: yes/no with "est-ce que" before the sentence's own order ("does the dog sleep" -> "est-ce que le
# chien dort", both French words aligned to the English word that opens the question); "where" and "who".
QUESTION = ("est-ce", "que")
WHERE = ("where", "où")
WHO = ("who", "qui")


@dataclass(frozen=True)
class TimeWord:
    """A time word or phrase at the end of a clause ("yesterday" -> "hier", "every morning" -> "chaque
    matin"), and the tenses it goes with."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    tenses: tuple[str, ...]

    @property
    def alignment(self) -> tuple[tuple[int, ...], ...]:
        """Word for word when both have as many words ("every morning" -> "chaque matin"), else each French
        word to every English one ("tonight" -> "ce soir")."""
        if len(self.english) == len(self.french):
            return tuple((k,) for k in range(len(self.french)))
        return tuple(tuple(range(len(self.english))) for _ in self.french)


_BOTH = ("present", "past")
TIME_WORDS: tuple[TimeWord, ...] = (
    TimeWord(("yesterday",), ("hier",), ("past",)),
    TimeWord(("last", "night"), ("hier", "soir"), ("past",)),
    TimeWord(("today",), ("aujourd'hui",), _BOTH),
    TimeWord(("this", "morning"), ("ce", "matin"), _BOTH),
    TimeWord(("now",), ("maintenant",), ("present",)),
    TimeWord(("tonight",), ("ce", "soir"), ("present",)),
    TimeWord(("every", "day"), ("chaque", "jour"), ("present",)),
    TimeWord(("every", "morning"), ("chaque", "matin"), ("present",)),
    TimeWord(("every", "evening"), ("chaque", "soir"), ("present",)),
)

CONTRACTIONS = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}

# Elision and the forms before a vowel (or a mute h: every French word of the lexicon beginning with h has
# one). A word of the left column becomes the right one when the next French word begins with a vowel:
# "le arbre" -> "l' arbre" (two tokens, "l'" aligned as "le" was), "ce arbre" -> "cet arbre", "ma école" ->
# "mon école", "je ai" -> "j' ai". The elided article is no longer "le"/"les", so it never contracts
# ("près de l' arbre", "à l' homme").
ELISION = {
    "le": "l'",
    "la": "l'",
    "de": "d'",
    "je": "j'",
    "ne": "n'",
    "que": "qu'",
    "ce": "cet",
    "ma": "mon",
    "ta": "ton",
    "sa": "son",
}
# Preposed adjectives' masculine singular before a vowel: "le vieil arbre", "un bel oiseau", "un nouvel
# avion".
BEFORE_VOWEL = {"vieux": "vieil", "beau": "bel", "nouveau": "nouvel"}
VOWELS = tuple("aeiouyàâäéèêëîïôöûüœh")


def begins_with_vowel(word: str) -> bool:
    """True if a French word takes elision before it (a vowel, or h: the lexicon's h is always mute)."""
    return word.startswith(VOWELS)


AND = ("and", "et")
BUT = ("but", "mais")
OF = ("of", "de")
TO = ("to", "à")


def _rows(name: str) -> list[list[str]]:
    """The entries of training/data/french_<name>.txt, each cut at "|"; comment and blank lines skipped."""
    lines = (DATA / f"french_{name}.txt").read_text(encoding="utf-8").splitlines()
    return [[cell.strip() for cell in line.split("|")] for line in lines if line.strip() and line[0] != "#"]


_KIND_CODES = {"l": ("person", "animal"), "t": ("thing",), "f": ("food",), "p": ("place",)}


def _kinds(codes: str) -> frozenset[str]:
    return frozenset(kind for code in codes if code != "-" for kind in _KIND_CODES[code])


@dataclass(frozen=True)
class Noun:
    english: tuple[str, str | None]  # singular, plural (None: only used in the singular)
    french: tuple[str, str | None]
    gender: Gender
    kind: Kind
    use: Use = "count"

    def en(self, number: Number) -> list[str]:
        word = self.english[0 if number == "sg" else 1]
        assert word is not None, f"{self.english[0]!r} has no plural"
        return word.split()

    def fr(self, number: Number) -> str:
        word = self.french[0 if number == "sg" else 1]
        assert word is not None, f"{self.french[0]!r} has no plural"
        return word


@dataclass(frozen=True)
class Adjective:
    english: str
    french: tuple[str, str, str, str]  # m sg, f sg, m pl, f pl
    before_noun: bool
    kinds: frozenset[str]
    kind_of: str = "quality"  # opinion, size, age (preposed); quality, colour (after the noun)

    def fr(self, gender: Gender, number: Number) -> str:
        return self.french[(gender == "f") + 2 * (number == "pl")]


# Verbs (by past) the grammar never puts in the progressive ("is liking"): their -ing form is no word of it.
STATIVE = frozenset({"liked", "loved", "hated", "had"})


@dataclass(frozen=True)
class Verb:
    english: tuple[str, str, str]  # 3rd singular present, plural present, past
    french: tuple[str, str, str, str, str]  # a row each: 3rd singular, 3rd plural, "nous", "je", "vous"
    participle: str
    auxiliary: Literal["avoir", "être"]
    frame: Literal["intransitive", "transitive", "ditransitive"]
    objects: frozenset[str] = frozenset()  # the kinds of noun its object may be
    bare: Literal["partitive", "generic", "-"] = "-"  # what a bare object becomes: du pain / le pain
    infinitive: str = ""  # after a modal: "can sleep" -> "peut dormir"

    @property
    def forms(self) -> tuple[str, ...]:
        """Its English forms: the three of ``english``, then the -ing form unless it is STATIVE."""
        return self.english if self.english[2] in STATIVE else (*self.english, self.ing)

    @property
    def ing(self) -> str:
        """The English -ing form, by the spelling rules: sleeping, dancing, seeing, running, opening."""
        plain = self.english[1]
        if plain.endswith("e") and not plain.endswith(("ee", "ye", "oe")):
            return plain[:-1] + "ing"
        vowel_groups = [g for g in "".join(c if c in "aeiou" else " " for c in plain).split()]
        ends_cvc = (
            len(plain) >= 3
            and plain[-1] not in "aeiouwxy"
            and plain[-2] in "aeiou"
            and plain[-3] not in "aeiou"
        )
        return plain + (plain[-1] if ends_cvc and len(vowel_groups) == 1 else "") + "ing"


@dataclass(frozen=True)
class Determiner:
    english: str
    numbers: tuple[Number, ...]
    french: tuple[str | None, str | None, str | None]  # m sg, f sg, plural

    def fr(self, gender: Gender, number: Number) -> str:
        word = self.french[2 if number == "pl" else int(gender == "f")]
        assert word is not None
        return word


@dataclass(frozen=True)
class Preposition:
    english: tuple[str, ...]
    french: tuple[str, ...]
    kinds: frozenset[str]


@dataclass(frozen=True)
class Pronoun:
    english: str
    french: str
    gender: Gender
    number: Number
    person: int


def _maybe(cell: str) -> str | None:
    return None if cell == "-" else cell


NOUNS: tuple[Noun, ...] = tuple(
    Noun((sg, _maybe(pl)), (fsg, _maybe(fpl)), gender, kind, use)  # type: ignore[arg-type]
    for sg, pl, fsg, fpl, gender, kind, use in _rows("nouns")
)
ADJECTIVES: tuple[Adjective, ...] = tuple(
    Adjective(en, (ms, fs, mp, fp), position == "pre", _kinds(kinds), kind_of)
    for en, ms, fs, mp, fp, position, kinds, kind_of in _rows("adjectives")
)
VERBS: tuple[Verb, ...] = tuple(
    Verb((s, p, past), (f3s, f3p, f1p, f1s, f2p), part, aux, frame, _kinds(objects), bare, inf)  # type: ignore[arg-type]
    for s, p, past, f3s, f3p, f1p, f1s, f2p, part, aux, frame, objects, bare, inf in _rows("verbs")
)
DETERMINERS: tuple[Determiner, ...] = tuple(
    Determiner(
        en,
        ("sg", "pl") if numbers == "both" else (numbers,),  # type: ignore[arg-type]
        (_maybe(ms), _maybe(fs), _maybe(pl)),
    )
    for en, numbers, ms, fs, pl in _rows("determiners")
)
PREPOSITIONS: tuple[Preposition, ...] = tuple(
    Preposition(tuple(en.split()), tuple(fr.split()), _kinds(kinds))
    for en, fr, kinds in _rows("prepositions")
)
PRONOUNS: tuple[Pronoun, ...] = tuple(
    Pronoun(en, fr, gender, number, int(person))  # type: ignore[arg-type]
    for en, fr, gender, number, person in _rows("pronouns")
)

# Each entry by its English: a noun or adjective by its dictionary form, a verb by its past ("slept").
NOUN = {n.english[0]: n for n in NOUNS}
ADJECTIVE = {a.english: a for a in ADJECTIVES}
VERB = {v.english[2]: v for v in VERBS}  # by past form: "slept"
DETERMINER = {d.english: d for d in DETERMINERS}
PREPOSITION = {" ".join(p.english): p for p in PREPOSITIONS}
PRONOUN = {p.english: p for p in PRONOUNS}


def lexicon_entries() -> list[tuple[str, str]]:
    """Every entry of the lexicon once, as (English dictionary form, part of speech): ("river bank", "noun"),
    ("open", "adj") and ("open", "verb") are two entries."""
    return [
        *((n.english[0], "noun") for n in NOUNS),
        *((a.english, "adj") for a in ADJECTIVES),
        *((v.english[1], "verb") for v in VERBS),
        ("be", "verb"),
        *((d.english, "det") for d in DETERMINERS),
        *((" ".join(p.english), "prep") for p in PREPOSITIONS),
        *((p.english, "pron") for p in PRONOUNS),
        ("do", "verb"),
        ("can", "verb"),
        ("must", "verb"),
        (VERY[0], "adv"),
        ("want", "verb"),
        (WHERE[0], "adv"),
        (WHO[0], "pron"),
        *((" ".join(t.english), "adv") for t in TIME_WORDS),
        (NOT[0], "adv"),
        (AND[0], "conj"),
        (BUT[0], "conj"),
        (OF[0], "prep"),
        (TO[0], "prep"),
    ]


def participle(word: str, gender: Gender, number: Number) -> str:
    """Past participle agreeing with the subject (after être): tombé, tombée, tombés, tombées."""
    return word + ("e" if gender == "f" else "") + ("s" if number == "pl" else "")


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
    words += [w for forms in MODAL_ENGLISH.values() for w in forms] + [WHERE[0], WHO[0], VERY[0]]
    words += [w for t in TIME_WORDS for w in t.english]
    words += [d.english for d in DETERMINERS]
    words += [w for p in PREPOSITIONS for w in p.english]
    words += [p.english for p in PRONOUNS]
    words += [AND[0], BUT[0], OF[0], TO[0]]
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
        if v.auxiliary == "avoir":
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
        if v.auxiliary == "avoir":
            links |= {(plain, v.participle)} | {(DO_ENGLISH["past"][0], aux) for aux in AVOIR}
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
    links |= {(v.english[1], v.infinitive) for v in VERBS}
    # questions: est-ce que to the word that opens the question; "does the dog sleep": dort to does and sleep
    openers = [*DO_ENGLISH["present"], *DO_ENGLISH["past"], *MODAL_ENGLISH["can"], *COPULA_ENGLISH["present"]]
    links |= {(w, f) for w in [*openers, *COPULA_ENGLISH["past"]] for f in QUESTION}
    links |= {WHERE, WHO, VERY}
    for t in TIME_WORDS:
        links |= {(t.english[e], f) for f, source in zip(t.french, t.alignment, strict=True) for e in source}
    for d in DETERMINERS:
        links |= {(d.english, f) for f in d.french if f is not None}
    for p in PREPOSITIONS:
        links |= {(e, f) for e in p.english for f in p.french}
    links |= {(who.english, who.french) for who in PRONOUNS}
    links |= {AND, BUT, OF, TO}
    for (
        n
    ) in NOUNS:  # a bare object's article belongs to its noun: "bread" -> "du pain", "apples" -> "des pommes"
        if n.use == "mass":
            links |= {(w, a) for w in n.en("sg") for a in ("du", "de", "la", "le", "l'")}
        if n.english[1] is not None:
            links |= {(w, a) for w in n.en("pl") for a in ("des", "les")}
    for (prep, article), contracted in CONTRACTIONS.items():
        links |= {(e, contracted) for e, f in list(links) if f in (prep, article)}
    for before, after in (ELISION | BEFORE_VOWEL).items():
        links |= {(e, after) for e, f in list(links) if f == before}
    return links


def english_kinds() -> dict[str, list[str]]:
    """Every English word the corpus writes, by kind (a word may be of two: "open" is an adjective and a
    verb): noun (every word of a noun, "bus" and "drivers" of "bus drivers"), verb, be (its forms), auxiliary
    (do, does, did, can, must), negation (not), adjective, number (the determiners the app's lexicon calls
    numbers: "two", "three"), determiner, preposition (every word of one: "in", "front", "of"), pronoun,
    conjunction, adverb (very), question (where, who), time (every word of a time word: "every", "morning").
    The page lists the vocabulary by these kinds, and the translator's check for unread words reads nouns,
    verbs, adjectives, numbers and "not" (app.models.translator.omissions)."""
    from app.models.lexicon import lookup

    def is_number(word: str) -> bool:
        entry = lookup(word)
        return entry is not None and entry.pos == "num"

    kinds: dict[str, list[str]] = {
        "noun": [
            w for n in NOUNS for number in ("sg", "pl") if n.english[number == "pl"] for w in n.en(number)
        ],
        "verb": [w for v in VERBS for w in v.forms] + list(MODAL_ENGLISH["want"]),
        "be": [w for forms in COPULA_ENGLISH.values() for w in forms],
        "auxiliary": [w for forms in (*DO_ENGLISH.values(), MODAL_ENGLISH["can"], ("must",)) for w in forms],
        "negation": [NOT[0]],
        "adjective": [a.english for a in ADJECTIVES],
        "number": [d.english for d in DETERMINERS if is_number(d.english)],
        "determiner": [d.english for d in DETERMINERS if not is_number(d.english)],
        "preposition": [w for p in PREPOSITIONS for w in p.english] + [OF[0], TO[0]],
        "pronoun": [p.english for p in PRONOUNS],
        "conjunction": [AND[0], BUT[0]],
        "adverb": [VERY[0]],
        "question": [WHERE[0], WHO[0]],
        "time": [w for t in TIME_WORDS for w in t.english],
    }
    return {kind: sorted(set(words)) for kind, words in kinds.items()}


ENGLISH_WORDS: tuple[str, ...] = tuple(_english_forms())
ALLOWED_LINKS: frozenset[tuple[str, str]] = frozenset(_allowed_links())
FRENCH_WORDS: tuple[str, ...] = tuple(sorted({f for _, f in ALLOWED_LINKS} | {AND[1]}))
