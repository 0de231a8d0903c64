"""The everyday constructions past a plain clause: clauses joined by "because", "if", "when" or after "said
that", a verb whose preposition French leaves out ("wait for"), quantities ("many", "a cup of"), the near
future ("will see"), requests ("can you … please"), the months ("in january") and "what" questions."""

from collections import Counter

from app.models.translator.spelling import spell
from training.french_lexicon import PARTICLES, PLACE_WORDS, QUANTITIES, SUBORDINATORS, TIME_WORDS
from training.french_vocabulary import ALLOWED_LINKS
from training.parallel_constructions import (
    ask,
    container,
    fixed_phrase,
    particle,
    quantity,
    subordinate,
    there,
    transitive,
    weather,
    what,
)
from training.parallel_corpus import training_pairs
from training.parallel_phrases import (
    bare_noun_phrase,
    concat,
    copula,
    noun_phrase,
    predicate,
    pronoun,
    to_pair,
    verb_phrase,
)


def test_si_elides_before_il_only() -> None:
    assert spell(["si", "il", "pleut"]) == ["s'", "il", "pleut"]
    assert spell(["si", "ils", "viennent"]) == ["s'", "ils", "viennent"]
    assert spell(["si", "elle", "vient"]) == ["si", "elle", "vient"]
    assert spell(["parce", "que", "il"]) == ["parce", "qu'", "il"]
    assert spell([]) == []


def test_a_preposition_french_leaves_out_is_rendered_by_the_verb() -> None:
    she = pronoun("she")

    def waited(tense: str = "past", obj=None, word: str = "", **options) -> tuple[str, str]:  # type: ignore[no-untyped-def]
        verb = verb_phrase(she, "waited", tense, **options)  # type: ignore[arg-type]
        modal = options.get("modal") is not None
        pair = to_pair(concat(she, particle(verb, "for", obj, "waited", tense, word, modal)))  # type: ignore[arg-type]
        return pair.source, pair.target

    bus = noun_phrase("the", "bus")
    assert waited(obj=bus) == ("she waited for the bus", "elle a attendu le bus")
    assert waited(word="us") == ("she waited for us", "elle nous a attendus")  # agrees with "nous"
    assert waited(word="her") == ("she waited for her", "elle l' a attendue")
    assert waited("present", word="him", negated=True) == (
        "she does not wait for him",
        "elle ne l' attend pas",
    )
    assert waited("present", word="them", modal="can") == ("she can wait for them", "elle peut les attendre")
    assert waited("present", obj=bus, progressive=True) == (
        "she is waiting for the bus",
        "elle attend le bus",
    )
    pair = to_pair(concat(she, particle(verb_phrase(she, "waited", "past"), "for", bus, "waited", "past")))
    assert pair.alignment[2] == (1, 2)  # "attendu" renders "waited for"
    assert set(PARTICLES) <= {p for p, _ in ALLOWED_LINKS}


def test_spelling_elides_the_pronoun_before_the_verb() -> None:
    she = pronoun("she")
    verb = verb_phrase(she, "waited", "present", negated=True)
    pair = to_pair(concat(she, particle(verb, "for", None, "waited", "present", "him")))
    assert " ".join(spell(list(pair.french))) == "elle ne l' attend pas"


def test_quantities_and_containers_take_de_without_an_article() -> None:
    birds = quantity(("many",), bare_noun_phrase("bird", "pl"))
    assert to_pair(there(birds, "present")).target == "il y a beaucoup d' oiseaux"
    assert to_pair(there(birds, "present")).source == "there are many birds"  # the noun's number
    bread = quantity(("a", "lot", "of"), bare_noun_phrase("bread"))
    assert to_pair(there(bread, "past")).source == "there was a lot of bread"
    assert to_pair(there(bread, "past")).target == "il y avait beaucoup de pain"
    i = pronoun("i")
    tea = container(noun_phrase("a", "cup"), bare_noun_phrase("tea"))
    drink = to_pair(transitive(i, "drank", "present", tea))
    assert (drink.source, drink.target) == ("i drink a cup of tea", "je bois une tasse de thé")
    water = container(noun_phrase("two", "glass", "pl"), bare_noun_phrase("water"))
    assert to_pair(transitive(i, "drank", "present", water)).target == "je bois deux verres d' eau"
    negated = to_pair(transitive(i, "drank", "present", tea, negated=True)).target
    assert negated == "je ne bois pas de tasse de thé"
    more = to_pair(transitive(i, "ate", "present", quantity(("more",), bare_noun_phrase("bread"))))
    assert more.target == "je mange plus de pain"
    assert set(QUANTITIES[("many",)].split()) <= {f for e, f in ALLOWED_LINKS if e == "many"}


