"""Figure 4's parallel corpus: English sentences, their French translations, and the word alignment of each.

A small grammar writes an English sentence and its French translation side by side, so every French token
knows which English words it came from. The grammar covers what makes French differ from English word for
word:

* **gender and number**: determiners, adjectives and past participles agree with their noun
  ("the old crane" -> "la vieille grue", "the old cranes" -> "les vieilles grues");
* **adjective order**: most adjectives follow the noun ("the red door" -> "la porte rouge"), a few precede it
  (petit, grand, vieux, jeune, beau, bon, nouveau, joli, mauvais, long), two that follow are joined by an
  inserted "et" that no English word produced;
* **verbs**: the present agrees with the subject's number and person ("the dog sleeps" -> "le chien dort",
  "we sleep" -> "nous dormons"); the past is the imparfait for "to be" ("was" -> "était") and the passé
  composé elsewhere, with avoir ("slept" -> "a dormi") or with être, whose participle agrees
  ("she fell" -> "elle est tombée");
* **compounds**: two English words, one French noun ("river bank" -> "rive", "apple tree" -> "pommier");
* **contractions**: de + le -> du, de + les -> des, à + le -> au, à + les -> aux; the contracted word is
  aligned to both English words ("near the" -> "du").

French elision (l', d', qu') never arises: every French noun and preposed adjective starts with a consonant,
and "de" is never followed by "un"/"une" (a noun phrase after "of" or "near" never takes "a").

The alignment of a pair gives, for each French token, the indices of the English tokens it translates; an
inserted word ("et" between two adjectives) has none. The same grammar builds the three examples of
figure 1 (``EXAMPLES``), which always belong to the training set.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Gender = Literal["m", "f"]
Number = Literal["sg", "pl"]
Kind = Literal["person", "animal", "thing", "place"]
LIVING: frozenset[str] = frozenset({"person", "animal"})

# ---------------------------------------------------------------------------------------------------------
# The lexicon. Each table is plain text, one entry a line, fields separated by "|"; "-" means "no such form".
# ---------------------------------------------------------------------------------------------------------

# english singular | english plural | french singular | french plural | gender | kind
_NOUNS = """
boy | boys | garçon | garçons | m | person
girl | girls | fille | filles | f | person
woman | women | femme | femmes | f | person
king | kings | roi | rois | m | person
queen | queens | reine | reines | f | person
farmer | farmers | fermier | fermiers | m | person
doctor | doctors | médecin | médecins | m | person
teacher | teachers | professeur | professeurs | m | person
baker | bakers | boulanger | boulangers | m | person
fisherman | fishermen | pêcheur | pêcheurs | m | person
soldier | soldiers | soldat | soldats | m | person
mother | mothers | mère | mères | f | person
father | fathers | père | pères | m | person
sister | sisters | sœur | sœurs | f | person
brother | brothers | frère | frères | m | person
neighbor | neighbors | voisin | voisins | m | person
singer | singers | chanteur | chanteurs | m | person
police officer | police officers | policier | policiers | m | person
bus driver | bus drivers | chauffeur | chauffeurs | m | person
dog | dogs | chien | chiens | m | animal
cat | cats | chat | chats | m | animal
horse | horses | cheval | chevaux | m | animal
cow | cows | vache | vaches | f | animal
goat | goats | chèvre | chèvres | f | animal
wolf | wolves | loup | loups | m | animal
fox | foxes | renard | renards | m | animal
rabbit | rabbits | lapin | lapins | m | animal
pig | pigs | cochon | cochons | m | animal
duck | ducks | canard | canards | m | animal
mouse | mice | souris | souris | f | animal
bat | bats | chauve-souris | chauves-souris | f | animal
hen | hens | poule | poules | f | animal
fish | - | poisson | - | m | animal
snake | snakes | serpent | serpents | m | animal
frog | frogs | grenouille | grenouilles | f | animal
lion | lions | lion | lions | m | animal
tiger | tigers | tigre | tigres | m | animal
book | books | livre | livres | m | thing
table | tables | table | tables | f | thing
chair | chairs | chaise | chaises | f | thing
car | cars | voiture | voitures | f | thing
train | trains | train | trains | m | thing
boat | boats | bateau | bateaux | m | thing
bus | buses | bus | bus | m | thing
bike | bikes | vélo | vélos | m | thing
truck | trucks | camion | camions | m | thing
door | doors | porte | portes | f | thing
window | windows | fenêtre | fenêtres | f | thing
wall | walls | mur | murs | m | thing
roof | roofs | toit | toits | m | thing
lamp | lamps | lampe | lampes | f | thing
bed | beds | lit | lits | m | thing
key | keys | clé | clés | f | thing
box | boxes | boîte | boîtes | f | thing
ball | balls | balle | balles | f | thing
hat | hats | chapeau | chapeaux | m | thing
shoe | shoes | chaussure | chaussures | f | thing
coat | coats | manteau | manteaux | m | thing
dress | dresses | robe | robes | f | thing
knife | knives | couteau | couteaux | m | thing
cup | cups | tasse | tasses | f | thing
glass | glasses | verre | verres | m | thing
bottle | bottles | bouteille | bouteilles | f | thing
letter | letters | lettre | lettres | f | thing
picture | pictures | tableau | tableaux | m | thing
bag | bags | sac | sacs | m | thing
basket | baskets | panier | paniers | m | thing
pen | pens | stylo | stylos | m | thing
bell | bells | cloche | cloches | f | thing
stone | stones | pierre | pierres | f | thing
flower | flowers | fleur | fleurs | f | thing
apple | apples | pomme | pommes | f | thing
cake | cakes | gâteau | gâteaux | m | thing
song | songs | chanson | chansons | f | thing
crane | cranes | grue | grues | f | thing
bread | - | pain | - | m | thing
cheese | - | fromage | - | m | thing
soup | - | soupe | - | f | thing
milk | - | lait | - | m | thing
wine | - | vin | - | m | thing
moon | - | lune | - | f | thing
sun | - | soleil | - | m | thing
ice cream | ice creams | glace | glaces | f | thing
apple tree | apple trees | pommier | pommiers | m | thing
house | houses | maison | maisons | f | place
garden | gardens | jardin | jardins | m | place
river | rivers | rivière | rivières | f | place
river bank | river banks | rive | rives | f | place
bank | banks | banque | banques | f | place
lake | lakes | lac | lacs | m | place
forest | forests | forêt | forêts | f | place
field | fields | champ | champs | m | place
road | roads | route | routes | f | place
street | streets | rue | rues | f | place
village | villages | village | villages | m | place
city | cities | ville | villes | f | place
castle | castles | château | châteaux | m | place
tower | towers | tour | tours | f | place
bridge | bridges | pont | ponts | m | place
mountain | mountains | montagne | montagnes | f | place
hill | hills | colline | collines | f | place
beach | beaches | plage | plages | f | place
sea | seas | mer | mers | f | place
cave | caves | grotte | grottes | f | place
dock | docks | quai | quais | m | place
market | markets | marché | marchés | m | place
kitchen | kitchens | cuisine | cuisines | f | place
bedroom | bedrooms | chambre | chambres | f | place
park | parks | parc | parcs | m | place
farm | farms | ferme | fermes | f | place
shop | shops | magasin | magasins | m | place
train station | train stations | gare | gares | f | place
post office | post offices | poste | postes | f | place
"""

# english | masculine singular | feminine singular | masculine plural | feminine plural | position | kinds
# position "pre" goes before the noun in French, "post" after it; kinds: which nouns it may describe
# (l: people and animals, t: things, p: places).
_ADJECTIVES = """
small | petit | petite | petits | petites | pre | ltp
big | grand | grande | grands | grandes | pre | ltp
old | vieux | vieille | vieux | vieilles | pre | ltp
young | jeune | jeune | jeunes | jeunes | pre | l
beautiful | beau | belle | beaux | belles | pre | ltp
good | bon | bonne | bons | bonnes | pre | lt
new | nouveau | nouvelle | nouveaux | nouvelles | pre | tp
pretty | joli | jolie | jolis | jolies | pre | ltp
bad | mauvais | mauvaise | mauvais | mauvaises | pre | lt
long | long | longue | longs | longues | pre | tp
red | rouge | rouge | rouges | rouges | post | ltp
black | noir | noire | noirs | noires | post | ltp
white | blanc | blanche | blancs | blanches | post | ltp
green | vert | verte | verts | vertes | post | tp
blue | bleu | bleue | bleus | bleues | post | tp
yellow | jaune | jaune | jaunes | jaunes | post | tp
grey | gris | grise | gris | grises | post | ltp
cold | froid | froide | froids | froides | post | ltp
hot | chaud | chaude | chauds | chaudes | post | tp
wet | mouillé | mouillée | mouillés | mouillées | post | ltp
dry | sec | sèche | secs | sèches | post | tp
steep | escarpé | escarpée | escarpés | escarpées | post | p
dark | sombre | sombre | sombres | sombres | post | tp
quiet | calme | calme | calmes | calmes | post | lp
tired | fatigué | fatiguée | fatigués | fatiguées | post | l
happy | heureux | heureuse | heureux | heureuses | post | l
sad | triste | triste | tristes | tristes | post | l
rich | riche | riche | riches | riches | post | lp
poor | pauvre | pauvre | pauvres | pauvres | post | lp
fast | rapide | rapide | rapides | rapides | post | lt
slow | lent | lente | lents | lentes | post | lt
strong | fort | forte | forts | fortes | post | lt
heavy | lourd | lourde | lourds | lourdes | post | t
empty | vide | vide | vides | vides | post | tp
full | plein | pleine | pleins | pleines | post | tp
clean | propre | propre | propres | propres | post | tp
dirty | sale | sale | sales | sales | post | ltp
round | rond | ronde | ronds | rondes | post | t
narrow | étroit | étroite | étroits | étroites | post | p
wide | large | large | larges | larges | post | p
deep | profond | profonde | profonds | profondes | post | p
famous | célèbre | célèbre | célèbres | célèbres | post | lp
broken | cassé | cassée | cassés | cassées | post | t
closed | fermé | fermée | fermés | fermées | post | tp
open | ouvert | ouverte | ouverts | ouvertes | post | tp
sick | malade | malade | malades | malades | post | l
angry | fâché | fâchée | fâchés | fâchées | post | l
hungry | affamé | affamée | affamés | affamées | post | l
brave | courageux | courageuse | courageux | courageuses | post | l
lazy | paresseux | paresseuse | paresseux | paresseuses | post | l
busy | occupé | occupée | occupés | occupées | post | lp
"""

# english: 3rd singular present | plural present | past  ||  french: 3rd singular | 3rd plural | "nous" |
# past participle | auxiliary | frame (intransitive, transitive, or ditransitive: "X gave Y to Z")
_VERBS = """
sleeps | sleep | slept | dort | dorment | dormons | dormi | avoir | intransitive
runs | run | ran | court | courent | courons | couru | avoir | intransitive
walks | walk | walked | marche | marchent | marchons | marché | avoir | intransitive
swims | swim | swam | nage | nagent | nageons | nagé | avoir | intransitive
sings | sing | sang | chante | chantent | chantons | chanté | avoir | intransitive
dances | dance | danced | danse | dansent | dansons | dansé | avoir | intransitive
laughs | laugh | laughed | rit | rient | rions | ri | avoir | intransitive
waits | wait | waited | attend | attendent | attendons | attendu | avoir | intransitive
plays | play | played | joue | jouent | jouons | joué | avoir | intransitive
works | work | worked | travaille | travaillent | travaillons | travaillé | avoir | intransitive
falls | fall | fell | tombe | tombent | tombons | tombé | être | intransitive
arrives | arrive | arrived | arrive | arrivent | arrivons | arrivé | être | intransitive
comes | come | came | vient | viennent | venons | venu | être | intransitive
leaves | leave | left | part | partent | partons | parti | être | intransitive
stays | stay | stayed | reste | restent | restons | resté | être | intransitive
sees | see | saw | voit | voient | voyons | vu | avoir | transitive
likes | like | liked | aime | aiment | aimons | aimé | avoir | transitive
eats | eat | ate | mange | mangent | mangeons | mangé | avoir | transitive
finds | find | found | trouve | trouvent | trouvons | trouvé | avoir | transitive
watches | watch | watched | regarde | regardent | regardons | regardé | avoir | transitive
follows | follow | followed | suit | suivent | suivons | suivi | avoir | transitive
carries | carry | carried | porte | portent | portons | porté | avoir | transitive
sells | sell | sold | vend | vendent | vendons | vendu | avoir | transitive
buys | buy | bought | achète | achètent | achetons | acheté | avoir | transitive
chases | chase | chased | chasse | chassent | chassons | chassé | avoir | transitive
hears | hear | heard | entend | entendent | entendons | entendu | avoir | transitive
opens | open | opened | ouvre | ouvrent | ouvrons | ouvert | avoir | transitive
closes | close | closed | ferme | ferment | fermons | fermé | avoir | transitive
paints | paint | painted | peint | peignent | peignons | peint | avoir | transitive
builds | build | built | construit | construisent | construisons | construit | avoir | transitive
cleans | clean | cleaned | nettoie | nettoient | nettoyons | nettoyé | avoir | transitive
draws | draw | drew | dessine | dessinent | dessinons | dessiné | avoir | transitive
takes | take | took | prend | prennent | prenons | pris | avoir | transitive
gives | give | gave | donne | donnent | donnons | donné | avoir | ditransitive
shows | show | showed | montre | montrent | montrons | montré | avoir | ditransitive
sends | send | sent | envoie | envoient | envoyons | envoyé | avoir | ditransitive
"""

# The auxiliaries and "to be": 3rd singular, 3rd plural, "nous".
AVOIR = ("a", "ont", "avons")
ETRE_PRESENT = ("est", "sont", "sommes")
ETRE_PAST = (
    "était",
    "étaient",
    "étions",
)  # the imparfait: "the river bank was steep" -> "la rive était escarpée"
COPULA_ENGLISH = {"present": ("is", "are"), "past": ("was", "were")}  # (singular, plural or "we")

# english | number it needs (sg, pl, or both) | french masculine singular | feminine singular | plural
_DETERMINERS = """
the | both | le | la | les
a | sg | un | une | -
an | sg | un | une | -
this | sg | ce | cette | -
that | sg | ce | cette | -
these | pl | - | - | ces
those | pl | - | - | ces
my | both | mon | ma | mes
his | both | son | sa | ses
her | both | son | sa | ses
our | both | notre | notre | nos
their | both | leur | leur | leurs
your | both | votre | votre | vos
every | sg | chaque | chaque | -
two | pl | - | - | deux
three | pl | - | - | trois
"""

# english words | french words | which nouns may follow (l, t, p as for adjectives)
# A french "de" or "à" at the end contracts with a following "le" or "les".
_PREPOSITIONS = """
in | dans | tp
on | sur | tp
under | sous | ltp
with | avec | ltp
behind | derrière | ltp
near | près de | ltp
without | sans | lt
for | pour | l
towards | vers | ltp
after | après | l
before | avant | l
across | à travers | p
in front of | devant | ltp
"""

CONTRACTIONS = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}

# english | french | gender | number | person
_PRONOUNS = """
he | il | m | sg | 3
she | elle | f | sg | 3
they | ils | m | pl | 3
we | nous | m | pl | 1
"""

AND = ("and", "et")
OF = ("of", "de")
TO = ("to", "à")


def _rows(table: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("|")] for line in table.strip().splitlines()]


_KIND_CODES = {"l": ("person", "animal"), "t": ("thing",), "p": ("place",)}


def _kinds(codes: str) -> frozenset[str]:
    return frozenset(kind for code in codes for kind in _KIND_CODES[code])


@dataclass(frozen=True)
class Noun:
    english: tuple[str, str | None]  # singular, plural (None: only used in the singular)
    french: tuple[str, str | None]
    gender: Gender
    kind: Kind

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

    def fr(self, gender: Gender, number: Number) -> str:
        return self.french[(gender == "f") + 2 * (number == "pl")]


@dataclass(frozen=True)
class Verb:
    english: tuple[str, str, str]  # 3rd singular present, plural present, past
    french: tuple[str, str, str]  # 3rd singular, 3rd plural, "nous"
    participle: str
    auxiliary: Literal["avoir", "être"]
    frame: Literal["intransitive", "transitive", "ditransitive"]


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
    Noun((sg, _maybe(pl)), (fsg, _maybe(fpl)), gender, kind)  # type: ignore[arg-type]
    for sg, pl, fsg, fpl, gender, kind in _rows(_NOUNS)
)
ADJECTIVES: tuple[Adjective, ...] = tuple(
    Adjective(en, (ms, fs, mp, fp), position == "pre", _kinds(kinds))
    for en, ms, fs, mp, fp, position, kinds in _rows(_ADJECTIVES)
)
VERBS: tuple[Verb, ...] = tuple(
    Verb((s, p, past), (f3s, f3p, f1p), part, aux, frame)  # type: ignore[arg-type]
    for s, p, past, f3s, f3p, f1p, part, aux, frame in _rows(_VERBS)
)
DETERMINERS: tuple[Determiner, ...] = tuple(
    Determiner(
        en,
        ("sg", "pl") if numbers == "both" else (numbers,),  # type: ignore[arg-type]
        (_maybe(ms), _maybe(fs), _maybe(pl)),
    )
    for en, numbers, ms, fs, pl in _rows(_DETERMINERS)
)
PREPOSITIONS: tuple[Preposition, ...] = tuple(
    Preposition(tuple(en.split()), tuple(fr.split()), _kinds(kinds)) for en, fr, kinds in _rows(_PREPOSITIONS)
)
PRONOUNS: tuple[Pronoun, ...] = tuple(
    Pronoun(en, fr, gender, number, int(person))  # type: ignore[arg-type]
    for en, fr, gender, number, person in _rows(_PRONOUNS)
)

_NOUN = {n.english[0]: n for n in NOUNS}
_ADJECTIVE = {a.english: a for a in ADJECTIVES}
_VERB = {v.english[2]: v for v in VERBS}  # by past form: "slept"
_DETERMINER = {d.english: d for d in DETERMINERS}
_PREPOSITION = {" ".join(p.english): p for p in PREPOSITIONS}
_PRONOUN = {p.english: p for p in PRONOUNS}


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
        (AND[0], "conj"),
        (OF[0], "prep"),
        (TO[0], "prep"),
    ]


# ---------------------------------------------------------------------------------------------------------
# Pairs and the phrases they are built from.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """An English sentence, its French translation, and for each French token the English words it renders."""

    english: tuple[str, ...]
    french: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]  # alignment[j]: indices into english; () for an inserted word

    @property
    def source(self) -> str:
        return " ".join(self.english)

    @property
    def target(self) -> str:
        return " ".join(self.french)


@dataclass
class Phrase:
    """A stretch of both sentences: English words, and French tokens aligned to indices into those words."""

    en: list[str]
    fr: list[tuple[str, tuple[int, ...]]]
    gender: Gender = "m"
    number: Number = "sg"
    person: int = 3

    @staticmethod
    def word(en: Sequence[str], fr: Sequence[str]) -> Phrase:
        """English words translated as a whole: every French token aligned to every English word."""
        every = tuple(range(len(en)))
        return Phrase(list(en), [(token, every) for token in fr])


def concat(*phrases: Phrase) -> Phrase:
    """English words in order, French tokens in order, alignment indices shifted to the joined English."""
    en: list[str] = []
    fr: list[tuple[str, tuple[int, ...]]] = []
    for phrase in phrases:
        offset = len(en)
        en.extend(phrase.en)
        fr.extend((token, tuple(i + offset for i in source)) for token, source in phrase.fr)
    first = phrases[0]
    return Phrase(en, fr, first.gender, first.number, first.person)


def noun_phrase(
    determiner: str,
    noun: str,
    number: Number = "sg",
    adjectives: Sequence[str] = (),
) -> Phrase:
    """det [adjectives] noun, with French agreement and French adjective order.

    English:  det  pre…  post…  noun          ("the big black dog")
    French:   det  pre…  noun   post (et post) ("le grand chien noir")
    """
    n = _NOUN[noun]
    det = _DETERMINER[determiner]
    adjs = [_ADJECTIVE[a] for a in adjectives]
    assert number in det.numbers, f"{determiner!r} does not go with a {number} noun"
    g = n.gender
    en = [determiner, *(a.english for a in adjs), *n.en(number)]
    if determiner in ("a", "an"):
        en[0] = "an" if en[1][0] in "aeiou" else "a"
    noun_at = tuple(range(1 + len(adjs), len(en)))  # one or two English words ("river bank")
    fr: list[tuple[str, tuple[int, ...]]] = [(det.fr(g, number), (0,))]
    pre = [(a.fr(g, number), (1 + k,)) for k, a in enumerate(adjs) if a.before_noun]
    post = [(a.fr(g, number), (1 + k,)) for k, a in enumerate(adjs) if not a.before_noun]
    fr.extend(pre)
    fr.append((n.fr(number), noun_at))
    for k, token in enumerate(post):
        if k > 0:
            fr.append((AND[1], ()))  # "froide et sombre": the "et" translates no English word
        fr.append(token)
    return Phrase(en, fr, g, number)


def pronoun(word: str) -> Phrase:
    p = _PRONOUN[word]
    return Phrase([p.english], [(p.french, (0,))], p.gender, p.number, p.person)


def coordinated(left: Phrase, right: Phrase) -> Phrase:
    """NP and NP: plural, masculine unless both are feminine."""
    joined = concat(left, Phrase.word([AND[0]], [AND[1]]), right)
    joined.number = "pl"
    joined.gender = "f" if left.gender == right.gender == "f" else "m"
    return joined


def _attach(preposition: Phrase, np_: Phrase) -> Phrase:
    """preposition + noun phrase, contracting a final de/à with le/les ("près de" + "le" -> "près du")."""
    joined = concat(preposition, np_)
    (last, last_src), (first, first_src) = joined.fr[len(preposition.fr) - 1], joined.fr[len(preposition.fr)]
    contracted = CONTRACTIONS.get((last, first))
    if contracted is None:
        return joined
    k = len(preposition.fr) - 1
    joined.fr[k : k + 2] = [(contracted, tuple(sorted({*last_src, *first_src})))]
    return joined


def prepositional(words: str, np_: Phrase) -> Phrase:
    """A preposition of the table, then its noun phrase: "near the cave" -> "près de la grotte"."""
    p = _PREPOSITION[words]
    return _attach(Phrase.word(p.english, p.french), np_)


def of(head: Phrase, complement: Phrase) -> Phrase:
    """NP of NP: "the door of the house" -> "la porte de la maison", "… of the garden" -> "… du jardin"."""
    return concat(head, _attach(Phrase.word([OF[0]], [OF[1]]), complement))


def _row(number: Number, person: int) -> int:
    return 2 if person == 1 else (0 if number == "sg" else 1)


def _participle(word: str, gender: Gender, number: Number) -> str:
    """Past participle agreeing with the subject (after être): tombé, tombée, tombés, tombées."""
    return word + ("e" if gender == "f" else "") + ("s" if number == "pl" else "")


def verb_phrase(subject: Phrase, past: str, tense: Literal["present", "past"]) -> Phrase:
    """The verb, agreeing with the subject: "slept" -> "a dormi"/"ont dormi", "fell" -> "est tombée"."""
    v = _VERB[past]
    plural = subject.number == "pl" or subject.person == 1
    row = _row(subject.number, subject.person)
    if tense == "present":
        return Phrase.word([v.english[1 if plural else 0]], [v.french[row]])
    if v.auxiliary == "avoir":
        return Phrase.word([v.english[2]], [AVOIR[row], v.participle])
    return Phrase.word(
        [v.english[2]], [ETRE_PRESENT[row], _participle(v.participle, subject.gender, subject.number)]
    )


def copula(subject: Phrase, tense: Literal["present", "past"]) -> Phrase:
    """is/are/was/were -> est/sont/sommes, était/étaient/étions."""
    plural = subject.number == "pl" or subject.person == 1
    row = _row(subject.number, subject.person)
    french = ETRE_PRESENT if tense == "present" else ETRE_PAST
    return Phrase.word([COPULA_ENGLISH[tense][int(plural)]], [french[row]])


def predicate(subject: Phrase, adjective: str) -> Phrase:
    a = _ADJECTIVE[adjective]
    return Phrase.word([a.english], [a.fr(subject.gender, subject.number)])


def to_pair(sentence: Phrase) -> Pair:
    return Pair(
        english=tuple(sentence.en),
        french=tuple(token for token, _ in sentence.fr),
        alignment=tuple(source for _, source in sentence.fr),
    )


def example_pairs() -> list[Pair]:
    """Figure 1's sentences, built by the same functions as every other pair."""
    bank = noun_phrase("the", "river bank")
    farmer = noun_phrase("a", "farmer")
    she = pronoun("she")
    return [
        to_pair(concat(bank, copula(bank, "past"), predicate(bank, "steep"))),
        to_pair(
            concat(
                farmer,
                verb_phrase(farmer, "sold", "past"),
                noun_phrase("the", "bat"),
                prepositional("near", noun_phrase("the", "cave")),
            )
        ),
        to_pair(
            concat(
                she,
                verb_phrase(she, "saw", "past"),
                noun_phrase("the", "crane", adjectives=["old"]),
                prepositional("on", noun_phrase("the", "dock")),
            )
        ),
    ]


