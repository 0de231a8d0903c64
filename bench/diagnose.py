"""Time per MB and peak memory of POST /api/diagnose, as ratios of a plain np.load of the same bytes.

    python bench/diagnose.py [--repeat 20]

The main case is a [12, 12, 64, 64] float32 array (144 heads of 64 positions, 2.25 MiB as .npy): over the
2 MB default limit, so the server here runs with ATTENTION_MAX_UPLOAD_BYTES=4 MiB (float16 or 48 positions
would fit under the default, but would not be the size a 12-layer, 12-head model exports). A .csv and a .json
case, each under 2 MB, show what the text formats cost per MB.

Figures:
- time: median wall time per MB of the file, for np.load alone (the baseline), for reading and diagnosing
  in process (app.core: parse + checks + verdicts), and for the HTTP round trip to a local server;
- memory in process: tracemalloc's peak while the ASGI app handles the request (body fed in 64 KiB
  chunks, as a server would), against tracemalloc's peak of np.load;
- memory of the server: growth of its peak RSS (VmHWM) over the idle RSS after the requests, Linux only.

A second table holds files whose cost would grow with their heads or lines rather than their bytes, each
under 2 MB: the largest upload allowed (8,192 heads, its leaking ones listed) and the hostile ones the
limits refuse (half a million heads of .npy, 149,000 heads of .json, a million .csv lines). For each: the
status, the median time and the tracemalloc peak of the whole request in process, and the answer's size.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.config import Settings, get_settings  # noqa: E402
from app.core.attention import apply_mask, softmax  # noqa: E402
from app.core.diagnostics import diagnose  # noqa: E402
from app.core.matrix_files import read_matrix  # noqa: E402
from app.main import create_app  # noqa: E402
from bench.common import rss_kib  # noqa: E402
from tests.inprocess import traced_peak, upload_scope  # noqa: E402
from tests.serving import served  # noqa: E402

LIMIT = 4 * 1024 * 1024
MB = 1024 * 1024
BOUNDARY = "benchboundary7MA4YWxkTrZu0gW"


def weights(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Leaky (×0) attention of the given shape: every check runs to the end."""
    scores = np.random.default_rng(seed).normal(size=shape)
    return softmax(apply_mask(scores, "zero"))


def cases() -> dict[str, tuple[str, bytes]]:
    buffer = io.BytesIO()
    np.save(buffer, weights((12, 12, 64, 64)).astype(np.float32))
    csv = "\n".join(",".join(f"{x:.6g}" for x in row) for row in weights((400, 400))).encode()
    json_data = json.dumps(np.round(weights((8, 128, 128)), 6).tolist()).encode()
    return {
        "[12,12,64,64] float32 .npy": ("w.npy", buffer.getvalue()),
        "[400,400] .csv": ("w.csv", csv),
        "[8,128,128] .json": ("w.json", json_data),
    }


