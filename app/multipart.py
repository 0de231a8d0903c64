"""One file from a multipart/form-data body, streamed into memory under a byte cap and never to disk.

Starlette's form parser spools any part above 1 MB to a temporary file; POST /api/diagnose promises never to
write an upload to disk, so its body is read here instead. The body is streamed into memory under a byte cap
(413 at once when Content-Length is over it, else as soon as the streamed bytes pass it) and the multipart
envelope is parsed in memory by python-multipart's low-level parser, keeping only the part named ``file``.
"""

from __future__ import annotations

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

from app.core.matrix_files import file_too_large
from app.refusal import Refusal

ENVELOPE_BYTES = 16 * 1024  # room around the file for the multipart boundaries and part headers
MISSING_FILE = 'no file: send the attention weights as multipart/form-data in a field named "file"'
MALFORMED = 'the body is not valid multipart/form-data: send the attention weights in a field named "file"'
TRUNCATED = "the multipart body ends before the file does"
INTERRUPTED = "the upload was interrupted"


class UploadTooLarge(Exception):
    """The body passed the byte cap while it was being read."""


def too_large(limit: int) -> Refusal:
    """The 413 for a file over ``limit`` bytes, in the words check-causal uses too."""
    return Refusal(file_too_large(limit), status=413)


class FilePart:
    """python-multipart callbacks keeping the first part named "file", in memory and under ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.filename: str | None = None
        self.data = bytearray()
        self.found = False
        self.complete = False
        self._reading = False
        self._field = bytearray()
        self._value = bytearray()
        self._headers: dict[bytes, bytes] = {}

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

    def on_part_begin(self) -> None:
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
        self._reading = params.get(b"name") == b"file" and not self.found
        if self._reading:
            self.found = True
            self.filename = params.get(b"filename", b"").decode("utf-8", "replace")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._reading:
            if len(self.data) + (end - start) > self.limit:
                raise UploadTooLarge
            self.data += data[start:end]

    def on_part_end(self) -> None:
        if self._reading:
            self.complete = True
            self._reading = False


async def read_file_part(request: Request, limit: int) -> tuple[str | None, bytes]:
    """The file name and bytes of the multipart field "file", read into memory and never past ``limit``;
    a Refusal (413, 422, or 400 for an interrupted upload) when there is no such file to read."""
    cap = limit + ENVELOPE_BYTES
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_large(limit)
    content_type, params = parse_options_header(request.headers.get("content-type"))
    boundary = params.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise Refusal(MISSING_FILE)

    part = FilePart(limit)
    received = 0
    try:
        parser = MultipartParser(boundary, part.callbacks())  # type: ignore[arg-type]
        async for chunk in request.stream():
            received += len(chunk)
            if received > cap:  # Content-Length was absent or lied
                raise UploadTooLarge
            parser.write(chunk)
        parser.finalize()
    except UploadTooLarge as error:
        raise too_large(limit) from error
    except (MultipartParseError, ValueError) as error:
        raise Refusal(MALFORMED) from error
    except ClientDisconnect as error:
        raise Refusal(INTERRUPTED, status=400) from error
    if not part.found:
        raise Refusal(MISSING_FILE)
    if not part.complete:
        raise Refusal(TRUNCATED)
    return part.filename, bytes(part.data)