# ---------------------------------------------------------------------------------------------------------
# The random grammar.
# ---------------------------------------------------------------------------------------------------------

MIN_WORDS, MAX_WORDS = 3, 14
# "près de" + "un" would need elision (d'un), so these take no "a"
_ENDS_IN_DE = frozenset(w for w, p in _PREPOSITION.items() if p.french[-1] == "de")


class Grammar:
    """Draws sentences: a subject, a verb or "to be", and what follows, each with its French."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _noun(self, kinds: frozenset[str]) -> Noun:
        return self.rng.choice([n for n in NOUNS if n.kind in kinds])

    def np(self, kinds: frozenset[str], indefinite: bool = True, adjectives: bool = True) -> Phrase:
        """A noun phrase whose noun is one of ``kinds``; ``indefinite=False`` keeps "a" out (after de)."""
        rng = self.rng
        noun = self._noun(kinds)
        number: Number = "pl" if noun.english[1] is not None and rng.random() < 0.35 else "sg"
        dets = [d for d in DETERMINERS if number in d.numbers and d.english != "an"]
        if not indefinite:
            dets = [d for d in dets if d.english != "a"]
        # "the" half the time, the others shared out
        det = "the" if rng.random() < 0.5 else rng.choice([d.english for d in dets])
        fitting = [a for a in ADJECTIVES if noun.kind in a.kinds]
        chosen: list[Adjective] = []
        roll = rng.random() if adjectives else 1.0
        if roll < 0.30:
            chosen = [rng.choice(fitting)]
        elif roll < 0.40:
            pre = rng.choice([a for a in fitting if a.before_noun])
            post = rng.choice([a for a in fitting if not a.before_noun])
            chosen = [pre, post]  # English: "the big black dog"
        elif roll < 0.45:
            chosen = rng.sample([a for a in fitting if not a.before_noun], 2)  # "the cold dark river"
        return noun_phrase(det, noun.english[0], number, [a.english for a in chosen])

    def pp(self, kinds: frozenset[str] | None = None) -> Phrase:
        rng = self.rng
        prep = rng.choice(
            [p for p in PREPOSITIONS if kinds is None or p.kinds & kinds],
        )
        words = " ".join(prep.english)
        allowed = prep.kinds if kinds is None else prep.kinds & kinds
        obj = self.np(allowed, indefinite=words not in _ENDS_IN_DE, adjectives=rng.random() < 0.5)
        return prepositional(words, obj)

    def maybe_of(self, np_: Phrase, kinds: frozenset[str]) -> Phrase:
        """Sometimes "the door of the house"."""
        if kinds & {"thing", "place"} and self.rng.random() < 0.12:
            return of(np_, self.np(frozenset({"place", "person"}), indefinite=False, adjectives=False))
        return np_

    def subject(self, kinds: frozenset[str]) -> tuple[Phrase, frozenset[str]]:
        """A subject and the kinds of noun it is made of (for choosing fitting adjectives)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.18 and kinds & LIVING:
            # "we" carries its own verb forms (nous dormons), so it gets a larger share
            word = "we" if rng.random() < 0.4 else rng.choice(("he", "she", "they"))
            return pronoun(word), frozenset({"person"})
        if roll < 0.28:
            kind = rng.choice(sorted(kinds))
            one = frozenset({kind})
            return coordinated(self.np(one, adjectives=False), self.np(one, adjectives=False)), one
        kind = rng.choice(sorted(kinds))
        one = frozenset({kind})
        np_ = self.np(one)
        if roll < 0.35:
            np_ = concat(np_, self.pp())  # "the dog near the house" is still the dog
        return np_, one

    def sentence(self) -> Phrase:
        rng = self.rng
        tense: Literal["present", "past"] = "past" if rng.random() < 0.55 else "present"
        roll = rng.random()
        if roll < 0.30:  # the river bank was steep
            subject, kinds = self.subject(frozenset({"person", "animal", "thing", "place"}))
            kind = next(iter(kinds))
            adjective = rng.choice([a for a in ADJECTIVES if kind in a.kinds])
            return concat(subject, copula(subject, tense), predicate(subject, adjective.english))
        if roll < 0.40:  # the cat was under the table
            subject, _ = self.subject(frozenset({"person", "animal", "thing"}))
            return concat(subject, copula(subject, tense), self.pp(frozenset({"thing", "place"})))
        subject, _ = self.subject(LIVING)
        frame = "intransitive" if roll < 0.65 else ("transitive" if roll < 0.92 else "ditransitive")
        verb = rng.choice([v for v in VERBS if v.frame == frame])
        parts = [subject, verb_phrase(subject, verb.english[2], tense)]
        if frame == "intransitive":
            if rng.random() < 0.7:
                parts.append(self.pp())
        elif frame == "transitive":
            kinds = frozenset(rng.choice([("person", "animal"), ("thing",), ("thing",), ("place",)]))
            parts.append(self.maybe_of(self.np(kinds), kinds))
            if rng.random() < 0.35:
                parts.append(self.pp())
        else:
            parts.append(self.np(frozenset({"thing"})))
            parts.append(_attach(Phrase.word([TO[0]], [TO[1]]), self.np(LIVING, adjectives=False)))
        return concat(*parts)


