"""Liveness probe."""

from fastapi import APIRouter

from app.schemas import Health

router = APIRouter(tags=["health"])


@router.api_route("/healthz", methods=["GET", "HEAD"], response_model=Health)
def healthz() -> Health:
    """Answer ok while the process serves requests."""
    return Health(status="ok")
