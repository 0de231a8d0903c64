"""A small hand-written English lexicon: every word's part of speech, semantic fields and inflection.

The sentence analysis reads two things from here. The part of speech finds the subject and its verb ("bank"
is the subject of "was" in "the river bank was steep"), and the semantic fields settle an ambiguous word:
"bank" belongs to both the water and the money field, and an unambiguous neighbour such as "river" (water
only) tells which sense is meant. The sentence generator draws its template slots from the same tables
through ``words``.

The data is kept as plain text: one block per semantic field listing its nouns, plural nouns, adjectives and
verbs, then a table of ambiguous words with their two senses, then the function words. Everything is
expanded into ``Entry`` records once, at import, and checked (one entry per word, known tags and fields,
plural nouns whose singular exists) so that a typo fails loudly instead of silently skewing the data.

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
from functools import lru_cache
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
    """

    word: str
    pos: str
    fields: tuple[str, ...]
    number: str = ""
    tense: str = ""
    transitive: bool = False
    lemma: str = ""

    def __post_init__(self) -> None:
        if not self.lemma:
            object.__setattr__(self, "lemma", self.word)

    @property
    def ambiguous(self) -> bool:
        """True when the word belongs to more than one semantic field (bank: water and money)."""
        return len(self.fields) > 1


# ---------------------------------------------------------------------------------------------------------
# Content words, one block per semantic field.
# ---------------------------------------------------------------------------------------------------------

