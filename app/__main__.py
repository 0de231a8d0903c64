"""Command line: ``python -m app`` (or ``attention-explorable``) serves the explorable."""

import argparse
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attention-explorable", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the flags and run the server until interrupted."""
    args = build_parser().parse_args(argv)
    import uvicorn

    uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port, server_header=False)


if __name__ == "__main__":
    main()
