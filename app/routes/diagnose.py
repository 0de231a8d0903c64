"""The structural diagnosis: upload a model's own attention weights, get the strict-upper-triangle verdict.

The upload is read here rather than by Starlette's form parser, whose UploadFile spools any part above 1 MB
to a temporary file: this endpoint promises never to write an upload to disk. The body is streamed into
memory under a byte cap (413 at once when Content-Length is over it, else as soon as the streamed bytes
pass it) and the multipart envelope is parsed in memory by python-multipart's low-level parser, keeping only
the part named ``file``.
"""

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from app.config import Settings, get_settings
from app.core.diagnostics import (
    LISTED_HEADS,
    MAX_HEADS,
    MAX_HEADS_PER_LAYER,
    MAX_LAYERS,
    MAX_POSITIONS,
    MIN_POSITIONS,
    MatrixError,
    diagnose,
)
from app.core.matrix_files import FileError, UnsupportedFileType, file_too_large, read_matrix
from app.errors import refusal
from app.schemas import DiagnoseHead, DiagnoseLayer, DiagnoseResponse

router = APIRouter(prefix="/api", tags=["diagnose"])

ENVELOPE_BYTES = 16 * 1024  # room around the file for the multipart boundaries and part headers
PREVIEW_HEADS = 64  # the answer carries the weights for drawing only up to 64 heads ...
PREVIEW_POSITIONS = 32  # ... of at most 32 positions (≤ 64 · 32 · 32 = 65,536 numbers)
MISSING_FILE = 'no file: send the attention weights as multipart/form-data in a field named "file"'
MALFORMED = 'the body is not valid multipart/form-data: send the attention weights in a field named "file"'
TRUNCATED = "the multipart body ends before the file does"

UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": ".npy (saved with allow_pickle=False), .json or .csv, at most "
                            "2 MB; shape [n, n], [h, n, n] or [layers, h, n, n] with "
                            f"{MIN_POSITIONS} ≤ n ≤ {MAX_POSITIONS}, at most {MAX_LAYERS} layers of at most "
                            f"{MAX_HEADS_PER_LAYER} heads and {MAX_HEADS:,} heads in all (a 422 names the "
                            f"limit passed). The answer lists every head up to {LISTED_HEADS:,}; past that, "
                            f"only the leaking heads, the first {LISTED_HEADS:,} in (layer, head) order, "
                            "while its layers count every head, layer by layer",
                        }
                    },
                }
            }
        },
    }
}


class UploadTooLarge(Exception):
    """The body passed the byte cap while it was being read."""


def too_large(limit: int) -> HTTPException:
    """The 413 for a file over ``limit`` bytes, in the words check-causal uses too."""
    return HTTPException(status_code=413, detail=file_too_large(limit))


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
    """The file name and bytes of the multipart field "file", read into memory and never past ``limit``."""
    cap = limit + ENVELOPE_BYTES
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_large(limit)
    content_type, params = parse_options_header(request.headers.get("content-type"))
    boundary = params.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise HTTPException(status_code=422, detail=MISSING_FILE)

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
        raise HTTPException(status_code=422, detail=MALFORMED) from error
    except ClientDisconnect as error:
        raise HTTPException(status_code=400, detail="the upload was interrupted") from error
    if not part.found:
        raise HTTPException(status_code=422, detail=MISSING_FILE)
    if not part.complete:
        raise HTTPException(status_code=422, detail=TRUNCATED)
    return part.filename, bytes(part.data)


def diagnose_file(filename: str | None, data: bytes) -> DiagnoseResponse:
    """Read, diagnose and shape the answer; file and matrix errors become 415 and 422."""
    try:
        result = diagnose(read_matrix(filename, data))
    except UnsupportedFileType as error:
        raise HTTPException(status_code=415, detail=str(error)) from error
    except (FileError, MatrixError) as error:
        raise HTTPException(status_code=422, detail=str(error)) from error
    layers, h, n, _ = result.weights.shape
    small = layers * h <= PREVIEW_HEADS and n <= PREVIEW_POSITIONS
    heads = [DiagnoseHead(**asdict(head)) for head in result.listed_heads()]
    return DiagnoseResponse(
        shape=list(result.shape),
        heads=heads,
        heads_total=result.head_count,
        heads_listed=len(heads),
        layers=[DiagnoseLayer(**asdict(layer)) for layer in result.by_layer()],
        verdict=result.verdict,
        summary=result.summary,
        weights=result.weights.tolist() if small else None,
    )


@router.post(
    "/diagnose",
    response_model=DiagnoseResponse,
    openapi_extra=UPLOAD_BODY,
    responses={
        413: refusal("the file is larger than the upload limit (2 MB)"),
        415: refusal("not .npy, .json or .csv, or the content does not match the extension"),
        422: refusal(
            "no file field, a file that is not a valid attention array, or one past a limit on positions, "
            "layers or heads"
        ),
    },
)
async def diagnose_upload(
    request: Request, settings: Annotated[Settings, Depends(get_settings)]
) -> DiagnoseResponse:
    """The causal verdict and the ×0 signature for every head of an uploaded attention array."""
    filename, data = await read_file_part(request, settings.max_upload_bytes)
    return await run_in_threadpool(diagnose_file, filename, data)