_FIELD_WORDS: dict[str, dict[str, str]] = {
    "water": {
        "noun": """water river lake stream sea ocean pond creek shore beach wave tide waterfall canal reef
                   brook lagoon puddle flood fountain""",
        "plural": "rivers lakes waves streams",
        "adj": "wet deep shallow watery tidal coastal",
        "verb": "swim:swam flow float sink:sank dive +pour +splash +soak",
    },
    "money": {
        "noun": """money loan cash vault coin dollar debt wallet price tax profit budget deposit account fund
                   salary wage fee mortgage credit investment treasury banker payment""",
        "plural": "coins dollars tax:taxes loans debts",
        "adj": "rich broke wealthy expensive cheap costly financial",
        "verb": "+sell:sold +pay:paid +buy:bought +lend:lent +borrow +spend:spent +earn +owe +invest +save",
    },
    "land": {
        "noun": """land hill mountain valley meadow cliff cave desert canyon ridge slope soil mud sand boulder
                   volcano island""",
        "plural": "hills mountains cliffs valleys caves",
        "adj": "steep muddy rocky hilly sandy rugged dusty",
        "verb": "+dig:dug climb +plow erode crumble slide:slid +bury",
    },
    "animal": {
        "noun": """animal dog cat horse cow pig sheep goat wolf fox bear lion tiger eagle owl snake frog whale
                   shark dolphin rabbit deer duck parrot bird fish squirrel monkey elephant spider beetle ant
                   bee goose""",
        "plural": "dogs cats horses wolf:wolves birds goose:geese",
        "adj": "furry wild tame feathered fierce",
        "verb": "fly:flew bark growl howl roar graze crawl +bite:bit +chase +hunt",
    },
    "sport": {
        "noun": """sport goal referee athlete player trophy medal racket tennis soccer football baseball golf
                   hockey rugby ball score tournament champion helmet volleyball marathon league stadium team
                   game race""",
        "plural": "goals players athletes medals trophy:trophies teams",
        "adj": "athletic competitive sporty victorious",
        "verb": """+kick +throw:threw +catch:caught +win:won +lose:lost +tackle +defeat +hit:hit
                   sprint jog:jogged""",
    },
    "music": {
        "noun": """music song melody guitar piano violin drum trumpet flute choir concert lyric chord tune
                   rhythm orchestra symphony harmony opera album cello harp banjo tempo singer""",
        "plural": "songs drums guitars singers",
        "adj": "musical melodic rhythmic harmonic acoustic tuneful",
        "verb": "sing:sang hum:hummed whistle +strum:strummed +compose +perform",
    },
    "food": {
        "noun": """food bread cheese soup apple banana rice pasta cake cookie sandwich butter milk egg pizza
                   salad honey sugar pie meat beef pork noodle cereal yogurt lemon carrot potato tomato""",
        "plural": "apples eggs cookies noodles potato:potatoes tomato:tomatoes",
        "adj": "tasty delicious spicy sweet sour salty juicy crunchy stale",
        "verb": "+eat:ate +cook +bake +fry +chew +taste +slice +stir:stirred +serve +feed:fed",
    },
    "weather": {
        "noun": """weather rain snow storm wind cloud thunder lightning fog hail sunshine breeze frost drizzle
                   hurricane tornado blizzard rainbow forecast climate""",
        "plural": "clouds storms winds",
        "adj": "sunny rainy windy cloudy stormy foggy snowy humid chilly",
        "verb": "rain snow blow:blew freeze:froze thaw",
    },
    "plant": {
        "noun": """tree flower leaf grass seed root branch stem bush vine moss oak pine maple rose tulip daisy
                   weed fern cactus acorn petal forest orchard garden""",
        "plural": "trees flowers leaf:leaves seeds roots bush:bushes",
        "adj": "leafy green thorny lush woody fragrant",
        "verb": "grow:grew bloom wilt sprout blossom +prune +harvest +sow",
    },
    "body": {
        "noun": """body heart lung brain hand foot arm leg head eye ear nose mouth tooth finger knee shoulder
                   stomach skin bone blood muscle spine elbow ankle wrist throat liver""",
        "plural": "hands foot:feet eyes tooth:teeth bones fingers",
        "adj": "healthy sick sore muscular pale",
        "verb": "breathe sneeze cough blink heal bleed:bled +scratch +stretch",
    },
    "building": {
        "noun": """building house castle tower church temple cottage hotel hospital museum barn garage factory
                   palace bridge wall roof door window floor ceiling chimney staircase hallway basement
                   attic kitchen bedroom apartment""",
        "plural": "houses walls windows towers doors",
        "adj": "wooden sturdy spacious ruined haunted cozy tall",
        "verb": "+build:built +repair +demolish +construct +renovate +paint collapse",
    },
    "people": {
        "noun": """man woman child boy girl king queen doctor farmer soldier friend neighbor family crowd baby
                   uncle aunt mother father brother sister prince princess person stranger""",
        "plural": "man:men woman:women child:children person:people kings friends boys girls",
        "adj": "friendly kind happy sad angry brave lonely polite shy proud famous",
        "verb": "+greet +marry +meet:met +hug:hugged +help +visit +invite laugh smile cry talk argue",
    },
    "tool": {
        "noun": """tool hammer wrench screwdriver drill ladder shovel axe rope chain engine motor machine
                   lever pulley chisel toolbox workbench tractor magnet gear hinge clamp""",
        "plural": "hammers ropes machines tools",
        "adj": "mechanical rusty blunt heavy",
        "verb": "+drill +tighten +loosen +weld +fix +sharpen +lift",
    },
    "technology": {
        "noun": """technology computer laptop phone robot software internet screen keyboard printer camera
                   radio television battery cable server website email password processor algorithm
                   microphone""",
        "plural": "computers phones robots cables battery:batteries",
        "adj": "digital electric electronic wireless online robotic",
        "verb": "+download +upload +program:programmed +compute +scan:scanned +print +delete +hack crash",
    },
    "fire": {
        "noun": """fire flame smoke ash spark torch candle campfire fireplace bonfire ember blaze wildfire
                   furnace inferno firefighter lantern""",
        "plural": "flames sparks candles",
        "adj": "smoky fiery charred burnt",
        "verb": "burn glow flicker smolder +ignite +light:lit +extinguish +scorch",
    },
    "time": {
        "noun": """time hour minute morning evening night day week month year century decade midnight noon
                   afternoon moment clock calendar season winter summer autumn dawn dusk""",
        "plural": "hours minutes days weeks years",
        "adj": "early late daily weekly annual nightly",
        "verb": "wait expire elapse last +schedule +delay +postpone",
    },
    "travel": {
        "noun": """car bus train airplane ship boat truck bicycle taxi ticket passport luggage suitcase map
                   road highway railway airport station harbor journey trip voyage tourist passenger pilot
                   driver""",
        "plural": "cars bus:buses trains ships roads tickets",
        "adj": "scenic remote foreign bumpy crowded speedy",
        "verb": """drive:drove ride:rode sail arrive depart travel:traveled commute
                   +steer +pack +navigate +park""",
    },
    "school": {
        "noun": """school teacher student classroom lesson homework exam textbook notebook pencil eraser desk
                   chalk library principal lecture quiz grade diploma essay university semester book""",
        "plural": "students books pencils lessons teachers",
        "adj": "academic clever studious educational smart",
        "verb": "+teach:taught +learn +study +write:wrote +read:read +solve +erase +memorize",
    },
    "clothing": {
        "noun": """clothing shirt dress coat hat jacket scarf glove sock shoe boot sweater skirt belt uniform
                   pocket sleeve collar button zipper cloak""",
        "plural": "shoes boots gloves socks shirts",
        "adj": "woolen silky baggy stylish ragged fashionable",
        "verb": "+wear:wore +sew +knit:knitted +stitch +fold +mend",
    },
    "space": {
        "noun": """space planet moon sun comet asteroid galaxy rocket astronaut orbit telescope satellite
                   meteor universe nebula spaceship cosmos""",
        "plural": "planets moons comets galaxy:galaxies rockets",
        "adj": "cosmic lunar solar orbital galactic",
        "verb": "+orbit +launch +explore drift twinkle spin:spun shine:shone",
    },
}

