"""Liveness probe."""

from fastapi import FastAPI

from app.deps import UNAVAILABLE
from app.schemas.health import Health


def healthz() -> Health:
    """Answer ok while the process serves requests, "degraded" with the models that could not be loaded."""
    if UNAVAILABLE:
        return Health(status="degraded", unavailable=sorted(UNAVAILABLE))
    return Health(status="ok")


def add_probe(app: FastAPI) -> None:
    """Put the probe on the app's own router, ahead of every other route. A route of an included router is
    found through FastAPI's bookkeeping for included routers, about 20 µs a request here; a probe that load
    balancers call every few seconds should cost no more than the framework itself makes it."""
    app.add_api_route(
        "/healthz", healthz, methods=["GET"], tags=["health"], response_model_exclude_defaults=True
    )
