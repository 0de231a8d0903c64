"""The structural diagnosis: upload a model's own attention weights, get the strict-upper-triangle verdict.

The upload is read by app/multipart.py, in memory and under a byte cap, never written to disk.
"""

from dataclasses import asdict

from fastapi import APIRouter, Request

from app.core.diagnostics import (
    LISTED_HEADS,
    MAX_HEADS,
    MAX_HEADS_PER_LAYER,
    MAX_LAYERS,
    MAX_POSITIONS,
    MIN_POSITIONS,
    diagnose,
)
from app.core.matrix_files import read_matrix
from app.deps import SettingsDep
from app.errors import refusal_doc
from app.multipart import read_file_part
from app.offload import computed
from app.schemas import DiagnoseHead, DiagnoseLayer, DiagnoseResponse

router = APIRouter(prefix="/api", tags=["diagnose"])

PREVIEW_HEADS = 64  # the answer carries the weights for drawing only up to 64 heads ...
PREVIEW_POSITIONS = 32  # ... of at most 32 positions (≤ 64 · 32 · 32 = 65,536 numbers)

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


def diagnose_file(filename: str | None, data: bytes) -> DiagnoseResponse:
    """Read, diagnose and shape the answer (a file or a matrix it cannot diagnose is refused: 415, 422)."""
    result = diagnose(read_matrix(filename, data))
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
    openapi_extra=UPLOAD_BODY,
    responses={
        413: refusal_doc("the file is larger than the upload limit (2 MB)"),
        415: refusal_doc("not .npy, .json or .csv, or the content does not match the extension"),
        422: refusal_doc(
            "no file field, a file that is not a valid attention array, or one past a limit on positions, "
            "layers or heads"
        ),
    },
)
async def diagnose_upload(request: Request, settings: SettingsDep) -> DiagnoseResponse:
    """The causal verdict and the ×0 signature for every head of an uploaded attention array."""
    filename, data = await read_file_part(request, settings.max_upload_bytes)
    return await computed(lambda: diagnose_file(filename, data))
