"""Attention weights from the bytes of a file, read safely: .npy, .json or .csv.

The type comes from the file name's extension and is checked against the content. Nothing here executes,
unpickles, evaluates or writes anything:

- ``.npy``: read by app/core/head_blocks.py, its header checked first (a real-number dtype, as many data
  bytes as the shape promises, and the shape itself; an object array, which only pickle can hold, is
  refused, and np.load is never called), then a block of whole heads at a time (npy_layout, npy_blocks), so
  memory stays one block whatever the file holds.
- ``.json``: ``json.loads`` with the non-standard ``Infinity`` tokens refused, and a missing number (``null``,
  as this server's own answers write a NaN, or the non-standard ``NaN``) read as NaN, which the diagnosis
  accepts only for a whole row (a fully masked row); the shape the
  nested lists claim (the length at each depth of the first element) is judged against the limits; then
  a walk that accepts only rectangular nested lists of numbers (or an object whose ``"weights"`` key holds
  them), and the conversion to an array.
- ``.csv``: one matrix, comma separated, every cell a plain decimal number; blank lines only at the end.
  Reading stops at the first line past MAX_POSITIONS, or a line of more than MAX_POSITIONS values,
  before any number is converted.

A file's bytes do not bound the work (a 2 MB .npy can hold half a million heads), so each format is
judged against the diagnosis's limits as soon as it shows its shape, before the work that grows with it.
The limits are not repeated here: the reader imports them and their checks (check_shape, check_limits,
MAX_POSITIONS) from app/core/diagnosis_limits.py, as the diagnosis does, so a file is refused with the same
words, whether early or by the diagnosis.

The API and the CLI share this module; errors are worded for the person who sent the file.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import PurePosixPath

import numpy as np
from numpy.typing import NDArray

from app.core.diagnosis_limits import (
    MAX_HEADS,
    MAX_LAYERS,
    MAX_POSITIONS,
    MIN_POSITIONS,
    FileError,
    MatrixError,
    UnsupportedFileType,
    check_limits,
)
from app.core.head_blocks import NPY_MAGIC, npy_blocks, npy_layout

SUFFIXES = (".npy", ".json", ".csv")
TEXT_SUFFIXES = (".json", ".csv")  # parsed into Python objects, so held to a smaller size than .npy
TOKEN_CHARS = 40  # a token longer than this is cut (the tokens are the reader's text, shown as labels)
MAX_DEPTH = 4  # [layers, h, n, n]
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# Within this alphabet float() accepts exactly the NUMBER pattern (no nan, inf or 1_000), and is faster.
CSV_CHARACTERS = re.compile(r"[0-9eE+\-.,\s]*")
NOT_BLANK = re.compile(r"\S")
_SURROGATE = re.compile("[\ud800-\udfff]")  # a JSON escape can name one alone; no text holds one


def file_too_large(limit: int, suffix: str | None = None) -> str:
    """Why a file over ``limit`` bytes is refused: the 413 of POST /api/diagnose and check-causal's words;
    ``suffix`` names a type's own limit (.json and .csv have a smaller one than .npy)."""
    size = f"{limit / 2**20:g} MB ({limit:,} bytes)" if limit >= 2**20 else f"{limit:,} bytes"
    return f"file too large: the limit{f' for {suffix} files' if suffix else ''} is {size}"


def file_type(filename: str | None) -> str:
    """The lower-case extension of ``filename`` if it is one we read, else an UnsupportedFileType."""
    suffix = PurePosixPath((filename or "").replace("\\", "/")).suffix.lower()
    if suffix not in SUFFIXES:
        shown = f"'{_shorten(suffix)}'" if suffix else "(no extension)"
        raise UnsupportedFileType(f"unsupported file type {shown}: send .npy, .json or .csv")
    return suffix


def read_matrix(filename: str | None, data: bytes) -> NDArray[np.generic]:
    """The numeric array held in ``data``, read according to the extension of ``filename``.

    Values are not judged here beyond what reading needs, and shapes only against the diagnosis's limits,
    as early as the format allows; app.core.diagnostics.diagnose judges the rest. Errors are FileError, or
    MatrixError for a shape that cannot be diagnosed.
    """
    return read_weights(filename, data)[0]


def read_weights(filename: str | None, data: bytes) -> tuple[NDArray[np.generic], list[str] | None]:
    """read_matrix's array, and the tokens a .json object holds beside its weights (None for the rest)."""
    suffix = file_type(filename)
    if not data:
        raise FileError(f"the {suffix} file is empty")
    if suffix == ".npy":
        return _read_npy(data), None
    text = _text(data, suffix)
    return _read_json(text) if suffix == ".json" else (_read_csv(text), None)


