"""The one way a request is refused: raise ``Refusal`` anywhere, and the app answers ``{"detail": ...}``.

A model, a file reader or a route that cannot answer what was asked raises a Refusal whose detail says why,
in words for the reader; one exception handler (app/web/errors.py) turns it into the answer, with the status
the Refusal carries (422 unless it says otherwise). Nothing here knows of HTTP beyond that number, so the
numpy models raise it without importing the web framework.
"""

from __future__ import annotations

from typing import Any


class Refusal(ValueError):
    """The request cannot be answered as asked; ``detail`` says why, for the reader.

    ``status`` is the answer's status code: 422 (the input cannot be used) unless the class or the caller
    says otherwise (415 for a file of the wrong type, 413 for one too large, 503 for a model not installed).
    ``fields`` are stated in the answer beside ``detail``, for a page to act on (none unless given).
    """

    status: int = 422

    def __init__(self, detail: str, status: int | None = None, fields: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.fields = {k: v for k, v in (fields or {}).items() if k != "detail"}
        if status is not None:
            self.status = status


class UnknownWords(Refusal):
    """Words outside a model's vocabulary; each may come with close known words to suggest. ``listed``: the
    answer also states them as fields, ``unknown`` (the words, in order) and ``suggestions`` (word -> close
    known words, possibly none)."""

    def __init__(
        self,
        words: list[str],
        vocabulary: str,
        suggestions: dict[str, list[str]] | None = None,
        listed: bool = False,
    ):
        self.words = words
        self.suggestions = suggestions or {}
        fields = {"unknown": words, "suggestions": {w: self.suggestions.get(w, []) for w in words}}
        detail = f"not in {vocabulary}: " + ", ".join(self._described(w) for w in words)
        super().__init__(detail, fields=fields if listed else None)

    def _described(self, word: str) -> str:
        close = self.suggestions.get(word, [])
        if not close:
            return word
        options = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
        return f"{word} (did you mean {options}?)"
