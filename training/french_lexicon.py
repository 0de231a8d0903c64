"""The bilingual lexicon of the generator's parallel corpus: every English word its grammar writes, and
the French.

The entries are plain text in training/data/french_*.txt, one a line, fields separated by "|" ("-" for "no
such form"), each file's columns named in its opening comment. They are read once, at import, into the
records below; the grammar (training/parallel_phrases.py) builds sentences from them, and the vocabularies and
the word pairs an alignment may link come from them too (training/french_vocabulary.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Gender = Literal["m", "f"]
Number = Literal["sg", "pl"]
Kind = Literal["person", "animal", "thing", "food", "place", "event"]
Use = Literal["count", "mass", "one"]
LIVING: frozenset[str] = frozenset({"person", "animal"})
DATA = Path(__file__).resolve().parent / "data"

# The auxiliaries and "to be", one form per subject (a "row"): 3rd singular, 3rd plural, "nous", "je", "vous".
AVOIR = ("a", "ont", "avons", "ai", "avez")
ETRE_PRESENT = ("est", "sont", "sommes", "suis", "êtes")
# The imparfait: "the river bank was steep" -> "la rive était escarpée".
ETRE_PAST = ("était", "étaient", "étions", "étais", "étiez")
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
    "will": ("will", "will", "will", "will", "will"),  # the near future: "will see" -> "va voir"
}
MODAL_FRENCH = {
    "can": ("peut", "peuvent", "pouvons", "peux", "pouvez"),
    "must": ("doit", "doivent", "devons", "dois", "devez"),
    "want": ("veut", "veulent", "voulons", "veux", "voulez"),
    "will": ("va", "vont", "allons", "vais", "allez"),
}
# After a question that asks "can you" or "will you": "s' il vous plaît", written "si il" (spelling elides)
PLEASE = ("please", ("si", "il", "vous", "plaît"))
VERY = ("very", "très")  # before a predicate adjective: "very happy" -> "très heureux"
# Questions: yes/no with "est-ce que" before the sentence's own order ("does the dog sleep" -> "est-ce que le
# chien dort", both French words aligned to the English word that opens the question); "where", "who", and
# "what" as the object ("what does he eat" -> "que est-ce que il mange", spelled "qu' est-ce qu' il mange").
QUESTION = ("est-ce", "que")
WHERE, WHO, WHAT = ("where", "où"), ("who", "qui"), ("what", "que")


@dataclass(frozen=True)
class TimeWord:
    """A time word or phrase at the end of a clause ("yesterday" -> "hier", "every morning" -> "chaque
    matin"), and the tenses it goes with."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    tenses: tuple[str, ...]
    given: tuple[tuple[int, ...], ...] = ()  # an alignment of its own, where the rule below is wrong
    weight: float = 1.0  # how often the grammar draws it, beside the others (a duration, an hour: less)

    @property
    def alignment(self) -> tuple[tuple[int, ...], ...]:
        """Word for word when both have as many words ("every morning" -> "chaque matin"), else each French
        word to every English one ("tonight" -> "ce soir"), unless ``given``."""
        if self.given:
            return self.given
        if len(self.english) == len(self.french):
            return tuple((k,) for k in range(len(self.french)))
        return tuple(tuple(range(len(self.english))) for _ in self.french)


_BOTH = ("present", "past")
_HOURS = "five six seven eight nine ten"
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_JOURS = "lundi mardi mercredi jeudi vendredi samedi dimanche"
_MONTHS = "january february march april may june july august september october november december"
_MOIS = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
_UNITS = (("day", "jours"), ("week", "semaines"), ("hour", "heures"), ("month", "mois"), ("year", "ans"))
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
    TimeWord(("every", "night"), ("chaque", "nuit"), ("present",)),
    TimeWord(("every", "summer"), ("chaque", "été"), ("present",)),
    TimeWord(("every", "sunday"), ("chaque", "dimanche"), ("present",)),
    TimeWord(("tomorrow",), ("demain",), ("present",)),  # the present of what is planned: "we leave tomorrow"
    TimeWord(("in", "the", "morning"), ("le", "matin"), ("present",)),
    TimeWord(("in", "the", "evening"), ("le", "soir"), ("present",)),
    TimeWord(("at", "night"), ("la", "nuit"), _BOTH),
    TimeWord(("this", "week"), ("cette", "semaine"), _BOTH),
    TimeWord(("this", "year"), ("cette", "année"), _BOTH),
    TimeWord(("in", "summer"), ("en", "été"), _BOTH),
    TimeWord(("in", "winter"), ("en", "hiver"), _BOTH),
    TimeWord(("last", "week"), ("la", "semaine", "dernière"), ("past",)),
    TimeWord(("last", "month"), ("le", "mois", "dernier"), ("past",)),
    TimeWord(("last", "year"), ("la", "année", "dernière"), ("past",)),
    TimeWord(("last", "summer"), ("le", "été", "dernier"), ("past",)),
    TimeWord(("last", "winter"), ("le", "hiver", "dernier"), ("past",)),
    *(  # a meal: "for dinner" -> "pour le dîner", the article French adds aligned to the meal
        TimeWord((before, meal), (french_before, "le", *french), _BOTH, ((0,), *((1,),) * (1 + len(french))))
        for before, french_before in (("for", "pour"), ("after", "après"), ("before", "avant"))
        for meal, french in (
            ("breakfast", ("petit", "déjeuner")),
            ("lunch", ("déjeuner",)),
            ("dinner", ("dîner",)),
        )
    ),
    *(  # "for two weeks" -> "pendant deux semaines"; "at nine" -> "à neuf heures", "heures" aligned to "nine"
        TimeWord(("for", *amount, unit), ("pendant", *french), _BOTH, weight=0.5)
        for amount, unit, french in (
            *((("two",), f"{u}s", ("deux", f)) for u, f in _UNITS),
            *((("three",), f"{u}s", ("trois", f)) for u, f in _UNITS),
            *((("a",), u, (a, f)) for u, a, f in (("week", "une", "semaine"), ("month", "un", "mois"))),
            (("an",), "hour", ("une", "heure")),
        )
    ),
    *(
        TimeWord(("at", hour), ("à", french, "heures"), _BOTH, ((0,), (1,), (1,)), 0.6)
        for hour, french in zip(_HOURS.split(), "cinq six sept huit neuf dix".split(), strict=True)
    ),
    TimeWord(("at", "noon"), ("à", "midi"), _BOTH),
    TimeWord(("this", "afternoon"), ("ce", "après-midi"), _BOTH),
    TimeWord(("in", "the", "afternoon"), ("le", "après-midi"), ("present",)),
    TimeWord(("early",), ("tôt",), _BOTH),
    TimeWord(("late",), ("tard",), _BOTH),
    TimeWord(("all", "day"), ("toute", "la", "journée"), _BOTH, ((0,), (1,), (1,))),
    TimeWord(("all", "night"), ("toute", "la", "nuit"), _BOTH, ((0,), (1,), (1,))),
    *(  # "on sunday": in the past one sunday ("dimanche"), in the present every sunday ("le dimanche")
        TimeWord(("on", day), words, (tense,))
        for day, french in zip(_DAYS.split(), _JOURS.split(), strict=True)
        for tense, words in (("past", (french,)), ("present", ("le", french)))
    ),
    *(  # "in january" -> "en janvier"
        TimeWord(("in", month), ("en", french), _BOTH, weight=0.5)
        for month, french in zip(_MONTHS.split(), _MOIS.split(), strict=True)
    ),
)


