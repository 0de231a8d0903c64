"""Write schemathesis.toml from the app's OpenAPI document.

    python -m tools.fuzz_config

One check of schemathesis, the OpenAPI fuzzer (tests/test_fuzz.py), needs telling about this API:
positive_data_acceptance expects a request the document calls valid to be answered 2xx. Most refusals are in
the document's schemas (a `heads` that does not divide 24 is outside its enum, a 501-character sentence is
past its maxLength); the others depend on what no schema can say (words outside a vocabulary, a permutation
of another number of words, a body past the size limit), and each operation lists those as its 4xx answers.
So the configuration lets the check accept, per operation, exactly the 4xx it documents: this writes it, and
tests/test_fuzz_config.py fails when the committed file is not what this writes.

The article's pages (tag "pages") are left out: what they refuse (a figure name outside the enum, an `embed`
that is not a boolean) the document already calls invalid, so valid data must get their 2xx.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from app.main import create_app

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "schemathesis.toml"
PAGES = "pages"
WIDTH = 110

HEADER = """\
# schemathesis, the OpenAPI fuzzer: tests/test_fuzz.py runs it in process with every check, and the same
# configuration serves a run against the real server (docs/api.md, "Fuzzing the API").
#
# Written by `python -m tools.fuzz_config` from the app's OpenAPI document; edit the routes' documented 4xx
# (their `responses=`), not this file. positive_data_acceptance expects a request that the document calls
# valid to be answered 2xx; each operation below may also answer the 4xx it documents, the refusals that
# depend on what no schema can say.
"""


def refusals(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Every API operation with documented 4xx answers, as "METHOD /path" -> {status: description}, in the
    document's order."""
    found: dict[str, dict[str, str]] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if PAGES in operation.get("tags", []):
                continue
            documented = {
                status: response.get("description", "")
                for status, response in sorted(operation.get("responses", {}).items())
                if status.startswith("4")
            }
            if documented:
                found[f"{method.upper()} {path}"] = documented
    return found


def comment(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent="# ", subsequent_indent="#   ")


def render(document: dict[str, Any]) -> str:
    """schemathesis.toml's text: one [[operations]] table per set of statuses, its operations in the
    document's order, each with what its refusals mean."""
    groups: dict[tuple[str, ...], list[str]] = {}
    found = refusals(document)
    for name, documented in found.items():
        groups.setdefault(tuple(documented), []).append(name)
    tables = []
    for statuses, names in groups.items():
        lines = [""]
        for name in names:
            for status, description in found[name].items():
                lines += comment(f"{name}, {status}: {description}")
        lines.append("[[operations]]")
        lines.append("include-name = [")
        lines += [f'  "{name}",' for name in names]
        lines.append("]")
        expected = ", ".join(f'"{status}"' for status in ("2xx", *statuses))
        lines.append(f"checks.positive_data_acceptance.expected-statuses = [{expected}]")
        tables.append("\n".join(lines) + "\n")
    return HEADER + "".join(tables)


def main() -> None:
    CONFIG.write_text(render(create_app().openapi()), encoding="utf-8")
    print(f"wrote {CONFIG.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