# ---------------------------------------------------------------------------------------------------------
# Ambiguous words: each belongs to two different fields, and a neighbouring word from one of them decides.
# ---------------------------------------------------------------------------------------------------------

_AMBIGUOUS_NOUNS: dict[str, tuple[str, str]] = {
    "bank": ("water", "money"),  # the side of a river / a place that keeps money
    "bat": ("animal", "sport"),  # a flying mammal / a cricket or baseball bat
    "spring": ("time", "water"),  # the season / a source of water
    "pitch": ("sport", "music"),  # a playing field / how high a note sounds
    "bark": ("plant", "animal"),  # a tree's skin / a dog's call
    "bass": ("music", "animal"),  # a low voice or instrument / a fish
    "match": ("sport", "fire"),  # a game / a stick that lights
    "club": ("sport", "people"),  # a golf club / a society of members
    "plant": ("plant", "building"),  # something green / a power or factory plant
    "crane": ("animal", "tool"),  # a wading bird / a lifting machine
    "mouse": ("animal", "technology"),  # a rodent / a pointer device
    "seal": ("animal", "tool"),  # a sea mammal / a gasket that closes a joint
    "jam": ("food", "travel"),  # fruit preserve / a traffic jam
    "organ": ("music", "body"),  # a pipe instrument / a heart or liver
    "palm": ("plant", "body"),  # a tree / the inside of the hand
    "bolt": ("tool", "weather"),  # a threaded fastener / a flash of lightning
    "key": ("tool", "music"),  # opens a lock / a tonal centre
    "note": ("music", "school"),  # a sung tone / a written reminder
    "scale": ("music", "animal"),  # a run of notes / a fish scale
    "bow": ("music", "travel"),  # a violin bow / the front of a ship
    "ring": ("clothing", "sport"),  # worn on a finger / a boxing ring
    "trunk": ("plant", "travel"),  # a tree trunk / a car's luggage trunk
    "pen": ("school", "animal"),  # for writing / an enclosure for pigs
    "fan": ("tool", "people"),  # a machine that blows air / a supporter
    "star": ("space", "people"),  # a sun in the sky / a celebrity
    "board": ("building", "people"),  # a plank / a committee
    "current": ("water", "technology"),  # moving water / electric flow
    "mole": ("animal", "body"),  # a burrowing animal / a spot on the skin
    "pupil": ("school", "body"),  # a student / the centre of the eye
    "bill": ("money", "animal"),  # an invoice / a bird's beak
    "cell": ("body", "building"),  # a living cell / a prison cell
    "chip": ("food", "technology"),  # a potato chip / a silicon chip
    "date": ("time", "food"),  # a day on the calendar / a sweet fruit
    "nail": ("body", "tool"),  # a fingernail / a metal pin
    "pipe": ("music", "building"),  # a wind instrument / plumbing
    "horn": ("music", "animal"),  # a brass instrument / grows on a goat's head
    "tie": ("clothing", "sport"),  # a necktie / a drawn game
    "ruler": ("school", "people"),  # a measuring stick / a monarch
    "kid": ("animal", "people"),  # a young goat / a child
    "rock": ("land", "music"),  # a stone / a style of music
    "band": ("music", "clothing"),  # a group of players / a strip worn on the wrist
    "mint": ("food", "money"),  # a herb or sweet / where coins are made
    "lap": ("sport", "body"),  # one round of a track / the top of the thighs
    "nut": ("food", "tool"),  # a seed to eat / the partner of a bolt
    "wing": ("animal", "building"),  # a bird's wing / a part of a building
    "file": ("tool", "technology"),  # a metal rasp / data on a disk
    "web": ("animal", "technology"),  # a spider's web / the world wide web
    "virus": ("body", "technology"),  # an illness / malicious software
    "port": ("travel", "technology"),  # a harbour town / a socket on a computer
    "bug": ("animal", "technology"),  # an insect / a fault in a program
    "court": ("sport", "building"),  # a tennis court / a court of law
    "coach": ("sport", "travel"),  # a trainer / a long-distance bus
    "cricket": ("sport", "animal"),  # the game / the chirping insect
    "sole": ("body", "animal"),  # the underside of the foot / a flatfish
    "pool": ("water", "sport"),  # a swimming pool / the cue game
}

