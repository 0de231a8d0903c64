"""What figure 1's relation heads are trained on: sentences the rules can read, and field codes set apart."""

import numpy as np

from app.models.lexicon import FIELDS
from app.models.relations import analyse
from training.relation_corpus import heldout_sentences, spread_field_codes, training_sentences


def test_field_codes_are_spread_apart() -> None:
    codes = np.stack(list(spread_field_codes(FIELDS).values()))
    gram = codes @ codes.T
    np.testing.assert_allclose(np.diag(gram), 1.0)
    assert (gram - np.eye(len(FIELDS))).max() < 0.4  # no two fields share a direction


def test_training_and_heldout_sentences_never_meet() -> None:
    training = training_sentences(500)
    seen = frozenset(" ".join(s) for s in training)
    heldout = heldout_sentences(200, exclude=seen)
    assert len(seen) == 500 and not seen & {" ".join(s) for s in heldout}
    assert all(3 <= len(s) <= 14 and analyse(s).verb is not None for s in training + heldout)
