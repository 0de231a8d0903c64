"""The structural diagnosis: upload a model's own attention weights, get every head's verdict, the mask bug
its weights show, and the grids the page draws.

The upload is read by app/web/multipart.py under byte caps: a .npy into an anonymous temporary file, read back
here head by head (app.core.matrix_files.npy_blocks), so that a 75 MB BERT-base export costs the server a
few megabytes of memory; a .json or .csv in memory. The answer never sends the weights back: the page reads
the head it draws from the reader's own file.
"""

from dataclasses import asdict

from fastapi import APIRouter, Request, Response

from app.config import Settings
from app.core.diagnosis_limits import MAX_HEADS, MAX_HEADS_PER_LAYER, MAX_LAYERS, MAX_POSITIONS, MIN_POSITIONS
from app.core.diagnostics import LISTED_HEADS, Diagnosis, diagnose, diagnose_blocks
from app.core.head_blocks import npy_blocks, npy_layout
from app.core.matrix_files import TOKEN_CHARS, check_tokens, parse_tokens, read_weights
from app.deps import SettingsDep
from app.schemas.diagnose import DiagnoseResponse
from app.web.answers import answer, json_bytes
from app.web.errors import refusal_doc
from app.web.multipart import TOKENS_BYTES, Upload, read_upload
from app.web.offload import computed
from app.web.refusal import Refusal

router = APIRouter(prefix="/api", tags=["diagnose"])


def _size(limit: int) -> str:
    return f"{limit / 2**20:g} MB"


def upload_body(settings: Settings) -> dict:
    """The request body's OpenAPI description, with the limits of ``settings``."""
    npy, text = settings.max_upload_bytes, min(settings.max_text_upload_bytes, settings.max_upload_bytes)
    file = (
        f".npy (saved with allow_pickle=False) of at most {_size(npy)} (ATTENTION_MAX_UPLOAD_BYTES), "
        f"or .json or .csv of at most {_size(text)} (ATTENTION_MAX_TEXT_UPLOAD_BYTES); a .npy is "
        "streamed to an anonymous temporary file and judged head by head, so a 75 MB BERT-base export "
        "(12 × 12 × 512 × 512 float16) costs the server a few megabytes. Shape [n, n], [h, n, n] or "
        f"[layers, h, n, n] with {MIN_POSITIONS} ≤ n ≤ {MAX_POSITIONS}, at most {MAX_LAYERS} layers of "
        f"at most {MAX_HEADS_PER_LAYER} heads and {MAX_HEADS:,} heads in all (a 422 names the limit "
        'passed). A .json file holds nested lists, or an object {"weights": [...], "tokens": [...]}. '
        f"The answer lists every head up to {LISTED_HEADS:,}; past that, only the heads that leak or are "
        f"broken, the first {LISTED_HEADS:,} in (layer, head) order, while its layers, signatures and "
        "grid count every head"
    )
    tokens = (
        "optional: one label per position, as a JSON list of strings or one per line (at most "
        f"{TOKENS_BYTES:,} bytes; each label is cut to {TOKEN_CHARS} characters); it takes the place of a "
        ".json object's tokens"
    )
    properties = {
        "file": {"type": "string", "format": "binary", "description": file},
        "tokens": {"type": "string", "description": tokens},
    }
    schema = {"type": "object", "required": ["file"], "properties": properties}
    return {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": schema}}}}


def diagnosed(upload: Upload) -> bytes:
    """Read, diagnose and write the answer (a file or a matrix it cannot diagnose is refused: 415, 422)."""
    sent = None if upload.tokens is None else parse_tokens(upload.tokens)
    layout = None
    if upload.file is not None:
        npy = npy_layout(upload.file)
        if sent is not None:
            check_tokens(sent, npy.shape[-1])  # before the work, not after it
        result = diagnose_blocks(npy.shape, npy_blocks(upload.file, npy))
        if not npy.fortran_order:
            layout = {"offset": npy.offset, "dtype": npy.dtype.str, "shape": list(npy.shape)}
        tokens = sent
    else:
        array, tokens = read_weights(upload.filename, upload.data)
        tokens = sent if sent is not None else tokens
        result = diagnose(array)
    labels = None if tokens is None else check_tokens(tokens, result.n)
    return json_bytes(response(result, labels, None, layout))  # the upload is not sent back


def response(result: Diagnosis, tokens: list[str] | None, weights: object, layout: dict | None) -> dict:
    """DiagnoseResponse, field for field (numpy arrays are written as they are; NaN as null)."""
    heads = [asdict(head) for head in result.listed_heads()]
    return {
        "shape": list(result.shape),
        "verdict": result.verdict,
        "summary": result.summary,
        "heads": heads,
        "heads_total": result.head_count,
        "heads_listed": len(heads),
        "layers": [asdict(layer) for layer in result.by_layer()],
        "signatures": result.signature_counts(),
        "grid": {
            "future_mass": result.future_mass,
            "max_future": result.max_future,
            "entropy": result.entropy,
            "signature": result.signatures.tolist(),
            "verdict": result.head_verdicts.tolist(),
            "nan_rows": result.nan_rows,
        },
        "tokens": tokens,
        "weights": weights,
        "layout": layout,
    }


DEFAULTS = Settings()

# Uploads read or judged at once, per worker. Each holds a temporary file of up to max_upload_bytes on disk
# and a block of heads (about 13 MB) in memory while it is judged: four bound a worker's disk to 1 GB and
# its memory to about 50 MB whatever clients send, where the connection limit alone (128) would allow 32 GB
# of temporary files. One more is refused at once (503), before a byte of its body is read.
UPLOADS_AT_ONCE = 4
BUSY = (
    f"the server is checking {UPLOADS_AT_ONCE} uploads already, its most at once: send the file again in a "
    "moment"
)


class Uploads:
    """The uploads in progress in this worker (the event loop's own count: no lock needed)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.now = 0

    def __enter__(self) -> "Uploads":
        if self.now >= self.most:
            raise Refusal(BUSY, status=503)
        self.now += 1
        return self

    def __exit__(self, *_: object) -> None:
        self.now -= 1


UPLOADS = Uploads(UPLOADS_AT_ONCE)


@router.post(
    "/diagnose",
    response_model=DiagnoseResponse,
    openapi_extra=upload_body(DEFAULTS),
    responses={
        413: refusal_doc(
            f"the file is larger than its type's upload limit ({_size(DEFAULTS.max_upload_bytes)} for .npy, "
            f"{_size(DEFAULTS.max_text_upload_bytes)} for .json and .csv), or the tokens field is larger "
            f"than {TOKENS_BYTES:,} bytes"
        ),
        415: refusal_doc("not .npy, .json or .csv, or the content does not match the extension"),
        503: refusal_doc(f"{UPLOADS_AT_ONCE} uploads are being checked already, this worker's most at once"),
        422: refusal_doc(
            "no file field, a file that is not a valid attention array (a NaN that is not a whole row, a "
            "row summing to more than 1, a truncated .npy), one past a limit on positions, layers or heads, "
            "or tokens that are not one per position"
        ),
    },
)
async def diagnose_upload(request: Request, settings: SettingsDep) -> Response:
    """Every head's verdict and the mask bug its weights show (the zoo: ×0, off by one, transposed, faint,
    after the softmax, NaN rows), with the per-layer counts and the grids of an uploaded attention array."""
    with UPLOADS:
        upload = await read_upload(request, settings.max_upload_bytes, settings.max_text_upload_bytes)
        try:
            return answer(await computed(lambda: diagnosed(upload)))
        finally:
            upload.close()
