"""Reading attention weights from file bytes (app.core.matrix_files): what is read, and what is refused."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core import matrix_files
from app.core.diagnosis_limits import FileError, MatrixError, UnsupportedFileType
from app.core.diagnostics import diagnose
from app.core.head_blocks import NPY_HEADER_BYTES
from app.core.matrix_files import file_too_large, file_type, read_matrix
from tools.inprocess import npy, traced_peak


def refused(name: str, data: bytes, kind: type[FileError] = FileError) -> str:
    with pytest.raises(kind) as caught:
        read_matrix(name, data)
    if kind is FileError:
        assert not isinstance(caught.value, UnsupportedFileType)
    return str(caught.value)


NOT_LISTS = 'the .json file must hold nested lists of numbers (or an object with a "weights" key)'
W = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.2, 0.3, 0.5]])


@pytest.mark.parametrize("name", ["w.npy", "W.NPY", "dir/sub/w.npy", "C:\\exports\\w.npy"])
def test_file_type_comes_from_the_extension(name: str) -> None:
    assert file_type(name) == ".npy"


@pytest.mark.parametrize(
    ("name", "shown"),
    [("w.txt", "'.txt'"), ("w", "(no extension)"), ("", "(no extension)"), (None, "(no extension)"),
     ("w.npz", "'.npz'"), ("w.pkl", "'.pkl'"), ("w." + "x" * 40, "'." + "x" * 22 + "…'")],
)  # fmt: skip
def test_other_extensions_are_unsupported(name: str | None, shown: str) -> None:
    with pytest.raises(UnsupportedFileType) as caught:
        file_type(name)
    assert str(caught.value) == f"unsupported file type {shown}: send .npy, .json or .csv"


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int32, np.uint8])
def test_npy_arrays_of_real_numbers_are_read(dtype: type) -> None:
    array = (W * 4).astype(dtype)
    out = read_matrix("w.npy", npy(array))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, array)


def test_npy_is_read_from_its_header_and_bytes_without_np_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """The numbers are read by readinto after the header is vetted: np.load (which could unpickle, were
    allow_pickle ever True) is not called at all."""
    monkeypatch.setattr(matrix_files.np, "load", lambda *a, **k: pytest.fail("np.load ran"))
    np.testing.assert_array_equal(read_matrix("w.npy", npy(W)), W)


def test_a_pickled_npy_is_refused_before_anything_is_unpickled(monkeypatch: pytest.MonkeyPatch) -> None:
    data = npy(np.array([W, "not a number"], dtype=object), allow_pickle=True)
    monkeypatch.setattr("pickle.loads", lambda *a, **k: pytest.fail("unpickled"))
    assert refused("w.npy", data) == "pickled .npy files are refused: save with allow_pickle=False"


@pytest.mark.parametrize(
    ("array", "dtype"),
    [
        (np.eye(2, dtype=np.complex128), "complex128"),
        (np.eye(2, dtype=bool), "bool"),
        (np.array([["a", "b"], ["c", "d"]]), "<U1"),
        (np.zeros(2, dtype=[("a", "f8"), ("b", "f8")]), "[('a', '<f8'), ('b', '<f8')]"),
    ],
)
def test_npy_arrays_of_other_values_are_refused(array: np.ndarray, dtype: str) -> None:
    message = refused("w.npy", npy(array))
    assert message == f"the .npy array holds {dtype} values: attention weights must be real numbers"


def test_an_npy_header_promising_more_than_the_file_holds_is_refused_before_allocating() -> None:
    header = {"descr": "<f8", "fortran_order": False, "shape": (100_000, 100_000)}  # 80 GB
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    data = np.lib.format.magic(1, 0) + buffer.getvalue()[8:] + b"\0" * 64
    assert refused("w.npy", data) == (
        "the .npy file is cut short: its header promises shape [100000, 100000] of float64 "
        "(80,000,000,000 bytes) but 64 bytes follow"
    )


def test_a_truncated_npy_is_refused() -> None:
    data = npy(W)[:-8]
    assert refused("w.npy", data).startswith("the .npy file is cut short: its header promises shape [3, 3]")


def test_npy_headers_that_cannot_be_read_are_refused() -> None:
    assert refused("w.npy", b"\x93NUMPY\x09\x00rest").startswith("the .npy header cannot be read:")
    assert refused("w.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': 1}    ").startswith(
        "the .npy header cannot be read:"
    )


@pytest.mark.parametrize("shape", ["(2, -2, 4, 4)", "(-1, -1, 4, 4)", "(-1, 4, 4)"])
def test_a_negative_dimension_in_an_npy_header_is_refused(shape: str) -> None:
    """Once a 500 with a traceback: the header's shape is checked for signs before its size is worked out."""
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}".ljust(117) + "\n"
    data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(256)
    assert refused("w.npy", data) == f"the .npy header gives a negative dimension: shape [{shape[1:-1]}]"


