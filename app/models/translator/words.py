"""The translator's English side: its source vocabulary, the words of a sentence it does not know (each with
close known words to suggest), and the refusal of a sentence it cannot honestly translate."""

from __future__ import annotations

from app.models.suggest import Suggestions
from app.web.refusal import Refusal, UnknownWords

PAD, BOS, EOS = "<pad>", "<s>", "</s>"
SPECIALS = (PAD, BOS, EOS)
# The longest English sentence among the training pairs: training/parallel_corpus.py draws 3 to 30 words
# (MAX_WORDS there; tests/models/test_translator.py checks the two agree). Past it, the model is guessing.
TRAINED_MAX_WORDS = 30
VOCABULARY = "the translator's vocabulary"
SUGGESTED_AT_MOST = 8  # the unknown words of one refusal given close known words; any others are named alone


class SourceWords:
    """The source vocabulary and what it says of a sentence's words: which it does not know, which known
    words are close to those, and whether the sentence may be translated at all."""

    def __init__(self, source_vocabulary: list[str]) -> None:
        self.source_vocabulary = source_vocabulary
        self.source_index = {w: k for k, w in enumerate(source_vocabulary)}
        self.words = sorted(w for w in source_vocabulary if w not in SPECIALS)
        self.suggestions = Suggestions(self.words)

    def unknown(self, words: list[str]) -> list[str]:
        """The words outside the vocabulary, once each and in order: a set lookup a word, cheap enough to ask
        before deciding whether a sentence needs ``check``'s refusal worked out."""
        return list(dict.fromkeys(w for w in words if w not in self.source_index or w in SPECIALS))

    def unknown_words(self, words: list[str]) -> UnknownWords | None:
        """UnknownWords naming the words outside the vocabulary, once each and in order, the first
        SUGGESTED_AT_MOST each with up to three known words that fit where it stands (app/models/suggest.py:
        by meaning for a real word, by spelling for a typo); None when every word is known."""
        unknown = self.unknown(words)
        if not unknown:
            return None
        before = {}
        for k, w in enumerate(words):
            before.setdefault(w, words[k - 1] if k else "")
        suggestions = {w: list(self.suggestions.find(w, before[w])) for w in unknown[:SUGGESTED_AT_MOST]}
        return UnknownWords(unknown, VOCABULARY, suggestions, listed=True)

    def check(self, words: list[str]) -> None:
        """Refuse, before any decoding, a sentence the translator cannot honestly translate: one longer than
        any it was trained on, or with words it does not know (both named in one refusal when both apply).
        The refusal states its facts as fields too: ``max_words`` and ``word_count`` for the length,
        ``unknown`` and ``suggestions`` for the words. The length is judged first; close words are looked
        for only for the first SUGGESTED_AT_MOST unknown words, and each word's are remembered."""
        if len(words) <= TRAINED_MAX_WORDS:
            unknown = self.unknown_words(words)
            if unknown:
                raise unknown
            return
        unknown = self.unknown_words(words)
        detail = (
            f"The translator was trained on sentences of at most {TRAINED_MAX_WORDS} words; "
            f"this one has {len(words)}."
        )
        fields = {"max_words": TRAINED_MAX_WORDS, "word_count": len(words)}
        if unknown:
            raise Refusal(f"{detail} Also {unknown.detail}", fields={**fields, **unknown.fields})
        raise Refusal(detail, fields=fields)

    def source_ids(self, words: list[str]) -> list[int]:
        """Token ids of the source words, or UnknownWords naming the others with close known words."""
        unknown = self.unknown_words(words)
        if unknown:
            raise unknown
        return [self.source_index[w] for w in words]
