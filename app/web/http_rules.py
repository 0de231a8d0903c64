"""Three rules of HTTP that every answer follows, whichever route, mount or error handler made it.

- **HEAD is GET without the body.** FastAPI's routes answer only the methods they declare, so HEAD on a page
  or a GET endpoint was a 405. Here a HEAD request goes through as a GET and the body is dropped on the way
  out; the status and the headers (Content-Length included) are the GET's.
- **A 405 lists what is allowed.** Wherever GET is allowed, so is HEAD, and the ``Allow`` header says so.
- **Redirects stay on this site.** Starlette's trailing-slash redirect spells its ``Location`` as an absolute
  URL built from the request's ``Host`` header, which the client chose (``Host: evil.example`` would send a
  reader to evil.example). This site never redirects to another origin, so an absolute ``Location`` is cut
  to its path and query, which a browser resolves against the address it actually used.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from starlette.types import Message, Scope, Send


def with_head(allow: str) -> str:
    """An ``Allow`` value with HEAD beside GET: "GET" -> "GET, HEAD"; "POST" stays "POST"."""
    methods = [m.strip() for m in allow.split(",") if m.strip()]
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    return ", ".join(methods)


def relative(location: str) -> str:
    """A ``Location`` without its scheme and host: "http://evil.example/static/?a=1" -> "/static/?a=1".

    The path keeps one leading slash: "//evil.example/" (or "/\\evil.example/", which browsers read the same
    way) would itself name another host.
    """
    parts = urlsplit(location)
    if not parts.scheme and not parts.netloc and not location.startswith(("//", "/\\")):
        return location
    return urlunsplit(("", "", "/" + parts.path.lstrip("/\\"), parts.query, parts.fragment))


def by_the_rules(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """An HTTP request's scope and send as the app should see them: HEAD turned into GET, and a send that
    applies the rules to the answer on its way out (app.web.middleware.Edge calls this for every request)."""
    head = scope["method"] == "HEAD"
    if head:
        scope = {**scope, "method": "GET"}  # a copy: the server's own scope still says HEAD

    async def send_by_the_rules(message: Message) -> None:
        if message["type"] == "http.response.start" and (
            message["status"] == 405 or 300 <= message["status"] < 400
        ):
            status = message["status"]
            headers = []
            for name, value in message.get("headers", []):
                if status == 405 and name.lower() == b"allow":
                    value = with_head(value.decode("latin-1")).encode("latin-1")
                elif 300 <= status < 400 and name.lower() == b"location":
                    value = relative(value.decode("latin-1")).encode("latin-1")
                headers.append((name, value))
            message = {**message, "headers": headers}
        elif message["type"] == "http.response.body" and head:
            if message.get("more_body", False):
                return  # a HEAD answer has no body: only the closing (empty) message goes out
            message = {**message, "body": b""}
        await send(message)

    return scope, send_by_the_rules
