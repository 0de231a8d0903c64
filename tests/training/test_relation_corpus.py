"""What figure 1's relation heads are trained on: everyday sentences the rules can read, words held out of
training by construction, and field codes set apart."""

from collections import Counter

import numpy as np

from app.models.grammar.tagging import AUXILIARY_LEMMAS
from app.models.lexicon import LEXICON
from app.models.lexicon_entries import FIELDS
from app.models.relations import analyse
from training.field_codes import spread_field_codes
from training.relation_corpus import heldout_sentences, novel_sentences, training_sentences
from training.relation_words import DEFAULT_SENTENCE, HELD_OUT_PERCENT, held_out


def content_lemmas(sentences: list[list[str]]) -> list[str]:
    """The dictionary forms of the listed nouns, verbs and adjectives in the sentences, auxiliaries aside."""
    return [
        LEXICON[w].lemma
        for s in sentences
        for w in s
        if w in LEXICON
        and LEXICON[w].pos in ("noun", "verb", "adj")
        and LEXICON[w].lemma not in AUXILIARY_LEMMAS
    ]


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
    assert " ".join(DEFAULT_SENTENCE) not in seen
    assert all(3 <= len(s) <= 25 for s in training + heldout)


def test_training_never_sees_a_held_out_word_and_the_novel_set_is_made_of_them() -> None:
    training = training_sentences(2000)
    assert not [lemma for lemma in content_lemmas(training) if held_out(lemma)]
    novel = novel_sentences(300)
    lemmas = content_lemmas(novel)
    assert sum(map(held_out, lemmas)) / len(lemmas) > 0.85
    new_pairs = pairs = 0  # meaning pairs with a word training never saw, of all meaning pairs
    for words in novel:
        for i, j in analyse(words).targets["meaning"]:
            lemmas = {LEXICON[words[k]].lemma if words[k] in LEXICON else words[k] for k in (i, j)}
            new_pairs += any(map(held_out, lemmas))
            pairs += 1
    assert new_pairs / pairs > 0.9
    share = sum(map(held_out, {e.lemma for e in LEXICON.values() if e.pos in ("noun", "verb", "adj")}))
    assert 0.5 * HELD_OUT_PERCENT / 100 < share / len({e.lemma for e in LEXICON.values()}) < 0.3


def test_the_corpus_has_everyday_constructions_and_meaning_pairs() -> None:
    """Questions, negation, auxiliaries, relative and subordinate clauses, coordination and lengths from short
    to long all occur, and most sentences have a meaning pair."""
    training = training_sentences(2000)
    first = Counter(s[0] for s in training)
    words = Counter(w for s in training for w in s)
    assert sum(first[w] for w in ("did", "can", "will", "is", "are", "where", "why", "how")) > 50
    assert all(words[w] > 20 for w in ("not", "who", "that", "because", "and", "was", "has", "to"))
    lengths = [len(s) for s in training]
    assert min(lengths) <= 4 and max(lengths) >= 20
    assert sum(bool(analyse(s).targets["meaning"]) for s in training) / len(training) > 0.6
