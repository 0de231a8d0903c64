"""Figure 1's story on sentences the layer never trained on, recomputed from the committed weights.

The story (app.models.verdicts): at 3 heads every relation a sentence has is served by a head of its own, and
at 1 head the lone head cannot serve them all. The training record (relations_curve.json, "story") measured it
on every test set; this recomputes each with the numpy layer the server runs and holds it to the record, and
to a bar: the story holds on at least 90% of the sentences held out by construction (made of words training
never saw), and one head serves every relation on at most 10%.

The sentences written by hand while the rules and the training were last changed, and read only after,
meet the bar scored on the rules' pairs (what the page shows a reader) and fall short of it on the pairs
written by hand, where the rules read a sentence otherwise than a person (a cue the rules rank
lower, or one no list holds; another grammatical partner); the record has both, and WRITTEN_FLOOR holds each
at what was measured.
"""

import json

import pytest

from app.config import get_settings
from app.models.heads import RelationHeads
from app.models.verdicts import SERVES
from training.evaluation import meaning_overlap, story
from training.relation_corpus import heldout_sentences, novel_sentences, training_sentences
from training.written import DEVELOPMENT, SECOND, agreement, load

CURVE = json.loads((get_settings().weights_dir / "relations_curve.json").read_text())
RECORD = CURVE["story"]
BAR = 0.9  # the share of sentences on which the story must hold
LONE = 0.1  # the share on which one head may serve every relation, at most
WRITTEN_FLOOR = {"rules": 1.0, "hand": 0.85}  # the written sentences, as measured (see above)


MODEL = "relation heads"  # what the `model` fixture (tests/models/conftest.py) hands these tests


def measured(model: RelationHeads, sentences: list[list[str]], targets: list | None = None) -> dict:
    layers = {h: model.layers[(h, "trained")] for h in (1, 3)}
    return story(layers, sentences, model.field_codes, targets)


def test_the_thresholds_of_the_record_are_the_pages() -> None:
    from app.models.verdicts import THRESHOLDS

    assert RECORD["thresholds"] == THRESHOLDS
    assert min(THRESHOLDS["serves"], SERVES) >= 0.8  # no verdict serves on less than 0.8


def test_the_story_holds_on_sentences_held_out_by_construction(model: RelationHeads) -> None:
    novel = novel_sentences(CURVE["novel_sentences"])
    assert len(novel) >= 500
    found = measured(model, novel)
    assert found == pytest.approx(RECORD["novel"])
    assert found["own_head_at_3"] >= BAR and found["one_head_serves_all"] <= LONE, found


def test_the_story_on_the_written_sentences_is_the_records(model: RelationHeads) -> None:
    written = load()
    assert len(written) == RECORD["written"]["sentences"] >= 40
    words = [w.words for w in written]
    by_hand = measured(model, words, [w.targets for w in written])
    by_rules = measured(model, words)
    assert by_hand == pytest.approx(RECORD["written"]) and by_rules == pytest.approx(
        RECORD["written_by_the_rules"]
    )
    assert (
        by_rules["own_head_at_3"] >= WRITTEN_FLOOR["rules"]
        and by_hand["own_head_at_3"] >= WRITTEN_FLOOR["hand"]
    )
    assert by_hand["one_head_serves_all"] <= LONE and by_rules["one_head_serves_all"] <= LONE


def test_two_people_reading_the_same_sentences_blind_agree_far_more_than_the_rules_do() -> None:
    """The second annotation (written blind, from the conventions alone) gives the meaning pair and every
    word's grammatical partners as the first almost everywhere, so the hand-written pairs are a bar the rules
    can be held to: each disagreement between the rules and the first annotation is the rules' reading. Its
    120 sentences were the written set until the rules last changed; they are development sentences now."""
    people = agreement(load(DEVELOPMENT), load(SECOND))
    assert people.sentences == 120
    assert people.same_meaning >= 0.98 * people.sentences and people.same_partners >= 0.995 * people.words


@pytest.mark.sweep  # a further set of the story's sweep over test sets: CI=true and -m sweep run it
def test_the_story_on_the_held_out_sample_is_the_records(model: RelationHeads) -> None:
    seen = frozenset(" ".join(s) for s in training_sentences(CURVE["train_sentences"])) | {
        "the river bank was steep"
    }
    held_out = heldout_sentences(CURVE["heldout_sentences"], exclude=seen)
    found = measured(model, held_out)
    assert found == pytest.approx(RECORD["heldout"])
    assert found["own_head_at_3"] >= BAR


def test_meaning_pairs_are_rarely_grammar_or_position_pairs() -> None:
    """At most a quarter of the meaning pairs on the held-out sets are also grammar or position pairs, so
    the meaning lane shows something the other two do not."""
    novel = novel_sentences(CURVE["novel_sentences"])
    assert meaning_overlap(novel) == pytest.approx(RECORD["meaning_overlap"]["novel"])
    assert RECORD["meaning_overlap"]["novel"] <= 0.25 and RECORD["meaning_overlap"]["heldout"] <= 0.25