_AMBIGUOUS_ADJECTIVES: dict[str, tuple[str, str]] = {
    "flat": ("land", "music"),  # level ground / a lowered note
    "sharp": ("tool", "music"),  # a keen edge / a raised note
    "cold": ("weather", "body"),  # a cold day / a cold in the head
    "hot": ("fire", "food"),  # burning / spicy
}

_AMBIGUOUS_VERBS: dict[str, tuple[str, str]] = {
    "+play": ("music", "sport"),  # play a tune / play a match
    "+score": ("sport", "music"),  # score a goal / score a film
    "+charge": ("money", "technology"),  # charge a fee / charge a battery
}

# ---------------------------------------------------------------------------------------------------------
# Function words: no semantic field. Keyed by (part of speech, grammatical number).
# ---------------------------------------------------------------------------------------------------------

_FUNCTION_WORDS: dict[tuple[str, str], str] = {
    ("det", ""): "the his her their my our your its some no any all",
    ("det", "sg"): "a an this that every each another either neither",
    ("det", "pl"): "these those both many few several",
    ("pron", "sg"): """i me he him she it myself himself herself itself someone somebody everyone everybody
                       nobody nothing something anything anyone everything mine hers""",
    ("pron", "pl"): "we us they them ourselves themselves ours theirs",
    ("pron", ""): "you yours who whom what which whoever",
    ("prep", ""): """by on in near under over with at from to across along behind into of about above below
                     beneath beside between through during without around toward against onto inside
                     outside after before beyond upon within among underneath throughout for until off up
                     down out""",
    ("conj", ""): """and or but because while although though if when whenever so yet nor since unless
                     whereas whether than as""",
    ("adv", ""): """quickly slowly quietly loudly softly gently carefully suddenly eagerly happily sadly often
                    always never sometimes rarely usually very too also not here there now then soon today
                    yesterday tomorrow already still just almost again away together once everywhere""",
    ("num", "sg"): "one",
    ("num", "pl"): "two three four five six seven eight nine ten eleven twelve twenty fifty hundred thousand",
}

# Everyday content words that belong to no one topic. They have no semantic field, so they never fix a
# sense; a word already listed above with a topic keeps that entry.
_GENERAL_WORDS: dict[str, str] = {
    "noun": """way thing world life part place case point home room area story fact lot study job word
               business issue side kind service line end member law city community name president idea
               information parent face level office health art war history party result reason research
               guy air force education family group country problem number night state question government
               company system program person man woman child friend day week month year moment morning
               evening minute hour""",
    "adj": """old new young big small good bad long short high low great little own other same first last
              next right early late important different large real best better free full sure clear whole
              strong easy hard true ready simple special certain possible main only public able open
              quiet hungry brown""",
    "verb": """see:saw go:went:goes come:came get:got make:made take:took give:gave know:knew think:thought
               say:said:says tell:told find:found want look use work call try ask need feel:felt
               become:became leave:left put:put mean:meant keep:kept let:let begin:began seem help show
               hear:heard run:ran move live believe bring:brought happen write:wrote sit:sat stand:stood
               lose:lost meet:met include continue set:set learn change lead:led understand:understood
               watch follow stop:stopped create speak:spoke read:read allow add walk win:won offer remember
               love consider appear wait serve die send:sent expect build:built stay fall:fell cut:cut reach
               kill remain like talk turn start carry plan:planned sleep:slept vanish""",
    "adv": "even well only really where how why maybe perhaps later early fast hard",
}

