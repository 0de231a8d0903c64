"""The command line of every training command: its module docstring as the help, and one option per number.

    args = command_line(__doc__, steps=1500, batch_size=64, train=(6000, "training sentences")).parse_args()

gives --steps and --batch-size (ints, with those defaults) and --train with its help text; a command adds any
other option to the parser it gets back before parsing.
"""

from __future__ import annotations

import argparse

Number = int | float


def command_line(doc: str | None, **numbers: Number | tuple[Number, str]) -> argparse.ArgumentParser:
    """A parser with one --option per keyword (underscores become hyphens), typed as its default is."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, value in numbers.items():
        default, text = value if isinstance(value, tuple) else (value, None)
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default, help=text)
    return parser
