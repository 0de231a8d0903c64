"""The baseline of bench/distinct.py: a FastAPI app with only a /healthz route, served by plain uvicorn.

    python -m uvicorn bench.bare_app:app --port 8001

The app's own /healthz passes through every layer the explorable adds (security headers, HEAD and redirect
rules, body limits, page gzip, the limited HTTP protocol); this one passes through FastAPI's own alone, so
the ratio of the two is what those layers cost a request.
"""

from fastapi import FastAPI

app = FastAPI()


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}
