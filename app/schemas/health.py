"""GET /healthz: whether the process serves, and which models failed to load."""

from typing import Literal

from pydantic import BaseModel, Field


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description='"ok" while the process serves requests; "degraded" once weights failed to load'
    )
    unavailable: list[str] = Field(
        default=[], description="the models whose weights could not be loaded (their endpoints answer 503)"
    )
