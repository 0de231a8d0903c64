"""all-MiniLM-L6-v2's WordPiece tokenizer: a sentence cut into pieces, [CLS] and [SEP] around them, the
pieces grouped into the words they spell, and the refusal of a sentence the model cannot read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.web.refusal import Refusal

MAX_PIECES = 128  # WordPiece pieces per sentence, [CLS] and [SEP] included


@dataclass(frozen=True)
class Pieces:
    """A sentence cut into WordPiece pieces, and the words the pieces come from.

    ``words`` are the pre-tokenizer's words (split at spaces and at every punctuation mark), spelled as in
    the sentence (the model reads them lower-cased); ``word_index[p]`` is the word piece p belongs to, None
    for [CLS] and [SEP].
    """

    ids: list[int]
    tokens: list[str]
    special: list[bool]
    word_index: list[int | None]
    words: list[str]


class WordPieces:
    """The tokenizer of ``tokenizer.json``, reading a sentence as it is: no padding, no truncation."""

    def __init__(self, tokenizer_file: Path) -> None:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.no_padding()  # tokenizer.json pads to 128 and truncates; the sentence is read as it is
        tokenizer.no_truncation()
        self.tokenizer = tokenizer

    def pieces(self, sentence: str) -> Pieces:
        """Cut ``sentence`` into WordPiece pieces (lower-cased, as the model was trained), with [CLS] and
        [SEP] around them, and group the pieces into the words they spell."""
        try:
            encoding = self.tokenizer.encode(sentence)
        except Exception as error:  # e.g. a lone surrogate the Rust tokenizer cannot take as UTF-8
            raise Refusal("sentence is not valid Unicode text") from error
        special = [bool(s) for s in encoding.special_tokens_mask]
        renumber: dict[int, int] = {}
        spans: list[list[int]] = []
        word_index: list[int | None] = []
        for is_special, word, (start, end) in zip(special, encoding.word_ids, encoding.offsets, strict=True):
            if is_special or word is None:
                word_index.append(None)
                continue
            if word not in renumber:
                renumber[word] = len(spans)
                spans.append([start, end])
            w = renumber[word]
            spans[w] = [min(spans[w][0], start), max(spans[w][1], end)]
            word_index.append(w)
        return Pieces(
            ids=list(encoding.ids),
            tokens=list(encoding.tokens),
            special=special,
            word_index=word_index,
            words=[sentence[start:end] for start, end in spans],
        )

    def readable_pieces(self, sentence: str, max_pieces: int = MAX_PIECES) -> Pieces:
        """``pieces(sentence)``, or a Refusal for a sentence of more than ``max_pieces`` pieces or without a
        word: what ``RealBert.attend`` checks before any arithmetic."""
        pieces = self.pieces(sentence)
        if len(pieces.ids) > max_pieces:
            raise Refusal(
                f"sentence splits into {len(pieces.ids)} WordPiece pieces with [CLS] and [SEP]; "
                f"at most {max_pieces} are allowed: shorten it"
            )
        if not pieces.words:
            raise Refusal("sentence has no words the model can read: type at least one word")
        return pieces
