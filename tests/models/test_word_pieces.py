"""Word pieces: every word of letters, digits and apostrophes has pieces, cut as WordPiece (tokenizers)
cuts it."""

import random
import string

import pytest

from app.models.tiny_lm import get_tiny_lms
from app.models.word_pieces import ALPHABET, PREFIX, joined, pieces, plain, split_words, unreadable
from app.web.refusal import Refusal


@pytest.fixture(scope="module")
def vocabulary() -> dict[str, int]:
    return get_tiny_lms().models["neg_inf"].index


def some_words(count: int) -> list[str]:
    rng = random.Random(11)
    letters = string.ascii_lowercase + "0123456789'"
    words = ("".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(count))
    return [w.strip("'") or "a" for w in words]


def test_the_vocabulary_spells_every_character_alone_and_after_the_prefix(vocabulary) -> None:
    for ch in ALPHABET:
        assert ch in vocabulary and PREFIX + ch in vocabulary


def test_pieces_join_back_into_the_word(vocabulary) -> None:
    for word in some_words(500):
        cut = pieces(word, vocabulary)
        assert all(p in vocabulary for p in cut)
        assert joined(cut) == [word]
        assert not cut[0].startswith(PREFIX) and all(p.startswith(PREFIX) for p in cut[1:])


def test_the_cut_is_the_one_tokenizers_wordpiece_makes(vocabulary) -> None:
    models = pytest.importorskip("tokenizers.models")
    tokenizers = pytest.importorskip("tokenizers")
    wordpiece = models.WordPiece(vocabulary, unk_token="<pad>", max_input_chars_per_word=100)
    reference = tokenizers.Tokenizer(wordpiece)
    for word in [*some_words(500), "sandcastle", "neighbour", "don't", "river"]:
        assert pieces(word, vocabulary) == reference.encode(word).tokens, word


def test_plain_lowers_drops_accents_and_straightens_apostrophes() -> None:
    assert plain("Café’s") == "cafe's"
    assert plain("NAÏVE") == "naive"


def test_characters_no_piece_spells_are_named_once_each_in_order(vocabulary) -> None:
    assert unreadable(["the", "猫", "Ωmega", "猫", "ok"]) == ["猫", "ω"]
    with pytest.raises(Refusal) as refused:
        split_words(["the", "猫"], vocabulary)
    assert refused.value.fields == {"characters": ["猫"]}


def test_each_piece_knows_its_word(vocabulary) -> None:
    tokens, owner = split_words(["The", "zorbly", "cat"], vocabulary)
    assert joined(tokens) == ["the", "zorbly", "cat"]
    assert [joined([t for t, k in zip(tokens, owner, strict=True) if k == w])[0] for w in range(3)] == [
        "the",
        "zorbly",
        "cat",
    ]