# Copulas, auxiliaries and modals: verbs that carry tense and agreement but no topic.
# Columns: word, tense, number, lemma ("-" stands for an empty value).
_AUXILIARIES = """
    is    present sg be
    am    present sg be
    are   present pl be
    was   past    sg be
    were  past    pl be
    be    -       -  be
    been  -       -  be
    being -       -  be
    has   present sg have
    have  present pl have
    had   past    -  have
    does  present sg do
    do    present pl do
    did   past    -  do
    will  present -  will
    would past    -  will
    can   present -  can
    could past    -  can
    shall present -  shall
    should past   -  shall
    may   present -  may
    might past    -  may
    must  present -  must
"""

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


def _build() -> dict[str, Entry]:
    entries: list[Entry] = []

    for field, block in _FIELD_WORDS.items():
        if field not in FIELDS:
            raise ValueError(f"field block {field!r} is not in FIELDS")
        only = (field,)
        entries += [Entry(w, "noun", only, number="sg") for w in block["noun"].split()]
        entries += [_plural_entry(t, field) for t in block["plural"].split()]
        entries += [Entry(w, "adj", only) for w in block["adj"].split()]
        for token in block["verb"].split():
            entries += _verb_entries(token, only)

    for word, senses in _AMBIGUOUS_NOUNS.items():
        entries.append(Entry(word, "noun", senses, number="sg"))
    for word, senses in _AMBIGUOUS_ADJECTIVES.items():
        entries.append(Entry(word, "adj", senses))
    for token, senses in _AMBIGUOUS_VERBS.items():
        entries += _verb_entries(token, senses)
    for senses_of in (_AMBIGUOUS_NOUNS, _AMBIGUOUS_ADJECTIVES, _AMBIGUOUS_VERBS):
        for word, senses in senses_of.items():
            if len(set(senses)) != 2:
                raise ValueError(f"ambiguous word {word!r} needs two different senses")

    for (pos, number), text in _FUNCTION_WORDS.items():
        entries += [Entry(w, pos, (), number=number) for w in text.split()]

    for line in _AUXILIARIES.strip().splitlines():
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
        for pos, text in _GENERAL_WORDS.items()
        if pos != "verb"
        for w in text.split()
    ]
    for token in _GENERAL_WORDS["verb"].split():
        fillers += _verb_entries(token, ())
    fillers += [
        Entry(e.lemma, "verb", e.fields, number="pl", tense="present", transitive=e.transitive, lemma=e.lemma)
        for e in [*table.values(), *fillers]
        if e.pos == "verb" and e.tense == "past" and e.lemma != "be"
    ]
    for entry in fillers:
        _check(entry)
        table.setdefault(entry.word, entry)

    # A plural must point at a singular noun of the same field, which catches misspelt plurals.
    for entry in table.values():
        if entry.pos == "noun" and entry.number == "pl":
            base = table.get(entry.lemma)
            if base is None or base.pos != "noun" or base.fields != entry.fields:
                raise ValueError(f"plural {entry.word!r} has no matching singular {entry.lemma!r}")
    return table


LEXICON: Mapping[str, Entry] = MappingProxyType(_build())

# ---------------------------------------------------------------------------------------------------------
# Public helpers.
# ---------------------------------------------------------------------------------------------------------

_STRIP = string.punctuation + string.whitespace + "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014"


def _normalise(word: str) -> str:
    return word.strip(_STRIP).lower().replace("\u2019", "'")


def lookup(word: str) -> Entry | None:
    """The entry for ``word``, ignoring case and surrounding punctuation; None if it is not listed.

    A possessive is read as its noun: "River's" finds "river".
    """
    key = _normalise(word)
    entry = LEXICON.get(key)
    if entry is None and key.endswith("'s"):
        entry = LEXICON.get(key[:-2])
    return entry


# Suffix rules for words the lexicon does not know, tried in order (the first match wins).
_SUFFIX_RULES: tuple[tuple[str, str], ...] = (
    ("ly", "adv"),
    ("ed", "verb"),
    ("ing", "verb"),
    ("ous", "adj"),
    ("ful", "adj"),
    ("ive", "adj"),
    ("able", "adj"),
    ("al", "adj"),
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
    """A part of speech for a word the lexicon lacks, read from its ending.

    -ly: adv; -ed, -ing: verb; -ous, -ful, -ive, -able, -al: adj; anything else (plural -s included): noun.
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
    "lookup",
    "transitive_verbs",
    "words",
]