def test_an_npy_header_claiming_more_bytes_than_numpy_writes_is_refused_before_they_are_read() -> None:
    """A version-2 header's length field can say 268 MB; the upload held that many bytes and numpy read them
    all into memory (+497 MB an upload) before refusing. Now the length is checked first."""
    claim = 268_000_000
    data = b"\x93NUMPY\x02\x00" + claim.to_bytes(4, "little") + b"{'descr': '<f4'" + bytes(4 * 2**20)
    messages: list[str] = []
    peak = traced_peak(lambda: messages.append(refused("w.npy", data)))
    assert messages[0] == (
        f"the .npy header cannot be read: it claims {claim:,} bytes; numpy writes at most "
        f"{NPY_HEADER_BYTES:,}"
    )
    assert peak < 2**20  # the 4 MB that follow the field are never read


def test_tokens_that_are_not_text_or_nested_too_deeply_are_refused() -> None:
    assert matrix_files.parse_tokens('["a", "b"]') == ["a", "b"]
    with pytest.raises(FileError, match="token 2 is not text: it holds a lone UTF-16 surrogate"):
        matrix_files.parse_tokens('["a", "\\ud800"]')
    with pytest.raises(FileError, match="nested too deeply"):
        matrix_files.parse_tokens("[" * 30_000 + "]" * 30_000)
    weights = json.dumps({"weights": W.tolist(), "tokens": ["a", "\udfff", "c"]}).encode()
    with pytest.raises(FileError, match="^tokens: token 2 is not text: it holds a lone UTF-16 surrogate$"):
        matrix_files.read_weights("w.json", weights)


def test_npy_format_version_2_is_read() -> None:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, W, version=(2, 0))
    np.testing.assert_array_equal(read_matrix("w.npy", buffer.getvalue()), W)


@pytest.mark.parametrize("data", [b"[[1, 0], [0, 1]]", b"\x80\x04K\x01.", b"PK\x03\x04npz"])
def test_an_npy_without_the_magic_is_not_an_npy(data: bytes) -> None:
    assert refused("w.npy", data, UnsupportedFileType) == (
        "this .npy file does not start with the NumPy magic bytes (\\x93NUMPY): save it with numpy.save"
    )


@pytest.mark.parametrize("name", ["w.json", "w.csv"])
def test_text_formats_must_hold_utf8_text(name: str) -> None:
    suffix = name[1:]
    assert refused(name, npy(W), UnsupportedFileType) == (
        f"this {suffix} file holds binary data, not text: send .npy, .json or .csv"
    )
    assert refused(name, b"1,\x00", UnsupportedFileType).startswith(f"this {suffix} file holds binary data")
    assert refused(name, b"0.5,\xff", UnsupportedFileType) == (
        f"this {suffix} file is not UTF-8 text (byte 4): send .npy, .json or .csv"
    )


@pytest.mark.parametrize("name", ["w.npy", "w.json", "w.csv"])
def test_an_empty_file_is_refused(name: str) -> None:
    assert refused(name, b"") == f"the {name[1:]} file is empty"


def test_json_nested_lists_are_read() -> None:
    np.testing.assert_array_equal(read_matrix("w.json", json.dumps(W.tolist()).encode()), W)
    np.testing.assert_array_equal(read_matrix("w.json", b"[[1, 0], [0.5, 0.5]]"), [[1, 0], [0.5, 0.5]])
    stacked = [[W.tolist(), W.tolist()]]
    assert read_matrix("w.json", json.dumps(stacked).encode()).shape == (1, 2, 3, 3)