@dataclass(frozen=True)
class PlaceWord:
    """A place English names without an article, after a verb of motion (``destination``: "went home",
    "go to school") or where someone is ("stayed at home", "works at school"); French gives it its article:
    "à la maison", "à la école" (spelled "à l' école"), "au travail". ``alignment[j]``: the English words
    French word j renders ("au" both "to" and "work", as a contraction renders its preposition and noun)."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]
    destination: bool


PLACE_WORDS: tuple[PlaceWord, ...] = (
    PlaceWord(("home",), ("à", "la", "maison"), ((0,), (0,), (0,)), True),
    PlaceWord(("to", "school"), ("à", "la", "école"), ((0,), (1,), (1,)), True),
    PlaceWord(("to", "work"), ("au", "travail"), ((0, 1), (1,)), True),
    PlaceWord(("to", "bed"), ("au", "lit"), ((0, 1), (1,)), True),
    PlaceWord(("at", "home"), ("à", "la", "maison"), ((0,), (1,), (1,)), False),
    PlaceWord(("at", "school"), ("à", "la", "école"), ((0,), (1,), (1,)), False),
    PlaceWord(("at", "work"), ("au", "travail"), ((0, 1), (1,)), False),
    PlaceWord(("here",), ("ici",), ((0,),), False),
    PlaceWord(("outside",), ("dehors",), ((0,),), False),
)
# The games "play" takes, which French names with "à" and the article: "they play football" -> "ils jouent au
# football" ("au" renders "play"'s preposition, which English leaves out, so it is aligned to the game).
GAMES: tuple[PlaceWord, ...] = (
    PlaceWord(("football",), ("au", "football"), ((0,), (0,)), False),
    PlaceWord(("tennis",), ("au", "tennis"), ((0,), (0,)), False),
    PlaceWord(("chess",), ("aux", "échecs"), ((0,), (0,)), False),
    PlaceWord(("cards",), ("aux", "cartes"), ((0,), (0,)), False),
)
SOME = "some"  # before a bare object, the partitive: "some bread" -> "du pain", "du" aligned to "some"

CONTRACTIONS = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}

# Preposed adjectives' masculine singular before a vowel: "le vieil arbre", "un bel oiseau", "un nouvel
# avion".
BEFORE_VOWEL = {"vieux": "vieil", "beau": "bel", "nouveau": "nouvel"}


# Object pronouns: English, then French as a direct object, as an indirect one and after a preposition, and
# the gender and number a participle after avoir agrees with ("she saw me" -> "elle me a vu", spelled "elle m'
# a vu"; "we saw her" -> "nous la avons vue"; "he gave them a book" -> "il leur a donné un livre"; "with
# them" -> "avec eux"). "me" is read as masculine and "you" as masculine plural, as for subjects.
@dataclass(frozen=True)
class ObjectPronoun:
    english: str
    direct: str
    indirect: str
    stressed: str
    gender: Gender
    number: Number


OBJECT_PRONOUNS: tuple[ObjectPronoun, ...] = (
    ObjectPronoun("me", "me", "me", "moi", "m", "sg"),
    ObjectPronoun("you", "vous", "vous", "vous", "m", "pl"),
    ObjectPronoun("him", "le", "lui", "lui", "m", "sg"),
    ObjectPronoun("her", "la", "lui", "elle", "f", "sg"),
    ObjectPronoun("us", "nous", "nous", "nous", "m", "pl"),
    ObjectPronoun("them", "les", "leur", "eux", "m", "pl"),
)
# "there is a cat in the garden" -> "il y a un chat dans le jardin" ("il" and "y" render "there", "a" or
# "avait" the form of "to be"); "it" is the subject of a verb of the weather only: "it rains" -> "il pleut".
THERE = ("there", "il", "y")
THERE_BE = {"present": "a", "past": "avait"}
IT = ("it", "il")

AND = ("and", "et")
BUT = ("but", "mais")
OF = ("of", "de")
TO = ("to", "à")
# Words that open a clause joined to another, and their French ("because" -> "parce que", both aligned to
# it). "if" joins clauses in the present only ("s' il pleut"); "that" after "said" or "thinks" is "que".
SUBORDINATORS = {"because": ("parce", "que"), "if": ("si",), "when": ("quand",), "that": ("que",)}
# Verbs (by past) whose object English puts after a preposition French has no word for, and what that
# object may be: "waited for the bus" -> "a attendu le bus", "listens to them" -> "les écoute".
PARTICLES: dict[str, tuple[str, frozenset[str]]] = {
    "waited": ("for", frozenset({"person", "animal", "thing", "event"})),
    "listened": ("to", frozenset({"person", "thing"})),
    "looked": ("at", frozenset({"person", "animal", "thing", "place", "food"})),
}
# Quantities, which French follows with "de" and no article: "many birds" -> "beaucoup de oiseaux".
QUANTITIES = {("many",): "beaucoup", ("a", "lot", "of"): "beaucoup", ("more",): "plus"}
CONTAINERS = {  # containers and the mass nouns they hold: "a cup of tea" -> "une tasse de thé"
    "cup": ("tea", "coffee", "milk", "soup", "water"),
    "glass": ("water", "milk", "juice", "wine"),
    "bottle": ("water", "milk", "juice", "wine"),
    "bowl": ("soup", "rice", "milk", "sugar"),
    "plate": ("rice", "meat", "cheese", "bread"),
}


def _rows(name: str) -> list[list[str]]:
    """The entries of training/data/french_<name>.txt, each cut at "|"; comment and blank lines skipped."""
    lines = (DATA / f"french_{name}.txt").read_text(encoding="utf-8").splitlines()
    return [[cell.strip() for cell in line.split("|")] for line in lines if line.strip() and line[0] != "#"]


_KIND_CODES = {"l": ("person", "animal"), "t": ("thing",), "f": ("food",), "p": ("place",), "e": ("event",)}


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

    @property
    def comparative(self) -> tuple[str, ...]:
        """Its English comparative, by the spelling rules: one syllable takes -er (taller, bigger, nicer),
        two ending in y take -ier (happier), the others "more" (more famous); () when the grammar never
        compares it (NOT_COMPARED, colours and origins: French "meilleur" is no "plus bon")."""
        word = self.english
        if word in NOT_COMPARED or self.kind_of == "colour":
            return ()
        syllables = len("".join(c if c in "aeiouy" else " " for c in word.rstrip("e")).split())
        if syllables <= 2 and word.endswith("y") and word[-2] not in "aeiou":
            return (word[:-1] + "ier",)  # drier, happier
        if syllables == 1:
            if word.endswith("e"):
                return (word + "r",)
            c, v, last = word[-3:] if len(word) >= 3 else ("a", "a", "a")
            cvc = c not in "aeiou" and v in "aeiou" and last not in "aeiouwxy"
            return (word + (last if cvc else "") + "er",)
        return (MORE[0], word)


# Adjectives the grammar never compares: irregular (better, worse) or absolute (empty, broken, first).
NOT_COMPARED = frozenset(
    "good bad little huge empty full broken open closed dead electric royal other first next same different "
    "wooden golden raw blind flat round ancient".split()
)
# "taller than" -> "plus grand que", "more famous" -> "plus célèbre"
MORE, THAN = ("more", "plus"), ("than", "que")
# Relative clauses: "the man who sings" -> "l' homme qui chante", "the cake that she made" -> "le gâteau qu'
# elle a fait"; "that" is also a determiner ("that cup" -> "cette tasse").
RELATIVE = ("who", "that", "qui", "que")  # the English words, then French for a subject and for an object


# Verbs (by past) the grammar never puts in the progressive ("is liking"): their -ing form is no word of it.
STATIVE = frozenset({"liked", "loved", "hated", "had", "said", "thought"})


@dataclass(frozen=True)
class Verb:
    english: tuple[str, str, str]  # 3rd singular present, plural present, past
    french: tuple[str, str, str, str, str]  # a row each: 3rd singular, 3rd plural, "nous", "je", "vous"
    participle: str
    auxiliary: Literal["avoir", "être"]
    frame: Literal["intransitive", "transitive", "ditransitive", "weather", "clause"]  # clause: "said that …"
    objects: frozenset[str] = frozenset()  # the kinds of noun its object may be
    bare: Literal["partitive", "generic", "-"] = "-"  # what a bare object becomes: du pain / le pain
    infinitive: str = ""  # after a modal: "can sleep" -> "peut dormir"

    @property
    def past_is_plain(self) -> bool:
        """Whether its simple past is spelt as its plain present ("we read"): the grammar then never writes
        it in the past, where "we read" would have two translations."""
        return self.english[2] == self.english[1]

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
OBJECT_PRONOUN = {p.english: p for p in OBJECT_PRONOUNS}


def participle(word: str, gender: Gender, number: Number) -> str:
    """Past participle agreeing with the subject (after être) or with an object before it (after avoir: "la
    tarte qu' elle a faite"): tombé, tombée, tombés, tombées; pris, prise, pris, prises."""
    plural = number == "pl" and not (word.endswith("s") and gender == "m")  # "pris" stays "pris"
    return word + ("e" if gender == "f" else "") + ("s" if plural else "")
