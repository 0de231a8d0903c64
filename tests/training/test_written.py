"""Reading sentences whose pairs were written by hand (training.written): the pairs, and wrong files."""

from pathlib import Path

import pytest

from training.written import DEVELOPMENT, SEALED, WRITTEN, load

GOOD = """# a comment
the dog saw the other dog
  meaning: -
  the -> dog#1
  dog -> saw
  saw -> dog#1
  the -> dog#2
  other -> dog#2
  dog -> saw

a bat flew into the cave
  meaning: bat <-> cave
  a -> bat
  bat -> flew
  flew -> bat
  into -> cave
  the -> cave
  cave -> into
"""


def test_pairs_are_read_by_place(tmp_path: Path) -> None:
    path = tmp_path / "sentences.txt"
    path.write_text(GOOD, encoding="utf-8")
    first, second = load(path)
    assert first.targets["meaning"] == []
    assert (4, 5) in first.targets["grammar"] and (5, 2) in first.targets["grammar"]
    assert second.targets["meaning"] == [(1, 5), (5, 1)]
    assert second.targets["position"] == [(i, i - 1) for i in range(1, 6)]


def test_a_repeated_word_may_name_its_own_line_too(tmp_path: Path) -> None:
    path = tmp_path / "sentences.txt"
    path.write_text(GOOD, encoding="utf-8")
    named = tmp_path / "named.txt"
    named.write_text(GOOD.replace("  the -> dog#2", "  the#2 -> dog#2"), encoding="utf-8")
    assert load(named) == load(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("  saw -> dog#1", "  saw -> dog"), "occurs 2 times"),  # a repeated word must say which
        (("  other -> dog#2\n", ""), "one grammar line per word"),
        (("bat <-> cave", "bat <-> cavern"), "is not a word"),
    ],
)
def test_a_wrong_file_is_refused(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    path = tmp_path / "sentences.txt"
    path.write_text(GOOD.replace(*change), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load(path)


def test_the_committed_sets_hold_their_sentences() -> None:
    for path, count in ((WRITTEN, 160), (DEVELOPMENT, 1036), (SEALED, 160)):
        sentences = load(path)
        assert len(sentences) == count
        assert sum(bool(s.targets["meaning"]) for s in sentences) >= 0.7 * count  # most with one
        assert len({" ".join(s.words) for s in sentences}) == count  # no sentence twice
    sets = [{" ".join(s.words) for s in load(path)} for path in (WRITTEN, DEVELOPMENT, SEALED)]
    assert all(not a & b for k, a in enumerate(sets) for b in sets[k + 1 :])  # no sentence in two sets
