"""Time per MB and peak memory of POST /api/diagnose and check-causal on BERT-sized exports, as ratios of a
plain np.load of the same file measured in the same run.

    python bench/diagnose.py [--repeat 3]

The main case is a BERT-base export, [12, 12, 512, 512] float16 (75 MB as .npy), with one ×0 head among
causal ones; around it the same with 3, 6 and 24 layers (1/4, 1/2 and 2× the bytes), to show that the time
is linear in the bytes and the memory is not. Each file is written to a temporary directory first.

Figures, per file:
- time: median wall time per MB of the file, for np.load alone (the baseline, which holds the whole array),
  for reading and diagnosing it in process from the file (npy_layout + diagnose_blocks of npy_blocks), for
  the whole request handled by the ASGI app in process (the body fed in 64 KiB chunks, as a server would:
  multipart parsing, the anonymous temporary file, the diagnosis and the answer), and for check-causal;
- memory: tracemalloc's peak during the request in process, and the growth of the peak RSS (VmHWM) over the
  RSS before the work, in a fresh subprocess each, for the request in process and for check-causal.

A second table holds files whose cost would grow with their heads or lines rather than their bytes: the
largest count of heads allowed (8,192, its leaking ones listed) and the hostile ones the limits refuse (half
a million heads of .npy, 149,000 heads of .json, a million .csv lines). For each: the status, the median time
and the tracemalloc peak of the whole request in process, and the answer's size.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.core.diagnostics import diagnose_blocks  # noqa: E402
from app.core.head_blocks import npy_blocks, npy_layout  # noqa: E402
from app.main import create_app  # noqa: E402
from tools.inprocess import npy, traced_peak, upload_scope  # noqa: E402

MB = 1024 * 1024
BOUNDARY = "benchboundary7MA4YWxkTrZu0gW"
HEADS, N = 12, 512
LAYERS = {"1/4": 3, "1/2": 6, "1 (BERT-base)": 12, "2": 24}
CHUNK = 65536


def causal_head(seed: int = 0) -> np.ndarray:
    """One causal softmax head of seeded scores, in float16."""
    scores = np.random.default_rng(seed).normal(size=(N, N))
    scores[np.triu(np.ones((N, N), dtype=bool), k=1)] = -np.inf
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (w / w.sum(axis=-1, keepdims=True)).astype(np.float16)


def write_export(path: Path, layers: int) -> None:
    """[layers, 12, 512, 512] float16 on disk, written head by head: causal, one ×0 (uniform) head."""
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(layers, HEADS, N, N))
    array[:] = causal_head()
    array[layers // 2, 3] = np.float16(1 / N)
    array.flush()
    del array


def envelope(name: str) -> tuple[bytes, bytes]:
    """What a multipart body holds before and after the file's bytes."""
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n\r\n'
    return head.encode(), f"\r\n--{BOUNDARY}--\r\n".encode()


def multipart_chunks(name: str, path: Path) -> Iterator[bytes]:
    """The multipart body of the file at ``path``, in 64 KiB chunks read as they are sent."""
    head, tail = envelope(name)
    yield head
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            yield chunk
    yield tail


def body_length(path: Path) -> int:
    head, tail = envelope(path.name)
    return len(head) + path.stat().st_size + len(tail)


def asgi_post(app: object, chunks: Iterator[bytes], length: int) -> tuple[int, int]:
    """Handle one POST /api/diagnose in process, fed the body's chunks; the status and answer bytes."""
    status = 0
    answered = 0

    async def receive() -> dict:
        chunk = next(chunks, None)
        return {"type": "http.request", "body": chunk or b"", "more_body": chunk is not None}

    async def send(message: dict) -> None:
        nonlocal status, answered
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            answered += len(message.get("body", b""))

    asyncio.run(app(upload_scope(BOUNDARY, length), receive, send))  # type: ignore[operator]
    return status, answered


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def core(path: Path) -> object:
    with path.open("rb") as file:
        layout = npy_layout(file)
        return diagnose_blocks(layout.shape, npy_blocks(file, layout))


# Run in a fresh interpreter: the growth of the peak RSS over the RSS once everything is imported.
RSS_PROBE = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from bench.diagnose import asgi_post, body_length, multipart_chunks
from app.__main__ import check_causal
from app.main import create_app
import io

def kib(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])

path = Path({path!r})
app = create_app()
before = kib("VmRSS")
if {how!r} == "route":
    assert asgi_post(app, multipart_chunks(path.name, path), body_length(path))[0] == 200
else:
    assert check_causal(path, io.StringIO(), io.StringIO()) == 1
