"""A relation's own head (app.models.verdicts.own_heads): alone, or beside relations others serve alone."""

from app.models.verdicts import SERVES, Verdict, every_relation_has_its_own_head, own_heads

HIGH, LOW = min(1.0, SERVES + 0.1), 0.1


def test_a_head_that_serves_a_relation_alone_is_its_own() -> None:
    verdicts = [Verdict("serves", ("position",)), Verdict("serves", ("meaning",)), Verdict("none", ())]
    assert own_heads(verdicts, ["position", "meaning", "grammar"]) == {
        "position": 0,
        "meaning": 1,
        "grammar": None,
    }


def test_a_shared_pair_does_not_take_a_relations_own_head_away() -> None:
    """ "the cricket chirped": the subject's verb is also the meaning cue, so the grammar head scores high on
    meaning too. Meaning has a head of its own elsewhere, so the sharing head is grammar's own."""
    scores = {"position": [HIGH, LOW, LOW], "meaning": [LOW, HIGH, HIGH], "grammar": [LOW, LOW, HIGH]}
    assert every_relation_has_its_own_head(scores)
    verdicts = [
        Verdict("serves", ("position",)),
        Verdict("serves", ("meaning",)),
        Verdict("shares", ("meaning", "grammar")),
    ]
    assert own_heads(verdicts, ["position", "meaning", "grammar"]) == {
        "position": 0,
        "meaning": 1,
        "grammar": 2,
    }


def test_two_heads_that_serve_the_same_two_relations_are_neithers_own() -> None:
    scores = {"position": [HIGH, LOW, LOW], "meaning": [LOW, HIGH, HIGH], "grammar": [LOW, HIGH, HIGH]}
    assert not every_relation_has_its_own_head(scores)
    verdicts = [Verdict("serves", ("position",)), *[Verdict("shares", ("meaning", "grammar"))] * 2]
    assert own_heads(verdicts, ["position", "meaning", "grammar"]) == {
        "position": 0,
        "meaning": None,
        "grammar": None,
    }
