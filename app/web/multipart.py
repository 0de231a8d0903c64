"""The file (and the optional tokens) of a multipart/form-data body, streamed under byte caps.

POST /api/diagnose takes a model's own attention, up to a BERT-base export of 75 MB and beyond, so the body
is never held in memory whole. It is streamed through python-multipart's low-level parser: a .npy file part
goes into an anonymous temporary file (``tempfile.TemporaryFile``: unlinked as it is made, so nothing is left
on disk whatever happens, and gone when closed), from which the diagnosis reads it head by head; a .json or
.csv part, which is parsed into Python objects anyway and so held to a smaller cap, is kept in memory. The
caps: the whole body at once when Content-Length is over the largest file plus ENVELOPE_BYTES, else as soon
as the streamed bytes pass it; the file part by its own type's limit, named in the 413 (a .json past 2 MB
is refused at 2 MB, not 256); the tokens part at TOKENS_BYTES. An unsupported file type is refused (415) as
soon as the part's headers are read, before its data. A body of more than MAX_PARTS parts is refused (the
parser's cost grows with their number, whatever their bytes), and so is an upload that averages less than
MIN_RATE once RATE_GRACE seconds have passed (408): the route lets only a few uploads run at once, and a
trickle would hold one of them for as long as it lasted.

Parsing and writing run in a thread (anyio's pool, for blocking I/O), a megabyte of body at a time, so the
event loop only receives.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import dataclass, field
from typing import BinaryIO

from anyio import to_thread
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

from app.core.matrix_files import TEXT_SUFFIXES, file_too_large, file_type
from app.web.refusal import Refusal

TOKENS_BYTES = 64 * 1024  # the tokens field: 512 tokens of over 100 bytes each
# Room around the file for the multipart boundaries, the part headers and the tokens field.
ENVELOPE_BYTES = 16 * 1024 + TOKENS_BYTES
PARSE_BYTES = 2**20  # the body is handed to the parser (in a thread) a megabyte at a time
LOG = logging.getLogger("uvicorn.error")
MAX_BOUNDARY = 70  # RFC 2046's longest boundary; the parser errs on much longer ones
MAX_PARTS = 16  # the form has two fields; a body of many tiny parts costs time by their number, not bytes
MIN_RATE = 64 * 1024  # bytes a second an upload must average once RATE_GRACE seconds have passed
RATE_GRACE = 5.0
MISSING_FILE = 'no file: send the attention weights as multipart/form-data in a field named "file"'
MALFORMED = 'the body is not valid multipart/form-data: send the attention weights in a field named "file"'
TRUNCATED = "the multipart body ends before the file does"
TOO_MANY_PARTS = f'the body has more than {MAX_PARTS} parts: send a field named "file" (and "tokens", if any)'
TOO_SLOW = f"the upload arrived slower than {MIN_RATE // 1024} KB/s, so it was stopped: send it again"
NO_ROOM = "this server has no room for the upload just now: try again later, or send a smaller file"
INTERRUPTED = "the upload was interrupted"
TOKENS_TOO_LARGE = f"the tokens field is larger than {TOKENS_BYTES:,} bytes"


class UploadTooLarge(Exception):
    """A part, or the body, passed its byte cap while it was being read; ``detail`` says which."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def too_large(limit: int, suffix: str | None = None) -> Refusal:
    """The 413 for a file over ``limit`` bytes, in the words check-causal uses too."""
    return Refusal(file_too_large(limit, suffix), status=413)


@dataclass
class Upload:
    """What the body held: the file's name and type, its bytes (``data``, .json and .csv) or the anonymous
    temporary file holding them (``file``, .npy), and the tokens field's text if one was sent. Close it."""

    filename: str | None
    suffix: str
    data: bytes = b""
    file: BinaryIO | None = None
    tokens: str | None = None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