print(kib("VmHWM") - before)
"""


def rss_growth_mib(path: Path, how: str) -> float:
    """Peak RSS growth (MiB) of a fresh process diagnosing ``path`` through the route or the CLI."""
    code = RSS_PROBE.format(root=str(ROOT), path=str(path), how=how)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def bounded_cases() -> dict[str, tuple[str, bytes]]:
    """Files whose work would grow with their heads or lines: one allowed, three refused."""
    leaky = np.broadcast_to(np.full((11, 11), 1 / 11), (32, 256, 11, 11)).astype(np.float16)  # ×0 signature
    causal = np.broadcast_to(np.eye(11, dtype=np.float16), (32, 256, 11, 11))
    largest = np.where((np.arange(32 * 256) % 3 == 0).reshape(32, 256, 1, 1), leaky, causal)
    many = np.ascontiguousarray(np.broadcast_to(np.eye(2, dtype=np.uint8), (500_000, 2, 2)))
    cases = {}
    for label, name, array in (
        ("8,192 heads (largest allowed)", "w.npy", largest),
        ("[500000,2,2] uint8", "w.npy", many),
    ):
        cases[label] = (name, npy(array))
    cases["149,000 heads .json"] = ("w.json", ("[" + ",".join(["[[1,0],[0,1]]"] * 149_000) + "]").encode())
    cases["10^6 lines .csv"] = ("w.csv", b"1\n" * 1_000_000)
    return cases


def in_memory_chunks(name: str, data: bytes) -> list[bytes]:
    head, tail = envelope(name)
    body = head + data + tail
    return [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = create_app()
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for label, layers in LAYERS.items():
            path = Path(directory) / f"bert-{layers}.npy"
            write_export(path, layers)
            size = path.stat().st_size / MB
            length = body_length(path)
            load = median_seconds(lambda p=path: np.load(p, allow_pickle=False), args.repeat)
            read = median_seconds(lambda p=path: core(p), args.repeat)

            def post(p: Path = path, n: int = length) -> None:
                assert asgi_post(app, multipart_chunks(p.name, p), n)[0] == 200

            route = median_seconds(post, args.repeat)
            cli = median_seconds(
                lambda p=path: subprocess.run(
                    [sys.executable, "-m", "app", "check-causal", str(p)], cwd=ROOT, capture_output=True
                ),
                args.repeat,
            )
            load_peak = traced_peak(lambda p=path: np.load(p, allow_pickle=False))
            route_peak = traced_peak(post)
            rss = rss_growth_mib(path, "route"), rss_growth_mib(path, "cli")
            figures = (load / size, read / size, route / size, cli / size, route_peak, load_peak, rss)
            rows.append((label, size, *figures))
        tiny = Path(directory) / "tiny.csv"
        tiny.write_text("1,0\n0,1\n")
        cli_start = median_seconds(
            lambda: subprocess.run(
                [sys.executable, "-m", "app", "check-causal", str(tiny)], capture_output=True
            ),
            args.repeat,
        )

    bounded = []
    for label, (name, data) in bounded_cases().items():
        chunks = in_memory_chunks(name, data)
        length = sum(len(chunk) for chunk in chunks)
        status, answered = asgi_post(app, iter(chunks), length)
        seconds = median_seconds(lambda c=chunks, n=length: asgi_post(app, iter(c), n), args.repeat)
        peak = traced_peak(lambda c=chunks, n=length: asgi_post(app, iter(c), n))
        bounded.append((label, len(data) / MB, status, seconds, peak, answered))

    print(f"[layers, 12, 512, 512] float16 .npy, one ×0 head; median of {args.repeat} runs")
    print("baseline: np.load(path, allow_pickle=False) of the same file (it holds the whole array)")
    print(f"check-causal includes starting Python and importing the app: {cli_start * 1e3:.0f} ms on its own")
    print()
    header = (
        f"{'× BERT-base':14s} {'MiB':>6s} {'np.load':>8s} {'core':>7s} {'×':>5s} {'route':>7s} {'×':>5s} "
        f"{'CLI':>7s} {'route peak':>10s} {'np.load':>8s} {'route RSS':>9s} {'CLI RSS':>8s}"
    )
    print(f"{'':14s} {'':6s} {'ms/MiB':>8s} {'ms/MiB':>7s} {'':5s} {'ms/MiB':>7s} {'':5s} {'ms/MiB':>7s} "
          f"{'MiB':>10s} {'peak MiB':>8s} {'+MiB':>9s} {'+MiB':>8s}")  # fmt: skip
    print(header)
    for label, size, load, read, route, cli, peak, load_peak, (route_rss, cli_rss) in rows:
        print(
            f"{label:14s} {size:6.1f} {load * 1e3:8.2f} {read * 1e3:7.2f} {read / load:5.1f} "
            f"{route * 1e3:7.2f} {route / load:5.1f} {cli * 1e3:7.2f} {peak / MB:10.1f} "
            f"{load_peak / MB:8.1f} {route_rss:9.1f} {cli_rss:8.1f}"
        )
    print()
    print("bounded by the limits: the whole request in process (multipart, read, diagnose, answer)")
    print(f"{'case':32s} {'MiB':>5s} {'status':>6s} {'ms':>8s} {'peak MiB':>8s} {'answer KiB':>10s}")
    for label, size, status, seconds, peak, answered in bounded:
        figures = f"{status:6d} {seconds * 1e3:8.1f} {peak / MB:8.1f} {answered / 1024:10.1f}"
        print(f"{label:32s} {size:5.2f} {figures}")


if __name__ == "__main__":
    main()
