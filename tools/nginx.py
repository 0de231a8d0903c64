"""Write nginx's configuration for the explorable, with the app's own limits filled in.

    python -m tools.nginx [OUT]

nginx/explorable.conf.template (the http server) and nginx/explorable.conf.stream-template (the stream server
in front of it) hold no limit and no refusal of their own: each is a placeholder such as
``{{ json_body_size }}``, filled in here from its one home. The app's limits come from app/config.py
Settings (the upload), app/web/limits.py (JSON bodies), app/web/multipart.py (the upload's envelope) and
app/web/server.py (timeouts, the size of a head, connections); the few that only the proxy enforces, and the
words of its own refusals, are the constants below. A limit changed in the app is so changed in the proxy.

What is written to OUT (build/nginx unless told) is still a template of the nginx image's kind, under the
same names: the addresses (``${EXPLORABLE_UPSTREAM}`` and the like) are filled in with envsubst when the
proxy starts, from compose.yaml's environment. The Dockerfile's proxy-files stage runs this;
tests/test_proxy.py renders into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from app.config import Settings, get_settings
from app.web import limits, multipart, server

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = (REPO / "nginx" / "explorable.conf.template", REPO / "nginx" / "explorable.conf.stream-template")
PLACEHOLDER = re.compile(r"\{\{ (\w+) \}\}")

# Requests in progress at once from one client address; more get a 429. Readers who share one address (a
# classroom behind NAT) share these too.
REQUESTS_PER_ADDRESS = 20
# Idle connections nginx keeps open to the app; with the requests in progress they stay within the app's
# --limit-concurrency, so the proxy admits that many fewer requests in all.
UPSTREAM_KEEPALIVE = 16
# nginx drops an idle connection to the app this much sooner than the app would, so that it never sends a
# request down a connection the app is closing.
UPSTREAM_IDLE_MARGIN = 1.0
# Connections open at once in all, counted by the stream server as they open. Each costs the worker up to
# three of the 1,024 connections the nginx image gives it, and those to the app must still fit.
CONNECTIONS_IN_ALL = 256

# The proxy's own refusals, worded as the app's would be.
TOO_MANY_REQUESTS = "too many requests at once from your address: try again shortly"
BAD_REQUEST = "invalid HTTP request received"
UNAVAILABLE = "the explorable is not answering just now: try again shortly"


def head_too_large(size: int) -> str:
    return f"the request head is larger than {size // 1024} KB ({size} bytes)"


def nginx_size(size: int) -> str:
    """A byte count as nginx writes a size: in kilobytes when it is a whole number of them."""
    return f"{size // 1024}k" if size % 1024 == 0 else str(size)


def nginx_time(seconds: float) -> str:
    """A duration as nginx writes one: whole seconds, or else milliseconds."""
    if seconds <= 0:
        raise ValueError(f"nginx needs a time above 0 (got {seconds:g} s)")
    return f"{seconds:g}s" if float(seconds).is_integer() else f"{round(seconds * 1000)}ms"


def text(detail: str) -> str:
    """``detail`` as it stands inside an nginx string that is also a JSON string: nothing to escape."""
    if re.search(r"[\"'\\$\n{}]", detail):
        raise ValueError(f"a refusal nginx cannot quote as it stands: {detail!r}")
    return detail


def answer(detail: str) -> str:
    """The app's kind of body, ``{"detail": ...}``, as an nginx string."""
    return f"'{json.dumps({'detail': text(detail)})}'"


def values(settings: Settings) -> dict[str, str]:
    """Every placeholder's value, read from the limits' homes as they are now."""
    head = server.H11_MAX_INCOMPLETE_EVENT_SIZE
    in_all = server.LIMIT_CONCURRENCY - UPSTREAM_KEEPALIVE
    if not 0 < REQUESTS_PER_ADDRESS <= in_all:
        raise ValueError(f"the app's --limit-concurrency leaves the proxy {in_all} requests in all")
    return {
        "json_body_size": nginx_size(limits.JSON_BODY_BYTES),
        "json_too_large": text(limits.JSON_TOO_LARGE),
        "upload_body_size": nginx_size(settings.max_upload_bytes + multipart.ENVELOPE_BYTES),
        "upload_too_large": text(multipart.too_large(settings.max_upload_bytes).detail),
        "head_size": nginx_size(head),
        "head_too_large": answer(head_too_large(head)),
        "header_timeout": nginx_time(server.TIMEOUT_HEADER),
        "body_timeout": nginx_time(server.TIMEOUT_BODY),
        "upstream_idle_timeout": nginx_time(server.TIMEOUT_KEEP_ALIVE - UPSTREAM_IDLE_MARGIN),
        "upstream_keepalive": str(UPSTREAM_KEEPALIVE),
        "requests_per_address": str(REQUESTS_PER_ADDRESS),
        "requests_in_all": str(in_all),
        "too_many_requests": answer(TOO_MANY_REQUESTS),
        "bad_request": answer(BAD_REQUEST),
        "unavailable": answer(UNAVAILABLE),
        "connections_per_address": str(server.LIMIT_PER_ADDRESS),
        "connections_in_all": str(CONNECTIONS_IN_ALL),
    }


def render(settings: Settings | None = None) -> dict[str, str]:
    """Each template's name and its text with every placeholder filled in. A placeholder with no value, or a
    value no template asks for, is an error: the two lists are kept as one."""
    filled = values(settings or get_settings())
    wanted: set[str] = set()

    def fill(match: re.Match[str]) -> str:
        wanted.add(match[1])
        return filled[match[1]]

    rendered = {path.name: PLACEHOLDER.sub(fill, path.read_text()) for path in TEMPLATES}
    if unused := set(filled) - wanted:
        raise ValueError(f"no template asks for {sorted(unused)}")
    return rendered


def write(out: Path, settings: Settings | None = None) -> list[Path]:
    """Write the rendered templates into ``out``; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, config in render(settings).items():
        (out / name).write_text(config)
        written.append(out / name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "out", type=Path, nargs="?", default=REPO / "build" / "nginx", help="the folder to write into"
    )
    for path in write(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
