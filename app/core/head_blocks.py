"""An attention array as blocks of whole heads, of bounded size, so that the memory of a diagnosis does not
grow with its heads: from an array in memory (as_heads, array_blocks), or from the bytes of a .npy file
read without np.load (npy_layout, npy_blocks).

A .npy file's header is read and checked first (a real-number dtype, as many data bytes as the shape
promises, and the shape itself against app/core/diagnosis_limits.py); an object array, which only pickle
can hold, is refused, and np.load is never called. The numbers are then read with ``readinto``, a block of
whole heads at a time into one reused buffer, from bytes in memory or from a file of any size (the upload's
anonymous temporary file, check-causal's path).
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
from numpy.typing import ArrayLike, NDArray

from app.core.diagnosis_limits import FileError, MatrixError, UnsupportedFileType, check_shape

# Heads are judged in blocks of at most this many weights (one head when n² is larger): 4 MiB of float64 per
# working array, whatever the file holds, so the memory of a diagnosis does not grow with its heads.
BLOCK_ELEMENTS = 2**19
FORTRAN_BYTES = 4 * 2**20  # a Fortran-ordered .npy is read whole, so only this small
NPY_MAGIC = np.lib.format.MAGIC_PREFIX  # b"\x93NUMPY"
NPY_VERSIONS = ((1, 0), (2, 0), (3, 0))
NPY_HEADER_BYTES = 10_000  # numpy's own bound on a header it reads (max_header_size)


def block_heads(n: int) -> int:
    """How many heads of n positions a block holds: BLOCK_ELEMENTS weights, and at least one head."""
    return max(1, BLOCK_ELEMENTS // (n * n))


def as_heads(weights: ArrayLike) -> tuple[tuple[int, ...], NDArray[np.generic]]:
    """The given shape and the weights viewed as (layers · h, n, n), or a MatrixError. Nothing is copied
    for an array already in memory; ragged nested sequences and values that are not real numbers are
    refused, and the shape is judged (check_shape) before any work on the weights."""
    try:
        w = np.asarray(weights)
    except ValueError as error:  # ragged nested sequences
        raise MatrixError(f"the weights do not form a rectangular array: {error}") from error
    if w.dtype.kind not in "fiu":
        raise MatrixError(f"the weights must be real numbers, got values of type {w.dtype}")
    shape = tuple(int(s) for s in w.shape)
    check_shape(shape)
    return shape, w.reshape(-1, shape[-1], shape[-1])


def array_blocks(heads: NDArray[np.generic]) -> Iterator[NDArray[np.generic]]:
    """(heads, n, n) in blocks of block_heads(n) heads: views, nothing copied."""
    step = block_heads(heads.shape[-1])
    for start in range(0, len(heads), step):
        yield heads[start : start + step]


@dataclass(frozen=True)
class NpyLayout:
    """Where a .npy file's numbers are: ``offset`` bytes in, ``dtype`` and ``shape`` as its header says, in
    C order unless ``fortran_order``. Element [l, h, i, j] of a C-ordered [layers, H, n, n] array starts at
    offset + (((l · H + h) · n + i) · n + j) · itemsize, so a head is n² consecutive numbers."""

    offset: int
    dtype: np.dtype
    shape: tuple[int, ...]
    fortran_order: bool

    @property
    def data_bytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def npy_layout(file: BinaryIO) -> NpyLayout:
    """The layout of the .npy file open in ``file`` (binary, seekable), read from its header alone and
    checked before a number is read: the magic, a header numpy writes, a dtype of real numbers (an object
    array, which only pickle can hold, and a structured one are refused: nothing is unpickled), the shape
    against the diagnosis's limits (check_shape), as many data bytes as the shape promises, and C order
    (Fortran order only up to FORTRAN_BYTES, which is read whole)."""
    file.seek(0)
    start = file.read(len(NPY_MAGIC))
    if not start:
        raise FileError("the .npy file is empty")
    if start != NPY_MAGIC:
        raise UnsupportedFileType(
            "this .npy file does not start with the NumPy magic bytes (\\x93NUMPY): save it with numpy.save"
        )
    file.seek(0)
    try:
        version = np.lib.format.read_magic(file)
        if version not in NPY_VERSIONS:
            raise ValueError(f"unknown .npy format version {version[0]}.{version[1]}")
        # the header's length, checked before numpy reads that many bytes (a version-2 field can say 4 GB)
        size = 2 if version == (1, 0) else 4
        header_bytes = int.from_bytes(file.read(size), "little")
        if header_bytes > NPY_HEADER_BYTES:
            raise ValueError(f"it claims {header_bytes:,} bytes; numpy writes at most {NPY_HEADER_BYTES:,}")
        file.seek(-size, io.SEEK_CUR)
        # Version 3.0 differs from 2.0 only in allowing UTF-8 field names, which we refuse anyway.
        read_header = (
            np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        )
        shape, fortran_order, dtype = read_header(file)
    except ValueError as error:
        raise FileError(f"the .npy header cannot be read: {error}") from error
    if dtype.hasobject:
        raise FileError("pickled .npy files are refused: save with allow_pickle=False")
    if dtype.kind not in "fiu" or dtype.names is not None:
        raise FileError(f"the .npy array holds {dtype} values: attention weights must be real numbers")
    if any(int(s) < 0 for s in shape):
        raise FileError(f"the .npy header gives a negative dimension: shape {list(shape)}")
    layout = NpyLayout(file.tell(), dtype, tuple(int(s) for s in shape), bool(fortran_order))
    present = file.seek(0, io.SEEK_END) - layout.offset
    if present < layout.data_bytes:
        # Nothing is allocated for the promised array: refuse first.
        raise FileError(
            f"the .npy file is cut short: its header promises shape {list(shape)} of {dtype} "
            f"({layout.data_bytes:,} bytes) but {present:,} bytes follow"
        )
    check_shape(layout.shape)  # before a number is read, let alone a record per head
    if layout.fortran_order and layout.data_bytes > FORTRAN_BYTES:
        raise FileError(
            f"the .npy array is stored in Fortran order ({layout.data_bytes:,} bytes): past "
            f"{FORTRAN_BYTES // 2**20} MB only C order can be read head by head: save a C-ordered copy "
            "(numpy.ascontiguousarray) with numpy.save"
        )
    return layout


def npy_blocks(file: BinaryIO, layout: NpyLayout) -> Iterator[NDArray[np.generic]]:
    """The heads of the .npy file in ``file``, as (k, n, n) blocks of block_heads(n) heads in its own
    dtype, in (layer, head) order: each read with readinto into one buffer, reused for every block, so that
    memory stays one block whatever the file's size. A block is valid until the next is asked for.

    A Fortran-ordered array (at most FORTRAN_BYTES) is read whole and handed over in C order.
    """
    n = layout.shape[-1]
    heads = math.prod(layout.shape[:-2])
    if layout.fortran_order:
        file.seek(layout.offset)
        data = file.read(layout.data_bytes)
        _check_length(len(data), layout.data_bytes, layout)
        whole = np.frombuffer(data, layout.dtype).reshape(layout.shape, order="F")
        yield from array_blocks(np.ascontiguousarray(whole).reshape(heads, n, n))
        return
    step = min(block_heads(n), heads)
    buffer = np.empty(step * n * n, dtype=layout.dtype)
    raw = memoryview(buffer.view(np.uint8))
    file.seek(layout.offset)
    for first in range(0, heads, step):
        k = min(step, heads - first)
        wanted = k * n * n * layout.dtype.itemsize
        got = 0
        while got < wanted:
            read = file.readinto(raw[got:wanted])
            if not read:  # the file shrank after its length was checked
                _check_length(first * n * n * layout.dtype.itemsize + got, layout.data_bytes, layout)
            got += read
        yield buffer[: k * n * n].reshape(k, n, n)


def _check_length(present: int, promised: int, layout: NpyLayout) -> None:
    if present < promised:
        raise FileError(
            f"the .npy file is cut short: its header promises shape {list(layout.shape)} of {layout.dtype} "
            f"({promised:,} bytes) but {present:,} bytes follow"
        )
