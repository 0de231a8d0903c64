"""Command line: ``python -m app`` (or ``attention-explorable``) serves the explorable;
``python -m app check-causal FILE`` checks a model's own attention weights for leaks from the future."""

import os

# One BLAS thread per process, set before numpy is first imported (an operator's own setting wins). The
# explorable's products are small (at most 512 × 512); on two cores a second BLAS thread made them slower
# whenever the other core was busy, several times slower under load, and the server scales by workers.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
from collections.abc import Iterator, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TextIO  # noqa: E402

from app.config import get_settings  # noqa: E402
from app.core.diagnostics import Diagnosis, diagnose, diagnose_blocks  # noqa: E402
from app.core.head_blocks import npy_blocks, npy_layout  # noqa: E402
from app.core.matrix_files import file_too_large, file_type, read_matrix  # noqa: E402
from app.web.server import (  # noqa: E402
    H11_MAX_INCOMPLETE_EVENT_SIZE,
    LIMIT_CONCURRENCY,
    LIMIT_PER_ADDRESS,
    TIMEOUT_BODY,
    TIMEOUT_HEADER,
    TIMEOUT_KEEP_ALIVE,
    serve,
)

EXIT_CAUSAL, EXIT_LEAKS, EXIT_UNREADABLE = 0, 1, 2  # 1: a head leaks or is broken
NO_MEMORY = "not enough memory to check this file"


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds above 0."""
    value = float(text)
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0 (got {text})")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attention-explorable", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="worker processes, each a whole server with its own models and cache (default 1)",
    )
    limits = parser.add_argument_group(
        "limits per worker",
        "what one slow or greedy client can hold (a public server belongs behind nginx: README)",
    )
    limits.add_argument(
        "--timeout-keep-alive",
        type=positive_seconds,
        default=TIMEOUT_KEEP_ALIVE,
        metavar="SECONDS",
        help="close a kept-alive connection idle this long between requests (default %(default)g)",
    )
    limits.add_argument(
        "--timeout-header",
        type=positive_seconds,
        default=TIMEOUT_HEADER,
        metavar="SECONDS",
        help="answer 408 and close unless a request's line and headers arrive within this long "
        "(default %(default)g)",
    )
    limits.add_argument(
        "--timeout-body",
        type=positive_seconds,
        default=TIMEOUT_BODY,
        metavar="SECONDS",
        help="answer 408 and close when a request body stalls this long (default %(default)g)",
    )
    limits.add_argument(
        "--limit-concurrency",
        type=positive_int,
        default=LIMIT_CONCURRENCY,
        metavar="N",
        help="open connections per worker; more are answered 503 and closed at once (default %(default)s)",
    )
    limits.add_argument(
        "--limit-per-address",
        type=positive_int,
        default=LIMIT_PER_ADDRESS,
        metavar="N",
        help="open connections per worker from one address; more are answered 503 and closed at once "
        "(default %(default)s; behind a proxy, set it to --limit-concurrency)",
    )
    limits.add_argument(
        "--h11-max-incomplete-event-size",
        type=positive_int,
        default=H11_MAX_INCOMPLETE_EVENT_SIZE,
        metavar="BYTES",
        help="the most of an unfinished request head (line and headers) a connection may buffer; past it, "
        "a 400 (default %(default)s)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", help="without one, serve the page")
    check = commands.add_parser(
        "check-causal",
        help="check attention weights for leaks from the future",
        description="Print every head's verdict and signature (the mask bug its weights show) for a "
        ".npy (saved with allow_pickle=False), .json or .csv file of attention weights, shape [n, n], "
        "[h, n, n] or [layers, h, n, n], within the limits of POST /api/diagnose on positions and heads. "
        "A .npy of any size is read head by head, in bounded memory; a .json or .csv of at most "
        "ATTENTION_MAX_TEXT_UPLOAD_BYTES (2 MB by default). Layers, heads, rows and columns are counted "
        "from 1. Exit status: 0 causal, 1 a head leaks or is broken, 2 unreadable, too large or invalid.",
    )
    check.add_argument("file", type=Path, metavar="FILE", help="the attention weights")
    return parser


def _figure(value: float | None, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.6f}"


def table_lines(result: Diagnosis) -> Iterator[str]:
    """One line per head (layers and heads counted from 1, as the summary names them), then the overall
    verdict and summary; each head's line is made as it is printed. Row sums are over the valid rows (a
    dash when a head has none: every row NaN or 0)."""
    yield (
        f"{'layer':>5}  {'head':>4}  {'max_future':>10}  {'future_mass':>11}  {'verdict':<7}  "
        f"{'signature':<13}  {'nan_rows':>8}  {'row_sum_min':>11}  {'row_sum_max':>11}"
    )
    for h in result.each_head():
        yield (
            f"{h.layer + 1:>5}  {h.head + 1:>4}  {h.max_future:>10.6f}  {_figure(h.future_mass, 11)}  "
            f"{h.verdict:<7}  {h.signature:<13}  {h.nan_rows:>8}  {_figure(h.row_sum_min, 11)}  "
            f"{_figure(h.row_sum_max, 11)}"
        )
    yield ""
    yield result.summary  # opens with the verdict: "causal: ...", "leaks: ..." or "broken: ..."


def diagnose_path(path: Path, text_limit: int, named: bool = True) -> Diagnosis:
    """The diagnosis of the file at ``path``, read as POST /api/diagnose reads an upload: a .npy head by
    head from the file itself (any size, bounded memory), a .json or .csv whole, at most ``text_limit``
    bytes (a refusal naming the type's limit when ``named``). OSError when it cannot be read; ValueError
    (FileError, MatrixError) when it is not attention weights."""
    with path.open("rb") as file:
        suffix = file_type(path.name)
        if suffix == ".npy":
            layout = npy_layout(file)
            return diagnose_blocks(layout.shape, npy_blocks(file, layout))
        data = file.read(text_limit + 1)  # a device or pipe that never ends is not read past the limit
    if len(data) > text_limit:
        raise ValueError(file_too_large(text_limit, suffix if named else None))
    return diagnose(read_matrix(path.name, data))


def check_causal(path: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Diagnose the file at ``path`` with the API's own reader and limits; the exit status is the verdict.

    A .json or .csv is read at most to the text upload limit plus one byte, so a larger file, a device or
    a pipe that never ends is refused as the API refuses it, not read until memory runs out; a .npy is read
    head by head. Exit 1 means a head leaks or is broken and nothing else: whatever stops the check is 2.
    """
    settings = get_settings()
    text_limit = min(settings.max_text_upload_bytes, settings.max_upload_bytes)
    named = settings.max_text_upload_bytes < settings.max_upload_bytes  # as the API names the smaller limit
    try:
        result = diagnose_path(path, text_limit, named)
    except OSError as error:
        print(f"check-causal: cannot read {path}: {error.strerror or error}", file=err)
        return EXIT_UNREADABLE
    except ValueError as error:  # FileError, UnsupportedFileType, MatrixError, too large
        print(f"check-causal: {path}: {error}", file=err)
        return EXIT_UNREADABLE
    except MemoryError:
        print(f"check-causal: {path}: {NO_MEMORY}", file=err)
        return EXIT_UNREADABLE
    for line in table_lines(result):
        print(line, file=out)
    return EXIT_CAUSAL if result.verdict == "causal" else EXIT_LEAKS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the subcommand, or serve until interrupted when there is none."""
    args = build_parser().parse_args(argv)
    if args.command == "check-causal":
        return check_causal(args.file)
    serve(
        host=args.host,
        port=args.port,
        workers=args.workers,
        timeout_keep_alive=args.timeout_keep_alive,
        timeout_header=args.timeout_header,
        timeout_body=args.timeout_body,
        limit_concurrency=args.limit_concurrency,
        limit_per_address=args.limit_per_address,
        h11_max_incomplete_event_size=args.h11_max_incomplete_event_size,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
