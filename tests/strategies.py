"""The hypothesis settings and numbers the maths tests share."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

FAST = settings(max_examples=40, deadline=None)  # no deadline: a first numpy call may be slow


def finite(bound: float) -> st.SearchStrategy[float]:
    """Float64 numbers in [-bound, bound], never NaN or infinite."""
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=64)


FLOATS = finite(3.0)  # scores, queries and keys of a size softmax handles without saturating