def test_clauses_join_with_because_if_when_and_said_that() -> None:
    we = pronoun("we")
    home = next(p for p in PLACE_WORDS if p.english == ("at", "home"))
    stay = concat(we, verb_phrase(we, "stayed", "present"), fixed_phrase(home))
    rain = weather("rained", "present")
    first = to_pair(subordinate(stay, rain, "if", first=True))
    assert (first.source, first.target) == (
        "if it rains we stay at home",
        "s' il pleut nous restons à la maison",
    )
    assert first.alignment[:1] == ((0,),)
    stayed = concat(we, verb_phrase(we, "stayed", "past"), fixed_phrase(home))
    because = to_pair(subordinate(stayed, weather("rained", "past"), "because"))
    assert because.target == "nous sommes restés à la maison parce qu' il a plu"
    assert because.alignment[-5:-3] == ((4,), (4,))  # "parce" and "que" render "because"
    she, soup = pronoun("she"), noun_phrase("the", "soup")
    hot = concat(soup, copula(soup, "past"), predicate(soup, "hot"))
    said = to_pair(concat(she, subordinate(verb_phrase(she, "said", "past"), hot, "that")))
    assert (said.source, said.target) == (
        "she said that the soup was hot",
        "elle a dit que la soupe était chaude",
    )
    assert set(SUBORDINATORS) == {"because", "if", "when", "that"}


def test_will_is_the_near_future_and_please_ends_a_request() -> None:
    they, mother = pronoun("they"), noun_phrase("their", "mother")
    future = to_pair(transitive(they, "saw", "present", mother, modal="will"))
    assert (future.source, future.target) == ("they will see their mother", "ils vont voir leur mère")
    assert future.alignment[1:3] == ((1,), (2,))  # "vont" renders "will", "voir" renders "see"
    negated = to_pair(transitive(they, "saw", "present", mother, modal="will", negated=True))
    assert negated.target == "ils ne vont pas voir leur mère"
    you, door = pronoun("you"), noun_phrase("the", "door")
    asked = to_pair(ask(you, verb_phrase(you, "opened", "present", modal="will", question=True), door))
    assert (asked.source, asked.target) == ("will you open the door", "est-ce que vous allez ouvrir la porte")
    day = fixed_phrase(next(t for t in TIME_WORDS if t.english == ("all", "day")))
    assert to_pair(day).target == "toute la journée"
    requests = [p for p in training_pairs(3000) if p.english[-1] == "please"]
    assert requests and all(p.source.startswith(("can you", "will you")) for p in requests)
    assert all(spell(list(p.french))[-4:] == ["s'", "il", "vous", "plaît"] for p in requests)


# "in january" … "in december" (TIME_WORDS): "en janvier" … "en décembre"
_MONTHS = tuple(
    " ".join(t.english) for t in TIME_WORDS if t.french[0] == "en" and t.english[1][-3:] not in ("mer", "ter")
)


