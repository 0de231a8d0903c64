"""How figure 7's vocabulary is learnt: the same pieces on every run, and every word can be spelled."""

import random

from app.models.word_pieces import ALPHABET, PREFIX, joined, pieces
from training.lm_corpus import learn_pieces, learn_vocabulary, spelled, split_corpus


def test_the_most_used_pair_is_joined_first_and_ties_go_alphabetically() -> None:
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    letters = {"h", "p", "b", "##u", "##g", "##n", "##s"}
    # u then g is used 10 + 5 + 5 = 20 times (p then u 17, u then n 16, h then u 15); once joined, u then n
    # (16) comes next, since p then u is left only in "pun" (12)
    assert learn_pieces(counts, 1) == sorted(letters | {"##ug"})
    assert learn_pieces(counts, 2) == sorted(letters | {"##ug", "##un"})
    tie = {"ab": 1, "cd": 1}
    assert learn_pieces(tie, 1) == sorted({"a", "##b", "c", "##d", "ab"})  # (a, ##b) before (c, ##d)


def test_a_run_always_learns_the_same_vocabulary_and_it_spells_every_word() -> None:
    train, _ = split_corpus(2000, 10)
    first = learn_vocabulary(train, 50)
    assert first == learn_vocabulary(train, 50)
    assert len(first) == len(set(first))
    index = {p: k for k, p in enumerate(first)}
    assert all(ch in index and PREFIX + ch in index for ch in ALPHABET)
    rng = random.Random(3)
    words = [w for s in rng.sample(train, 200) for w in s]
    for word in words:
        cut = pieces(word, index)
        assert joined(cut) == [word]
        assert (len(cut) == 1) == (not spelled(word) or word in index)
