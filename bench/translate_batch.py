"""What batching the translator's decoding saves: ``translate_many`` at B sentences per call against
``translate`` one sentence at a time, per sentence, in process.

    python bench/translate_batch.py [--sentences 384] [--rounds 5] [--mixed]

The sentences are bench/distinct.py's TRANSLATE ones (6 words, drawn from the translator's grammar; each
sentence is translated once per round, so none repeats within a round); ``--mixed`` draws held-out
sentences of 3 to 30 words instead, and adds the other way to batch them: each batch split by source
length (no padding of the cross-attention, smaller batches). Every round times
the lone path and every batch size in turn, interleaved, and the table gives each one's median over the
rounds. One BLAS thread, as the server runs (app/__main__.py).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy is imported: as the server runs

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.models.translator.committed import get_translator  # noqa: E402
from bench.distinct import translate_sentences  # noqa: E402
from training.parallel_corpus import HELDOUT_SEED, distinct_pairs  # noqa: E402

SIZES = (1, 2, 4, 8, 16, 32)


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--sentences", type=int, default=384, help="distinct sentences per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mixed", action="store_true", help="held-out sentences of 3 to 30 words")
    args = parser.parse_args()

    translator = get_translator().translator
    if args.mixed:
        sentences = [list(p.english) for p in distinct_pairs(args.sentences, HELDOUT_SEED)]
    else:
        sentences = [s.split() for s in translate_sentences(args.sentences)]

    def lone() -> None:
        for words in sentences:
            translator.translate(words)

    def batched(size: int) -> Callable[[], None]:
        def run() -> None:
            for start in range(0, len(sentences), size):
                translator.translate_many(sentences[start : start + size])

        return run

    def by_length(size: int) -> Callable[[], None]:
        """The other way to batch sources of different lengths: each batch split by source length, so no
        source is padded (and the batches are smaller)."""

        def run() -> None:
            for start in range(0, len(sentences), size):
                batch = sentences[start : start + size]
                for length in sorted({len(words) for words in batch}):
                    translator.translate_many([words for words in batch if len(words) == length])

        return run

    cases: dict[str, Callable[[], None]] = {"translate, one by one": lone}
    cases |= {f"translate_many, B = {size}": batched(size) for size in SIZES}
    if args.mixed:
        cases |= {f"by length, B = {size}": by_length(size) for size in SIZES[1:]}
    for run in cases.values():  # warm up: the position table, the allocator, the caches
        run()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, run in cases.items():
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) / len(sentences))

    kind = "held-out sentences of 3 to 30 words" if args.mixed else "6-word sentences"
    print(f"{len(sentences)} distinct {kind}, median of {args.rounds} interleaved rounds, per sentence:")
    lone_time = statistics.median(times["translate, one by one"])
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"  {name:<24} {median * 1e3:7.3f} ms   {median / lone_time:5.2f} × the lone time")


if __name__ == "__main__":
    main()