def parse_tokens(text: str) -> list[str]:
    """The tokens of the form field ``tokens``: a JSON list of strings, or one token per line."""
    if not text.lstrip().startswith("["):
        return text.splitlines()
    try:
        value = json.loads(text)
    except RecursionError as error:
        raise FileError("tokens: nested too deeply to be a list of strings") from error
    except ValueError as error:
        raise FileError(f"tokens: not a valid JSON list: {error}") from error
    return _token_list(value)


def _token_list(value: object) -> list[str]:
    if not isinstance(value, list):
        raise FileError(f"tokens: expected a list of strings, not {_json_kind(value)}")
    for i, token in enumerate(value):
        if not isinstance(token, str):
            raise FileError(f"tokens: token {i + 1} is {_json_kind(token)}, not a string")
        if not token.isascii() and _SURROGATE.search(token):
            raise FileError(f"tokens: token {i + 1} is not text: it holds a lone UTF-16 surrogate")
    return value


def check_tokens(tokens: list[str], n: int) -> list[str]:
    """``tokens`` if there is one per position, each cut to TOKEN_CHARS characters; else a FileError."""
    if len(tokens) != n:
        raise FileError(f"tokens: {len(tokens):,} given, the heads have {n} positions")
    return [token if len(token) <= TOKEN_CHARS else token[: TOKEN_CHARS - 1] + "…" for token in tokens]