def multipart(name: str, data: bytes) -> bytes:
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
    return (
        head.encode()
        + b"Content-Type: application/octet-stream\r\n\r\n"
        + data
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def chunked(body: bytes) -> list[bytes]:
    return [body[i : i + 65536] for i in range(0, len(body), 65536)]


def bounded_cases() -> dict[str, tuple[str, bytes]]:
    """Files under 2 MB whose work would grow with their heads or lines: one allowed, three refused."""
    leaky = np.broadcast_to(np.full((11, 11), 1 / 11), (32, 256, 11, 11)).astype(np.float16)  # ×0 signature
    causal = np.broadcast_to(np.eye(11, dtype=np.float16), (32, 256, 11, 11))
    largest = np.where((np.arange(32 * 256) % 3 == 0).reshape(32, 256, 1, 1), leaky, causal)
    many = np.ascontiguousarray(np.broadcast_to(np.eye(2, dtype=np.uint8), (500_000, 2, 2)))
    cases = {}
    for label, name, array in (
        ("8,192 heads (largest allowed)", "w.npy", largest),
        ("[500000,2,2] uint8", "w.npy", many),
    ):
        buffer = io.BytesIO()
        np.save(buffer, array)
        cases[label] = (name, buffer.getvalue())
    cases["149,000 heads .json"] = ("w.json", ("[" + ",".join(["[[1,0],[0,1]]"] * 149_000) + "]").encode())
    cases["10^6 lines .csv"] = ("w.csv", b"1\n" * 1_000_000)
    return cases


def asgi_post(app: object, body_chunks: list[bytes]) -> tuple[int, int]:
    """Handle one POST /api/diagnose in process, fed the body's 64 KiB chunks; the status and answer bytes."""
    chunks = list(body_chunks)  # a list of references: the bytes themselves are not copied
    length = sum(len(chunk) for chunk in chunks)
    status = 0
    answered = 0

    async def receive() -> dict:
        chunk = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: dict) -> None:
        nonlocal status, answered
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            answered += len(message.get("body", b""))

    scope = upload_scope(BOUNDARY, length)
    asyncio.run(app(scope, receive, send))  # type: ignore[operator]
    return status, answered


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    # The limit is read when the app is built (the body-size middleware) and by the endpoint (a dependency).
    os.environ["ATTENTION_MAX_UPLOAD_BYTES"] = str(LIMIT)
    get_settings.cache_clear()
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: Settings(max_upload_bytes=LIMIT)
    rows = []
    with (
        served(env={"ATTENTION_MAX_UPLOAD_BYTES": str(LIMIT)}) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        client.post("/api/diagnose", files={"file": ("w.csv", b"1,0\n0,1\n")})  # warm up
        idle_kib = rss_kib(server.pid, "VmRSS")
        files = cases()
        npy_data = files["[12,12,64,64] float32 .npy"][1]
        for label, (name, data) in files.items():
            size = len(data) / MB
            body = chunked(multipart(name, data))  # split before tracing: the server's reads
            baseline = median_seconds(lambda: np.load(io.BytesIO(npy_data), allow_pickle=False), args.repeat)
            baseline_mb = baseline / (len(npy_data) / MB)
            core = median_seconds(lambda n=name, d=data: diagnose(read_matrix(n, d)), args.repeat)

            def post(n: str = name, d: bytes = data) -> None:
                response = client.post("/api/diagnose", files={"file": (n, d)})
                assert response.status_code == 200, response.text

            http = median_seconds(post, args.repeat)
            load_peak = traced_peak(lambda: np.load(io.BytesIO(npy_data), allow_pickle=False))
            assert asgi_post(app, body)[0] == 200
            app_peak = traced_peak(lambda b=body: asgi_post(app, b))
            rows.append((label, size, baseline_mb, core / size, http / size, app_peak, load_peak))
        peak_kib = rss_kib(server.pid, "VmHWM")
    bounded = []
    for label, (name, data) in bounded_cases().items():
        body = chunked(multipart(name, data))
        status, answered = asgi_post(app, body)
        seconds = median_seconds(lambda b=body: asgi_post(app, b), args.repeat)
        bounded.append(
            (label, len(data) / MB, status, seconds, traced_peak(lambda b=body: asgi_post(app, b)), answered)
        )

    print(f"upload limit: {LIMIT // MB} MiB (ATTENTION_MAX_UPLOAD_BYTES); median of {args.repeat} runs")
    print("baseline: np.load(BytesIO(bytes), allow_pickle=False) of the [12,12,64,64] float32 .npy")
    print()
    header = (
        f"{'case':28s} {'MiB':>5s} {'np.load ms/MiB':>14s} {'core ms/MiB':>11s} {'×':>6s} "
        f"{'HTTP ms/MiB':>11s} {'×':>6s} {'app peak MiB':>12s} {'× np.load':>9s}"
    )
    print(header)
    for label, size, base_mb, core_mb, http_mb, app_peak, load_peak in rows:
        times = f"{base_mb * 1e3:14.2f} {core_mb * 1e3:11.2f} {core_mb / base_mb:6.1f} "
        times += f"{http_mb * 1e3:11.2f} {http_mb / base_mb:6.1f}"
        print(f"{label:28s} {size:5.2f} {times} {app_peak / MB:12.1f} {app_peak / load_peak:9.1f}")
    if peak_kib:  # Linux only
        npy_mib = rows[0][1]
        growth = (peak_kib - idle_kib) / 1024
        print()
        print(
            f"server peak RSS growth over idle during all requests: {growth:.1f} MiB "
            f"({growth / npy_mib:.1f}× the largest file, {npy_mib:.2f} MiB)"
        )

    print()
    print("bounded by the limits: the whole request in process (multipart, read, diagnose, answer)")
    print(f"{'case':32s} {'MiB':>5s} {'status':>6s} {'ms':>8s} {'peak MiB':>8s} {'answer KiB':>10s}")
    for label, size, status, seconds, peak, answered in bounded:
        figures = f"{status:6d} {seconds * 1e3:8.1f} {peak / MB:8.1f} {answered / 1024:10.1f}"
        print(f"{label:32s} {size:5.2f} {figures}")


if __name__ == "__main__":
    main()
