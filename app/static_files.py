"""``/static``: Starlette's StaticFiles, revalidated on every use and sent gzipped to browsers that take it.

**Cache-Control: no-cache.** The page is plain ES modules importing one another by fixed names (no content
hash in the file name). With ``max-age`` a browser could keep yesterday's ``lib/svg.js`` beside today's
``figures/heads-dial/index.js`` after a deploy, and a module importing a name the stale one lacks fails to
load.
``no-cache`` still lets a browser store every file; it only asks before each use, with the ETag StaticFiles
sends (If-None-Match), and gets a 304 without a body when nothing changed. One small request per file buys
never running a mixed version.

**gzip.** Text files (scripts, styles, SVG, JSON) go out gzipped when the request accepts it, a third of
their size or less. Each file is compressed once per version (path, modification time and size) and kept;
the gzipped representation has an ETag of its own (the file's, with ``-gzip``), as HTTP asks of two
representations of one URL, and ``Vary: Accept-Encoding`` tells caches the answer depends on that header.
A range request gets the file as it is.
"""

from __future__ import annotations

import gzip
import os
from functools import lru_cache
from pathlib import Path

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

CACHE_CONTROL = "no-cache"
COMPRESSIBLE = frozenset({".js", ".mjs", ".css", ".svg", ".json", ".html", ".txt"})
MIN_GZIP_BYTES = 1024  # below this the gzip header and a round trip's worth of bytes are not worth it


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


@lru_cache(maxsize=256)
def gzipped(path: str, mtime_ns: int, size: int) -> bytes:
    """The file compressed, once per version: a changed file has a new key (``mtime_ns`` and ``size``)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)


class RevalidatedStaticFiles(StaticFiles):
    """StaticFiles whose answers (200 and 304 alike) carry ``Cache-Control: no-cache``, gzipped when taken,
    and whose 405 says which methods a file takes (StaticFiles' own sends no ``Allow``)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})
        return await super().get_response(path, scope)

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        request = Headers(scope=scope)
        compressible = (
            os.path.splitext(full_path)[1].lower() in COMPRESSIBLE and stat_result.st_size >= MIN_GZIP_BYTES
        )
        if compressible and status_code == 200 and "range" not in request and accepts_gzip(request):
            response = self.gzip_response(full_path, stat_result, request)
        else:
            response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.setdefault("cache-control", CACHE_CONTROL)
        if compressible:
            response.headers["vary"] = "Accept-Encoding"
        return response

    def gzip_response(self, full_path: PathLike, stat_result: os.stat_result, request: Headers) -> Response:
        """The gzipped file, or a 304 when the request already holds this representation."""
        plain = FileResponse(full_path, stat_result=stat_result)  # headers only: nothing is read yet
        headers = {
            "content-type": plain.headers["content-type"],
            "last-modified": plain.headers["last-modified"],
            "etag": plain.headers["etag"].removesuffix('"') + '-gzip"',
            "content-encoding": "gzip",
        }
        if self.is_not_modified(Headers(headers), request):
            return NotModifiedResponse(Headers(headers))
        body = gzipped(os.fspath(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        return Response(body, headers=headers)
