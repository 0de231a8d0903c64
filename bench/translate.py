"""How long /api/translate takes for a whole sentence, as a ratio of /healthz on the same server in one run.

    python bench/translate.py [--requests 40]

Each figure is the median wall time of sequential loopback requests (one client, so nothing queues). Every
request sends a different held-out sentence of the given length, so nothing is cached. The last table is the
numpy decoding alone, in process (encoder once, then greedy steps with the cache), without HTTP or JSON.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.models.parallel_corpus import heldout_pairs  # noqa: E402
from app.models.translator import get_translator  # noqa: E402
from bench.common import running_server  # noqa: E402

LENGTHS = (3, 7, 14)
LONGEST = " ".join(("the dog of the farmer was happy and " * 10).split()[:64])  # 64 words, past training


def sentences(length: int, count: int) -> list[str]:
    """``count`` held-out sentences of exactly ``length`` English words."""
    record = get_translator().record
    held_out = heldout_pairs(record["heldout_pairs"], record["training_pairs"])
    found = [p.source for p in held_out if len(p.english) == length]
    assert found, f"no held-out sentence of {length} words"
    return [found[k % len(found)] for k in range(count)]


def median_ms(call, payloads: list) -> float:  # type: ignore[no-untyped-def]
    times = []
    for payload in payloads:
        started = time.perf_counter()
        call(payload)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    n = args.requests
    cases = {f"{length} words": sentences(length, n) for length in LENGTHS}
    cases["64 words (longer than any training sentence)"] = [LONGEST] * max(5, n // 4)

    with running_server() as base, httpx.Client(base_url=base, timeout=60) as client:

        def healthz(_: object) -> None:
            assert client.get("/healthz").status_code == 200

        def translate(sentence: str) -> None:
            response = client.post("/api/translate", json={"sentence": sentence})
            if response.status_code != 200:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")

        for _ in range(10):  # warm up: connection, the model's first load
            healthz(None)
            translate("the river bank was steep")
        baseline = median_ms(healthz, [None] * n)
        served = {name: median_ms(translate, payloads) for name, payloads in cases.items()}

    translator = get_translator().translator
    decoded = {
        name: median_ms(lambda s: translator.translate(s.split()), payloads)
        for name, payloads in cases.items()
    }
    # steps of the first sentence of each case, counting the step that writes </s>
    steps = {name: len(translator.translate(payloads[0].split()).target) for name, payloads in cases.items()}

    print(f"{'request':62s} {'median ms':>10s} {'ratio to /healthz':>18s}")
    print(f"{'/healthz':62s} {baseline:10.2f} {1.0:18.2f}")
    for name, value in served.items():
        print(f"{'/api/translate, ' + name:62s} {value:10.2f} {value / baseline:18.2f}")
    print()
    print(f"{'numpy decoding in process (encoder + every step)':62s} {'median ms':>10s} {'steps':>6s}")
    for name, value in decoded.items():
        print(f"{name:62s} {value:10.2f} {steps[name] + 1:6d}")


if __name__ == "__main__":
    main()