def pairs(seed: int) -> Iterator[Pair]:
    """An endless, reproducible stream of pairs of 3 to 14 English words (repeats possible)."""
    grammar = Grammar(random.Random(seed))
    while True:
        sentence = grammar.sentence()
        if MIN_WORDS <= len(sentence.en) <= MAX_WORDS:
            yield to_pair(sentence)


TRAINING_SEED, HELDOUT_SEED = 1, 2


def distinct_pairs(count: int, seed: int, exclude: frozenset[str] = frozenset()) -> list[Pair]:
    """The first ``count`` pairs of the stream whose English is new and not in ``exclude``."""
    seen = set(exclude)
    chosen: list[Pair] = []
    for pair in pairs(seed):
        if len(chosen) == count:
            break
        if pair.source not in seen:
            seen.add(pair.source)
            chosen.append(pair)
    return chosen


@lru_cache(maxsize=4)
def training_pairs(count: int) -> tuple[Pair, ...]:
    """figure 1's examples, then distinct pairs of the training seed: ``count`` in all."""
    examples = example_pairs()
    drawn = distinct_pairs(count - len(examples), TRAINING_SEED, frozenset(p.source for p in examples))
    return (*examples, *drawn)


@lru_cache(maxsize=4)
def heldout_pairs(count: int, training: int) -> tuple[Pair, ...]:
    """``count`` pairs from their own seed whose English never occurs among ``training_pairs(training)``."""
    seen = frozenset(p.source for p in training_pairs(training))
    return tuple(distinct_pairs(count, HELDOUT_SEED, seen))


