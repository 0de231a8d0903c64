"""``/static``: the page's files, read once, each under an address that names its content.

**Addresses that change when the content does.** Every file has a version, the first 12 hex digits of a
SHA-256 over its bytes and those of every module it imports, directly or not. The page asks for
``/static/<path>?v=<version>`` (the templates' ``static_url``), and every import between modules is written
the same way when the file is read: ``from "./lib/svg.js"`` is served as ``from "./lib/svg.js?v=…"``. A
browser may then keep a file for a year without asking again (``Cache-Control: public, max-age=31536000,
immutable``): after a deploy, a changed file has a new address, and so has every module that imports it, so
no reader ever runs yesterday's ``lib/svg.js`` beside today's figure. The page itself stays revalidated, so
a reader's next visit finds the new addresses. A request without ``v`` or with another version gets the
current file marked ``no-cache``.

**Compressed once.** Text files of 1 KB or more are gzipped when read, and the gzipped bytes kept beside
the plain ones; each representation has its ETag (the gzipped one ends ``-gzip"``) and ``Vary:
Accept-Encoding`` says the answer depends on that header. A ``Range`` header is ignored: the whole file
is sent, as HTTP allows.

**Served before the framework.** app.web.middleware.Edge answers ``/static/`` itself from memory: no routing,
no thread, no file read per request. ``refresh`` (called for every page, and looking at most once a second)
reads the files again when one has changed on disk, so an edited module is picked up on the next page load,
under a new version.

``python -m tools.static DIR`` writes the files as served, with their ``.gz`` beside them, for nginx to
serve in production (nginx/explorable.conf.template).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import mimetypes
import os
import posixpath
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qsl

from starlette.datastructures import Headers
from starlette.types import Scope, Send

IMMUTABLE = "public, max-age=31536000, immutable"  # a versioned address: its content never changes
REVALIDATE = "no-cache"  # an address without the current version: ask before each use
COMPRESSIBLE = frozenset({".js", ".mjs", ".css", ".svg", ".json", ".html", ".txt"})
MIN_GZIP_BYTES = 1024  # below this the gzip header and a round trip's worth of bytes are not worth it
VERSION_DIGITS = 12
# How often ``refresh`` looks at the files on disk: a page at most this often pays for the look (about 1 ms
# for the tree's hundred files and folders), and an edit shows on the next page load after it.
REFRESH_SECONDS = 1.0

# A relative address in a module: a static import or export (`from "./x.js"`, `import "./x.js"`), a dynamic
# import with a literal (`import("./x.js")`), or a file found beside the module (`new URL("./x.json",
# import.meta.url)`). Group 1 tells them apart: only the first kind is needed before the module runs.
SPECIFIER = re.compile(
    r"""(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bnew\s+URL\(\s*)(["'])(\.{1,2}/[^"'\s]+?\.(?:js|json))\2"""
)


def accepts_gzip(headers: Headers) -> bool:
    """Whether Accept-Encoding lists gzip (or *) with a q above 0."""
    for item in headers.get("accept-encoding", "").split(","):
        name, *params = (part.strip() for part in item.split(";"))
        if name.lower() in {"gzip", "*"}:
            q = next((value for key, _, value in (p.partition("=") for p in params) if key == "q"), "1")
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


def compressed(body: bytes, level: int = 9) -> bytes:
    """``body`` gzipped, the same bytes every time (no timestamp in the header)."""
    return gzip.compress(body, compresslevel=level, mtime=0)


@dataclass(frozen=True)
class Asset:
    """One file as served: its bytes (a module's imports versioned), gzipped when worth it, its version."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    version: str

    @property
    def etag(self) -> str:
        return f'"{self.version}"'


def _imports(path: str, text: str) -> list[tuple[str, bool]]:
    """The files that the module at ``path`` names: (their path under the static root, needed only later?)."""
    here = posixpath.dirname(path)
    return [
        (posixpath.normpath(posixpath.join(here, m.group(3))), "(" in m.group(1))
        for m in SPECIFIER.finditer(text)
    ]


class StaticSite:
    """The files under ``root`` as served: path -> Asset, and each path's address."""

    def __init__(self, root: Path, refresh_seconds: float = REFRESH_SECONDS) -> None:
        self.root = root
        self.refresh_seconds = refresh_seconds
        self.looked = time.monotonic()
        self._lock = threading.Lock()
        self._read()

    def _stamps(self) -> dict[str, tuple[int, int]]:
        """Every file and folder under the root, with its modification time and size: what ``refresh``
        compares (a file added or removed changes its folder's)."""
        stamps = {}
        for folder, _, names in os.walk(self.root):
            for name in [".", *names]:
                full = os.path.join(folder, name)
                stat = os.stat(full)
                stamps[os.path.relpath(full, self.root)] = (stat.st_mtime_ns, stat.st_size)
        return stamps

    def _read(self) -> None:
        stamps = self._stamps()
        raw = {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }
        imports = {
            path: _imports(path, data.decode("utf-8")) for path, data in raw.items() if path.endswith(".js")
        }
        for path, targets in imports.items():
            missing = [target for target, _ in targets if target not in raw]
            if missing:
                raise FileNotFoundError(f"static/{path} imports {', '.join(missing)}, which does not exist")
        digest = {path: hashlib.sha256(data).hexdigest() for path, data in raw.items()}
        versions = {
            path: hashlib.sha256(
                "".join(f"{p}:{digest[p]}\n" for p in sorted(_closure(path, imports))).encode()
            ).hexdigest()[:VERSION_DIGITS]
            for path in raw
        }

        def versioned(path: str, data: bytes) -> bytes:
            if path not in imports:
                return data
            here = posixpath.dirname(path)

            def with_version(m: re.Match[str]) -> str:
                target = posixpath.normpath(posixpath.join(here, m.group(3)))
                return f"{m.group(1)}{m.group(2)}{m.group(3)}?v={versions[target]}{m.group(2)}"

            return SPECIFIER.sub(with_version, data.decode("utf-8")).encode("utf-8")

        assets = {}
        for path, data in raw.items():
            body = versioned(path, data)
            suffix = posixpath.splitext(path)[1].lower()
            media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
            if media_type.startswith("text/") or suffix in {".js", ".mjs", ".json", ".svg"}:
                media_type += "; charset=utf-8"
            worth = suffix in COMPRESSIBLE and len(body) >= MIN_GZIP_BYTES
            assets[path] = Asset(body, compressed(body) if worth else None, media_type, versions[path])
        self.imports = imports
        self.assets = assets
        self.stamps = stamps
        every_version = "".join(sorted(versions.values())).encode()
        self.version = hashlib.sha256(every_version).hexdigest()[:VERSION_DIGITS]  # the whole site's

    def refresh(self) -> bool:
        """Read the files again if any changed on disk since they were read; True when they had. Looks at
        most once every ``refresh_seconds``."""
        now = time.monotonic()
        if now - self.looked < self.refresh_seconds:
            return False
        self.looked = now
        stamps = self._stamps()
        if stamps == self.stamps:
            return False
        with self._lock:
            if stamps != self.stamps:
                self._read()
        return True

    def url(self, path: str) -> str:
        """The address of static/``path`` that names its content; a KeyError for a file that does not
        exist, so a template that names a missing file fails when rendered rather than in a reader's
        browser."""
        return f"/static/{path}?v={self.assets[path].version}"

    def preloads(self, path: str) -> list[str]:
        """The addresses of the modules ``path`` imports statically, directly or not, in a stable order:
        what the browser will need before the module can run (``<link rel="modulepreload">``)."""
        seen: list[str] = []
        todo = [path]
        while todo:
            current = todo.pop(0)
            for target, dynamic in self.imports.get(current, []):
                if not dynamic and target not in seen and target != path:
                    seen.append(target)
                    todo.append(target)
        return [self.url(target) for target in seen]

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Every file as served, by its path under the static root, and ``<path>.gz`` beside each one kept
        gzipped: what nginx serves in production (tools/static.py writes them; nginx's gzip_static)."""
        for path, asset in self.assets.items():
            yield path, asset.body
            if asset.gzipped is not None:
                yield f"{path}.gz", asset.gzipped


def _closure(path: str, imports: dict[str, list[tuple[str, bool]]]) -> frozenset[str]:
    """``path`` and every module it imports, statically or dynamically, directly or not."""
    seen = {path}
    todo = [path]
    while todo:
        for target, _ in imports.get(todo.pop(), []):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return frozenset(seen)


@lru_cache
def get_static_site() -> StaticSite:
    """The process's static files (app/config.py ``static_dir``), read on first use."""
    from app.config import get_settings

    return StaticSite(get_settings().static_dir)


def _query_version(scope: Scope) -> str | None:
    """The ``v`` of the request's query string, if it has one."""
    for name, value in parse_qsl(scope.get("query_string", b"").decode("latin-1")):
        if name == "v":
            return value
    return None


async def _json(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps({"detail": detail}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def serve(site: StaticSite, scope: Scope, send: Send) -> None:
    """Answer a request for ``/static/<path>`` from ``site``: the file, a 304, a 404 or a 405 (HEAD arrives
    here as a GET: app.web.http_rules drops the body on the way out)."""
    if scope["method"] != "GET":
        await _json(send, 405, "Method Not Allowed", [(b"allow", b"GET, HEAD")])
        return
    asset = site.assets.get(scope["path"].removeprefix("/static/"))
    if asset is None:
        await _json(send, 404, "Not Found", [])
        return
    cache_control = IMMUTABLE if _query_version(scope) == asset.version else REVALIDATE
    content_type = [(b"content-type", asset.media_type.encode())]
    await send_kept(scope, send, asset.body, asset.gzipped, asset.etag, cache_control.encode(), content_type)


async def send_kept(
    scope: Scope,
    send: Send,
    body: bytes,
    gzipped: bytes | None,
    etag: str,
    cache_control: bytes,
    headers: Iterable[tuple[bytes, bytes]],
) -> None:
    """Send bytes kept in memory: gzipped when there are gzipped bytes and the request takes gzip (an ETag
    of their own, ending ``-gzip"``), or a 304 when the request's If-None-Match already names them.
    ``headers`` are the answer's others (its content type and the like). A static file and a stored answer
    (app/web/stored_answers.py) are both sent this way."""
    request = Headers(scope=scope)
    zipped = gzipped is not None and accepts_gzip(request)
    tag = etag[:-1] + '-gzip"' if zipped else etag
    head = [(b"etag", tag.encode()), (b"cache-control", cache_control)]
    if gzipped is not None:
        head.append((b"vary", b"Accept-Encoding"))
    if matches(request.get("if-none-match"), tag):
        await send({"type": "http.response.start", "status": 304, "headers": head})
        await send({"type": "http.response.body", "body": b""})
        return
    sent = gzipped if zipped and gzipped is not None else body
    head += [*headers, (b"content-length", str(len(sent)).encode())]
    if zipped:
        head.append((b"content-encoding", b"gzip"))
    await send({"type": "http.response.start", "status": 200, "headers": head})
    await send({"type": "http.response.body", "body": sent})


def matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (weak comparison, as a GET's validation uses)."""
    if not if_none_match:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags
