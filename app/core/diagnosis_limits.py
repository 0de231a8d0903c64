"""What the diagnosis takes, and the words that refuse the rest: the limits on an attention array's shape
(check_limits, check_shape), the refusals of weights and of files (MatrixError, FileError,
UnsupportedFileType), and how a head or a weight is named to the reader who sent it.

The readers of blocks (app/core/head_blocks.py), of files (app/core/matrix_files.py) and the diagnosis
(app/core/diagnostics.py) all judge a shape here, so a file is refused with the same words whether early
or late. This module imports none of them.
"""

from __future__ import annotations

from app.web.refusal import Refusal

MIN_POSITIONS = 2
MAX_POSITIONS = 512
# A file's bytes do not bound the work: a 2 MB .npy of shape [500000, 2, 2] is half a million heads, and the
# work and the answer grow with the heads. These bound them whatever the file; check_shape judges them.
MAX_LAYERS = 256
MAX_HEADS_PER_LAYER = 256
MAX_HEADS = 8192  # layers × heads


class MatrixError(Refusal):
    """Attention weights that cannot be diagnosed; the message is written for the reader who sent them."""


class FileError(Refusal):
    """The file cannot be read as attention weights (422)."""


class UnsupportedFileType(FileError):
    """The file is not .npy, .json or .csv, or its content is not what its extension says (415)."""

    status = 415


def check_limits(shape: tuple[int, ...]) -> None:
    """A MatrixError when a shape of 2 to 4 dimensions is past a limit on the work: more than MAX_POSITIONS
    positions, MAX_LAYERS layers, MAX_HEADS_PER_LAYER heads per layer or MAX_HEADS heads in all.

    Only the upper bounds, so that a reader can judge the shape a file claims before building anything
    from it (app.core.matrix_files: a .npy header, the first element at each depth of nested lists); the
    number of dimensions and the square are judged by check_shape, once the shape is known for sure.
    """
    if not 2 <= len(shape) <= 4:
        return
    *lead, rows, keys = shape
    if max(rows, keys) > MAX_POSITIONS:
        size = f"n = {rows:,}" if rows == keys else f"a head of {rows:,} × {keys:,}"
        raise MatrixError(f"{size} is too large: at most {MAX_POSITIONS} positions")
    layers, heads = (1, 1, *lead)[-2:]  # [n, n] is one head; [h, n, n] one layer
    where = f"shape {list(shape)}"
    if layers * heads > MAX_HEADS:
        raise MatrixError(
            f"the array holds {layers * heads:,} heads ({where}): "
            f"at most {MAX_HEADS:,} heads are diagnosed (layers × heads)"
        )
    if layers > MAX_LAYERS:
        raise MatrixError(
            f"the array holds {layers:,} layers ({where}): at most {MAX_LAYERS} layers are diagnosed"
        )
    if heads > MAX_HEADS_PER_LAYER:
        raise MatrixError(
            f"the array holds {heads:,} heads per layer ({where}): "
            f"at most {MAX_HEADS_PER_LAYER} heads per layer are diagnosed"
        )


def check_shape(shape: tuple[int, ...]) -> None:
    """A MatrixError naming the first thing wrong with the shape of an attention array: the number of
    dimensions, a non-square block, n out of range, a limit passed (check_limits) or no heads at all."""
    if len(shape) not in (2, 3, 4):
        raise MatrixError(
            f"expected shape [n, n], [h, n, n] or [layers, h, n, n], got shape {list(shape)} "
            f"({len(shape)} dimension{'' if len(shape) == 1 else 's'})"
        )
    if shape[-1] != shape[-2]:
        raise MatrixError(
            f"the last two dimensions must be equal (queries × keys over the same positions), "
            f"got {shape[-2]} × {shape[-1]}"
        )
    n = shape[-1]
    if n < MIN_POSITIONS:
        raise MatrixError(f"n = {n} is too small: a causal check needs at least {MIN_POSITIONS} positions")
    check_limits(shape)
    if 0 in shape:
        raise MatrixError(f"the array holds no heads: shape {list(shape)}")


def grid_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(layers, h) of an attention array's shape: [n, n] is one head, [h, n, n] one layer."""
    layers, heads = (1, 1, *shape[:-2])[-2:]
    return int(layers), int(heads)


def head_name(layer: int, head: int) -> str:
    """A head as a reader reads it, counted from 1: "layer 1, head 3" for the array's [0, 2]."""
    return f"layer {layer + 1}, head {head + 1}"


def cell_name(layer: int, head: int, i: int, j: int) -> str:
    """A weight as a reader reads it, counted from 1: "row 2, column 1 of layer 1, head 1" is [0, 0, 1, 0]."""
    return f"row {i + 1}, column {j + 1} of {head_name(layer, head)}"
