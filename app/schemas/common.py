"""What the API's models share: a strict request body, and the names that several route groups use."""

from itertools import islice
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

RelationName = Literal["meaning", "grammar", "position"]
# A sentence's length limit is a setting (ATTENTION_MAX_SENTENCE_CHARS), unknown when these are declared: its
# schema carries this mark, and the app writes the settings' maxLength in its place (app.deps).
SENTENCE_LIMIT = "x-sentence-limit"


class RequestBody(BaseModel):
    """A JSON request body: no type coercion (`"seed": false` is not 0), and no field it does not define.

    What a refused body costs must not grow with the body. Left to itself, ``extra="forbid"`` reports every
    unknown field as an error of its own (29,000 stray keys, 29,000 errors); here one error names the first
    few and counts the rest, before pydantic looks at them. Lists in request bodies are declared
    ``fail_fast`` for the same reason: the first bad number of a 64 × 64 matrix is reported, not all 4,096.
    """

    model_config = ConfigDict(strict=True, extra="forbid")  # "forbid" also puts additionalProperties: false
    # in the JSON schema; the validator below refuses unknown fields before pydantic's own check is reached.

    @model_validator(mode="before")
    @classmethod
    def refuse_unknown_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = cls.model_fields.keys()
            unknown = data.keys() - known
            if unknown:
                first = [
                    repr(k if len(k) <= 40 else k[:39] + "…")
                    for k in islice((k for k in data if k not in known), 3)
                ]
                more = f" and {len(unknown) - len(first):,} more" if len(unknown) > len(first) else ""
                fields = "field" if len(unknown) == 1 else "fields"
                # Without a context pydantic leaves the message as it is, braces in a field's name included.
                raise PydanticCustomError(
                    "extra_forbidden",
                    f"unknown {fields} {', '.join(first)}{more}: the fields are {', '.join(known)}",
                )
        return data