def test_json_null_and_nan_are_read_as_nan_for_the_diagnosis_to_judge() -> None:
    """A NaN row is how a fully masked row arrives (this server's answers write it null); whether a NaN is a
    whole row is the diagnosis's to say (tests/core/test_diagnostics_zoo.py)."""
    for text in (b"[[null, null], [0.5, 0.5]]", b"[[NaN, NaN], [0.5, 0.5]]", b"[[1, 0], [null, 1]]"):
        read = read_matrix("w.json", text)
        assert read.dtype == np.float64 and np.isnan(read).sum() == (1 if b"[1, 0]" in text else 2)


def test_json_object_with_weights_is_read() -> None:
    data = json.dumps({"model": "mine", "weights": W.tolist()}).encode("utf-8-sig")  # with a BOM
    np.testing.assert_array_equal(read_matrix("w.json", data), W)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[Infinity, 0]]", "the .json file contains Infinity: attention weights must be finite numbers"),
        ("[[-Infinity, 0]]", "the .json file contains -Infinity: attention weights must be finite numbers"),
        ("the weights", "the .json file is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        ("[[1, 0], [0, 1]", "the .json file is not valid JSON: Expecting ',' delimiter: line 1 column 16 "
         "(char 15)"),
        ("0.5", f"{NOT_LISTS}, not a number"),
        ('"[[1]]"', f'{NOT_LISTS}, not a string ("[[1]]")'),
        ('{"w": [[1]]}', 'a .json object must have a "weights" key holding the nested lists of numbers'),
        ('{"weights": null}', f"{NOT_LISTS}, not null"),
        ("[]", "the list at the top level is empty"),
        ("[[1, 0], []]", "the list at [1] is empty"),
        ('[[1, "0"], [0, 1]]', 'the value at [0][1] is a string ("0"), not a number'),
        ('{"weights": [[1, 0], [true, 0]]}', "the value at weights[1][0] is a boolean (true), not a number"),
        ('[[1, 0], [{"a": 1}, 1]]', "the value at [1][0] is an object, not a number"),
        ("[[1, 0], [0.5]]", "the lists are ragged: [1] has shape [1] but [0] has shape [2]"),
        ("[[1, 0], 1]", "the lists are ragged: [1] is a number but [0] has shape [2]"),
        ("[[[[[1]]]]]", "the lists are nested more than 4 deep at [0][0][0][0]: expected [n, n], [h, n, n] "
         "or [layers, h, n, n]"),
        ("[" * 50_000 + "]" * 50_000, "the .json file is nested too deeply to be an attention array"),
    ],
)  # fmt: skip
def test_json_that_is_not_an_array_of_numbers_is_refused(text: str, message: str) -> None:
    assert refused("w.json", text.encode()) == message


def test_json_numbers_out_of_range_become_infinity_and_are_left_to_the_diagnosis() -> None:
    out = read_matrix("w.json", ("[[1e999, " + "9" * 5000 + "]]").encode())
    assert np.isinf(out).all()


def test_csv_matrices_are_read() -> None:
    np.testing.assert_array_equal(read_matrix("w.csv", b"1,0,0\n0.25,0.75,0\n0.2, 0.3 ,.5\n"), W)
    assert read_matrix("w.csv", b"1,0\r\n0.5,5e-1\r\n\r\n\n").tolist() == [[1, 0], [0.5, 0.5]]
    assert read_matrix("w.csv", "\ufeff+1,-0\n1E0,0".encode()).tolist() == [[1, 0], [1, 0]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello world\n", 'line 1 of the .csv file, value 1: "hello world" is not a number'),
        ("1,0\n0.5,half\n", 'line 2 of the .csv file, value 2: "half" is not a number'),
        ("1,0\nnan,1\n", 'line 2 of the .csv file, value 1: "nan" is not a number'),
        ("1,inf\n", 'line 1 of the .csv file, value 2: "inf" is not a number'),
        ("1,1_0\n", 'line 1 of the .csv file, value 2: "1_0" is not a number'),
        ('"1",0\n', 'line 1 of the .csv file, value 1: ""1"" is not a number'),
        ("1;0\n0;1\n", 'line 1 of the .csv file, value 1: "1;0" is not a number'),
        ("1,,0\n", "line 1 of the .csv file, value 2: the value is missing"),
        ("1,0,\n", "line 1 of the .csv file, value 3: the value is missing"),
        ("1,0\n\n0,1\n", "line 2 of the .csv file is blank: blank lines are allowed only at the end"),
        ("1,0\n0,0.5,0.5\n", "line 2 of the .csv file has 3 values but line 1 has 2: a .csv file holds one "
         "rectangular matrix"),
        ("\n\n  \n", "the .csv file is empty"),
    ],
)  # fmt: skip
def test_csv_that_is_not_a_matrix_of_numbers_is_refused(text: str, message: str) -> None:
    assert refused("w.csv", text.encode()) == message


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789eE+-._ naifAxy\t", max_size=8))
def test_a_csv_cell_is_read_exactly_when_it_is_a_plain_decimal_number(cell: str) -> None:
    plain = matrix_files.NUMBER.fullmatch(cell.strip()) is not None
    try:
        value = read_matrix("w.csv", f"{cell},1\n".encode())[0, 0]
    except FileError as error:
        assert not plain, error
        assert str(error).startswith("line 1 of the .csv file")
    else:
        assert plain and value == float(cell)