# ---------------------------------------------------------------------------------------------------------
# Vocabularies, and the word pairs an alignment may link.
# ---------------------------------------------------------------------------------------------------------


def _english_forms() -> list[str]:
    words: list[str] = []
    for n in NOUNS:
        words += n.en("sg") + (n.en("pl") if n.english[1] else [])
    words += [a.english for a in ADJECTIVES]
    words += [w for v in VERBS for w in v.english]
    words += [w for forms in COPULA_ENGLISH.values() for w in forms]
    words += [d.english for d in DETERMINERS]
    words += [w for p in PREPOSITIONS for w in p.english]
    words += [p.english for p in PRONOUNS]
    words += [AND[0], OF[0], TO[0]]
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
        links |= {(third, v.french[0]), (plural, v.french[1]), (plural, v.french[2])}
        if v.auxiliary == "avoir":
            links |= {(past, aux) for aux in AVOIR} | {(past, v.participle)}
        else:
            links |= {(past, aux) for aux in ETRE_PRESENT}
            links |= {(past, _participle(v.participle, g, n)) for g in ("m", "f") for n in ("sg", "pl")}
    for tense, (sg, pl) in COPULA_ENGLISH.items():
        french = ETRE_PRESENT if tense == "present" else ETRE_PAST
        links |= {(sg, french[0]), (pl, french[1]), (pl, french[2])}
    for d in DETERMINERS:
        links |= {(d.english, f) for f in d.french if f is not None}
    for p in PREPOSITIONS:
        links |= {(e, f) for e in p.english for f in p.french}
    links |= {(who.english, who.french) for who in PRONOUNS}
    links |= {AND, OF, TO}
    for (prep, article), contracted in CONTRACTIONS.items():
        links |= {(e, contracted) for e, f in list(links) if f in (prep, article)}
    return links


ENGLISH_WORDS: tuple[str, ...] = tuple(_english_forms())
ALLOWED_LINKS: frozenset[tuple[str, str]] = frozenset(_allowed_links())
FRENCH_WORDS: tuple[str, ...] = tuple(sorted({f for _, f in ALLOWED_LINKS} | {AND[1]}))
