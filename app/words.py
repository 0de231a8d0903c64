"""A sentence's words, as every endpoint counts them: one splitter, and one check of how many there are.

A word is a run of letters or digits in any script, with inner apostrophes ("Bank's"); punctuation and
underscores separate words and are dropped. Figure 1's rules, the translator, the tiny language models and
the real model's relation pairs all read words this way, so "1 to 64 words" means the same everywhere.
"""

from __future__ import annotations

import re

from app.web.refusal import Refusal

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def tokenize(sentence: str) -> list[str]:
    """Split a sentence into word tokens, dropping punctuation ("Bank's edge." -> ["Bank's", "edge"])."""
    return _WORD.findall(sentence)


def sentence_words(sentence: str, max_words: int) -> list[str]:
    """The sentence's words, or a Refusal when there are none or more than ``max_words``."""
    words = tokenize(sentence)
    if not words:
        raise Refusal("sentence has no words: type at least one word")
    if len(words) > max_words:
        raise Refusal(f"sentence has {len(words)} words; at most {max_words} are allowed")
    return words