def _shorten(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(data: bytes, suffix: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark is dropped), or an UnsupportedFileType."""
    if data.startswith(NPY_MAGIC) or b"\x00" in data:
        raise UnsupportedFileType(f"this {suffix} file holds binary data, not text: send .npy, .json or .csv")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UnsupportedFileType(
            f"this {suffix} file is not UTF-8 text (byte {error.start}): send .npy, .json or .csv"
        ) from error


def _read_npy(data: bytes) -> NDArray[np.generic]:
    """A whole .npy array from its bytes, read as npy_layout and npy_blocks read a file."""
    stream = io.BytesIO(data)
    layout = npy_layout(stream)
    n = layout.shape[-1]
    heads = np.concatenate([block.copy() for block in npy_blocks(stream, layout)])  # (heads, n, n)
    return heads.reshape(layout.shape[:-2] + (n, n))


def _refuse_constant(name: str) -> float:
    """NaN as NaN (a fully masked row, judged by the diagnosis); Infinity and -Infinity refused."""
    if name == "NaN":
        return float("nan")
    raise FileError(f"the .json file contains {name}: attention weights must be finite numbers")


def _read_json(text: str) -> tuple[NDArray[np.float64], list[str] | None]:
    """Nested lists of numbers, or an object whose "weights" key holds them (and whose "tokens" key, if
    any, holds a list of strings); the array and the tokens."""
    _count_lists(text)
    try:
        # parse_int=float: every number becomes a float, and an absurdly long integer becomes inf (refused
        # later as not finite) instead of a Python int of unbounded size.
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=float)
    except FileError:
        raise
    except RecursionError as error:
        raise FileError("the .json file is nested too deeply to be an attention array") from error
    except ValueError as error:
        raise FileError(f"the .json file is not valid JSON: {error}") from error
    where = ""
    tokens = None
    if isinstance(value, dict):
        if "weights" not in value:
            raise FileError('a .json object must have a "weights" key holding the nested lists of numbers')
        if value.get("tokens") is not None:
            tokens = _token_list(value["tokens"])
        value, where = value["weights"], "weights"
    if not isinstance(value, list):
        raise FileError(
            f'the .json file must hold nested lists of numbers (or an object with a "weights" key), '
            f"not {_json_kind(value)}"
        )
    check_limits(_claimed_shape(value))
    _nested_shape(value, where, depth=1)
    return np.array(value, dtype=np.float64), tokens


def _count_lists(text: str) -> None:
    """A MatrixError when the text has more lists than an array within the limits could have, judged
    before json.loads builds a Python object for every list and number (2 MB of [[1,0],[1,0]] is 150,000
    heads and 450,000 lists, and building them holds the interpreter for half a second).

    Counting "[" costs a millisecond. The row length n is claimed by the first innermost list, read off
    the text up to the first "]". An array of L layers of H heads of n positions has 1 + L + L·H·(n + 1)
    lists and L·H·n² numbers of at least two characters each ("0,"), so L·H ≤ min(MAX_HEADS, chars / 2n²).
    More lists than that are too many heads, or rows of other lengths than the first.
    """
    first_end = text.find("]")
    if first_end < 0:
        return  # no list closes: json.loads says what is wrong
    leaf = text[text.rfind("[", 0, first_end) + 1 : first_end]
    n = max(leaf.count(",") + 1 if leaf.strip() else 0, MIN_POSITIONS)
    most = 1 + MAX_LAYERS + min(MAX_HEADS, len(text) // (2 * n * n)) * (n + 1)
    lists = text.count("[")
    if lists <= most:
        return
    if text.count("[", 0, first_end) > MAX_DEPTH:  # the first innermost list is deeper than [layers, h, n, n]
        raise FileError("the .json file is nested too deeply to be an attention array")
    heads = (lists - 1) // (n + 1)  # [h, n, n]: 1 + h·(n + 1) lists
    if heads > MAX_HEADS:
        raise MatrixError(
            f"the .json file holds {lists:,} lists, about {heads:,} heads of {n} positions: "
            f"at most {MAX_HEADS:,} heads are diagnosed (layers × heads)"
        )
    raise MatrixError(
        f"the .json file holds {lists:,} lists, more than {len(text):,} characters of rows of {n} numbers "
        f"(as its first row has) can: the lists are ragged"
    )


def _claimed_shape(value: list[object]) -> tuple[int, ...]:
    """The shape the nested lists claim: the length of the first element at each depth, one depth past
    MAX_DEPTH at most. It costs one step per depth, where the walk that checks it costs one per number."""
    shape: list[int] = []
    item: object = value
    while isinstance(item, list) and len(shape) <= MAX_DEPTH:
        shape.append(len(item))
        if not item:
            break
        item = item[0]
    return tuple(shape)


def _json_kind(value: object) -> str:
    """How a JSON value that is not a number reads to its author."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f'a string ("{_shorten(value)}")'
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a number"


def _nested_shape(value: list[object], where: str, depth: int) -> tuple[int, ...]:
    """The shape of rectangular nested lists of floats, or a FileError naming the first place it breaks."""
    if not value:
        raise FileError(f"the list at {where or 'the top level'} is empty")
    if all(type(item) is float or item is None for item in value):  # None (null): NaN, as numpy reads it
        return (len(value),)
    shapes: list[tuple[int, ...]] = []
    for i, item in enumerate(value):
        if isinstance(item, list):
            if depth == MAX_DEPTH:
                raise FileError(
                    f"the lists are nested more than {MAX_DEPTH} deep at {where}[{i}]: "
                    "expected [n, n], [h, n, n] or [layers, h, n, n]"
                )
            shapes.append(_nested_shape(item, f"{where}[{i}]", depth + 1))
        elif type(item) is float or item is None:
            shapes.append(())
        else:
            raise FileError(f"the value at {where}[{i}] is {_json_kind(item)}, not a number")
        if shapes[-1] != shapes[0]:
            raise FileError(
                f"the lists are ragged: {where}[{i}] {_shape_text(shapes[-1])} "
                f"but {where}[0] {_shape_text(shapes[0])}"
            )
    return (len(value), *shapes[0])


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"has shape {list(shape)}" if shape else "is a number"


def _csv_lines(text: str) -> list[str]:
    """The lines of a .csv matrix, without the blank ones at its end, cut one at a time: a FileError as soon
    as there is more than an [n, n] matrix with n ≤ MAX_POSITIONS could hold, before any number is read."""
    lines: list[str] = []
    start = 0
    while start <= len(text) and len(lines) < MAX_POSITIONS:
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end].rstrip("\r")
        values = line.count(",") + 1
        if values > MAX_POSITIONS:
            raise FileError(
                f"line {len(lines) + 1} of the .csv file has {values:,} values: a .csv file holds one "
                f"[n, n] matrix, and n is at most {MAX_POSITIONS} positions"
            )
        lines.append(line)
        start = end + 1
    if NOT_BLANK.search(text, start):
        raise FileError(
            f"the .csv file has more than {MAX_POSITIONS} lines: it holds one [n, n] matrix, and n is at "
            f"most {MAX_POSITIONS} positions"
        )
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _read_csv(text: str) -> NDArray[np.float64]:
    """One matrix: a line per query row, comma-separated numbers; blank lines are allowed only at the end."""
    lines = _csv_lines(text)
    if not lines:
        raise FileError("the .csv file is empty")
    rows: list[list[float]] = []
    for number, line in enumerate(lines, start=1):
        try:
            if not line.strip() or not CSV_CHARACTERS.fullmatch(line):
                raise ValueError(line)
            row = [float(cell) for cell in line.split(",")]
        except ValueError as error:
            raise FileError(_csv_problem(number, line)) from error
        if rows and len(row) != len(rows[0]):
            raise FileError(
                f"line {number} of the .csv file has {len(row)} values but line 1 has {len(rows[0])}: "
                "a .csv file holds one rectangular matrix"
            )
        rows.append(row)
    return np.array(rows, dtype=np.float64)


def _csv_problem(number: int, line: str) -> str:
    """What is wrong with a .csv line that is not a list of numbers."""
    if not line.strip():
        return f"line {number} of the .csv file is blank: blank lines are allowed only at the end"
    for column, cell in enumerate(line.split(","), start=1):
        cell = cell.strip()
        if not cell:
            return f"line {number} of the .csv file, value {column}: the value is missing"
        if not NUMBER.fullmatch(cell):
            return f'line {number} of the .csv file, value {column}: "{_shorten(cell)}" is not a number'
    return f"line {number} of the .csv file is not a list of numbers"  # pragma: no cover
