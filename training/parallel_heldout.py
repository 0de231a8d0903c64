"""What the generator's translator is measured on beyond its training grammar: the word combinations the
training stream of pairs (training/parallel_corpus.py) is built never to contain, held out by construction.
The training stream rejects every sentence that has one of these properties, and the novel sets keep only
sentences that have one:

* **an adjective on a noun it never qualifies in training** (NOVEL_PAIRINGS: "green door", "old bridge",
  "white cat", ...), before or after the noun or as a predicate ("the bridge was old");
* **a verb with an object noun it never takes in training** (NOVEL_OBJECTS: "ate the cake", "painted the
  wall", "drank milk", ...);
* **a verb negated in the present** that training negates only in the past (NOVEL_NEGATED, one verb in
  five, never one of EVERYDAY_VERBS: "does not work" -> "ne travaille pas", where training has "works" ->
  "travaille", "did not work" -> "n' a pas travaillé" and other verbs negated in the present), the set
  ``negated_pairs`` holds;
* **a verb after "want to"** that training puts only after "can" (NOVEL_MODAL, another verb in five: "she
  wants to laugh" -> "elle veut rire", where training has "she can laugh" -> "elle peut rire" and other verbs
  after "want to"), the set ``modal_pairs`` holds;
* **the progressive, or a yes/no question, with a held-out verb-object pairing** ("we are drinking milk" ->
  "nous buvons du lait", "do you drink milk" -> "est-ce que vous buvez du lait"), which training has in
  neither construction, the sets ``progressive_pairs`` and ``question_pairs`` hold.

Two harder designs were tried first. Holding out the negation of a few verbs altogether: "did not swim" asks
for "nagé" from "swim", a pairing no training sentence shows, and the model wrote 27.5% of those sentences
right. Putting a few verbs in the progressive after "i", "we" or "you" only in the held-out set (training
had them after a third person): 74.5% right, most misses with the third person's form ("je court" for "je
cours").

Every word and every construction of the novel sets is in training; only these combinations are not. A
model that learned word-by-word rules (agreement, order, contraction) translates them; one that memorised
frequent word sequences does not. The pairings are chosen across both genders and both adjective
positions, and none is one of the sentences readers reported.

A whole construction was held out too, at first: a pronoun subject in the second of two clauses ("the dog
sleeps and she laughs"), with pronouns trained only at the start of a sentence. The translator trained
that way wrote those sentences right 23% of the time, against 98 to 99.5% for the new pairings: it
generalises to new combinations of what it has seen, not to a construction it has never seen. Readers write
such sentences, so training now has them, and the novel set keeps to combinations.

A phrase carries the names of the held-out properties it has (PAIRING, OBJECT, NEGATION, PROGRESSIVE, MODAL,
QUESTION) in its
``novel`` set; the phrase builders (training/parallel_phrases.py) mark them.
"""

from __future__ import annotations

from training.french_lexicon import VERB, VERBS

# What the training stream never holds (see the module's docstring): (adjective, noun) and (verb's past,
# object noun) pairings.
NOVEL_PAIRINGS: frozenset[tuple[str, str]] = frozenset(
    {
        ("green", "door"),
        ("old", "bridge"),
        ("small", "horse"),
        ("white", "cat"),
        ("new", "bike"),
        ("beautiful", "city"),
        ("cold", "lake"),
        ("broken", "lamp"),
        ("hungry", "wolf"),
        ("happy", "teacher"),
        ("big", "tree"),
        ("sweet", "pie"),
    }
)
NOVEL_OBJECTS: frozenset[tuple[str, str]] = frozenset(
    {
        ("ate", "cake"),
        ("painted", "wall"),
        ("found", "key"),
        ("chased", "fox"),
        ("drank", "milk"),
        ("visited", "castle"),
        ("bought", "hat"),
    }
)
# The verbs readers use most, never held out of a construction: "does not have", "wants to go" are trained.
EVERYDAY_VERBS = frozenset({"went", "had", "came", "ate", "saw"})
# (not "said", "thought": a verb of a reported clause takes no modal, so none can be held out of "want to")
_HOLDABLE = sorted(v.english[2] for v in VERBS if v.english[2] not in EVERYDAY_VERBS and v.frame != "clause")
# Verbs training never negates in the present, one in five by past form: negated_pairs negates only these.
NOVEL_NEGATED: frozenset[str] = frozenset(_HOLDABLE[2::5])
# Verbs training puts after "can" and never after "want to", another one in five: modal_pairs gives them
# "want to" ("she wants to laugh" -> "elle veut rire"; training has "she can laugh" -> "elle peut rire").
NOVEL_MODAL: frozenset[str] = frozenset(_HOLDABLE[1::5])
PAIRING, OBJECT, NEGATION, PROGRESSIVE, MODAL, QUESTION = (
    "adjective-noun pairing",
    "verb-object pairing",
    "negated verb",
    "progressive with a held-out verb-object pairing",
    "verb after want to",
    "question with a held-out verb-object pairing",
)


def novel_description() -> str:
    """What the second held-out set holds, in a phrase the page can show (the generator's About this
    model)."""
    return (
        f"{len(NOVEL_PAIRINGS)} adjective–noun pairings such as “green door” and {len(NOVEL_OBJECTS)} "
        "verb–object pairings such as “drank milk”, which the training pairs never contain"
    )


def progressive_description() -> str:
    """What the progressive held-out set holds, in a phrase the page can show."""
    return (
        f"a verb in the progressive with an object it never takes in training (one of the "
        f"{len(NOVEL_OBJECTS)} verb–object pairings held out, such as “we are drinking milk”)"
    )


def modal_description() -> str:
    """What the modal held-out set holds, in a phrase the page can show."""
    example = min(VERB[past].english[1] for past in NOVEL_MODAL)
    return (
        f"a verb after “want to” that training puts only after “can” ({len(NOVEL_MODAL)} of the {len(VERBS)} "
        f"verbs, such as “wants to {example}”)"
    )


def question_description() -> str:
    """What the question held-out set holds, in a phrase the page can show."""
    return (
        f"a yes/no question whose verb takes an object it never takes in training (one of the "
        f"{len(NOVEL_OBJECTS)} verb–object pairings held out, such as “do you drink milk”)"
    )


def negated_description() -> str:
    """What the negated held-out set holds, in a phrase the page can show."""
    return (
        f"a verb negated in the present that training negates only in the past ({len(NOVEL_NEGATED)} of the "
        f"{len(VERBS)} verbs, such as “does not {min(VERB[past].english[1] for past in NOVEL_NEGATED)}”)"
    )
