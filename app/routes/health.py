"""Liveness probe."""

from fastapi import APIRouter

from app.schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> Health:
    """Answer ok while the process serves requests."""
    return Health(status="ok")