def test_training_has_every_new_construction() -> None:
    """Each of them often enough to be learnt, in the pairs the translator trains on (a sample)."""
    train = training_pairs(30000)
    seen: Counter[str] = Counter()
    for pair in train:
        french = " ".join(pair.french)
        seen["because"] += "parce que" in french
        seen["if"] += pair.english[0] == "if" or " if " in pair.source
        seen["when"] += "quand" in pair.french
        seen["said that"] += any(f"{v} que" in french for v in ("dit", "pensé", "pense", "dis", "pensent"))
        seen["wait for"] += any(f"{p} {w}" in pair.source for p, (w, _) in PARTICLES.items())
        seen["many"] += "beaucoup" in pair.french
        seen["a cup of"] += " of " in pair.source and any(
            c in pair.english for c in ("cup", "glass", "bottle")
        )
        seen["more than"] += "plus de" in french and "que" in pair.french
        seen["for two weeks"] += "pendant" in pair.french and any(
            " ".join(t.english) in pair.source for t in TIME_WORDS if t.english[0] == "for"
        )
        seen["will"] += "will" in pair.english
        seen["please"] += "please" in pair.english
        seen["all day"] += "toute" in pair.french
        seen["what"] += pair.english[0] == "what" and pair.french[:2] == ("que", "est-ce")
        seen["in january"] += any(t in pair.source for t in _MONTHS)
    assert all(n >= 60 for n in seen.values()), seen


def test_prefer_stop_and_class_are_in_the_lexicon() -> None:
    she, they = pronoun("she"), pronoun("they")
    stopped = to_pair(transitive(she, "stopped", "past", noun_phrase("the", "car")))
    assert (stopped.source, stopped.target) == ("she stopped the car", "elle a arrêté la voiture")
    assert stopped.alignment == ((0,), (1,), (1,), (2,), (3,))
    prefer = to_pair(transitive(they, "preferred", "present", bare_noun_phrase("tea", "sg", [], "generic")))
    assert (prefer.source, prefer.target) == ("they prefer tea", "ils préfèrent le thé")
    assert to_pair(noun_phrase("the", "class")).target == "la classe"
    assert {("stopped", "arrêté"), ("prefer", "préfèrent"), ("class", "classe")} <= ALLOWED_LINKS


def test_the_months_are_time_words() -> None:
    months = [t for t in TIME_WORDS if " ".join(t.english) in _MONTHS]
    assert [t.english[1] for t in months][::11] == ["january", "december"] and len(months) == 12
    they = pronoun("they")
    january = fixed_phrase(months[0])
    pair = to_pair(concat(they, verb_phrase(they, "left", "past"), january))
    assert (pair.source, pair.target) == ("they left in january", "ils sont partis en janvier")
    assert pair.alignment[-2:] == ((2,), (3,))  # "en" renders "in", "janvier" renders "january"
    assert to_pair(fixed_phrase(months[-1])).target == "en décembre"
    assert {("in", "en"), ("august", "août")} <= ALLOWED_LINKS


def test_what_asks_for_the_object_before_est_ce_que() -> None:
    man, you, children = noun_phrase("the", "man"), pronoun("you"), noun_phrase("the", "child", "pl")

    def asked(subject, past: str, tense: str, **options) -> tuple[str, str, tuple]:  # type: ignore[no-untyped-def]
        pair = to_pair(what(subject, verb_phrase(subject, past, tense, question=True, **options)))  # type: ignore[arg-type]
        return pair.source, " ".join(spell(list(pair.french))), pair.alignment

    eats = asked(man, "ate", "present")
    assert eats[:2] == ("what does the man eat", "qu' est-ce que l' homme mange")
    assert eats[2] == ((0,), (1,), (1,), (2,), (3,), (1, 4))  # que <- what, est-ce que <- does
    assert asked(you, "made", "past")[:2] == ("what did you make", "qu' est-ce que vous avez fait")
    assert asked(you, "ate", "past")[1] == "qu' est-ce que vous avez mangé"  # masculine: no gender to agree
    assert asked(children, "ate", "present", progressive=True)[:2] == (
        "what are the children eating",
        "qu' est-ce que les enfants mangent",
    )
    assert asked(you, "ate", "present", modal="will")[1] == "qu' est-ce que vous allez manger"
    assert ("what", "que") in ALLOWED_LINKS