def test_file_errors_are_value_errors() -> None:
    assert issubclass(UnsupportedFileType, FileError) and issubclass(FileError, ValueError)


# ---- the limits on the work: judged as soon as the file shows its shape ----------------------------------


def past_a_limit(name: str, data: bytes) -> str:
    """The message of the MatrixError that ``data`` gets from the reader, or from the diagnosis after it."""
    with pytest.raises(MatrixError) as caught:
        diagnose(read_matrix(name, data))
    return str(caught.value)


HALF_A_MILLION_HEADS = (
    "the array holds 500,000 heads (shape [500000, 2, 2]): at most 8,192 heads are diagnosed (layers × heads)"
)
CSV_LINES = (
    "the .csv file has more than 512 lines: it holds one [n, n] matrix, and n is at most 512 positions"
)


def test_an_npy_header_past_the_limits_is_refused_before_np_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """2 MB of file, half a million heads: refused on its header, without np.load or a float copy."""
    data = npy(np.ascontiguousarray(np.broadcast_to(np.eye(2, dtype=np.uint8), (500_000, 2, 2))))
    assert len(data) < 2 * 2**20
    monkeypatch.setattr(matrix_files.np, "load", lambda *a, **k: pytest.fail("np.load ran"))
    assert past_a_limit("w.npy", data) == HALF_A_MILLION_HEADS
    assert traced_peak(lambda: pytest.raises(MatrixError, read_matrix, "w.npy", data)) < 256 * 1024


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((257, 1, 2, 2), "the array holds 257 layers (shape [257, 1, 2, 2]): at most 256 layers are "
         "diagnosed"),
        ((257, 2, 2), "the array holds 257 heads per layer (shape [257, 2, 2]): at most 256 heads per layer "
         "are diagnosed"),
        ((2, 513, 513), "n = 513 is too large: at most 512 positions"),
    ],
)  # fmt: skip
def test_every_npy_header_limit_is_named(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...], message: str
) -> None:
    data = npy(np.zeros(shape, dtype=np.uint8))
    monkeypatch.setattr(matrix_files.np, "load", lambda *a, **k: pytest.fail("np.load ran"))
    assert past_a_limit("w.npy", data) == message


def test_json_of_149000_heads_is_refused_by_counting_its_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """2 MB of tiny heads is 447,001 lists: counted in the text, refused before json.loads builds one."""
    heads = "[" + ",".join(["[[1,0],[0,1]]"] * 148_999 + ['[["a",0],[0,1]]']) + "]"
    assert len(heads) < 2 * 2**20
    monkeypatch.setattr(matrix_files.json, "loads", lambda *a, **k: pytest.fail("json.loads ran"))
    assert past_a_limit("w.json", heads.encode()) == (
        "the .json file holds 447,001 lists, about 149,000 heads of 2 positions: at most 8,192 heads are "
        "diagnosed (layers × heads)"
    )
    data = heads.encode()
    # The text decoded from the bytes is all it holds: no list, no float.
    assert traced_peak(lambda: pytest.raises(MatrixError, read_matrix, "w.json", data)) < len(data) + 2**20