@dataclass
class FormParts:
    """python-multipart callbacks keeping the first part named "file" and the first named "tokens"."""

    npy_limit: int
    text_limit: int
    filename: str | None = None
    suffix: str = ""
    file: BinaryIO | None = None
    data: bytearray = field(default_factory=bytearray)
    size: int = 0
    tokens: bytearray | None = None
    found: bool = False
    complete: bool = False
    _reading: str | None = None  # "file", "tokens" or None: the part being read
    _field: bytearray = field(default_factory=bytearray)
    _value: bytearray = field(default_factory=bytearray)
    _headers: dict[bytes, bytes] = field(default_factory=dict)
    _parts: int = 0

    def callbacks(self) -> dict[str, object]:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    @property
    def limit(self) -> int:
        """The file part's cap: its type's, never above the largest."""
        return min(self.text_limit, self.npy_limit) if self.suffix in TEXT_SUFFIXES else self.npy_limit

    def on_part_begin(self) -> None:
        self._parts += 1
        if self._parts > MAX_PARTS:
            raise Refusal(TOO_MANY_PARTS)
        self._headers = {}

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def on_header_end(self) -> None:
        self._headers[bytes(self._field).lower()] = bytes(self._value)
        self._field.clear()
        self._value.clear()

    def on_headers_finished(self) -> None:
        _, params = parse_options_header(self._headers.get(b"content-disposition"))
        name = params.get(b"name")
        self._reading = None
        if name == b"file" and not self.found:
            self.found = True
            self.filename = params.get(b"filename", b"").decode("utf-8", "replace")
            self.suffix = file_type(self.filename)  # a 415 before a byte of the file is read
            if self.suffix not in TEXT_SUFFIXES:
                # Anonymous: unlinked at once, gone when closed (Upload.close; FormParts.close on a refusal).
                self.file = tempfile.TemporaryFile()  # noqa: SIM115
            self._reading = "file"
        elif name == b"tokens" and self.tokens is None:
            self.tokens = bytearray()
            self._reading = "tokens"

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._reading == "file":
            self.size += end - start
            if self.size > self.limit:
                named = self.suffix if self.limit < self.npy_limit else None  # the smaller limit is named
                raise UploadTooLarge(file_too_large(self.limit, named))
            if self.file is not None:
                self.file.write(data[start:end])
            else:
                self.data += data[start:end]
        elif self._reading == "tokens" and self.tokens is not None:
            if len(self.tokens) + (end - start) > TOKENS_BYTES:
                raise UploadTooLarge(TOKENS_TOO_LARGE)
            self.tokens += data[start:end]

    def on_part_end(self) -> None:
        if self._reading == "file":
            self.complete = True
        self._reading = None

    def upload(self) -> Upload:
        tokens = None if self.tokens is None else bytes(self.tokens).decode("utf-8", "replace")
        if self.file is not None:
            self.file.flush()
        return Upload(self.filename, self.suffix, bytes(self.data), self.file, tokens)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


async def read_upload(request: Request, npy_limit: int, text_limit: int) -> Upload:
    """The multipart field "file" (and "tokens", if sent), never read past its cap: a .npy file up to
    ``npy_limit`` bytes into an anonymous temporary file, a .json or .csv one up to ``text_limit`` into
    memory; a Refusal (413, 415, 422, or 400 for an interrupted upload) when there is no such file to read.
    The caller closes the Upload."""
    cap = npy_limit + ENVELOPE_BYTES
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_large(npy_limit)
    content_type, params = parse_options_header(request.headers.get("content-type"))
    boundary = params.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise Refusal(MISSING_FILE)
    if len(boundary) > MAX_BOUNDARY:
        raise Refusal(f"the multipart boundary has {len(boundary):,} characters, more than {MAX_BOUNDARY}")

    parts = FormParts(npy_limit, text_limit)
    try:
        try:
            await _parse(request, parts, boundary, cap)
            if not parts.found:
                raise Refusal(MISSING_FILE)
            if not parts.complete:
                raise Refusal(TRUNCATED)
            return parts.upload()
        except OSError as error:  # the temporary file could not be made or written: a full disk, say
            LOG.error("an upload found no room: %s", error)
            raise Refusal(NO_ROOM, status=413) from error
    except BaseException:
        parts.close()  # the temporary file, if one was made: nothing of a refused upload is kept
        raise


async def _parse(request: Request, parts: FormParts, boundary: bytes, cap: int) -> None:
    """Feed the body to the parser, a megabyte at a time in a thread; the errors as Refusals."""
    parser = MultipartParser(boundary, parts.callbacks())  # type: ignore[arg-type]
    received = 0
    pending = bytearray()
    started = time.monotonic()
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > cap:  # Content-Length was absent or lied
                raise UploadTooLarge(file_too_large(parts.npy_limit))
            elapsed = time.monotonic() - started
            if elapsed > RATE_GRACE and received < MIN_RATE * elapsed:
                # a trickle holds one of the few upload slots for as long as it lasts: cut it, free the slot
                raise Refusal(TOO_SLOW, status=408)
            pending += chunk
            if len(pending) >= PARSE_BYTES:
                await to_thread.run_sync(parser.write, bytes(pending))
                pending.clear()
        await to_thread.run_sync(parser.write, bytes(pending))
        parser.finalize()
    except UploadTooLarge as error:
        raise Refusal(error.detail, status=413) from error
    except Refusal:  # an unsupported file type, from the part's headers
        raise
    except (MultipartParseError, ValueError) as error:
        raise Refusal(MALFORMED) from error
    except ClientDisconnect as error:
        raise Refusal(INTERRUPTED, status=400) from error
