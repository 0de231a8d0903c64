"""How long /api/translate takes for a whole sentence, as a ratio of /healthz on the same server in one run.

    python bench/translate.py [--requests 40] [--in-process]

Each figure is the median wall time of sequential loopback requests (one client, so nothing queues). Every
request sends a different held-out sentence of the given length (as many as there are, up to --requests), so
every answer is computed: none comes from the server's response cache. The last line of the first table
repeats one sentence: every answer but the first is a cache hit; the 64-word line measures the refusal of a
sentence longer than any the model was trained on. The last table is the numpy decoding alone, in process
(encoder once, then greedy steps with the cache), without HTTP or JSON: the readable path
(``translate_stepwise``: ``encode`` and ``step`` through app/core/attention.py) against the one served
(``translate``: FastDecoder), measured sentence by sentence in turn, and FastDecoder in float32 for the
record (not served: it moves attention weights by up to ~3e-6). ``--in-process`` prints that table alone,
without starting a server.

OpenBLAS uses every core for a product it finds large enough (the projection onto the French vocabulary, the
feed-forward layers, the encoder of a long sentence). With another process busy on the second core, those
threads wait on each other: run with OPENBLAS_NUM_THREADS=1 and without to see the difference.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import numpy as np  # noqa: E402

from app.models.translator.committed import get_translator  # noqa: E402
from app.models.translator.fast_decoder import FastDecoder  # noqa: E402
from app.models.translator.network import Translator  # noqa: E402
from app.models.translator.words import TRAINED_MAX_WORDS  # noqa: E402
from tools.serving import app_server  # noqa: E402
from training.parallel_corpus import heldout_pairs  # noqa: E402

LENGTHS = (3, 6, 14, 30)
LONGEST = 64  # words: past any training sentence, so refused (422) before any decoding


def held_out() -> list[str]:
    record = get_translator().record
    return [p.source for p in heldout_pairs(record["heldout_pairs"], record["training_pairs"])]


def sentences(length: int, count: int) -> list[str]:
    """Up to ``count`` distinct held-out sentences of exactly ``length`` English words."""
    found = [s for s in held_out() if len(s.split()) == length]
    assert found, f"no held-out sentence of {length} words"
    return found[:count]


def long_sentences(count: int, length: int = LONGEST) -> list[str]:
    """``count`` distinct sentences of ``length`` words: held-out sentences joined by "and", cut at length."""
    pool = held_out()
    result = []
    for k in range(count):
        words: list[str] = []
        for sentence in pool[k * 10 :]:
            words += [*sentence.split(), "and"]
            if len(words) >= length:
                break
        result.append(" ".join(words[:length]))
    assert len(set(result)) == count
    return result


def median_ms(call, payloads: list) -> float:  # type: ignore[no-untyped-def]
    times = []
    for payload in payloads:
        started = time.perf_counter()
        call(payload)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def cases_of(n: int) -> dict[str, list[str]]:
    cases = {f"{length} words": sentences(length, n) for length in LENGTHS}
    cases[f"{LONGEST} words (refused: longer than any training sentence)"] = long_sentences(max(5, n // 4))
    cases["6 words, one sentence repeated (cached)"] = sentences(6, 1) * n
    return cases


def measure(base: str, cases: dict[str, list[str]], n: int) -> tuple[float, dict[str, float]]:
    """Median ms of GET /healthz, and of POST /api/translate for each case, from one sequential client."""
    with httpx.Client(base_url=base, timeout=60) as client:

        def healthz(_: object) -> None:
            assert client.get("/healthz").status_code == 200

        def translate(sentence: str) -> None:
            response = client.post("/api/translate", json={"sentence": sentence})
            expected = 422 if len(sentence.split()) > TRAINED_MAX_WORDS else 200
            if response.status_code != expected:
                raise RuntimeError(f"{response.status_code}: {response.text[:200]}")

        for _ in range(10):  # warm up: connection, the model's first load
            healthz(None)
            translate("the river bank was steep")
        baseline = median_ms(healthz, [None] * n)
        return baseline, {name: median_ms(translate, payloads) for name, payloads in cases.items()}


def print_served(baseline: float, served: dict[str, float]) -> None:
    print(f"{'request':62s} {'median ms':>10s} {'ratio to /healthz':>18s}")
    print(f"{'/healthz':62s} {baseline:10.2f} {1.0:18.2f}")
    for name, value in served.items():
        print(f"{'/api/translate, ' + name:62s} {value:10.2f} {value / baseline:18.2f}")


def best_of(call, payload, repeats: int) -> float:  # type: ignore[no-untyped-def]
    """The fastest of ``repeats`` calls, in ms: the figure least disturbed by what else the machine runs."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call(payload)
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def decoding_in_process(translator: Translator, cases: dict[str, list[str]], repeats: int = 5) -> None:
    """Median over the sentences of each case of the best of ``repeats`` decodings, per path, in one run."""
    single = FastDecoder(translator, np.float32)
    paths = {
        "readable": lambda words: translator.translate_stepwise(words),
        "served": lambda words: translator.translate(words),
        "float32": lambda words: single.greedy(translator.source_ids(words), translator.step_limit(words)),
    }
    print(
        f"{'numpy decoding in process (encoder + every step)':50s} {'steps':>5s} {'readable ms':>12s} "
        f"{'served ms':>10s} {'speed-up':>9s} {'float32 ms':>11s}"
    )
    for name, payloads in cases.items():
        if "(" in name:  # refused, or one sentence repeated: nothing to decode, or nothing new
            continue
        sentences = [payload.split() for payload in payloads]
        for words in sentences[:3]:  # warm up
            for path in paths.values():
                path(words)
        times: dict[str, list[float]] = {path: [] for path in paths}
        for words in sentences:  # the paths in turn, sentence by sentence, so they share the conditions
            for path, call in paths.items():
                times[path].append(best_of(call, words, repeats))
        median = {path: statistics.median(values) for path, values in times.items()}
        steps = statistics.median(len(translator.translate(words).target) + 1 for words in sentences)
        print(
            f"{name:50s} {steps:5.0f} {median['readable']:12.2f} {median['served']:10.2f} "
            f"{median['readable'] / median['served']:8.1f}x {median['float32']:11.2f}"
        )
    print("steps: the median number of decoder steps, counting the one that writes </s>")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--in-process", action="store_true", help="only the numpy decoding, no server")
    args = parser.parse_args()
    cases = cases_of(args.requests)
    if not args.in_process:
        with app_server() as base:
            baseline, served = measure(base, cases, args.requests)
        print_served(baseline, served)
        print()
    decoding_in_process(get_translator().translator, cases)


if __name__ == "__main__":
    main()