def test_json_whose_rows_claim_few_positions_but_hold_many_lists_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first row of 512 numbers, then 300,000 empty lists: no array within the limits has so many lists
    for its size, whatever its first row says."""
    text = "[[[" + ",".join(["0"] * 512) + "]]," + ",".join(["[]"] * 300_000) + "]"
    monkeypatch.setattr(matrix_files.json, "loads", lambda *a, **k: pytest.fail("json.loads ran"))
    assert past_a_limit("w.json", text.encode()) == (
        "the .json file holds 300,003 lists, more than 901,029 characters of rows of 512 numbers (as its "
        "first row has) can: the lists are ragged"
    )
    deep = "[" + ",".join(["[[[[1]]]]"] * 200_000) + "]"  # five deep: no attention array
    assert refused("w.json", deep.encode()) == "the .json file is nested too deeply to be an attention array"


def test_json_within_the_list_count_is_judged_on_the_shape_its_first_elements_claim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """9,000 heads of one position pass the count (18,001 lists) and are refused on the shape json.loads
    shows, before the walk would reach the string at the end or np.array would run."""
    heads = "[" + ",".join(["[[1]]"] * 8_999 + ['[["a"]]']) + "]"
    monkeypatch.setattr(matrix_files.np, "array", lambda *a, **k: pytest.fail("converted to an array"))
    assert past_a_limit("w.json", heads.encode()) == (
        "the array holds 9,000 heads (shape [9000, 1, 1]): at most 8,192 heads are diagnosed (layers × heads)"
    )


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([[[[1]]]] * 257, "the array holds 257 layers (shape [257, 1, 1, 1]): at most 256 layers are "
         "diagnosed"),
        ([[[0.5] * 600] * 2], "a head of 2 × 600 is too large: at most 512 positions"),
        ([[1] * 513], "a head of 1 × 513 is too large: at most 512 positions"),
        ({"weights": [[[1.0]]] * 9000}, "the array holds 9,000 heads (shape [9000, 1, 1]): at most 8,192 "
         "heads are diagnosed (layers × heads)"),
    ],
)  # fmt: skip
def test_every_json_limit_is_named(weights: object, message: str) -> None:
    assert past_a_limit("w.json", json.dumps(weights).encode()) == message


def test_json_within_the_limits_keeps_its_precise_complaints() -> None:
    """The claimed shape is judged only for limits: structure is still reported where it breaks."""
    assert refused("w.json", b"[[]]") == "the list at [0] is empty"
    assert (
        refused("w.json", b"[[1, 0], [0, 1, 0]]")
        == "the lists are ragged: [1] has shape [3] but [0] has shape [2]"
    )


def test_a_csv_of_a_million_lines_is_refused_at_line_513() -> None:
    """Nothing past line 512 is split or converted: the garbage on line 600 is never reached, and the
    reader's peak memory is the decoded text, not a list of a million lines."""
    lines = ["1"] * 1_000_000
    lines[599] = "garbage"
    data = "\n".join(lines).encode()
    assert len(data) < 2 * 2**20
    assert refused("w.csv", data) == CSV_LINES
    assert traced_peak(lambda: pytest.raises(FileError, read_matrix, "w.csv", data)) < len(data) + 256 * 1024


def test_a_csv_line_of_more_than_512_values_is_refused_before_its_numbers_are_read() -> None:
    text = "1,0\n" + ",".join(["x"] * 600) + "\n"
    assert refused("w.csv", text.encode()) == (
        "line 2 of the .csv file has 600 values: a .csv file holds one [n, n] matrix, and n is at most 512 "
        "positions"
    )


def test_a_csv_at_the_limit_is_read_and_blank_lines_after_it_do_not_count() -> None:
    rows = np.eye(512, dtype=np.int64).astype(str)
    text = "\n".join(",".join(row) for row in rows) + "\n" * 1000
    assert read_matrix("w.csv", text.encode()).shape == (512, 512)
    assert refused("w.csv", (text + "1").encode()) == CSV_LINES


@pytest.mark.parametrize(
    ("limit", "text"),
    [(2 * 2**20, "file too large: the limit is 2 MB (2,097,152 bytes)"),
     (1000, "file too large: the limit is 1,000 bytes")],
)  # fmt: skip
def test_the_size_limit_reads_the_same_everywhere(limit: int, text: str) -> None:
    assert file_too_large(limit) == text
