"""Query parameters that several endpoints share, declared once so that the OpenAPI document says the same
of each of them.

A constraint that an endpoint checks itself, with a message written for the reader, appears in the document
through ``json_schema_extra`` (an ``enum`` or ``pattern``) rather than as a pydantic constraint, whose message
would replace the reader's. What a schema cannot say in a way every regular-expression engine reads alike
(a sentence has a word: a letter or digit in any script; at most 64 words; a word outside a model's
vocabulary) stays a documented 422.
"""

from typing import Annotated, Any

from fastapi import Query


def sentence_query(max_length: int = 500) -> Any:
    """A sentence of 1 to ``max_length`` characters."""
    return Query(
        min_length=1,
        max_length=max_length,
        description=f"at most {max_length} characters, with at least one word (a letter or a digit)",
    )


Sentence = Annotated[str, sentence_query()]
