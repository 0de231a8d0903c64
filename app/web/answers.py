"""How the API writes its answers: JSON straight from Python and numpy values, and the packed form of a large
block of attention weights.

Every computed answer is written by ``json_bytes`` (orjson, which reads numpy arrays directly): the numbers
are the server's own, so they are not validated again on the way out, and no array becomes a list of Python
floats first. A float is written as the shortest decimal that reads back as the same float64.

The packed form (``?format=packed`` on /api/attention) sends the weights as binary instead of decimals, three
bytes a weight (``float24``), after a JSON head holding every other field. At 64 words × 12 heads it is
169 KB where the JSON answer is 1.1 MB, and writing it costs a fraction of writing the decimals.
"""

from __future__ import annotations

import struct
from typing import Any, Final

import numpy as np
import orjson
from fastapi import Response
from numpy.typing import ArrayLike

JSON: Final = "application/json"
PACKED: Final = "application/octet-stream"
# A packed number of at least float32's smallest normal (1.2e-38) is within this relative distance of the
# float64 it stands for: 2⁻¹⁶ from cutting 8 bits, plus float32's own 2⁻²⁴, rounded up. Below it, within
# 2⁻¹⁴¹. So a row of softmax weights still sums to 1 within PACKED_RELATIVE_ERROR + 64 · 2⁻¹⁴¹.
PACKED_RELATIVE_ERROR: Final = 1.6e-5
PACKED_SMALLEST: Final = 2.0**-141  # the smallest positive packed number, about 3.6e-43


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON: dicts, lists, tuples, str, int, float, bool, None, numpy arrays of any layout and
    numpy scalars. NaN and ±∞ are written as null (JSON has neither)."""
    return orjson.dumps(value, default=_laid_out, option=orjson.OPT_SERIALIZE_NUMPY)


def _laid_out(value: Any) -> Any:
    """What orjson cannot write itself: an array that is a strided view (a slice, a transpose) is copied into
    one block first."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def float24(values: ArrayLike) -> bytes:
    """Numbers as three little-endian bytes each: the top 24 bits of their float32, rounded to nearest (ties
    to even) at the eighth bit cut. That keeps float32's sign and exponent and 15 of its 23 mantissa bits,
    about 4.8 significant digits. A reader rebuilds each float32 by putting a zero byte below the three.

    - an exact 0 stays 0, and equal numbers stay equal (the same float64 always packs to the same bytes);
    - no positive number becomes 0: one below what the form can hold (under about 3.6e-43, as float64's
      softmax tails can be) is sent as the smallest positive one, PACKED_SMALLEST;
    - a number of at least 1.2e-38 is within PACKED_RELATIVE_ERROR of its float64, a smaller one within
      PACKED_SMALLEST.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    bits = x.astype("<f4").view("<u4")
    bits += np.uint32(0x7F) + ((bits >> np.uint32(8)) & np.uint32(1))  # round at the cut, ties to even
    bits >>= np.uint32(8)
    bits[(bits == 0) & (x > 0)] = 1  # too small for the form, and still positive
    out = np.empty((bits.size, 3), np.uint8)  # byte by byte, low first (a strided copy is slower)
    out[:, 0], out[:, 1], out[:, 2] = bits, bits >> np.uint32(8), bits >> np.uint32(16)
    return out.tobytes()


def packed(head: dict[str, Any], name: str, values: ArrayLike) -> bytes:
    """The packed answer: ``head`` as JSON with ``<name>_shape`` added, then ``values`` in float24.

    bytes 0-3     n, the length of the JSON head (uint32, little-endian)
    bytes 4-4+n   the JSON head, padded with spaces so that the numbers start at a multiple of 4
    then          the numbers in float24, row-major in the shape the head gives
    """
    array = np.asarray(values)
    text = json_bytes({**head, f"{name}_shape": list(array.shape)})
    text += b" " * (-len(text) % 4)
    return struct.pack("<I", len(text)) + text + float24(array)


def answer(body: bytes, media_type: str = JSON) -> Response:
    """A response carrying bytes already written (by ``json_bytes`` or ``packed``)."""
    return Response(body, media_type=media_type)
