"""The production reverse proxy: nginx/explorable.conf.stream-template (connections) in front of
nginx/explorable.conf.template (requests), as tools/nginx.py renders them with the app's limits, and
compose.yaml.

Checked without Docker (the proxy image holds every template where the nginx image fills them in, their
addresses are what compose sets, their limits are the app's and follow it when it changes, and the templates
spell out none of them), then run: Debian's nginx with both templates, rendered into a temporary folder and
filled in as the nginx image fills them in, in front of the real app on loopback, with the static files
tools/static.py writes. Through it,
pages and the API answer with the app's headers and the static files come from nginx alone, as the app
would serve them, while the proxy itself refuses, in the app's JSON, a body or a head too large and a
client with too many requests at once, cuts off a client trickling its headers, and closes connections past
its limits per address and in all as they open, so that many trickling heads from one address leave room
for others. tests/test_failover.py runs two app processes behind it and kills one.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import select
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import yaml

from app.config import Settings, get_settings
from app.web import limits, multipart, server
from app.web.middleware import CONTENT_SECURITY_POLICY, SECURITY_HEADERS
from app.web.multipart import too_large
from app.web.server import LIMIT_CONCURRENCY, TIMEOUT_HEADER
from app.web.static_files import IMMUTABLE, REVALIDATE, get_static_site
from tests.optional import missing
from tests.test_container import dockerfile_stages, only, proxy_static_folder, proxy_templates
from tools import nginx
from tools.nginx import REQUESTS_PER_ADDRESS, head_too_large
from tools.serving import Served, free_port, healthy, served, stop
from tools.static import write

ROOT = Path(__file__).resolve().parent.parent
HTTP, STREAM = (path.name for path in nginx.TEMPLATES)
NGINX = Path("/usr/sbin/nginx")  # Debian's; /usr/sbin is not on every PATH
# Debian builds nginx's stream module apart; the nginx image builds it in.
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")
WORKER_CONNECTIONS = 1024  # what the nginx image's nginx.conf gives each worker
# What envsubst replaces: $NAME or ${NAME}, when NAME is set in its environment.
SUBSTITUTION = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))")
SLACK = 3  # a loaded two-core machine may be this many times slower than a timeout
TRICKLE = 0.3  # seconds between two bytes of the slow client

# The main configuration nginx needs around the templates, as the nginx image's nginx.conf has it once its
# start-up script has added the stream block: the templates inside http {} and stream {}, and the image's
# connections per worker. One process, running as whoever runs the test (master_process off), writing only
# under the test's directory.
MAIN_CONFIG = """\
load_module {module};
master_process off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{
    worker_connections {connections};
}}
stream {{
    include {tmp}/explorable.stream.conf;
}}
http {{
    include /etc/nginx/mime.types;
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/explorable.conf;
}}
"""


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def fill(template: str, environment: Mapping[str, str]) -> str:
    """The template as envsubst fills it in: a variable set in `environment` is replaced, any other (nginx's
    own $host and the like) is left as it is."""

    def value(match: re.Match[str]) -> str:
        return environment.get(match["braced"] or match["bare"], match[0])

    return SUBSTITUTION.sub(value, template)


def directive(name: str, text: str) -> list[str]:
    """The arguments of every `name ...;` in an nginx configuration, in order."""
    return re.findall(rf"^\s*{name}\s+([^;]+);", text, flags=re.M)


def size(value: str) -> int:
    """An nginx size (256k, 2m, 4096) in bytes."""
    return int(value.rstrip("kKmM")) * {"k": 1024, "m": 1024**2}.get(value[-1].lower(), 1)


def seconds(value: str) -> float:
    """An nginx time (10s, 4500ms) in seconds."""
    found = re.fullmatch(r"(\d+)(m?s)", value)
    assert found is not None, value
    return int(found[1]) / (1000 if found[2] == "ms" else 1)


def configuration(settings: Settings | None = None) -> tuple[str, str]:
    """The http and the stream server's templates as tools/nginx.py renders them."""
    rendered = nginx.render(settings)
    return rendered[HTTP], rendered[STREAM]


# The configuration, checked without Docker.


def test_compose_builds_the_dockerfile_whose_proxy_holds_every_rendered_template() -> None:
    """Each service builds its stage of the Dockerfile, and the proxy image holds each file of nginx/, as
    tools/nginx.py renders it, where the image's start-up script fills it in: *.template inside http {},
    *.stream-template inside stream {}. Nothing is mounted over them."""
    services = compose()["services"]
    stages = dockerfile_stages()
    for name in ("app", "proxy"):
        assert services[name]["build"] == {"context": ".", "target": name} and name in stages
        assert "image" not in services[name] and "volumes" not in services[name]
    templates = proxy_templates()
    assert set(templates) == {path.name for path in (ROOT / "nginx").iterdir()} == {HTTP, STREAM}
    for name, container in templates.items():
        assert container.startswith("/etc/nginx/templates/") and container.endswith(Path(name).suffix)


def test_the_templates_placeholders_are_exactly_what_compose_sets() -> None:
    environment = compose()["services"]["proxy"]["environment"]
    placeholders = set()
    for template in configuration():
        assert not nginx.PLACEHOLDER.search(template)  # tools/nginx.py filled in every limit
        named = [match["braced"] or match["bare"] for match in SUBSTITUTION.finditer(template)]
        braced = {match["braced"] for match in SUBSTITUTION.finditer(template) if match["braced"]}
        # Every other variable is nginx's own, all in lower case, so no variable of the image's environment
        # (PATH, HOSTNAME, NGINX_VERSION, ...) can be substituted into it by mistake.
        assert all(name.islower() for name in named if name not in braced), named
        assert "${" not in fill(template, environment)
        placeholders |= braced
    assert (
        placeholders
        == set(environment)
        == {"EXPLORABLE_UPSTREAM", "EXPLORABLE_HTTP", "EXPLORABLE_STATIC", "NGINX_PORT"}
    )
    # The static files are where the Dockerfile's proxy stage put them, and nginx serves /static/ from them.
    assert environment["EXPLORABLE_STATIC"] == proxy_static_folder()
    http, stream = configuration()
    static = re.search(r"location /static/ \{(.*?)\n    \}", http, flags=re.S)
    assert static is not None and directive("alias", static.group(1)) == ["${EXPLORABLE_STATIC}/"]
    # The stream server listens for readers and hands them to the http server, which listens on loopback
    # only and takes the reader's address from the stream server's PROXY protocol line.
    assert directive("listen", stream) == ["${NGINX_PORT}"]
    assert directive("proxy_pass", stream) == ["${EXPLORABLE_HTTP}"]
    assert directive("proxy_protocol", stream) == ["on"]
    assert directive("listen", http) == ["${EXPLORABLE_HTTP} proxy_protocol"]
    assert environment["EXPLORABLE_HTTP"].startswith("127.0.0.1:")
    assert directive("set_real_ip_from", http) == ["127.0.0.1"]
    assert directive("real_ip_header", http) == ["proxy_protocol"]


def test_compose_runs_the_app_unpublished_on_the_dockerfiles_port_behind_the_proxy() -> None:
    services = compose()["services"]
    app, proxy = services["app"], services["proxy"]
    (exposed,) = only("EXPOSE")
    assert "ports" not in app and [str(port) for port in app["expose"]] == [exposed]
    assert proxy["environment"]["EXPLORABLE_UPSTREAM"] == f"app:{exposed}"
    assert proxy["ports"] == [f"8080:{proxy['environment']['NGINX_PORT']}"]
    assert proxy["depends_on"] == {"app": {"condition": "service_healthy"}} and only("HEALTHCHECK")
    # More than one app process, each its own address behind the service's one name.
    assert app["deploy"]["replicas"] >= 2


def test_behind_the_proxy_the_app_runs_the_dockerfiles_command_with_no_cap_per_address() -> None:
    """Every connection reaches the app from nginx's one address, so its cap per address is its whole cap;
    otherwise the dockerfile's command, unchanged."""
    command = compose()["services"]["app"]["command"]
    (dockerfile,) = only("CMD")
    at = command.index("--limit-per-address")
    assert command[:at] == json.loads(dockerfile) and command[at + 1 :] == [str(LIMIT_CONCURRENCY)]


@dataclass(frozen=True)
class AppLimits:
    """The limits of the app that the proxy repeats, read from their homes as they are now."""

    upload: int
    envelope: int
    json_body: int
    json_too_large: str
    head: int
    timeout_header: float
    timeout_body: float
    timeout_keep_alive: float
    concurrency: int
    per_address: int

    @classmethod
    def of(cls, settings: Settings) -> AppLimits:
        return cls(
            settings.max_upload_bytes,
            multipart.ENVELOPE_BYTES,
            limits.JSON_BODY_BYTES,
            limits.JSON_TOO_LARGE,
            server.H11_MAX_INCOMPLETE_EVENT_SIZE,
            server.TIMEOUT_HEADER,
            server.TIMEOUT_BODY,
            server.TIMEOUT_KEEP_ALIVE,
            server.LIMIT_CONCURRENCY,
            server.LIMIT_PER_ADDRESS,
        )


def assert_the_proxy_holds(app: AppLimits, http: str, stream: str) -> None:
    """The rendered configuration enforces ``app``'s limits and words its refusals as ``app`` would."""
    upload = re.search(r"location = /api/diagnose \{(.*?)\}", http, flags=re.S)
    assert upload is not None
    assert [size(v) for v in directive("client_max_body_size", http)] == [
        app.json_body,
        app.upload + app.envelope,
    ]
    assert directive("client_max_body_size", upload.group(1)) == directive("client_max_body_size", http)[1:]
    (buffers,) = directive("large_client_header_buffers", http)
    assert buffers.split()[0] == "1" and size(buffers.split()[1]) == app.head
    assert seconds(directive("client_header_timeout", http)[0]) == app.timeout_header
    assert seconds(directive("client_body_timeout", http)[0]) == app.timeout_body
    # nginx lets an idle connection to the app go before the app would close it under nginx's feet. (The
    # block ends at the brace on a line of its own, not at the placeholder's.)
    upstream = re.search(r"upstream explorable_app \{(.*?)\n\}", http, flags=re.S)
    assert upstream is not None
    (upstream_idle,) = directive("keepalive_timeout", upstream.group(1))
    assert seconds(upstream_idle) < app.timeout_keep_alive
    # The refusals' words are the app's own.
    assert f'/api/diagnose "{too_large(app.upload).detail}";' in http
    assert f'default "{app.json_too_large}";' in http
    head = re.search(r"location = /_proxy/head-too-large \{[^}]*return 400 '(.*)';", http)
    assert head is not None and json.loads(head[1]) == {"detail": head_too_large(app.head)}
    per_client, in_all = directive("limit_conn", http)
    assert per_client == f"explorable_conn {REQUESTS_PER_ADDRESS}"
    # nginx's connections to the app, busy and idle, stay within what the app admits
    (idle,) = directive("keepalive", upstream.group(1))
    assert in_all.split()[0] == "explorable_all" and int(in_all.split()[1]) + int(idle) <= app.concurrency
    # an upload is streamed to the app, which bounds its pace, rather than held on nginx's disk
    assert directive("proxy_request_buffering", upload.group(1)) == ["off"]
    per_address, in_all_connections = stream_limits(stream)
    # one address holds at most what the app lets one address hold when it runs alone
    assert per_address == app.per_address
    # each accepted connection costs a worker up to three connections (the reader's and both ends of the
    # hand-over to the http server); the connections to the app must fit beside them
    assert 3 * in_all_connections + app.concurrency <= WORKER_CONNECTIONS
    assert REQUESTS_PER_ADDRESS <= per_address < in_all_connections


def test_the_proxys_limits_are_the_apps() -> None:
    assert_the_proxy_holds(AppLimits.of(get_settings()), *configuration())


def test_a_limit_changed_in_the_app_is_changed_in_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every limit of the app set otherwise, at its home: the rendered configuration follows each one."""
    changed = {
        (multipart, "ENVELOPE_BYTES"): 40 * 1024,
        (limits, "JSON_BODY_BYTES"): 100 * 1024,
        (limits, "JSON_TOO_LARGE"): "the request body is larger than 102400 bytes (100 KB)",
        (server, "H11_MAX_INCOMPLETE_EVENT_SIZE"): 8 * 1024,
        (server, "TIMEOUT_HEADER"): 7.0,
        (server, "TIMEOUT_BODY"): 12.5,
        (server, "TIMEOUT_KEEP_ALIVE"): 3.0,
        (server, "LIMIT_CONCURRENCY"): 200,
        (server, "LIMIT_PER_ADDRESS"): 40,
    }
    before = AppLimits.of(get_settings())
    for (module, name), value in changed.items():
        monkeypatch.setattr(module, name, value)
    settings = Settings(max_upload_bytes=3 * 2**20)
    after = AppLimits.of(settings)
    assert all(getattr(after, name) != getattr(before, name) for name in AppLimits.__dataclass_fields__)
    http, stream = configuration(settings)
    assert_the_proxy_holds(after, http, stream)
    assert configuration() != (http, stream)


def test_the_templates_spell_out_none_of_the_limits_they_are_given() -> None:
    """Every number of the app's limits, and every refusal's words, comes into the configuration from its
    home through tools/nginx.py: neither template writes one out, in a directive or a comment, where it
    could stay behind when the home changes. (The timeouts share their numbers with the proxy's own, such as
    send_timeout: the test above checks that they follow.)"""
    settings = get_settings()
    counts = [
        server.LIMIT_CONCURRENCY,
        server.LIMIT_PER_ADDRESS,
        server.LIMIT_CONCURRENCY - nginx.UPSTREAM_KEEPALIVE,
        nginx.REQUESTS_PER_ADDRESS,
        nginx.UPSTREAM_KEEPALIVE,
        nginx.CONNECTIONS_IN_ALL,
    ]
    sizes = [
        limits.JSON_BODY_BYTES,
        settings.max_upload_bytes,
        settings.max_upload_bytes + multipart.ENVELOPE_BYTES,
        server.H11_MAX_INCOMPLETE_EVENT_SIZE,
    ]
    spellings = {str(n) for n in counts}
    spellings |= {f"{n}" for size in sizes for n in (size, f"{size:,}", size // 1024, size // 2**20) if n}
    words = [value for value in nginx.values(settings).values() if " " in value]
    for path in nginx.TEMPLATES:
        template = path.read_text()
        numbers = set(re.findall(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?", template))
        assert not numbers & spellings, (path.name, numbers & spellings)
        assert not [detail for detail in words if detail.strip("'") in template], path.name


def test_a_request_one_app_process_failed_goes_to_another_once() -> None:
    """A dead process is left out after one failure; a request it failed is tried at one other, POSTs too,
    and only within a bound that leaves no retry to a request that waited out its read timeout. The app's
    own 503s (a model whose weights are missing) are answers, not failures: retried, they would take every
    process out of turn."""
    template = configuration()[0]
    upstream = re.search(r"upstream explorable_app \{(.*?)\n\}", template, flags=re.S)
    assert upstream is not None
    assert directive("server", upstream.group(1)) == ["${EXPLORABLE_UPSTREAM} max_fails=1 fail_timeout=10s"]
    (retried,) = directive("proxy_next_upstream", template)
    assert retried.split() == ["error", "timeout", "non_idempotent"]
    assert directive("proxy_next_upstream_tries", template) == ["2"]
    (bound,) = directive("proxy_next_upstream_timeout", template)
    (connect,) = directive("proxy_connect_timeout", template)
    (read,) = directive("proxy_read_timeout", template)
    assert seconds(connect) < seconds(bound) < seconds(read)


def stream_limits(stream: str) -> tuple[int, int]:
    """The stream server's limits on open connections: per address, and in all."""
    per_address, in_all = directive("limit_conn", stream)
    assert per_address.split()[0] == "explorable_accepted" and in_all.split()[0] == "explorable_accepted_all"
    return int(per_address.split()[1]), int(in_all.split()[1])


# The configuration, run by Debian's nginx in front of the real app.


class SlowHeaderClient(threading.Thread):
    """A client that sends half a request head and then one byte every TRICKLE seconds, for as long as the
    server keeps the connection open (at most SLACK times nginx's client_header_timeout)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.received = b""
        self.trickled = 0
        self.cut_off = False

    def run(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sock.settimeout(TRICKLE)
            deadline = time.monotonic() + SLACK * TIMEOUT_HEADER
            while time.monotonic() < deadline:
                try:
                    chunk = sock.recv(4096)
                except TimeoutError:
                    try:
                        sock.sendall(b"a")
                    except OSError:  # reset between our read and this write
                        self.cut_off = True
                        return
                    self.trickled += 1
                    continue
                except ConnectionResetError:  # reset_timedout_connection: nginx resets rather than closes
                    self.cut_off = True
                    return
                if not chunk:
                    self.cut_off = True
                    return
                self.received += chunk


@dataclass(frozen=True)
class Proxy:
    url: str
    port: int
    app: Served
    error_log: Path
    slow_client: SlowHeaderClient


@contextmanager
def nginx_in_front_of(upstream: str | Sequence[str], tmp: Path) -> Iterator[tuple[str, int, Path]]:
    """Debian's nginx with the shipped configuration in front of ``upstream`` (host:port, or several: one app
    process each), until the block ends: its URL, port and error log. The static files it serves are written
    to ``tmp``/static by tools/static.py, from the tree the app serves."""
    for needed, install in ((NGINX, "nginx"), (STREAM_MODULE, "libnginx-mod-stream")):
        if not needed.is_file():
            missing(f"the proxy tests need Debian's nginx and its stream module (apt-get install {install})")
    upstreams = [upstream] if isinstance(upstream, str) else list(upstream)
    write(get_static_site(), tmp / "static")
    port = free_port()
    environment = {
        "EXPLORABLE_UPSTREAM": upstreams[0],
        "EXPLORABLE_HTTP": f"127.0.0.1:{free_port()}",
        "EXPLORABLE_STATIC": str(tmp / "static"),
        "NGINX_PORT": f"127.0.0.1:{port}",
    }
    templates = tmp / "templates"
    nginx.write(templates)
    http = fill((templates / HTTP).read_text(), environment)
    # Docker's DNS answers compose's service name with one address per replica, and nginx makes each a server
    # with the line's parameters: the same as one line per address, which is what is written here.
    line = re.search(rf"^(\s*)server {re.escape(upstreams[0])}( [^;]*)?;$", http, flags=re.M)
    assert line is not None
    servers = [f"{line[1]}server {address}{line[2] or ''};" for address in upstreams]
    http = http.replace(line[0], "\n".join(servers))
    (tmp / "explorable.conf").write_text(http)
    (tmp / "explorable.stream.conf").write_text(fill((templates / STREAM).read_text(), environment))
    main = MAIN_CONFIG.format(tmp=tmp, module=STREAM_MODULE, connections=WORKER_CONNECTIONS)
    (tmp / "nginx.conf").write_text(main)
    error_log = tmp / "error.log"
    command = [str(NGINX), "-p", str(tmp), "-e", str(error_log), "-c", str(tmp / "nginx.conf")]
    with (tmp / "stderr.log").open("wb") as stderr:
        process = subprocess.Popen([*command, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=stderr)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while not listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                logged = error_log.read_text() if error_log.exists() else ""
                output = (tmp / "stderr.log").read_text() + logged
                pytest.fail(f"nginx did not start (exit status {process.poll()}):\n{output[-2000:]}")
            time.sleep(0.1)
        yield url, port, error_log
    finally:
        stop(process)


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    tmp = tmp_path_factory.mktemp("nginx")
    with served() as app, nginx_in_front_of(f"127.0.0.1:{app.port}", tmp) as (url, port, error_log):
        deadline = time.monotonic() + 10
        while not healthy(url):
            if time.monotonic() > deadline:
                pytest.fail("nginx started but does not pass /healthz to the app")
            time.sleep(0.1)
        # The slow client has to wait out nginx's 10 s client_header_timeout: it starts now, the other
        # tests run meanwhile, and the last test of the module reads how it ended.
        slow_client = SlowHeaderClient(port)
        slow_client.start()
        yield Proxy(url, port, app, error_log, slow_client)


def test_with_the_app_down_the_proxy_answers_503_in_the_apps_json(tmp_path: Path) -> None:
    """The outage's status is 503 ("try again later"), as the configuration's comment says; it was 502,
    since an error_page to a named location keeps the status it caught unless told otherwise."""
    nobody = free_port()  # nothing listens there
    with nginx_in_front_of(f"127.0.0.1:{nobody}", tmp_path) as (url, _, _):
        response = httpx.get(f"{url}/healthz", timeout=10)
    assert_from_the_proxy(response, 503, nginx.UNAVAILABLE)


def assert_from_the_app(response: httpx.Response) -> None:
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name.decode()] == value.decode(), name
    assert response.headers["server"] == "nginx"  # server_tokens off: no version


def assert_from_the_proxy(response: httpx.Response, status: int, detail: str) -> None:
    """A refusal nginx made itself, in the app's JSON."""
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"detail": detail}
    assert "content-security-policy" not in response.headers  # the app adds it to all it answers


def test_pages_and_the_api_pass_through_with_the_apps_headers(proxy: Proxy) -> None:
    with httpx.Client(base_url=proxy.url, timeout=30) as client:
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert_from_the_app(page)
        api = client.get("/api/attention", params={"sentence": "the river bank was steep"})
        assert api.status_code == 200 and api.json()["tokens"] == ["the", "river", "bank", "was", "steep"]
        assert_from_the_app(api)


def raw_get(client: httpx.Client, address: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """An answer and its body as sent, not decoded (httpx would gunzip it)."""
    with client.stream("GET", address, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def test_nginx_serves_the_static_files_itself_as_the_app_would(proxy: Proxy) -> None:
    """The page's versioned addresses come from nginx's copy of the files (tools/static.py's), with the app's
    bytes, media type and year-long Cache-Control, gzipped when asked, and the app never sees them; every
    other file too, revalidated when asked for without a version. A missing file, a folder, a .gz copy and a
    POST get the app's JSON answers."""
    site = get_static_site()
    before = proxy.app.log()
    with httpx.Client(base_url=proxy.url, timeout=30) as client:
        page = client.get("/")
        addresses = re.findall(r'(?:src|href)="(/static/[^"?]+\?v=[0-9a-f]{12})"', page.text)
        assert any(a.startswith("/static/js/main.js?v=") for a in addresses), addresses
        assert any(a.startswith("/static/css/main.css?v=") for a in addresses), addresses
        for address in addresses:
            asset = site.assets[address.removeprefix("/static/").partition("?")[0]]
            plain, body = raw_get(client, address, **{"accept-encoding": "identity"})
            assert plain.status_code == 200 and body == asset.body, address
            assert plain.headers["content-type"] == asset.media_type
            assert plain.headers["cache-control"] == IMMUTABLE
            assert plain.headers["x-content-type-options"] == "nosniff"
            assert "content-encoding" not in plain.headers
            assert "content-security-policy" not in plain.headers  # the app adds it to all it answers
            if asset.gzipped is None:
                continue
            assert plain.headers["vary"] == "Accept-Encoding"
            zipped, body = raw_get(client, address, **{"accept-encoding": "gzip"})
            assert zipped.headers["content-encoding"] == "gzip" and body == asset.gzipped, address
            assert (
                zipped.headers["cache-control"] == IMMUTABLE and zipped.headers["vary"] == "Accept-Encoding"
            )
            again = client.get(address, headers={"if-none-match": zipped.headers["etag"]})
            assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE
        for path, asset in site.assets.items():
            unversioned = client.get(f"/static/{path}")
            assert unversioned.status_code == 200 and unversioned.content == asset.body, path
            assert unversioned.headers["content-type"] == asset.media_type, path
            assert unversioned.headers["cache-control"] == REVALIDATE, path
        for missing_file in ("/static/js/nope.js?v=0123456789ab", "/static/js/", "/static/js/main.js.gz"):
            answer = client.get(missing_file)
            assert answer.status_code == 404 and answer.json() == {"detail": "Not Found"}, missing_file
            assert answer.headers["content-type"] == "application/json"
            assert "cache-control" not in answer.headers
        for method in ("POST", "DELETE"):
            answer = client.request(method, addresses[0])
            assert answer.status_code == 405 and answer.json() == {"detail": "Method Not Allowed"}
            assert (
                answer.headers["allow"] == "GET, HEAD"
                and answer.headers["content-type"] == "application/json"
            )
    assert "/static/" not in proxy.app.log().removeprefix(before)
    # The app would have logged them: it logs the files it serves itself.
    with httpx.Client(base_url=proxy.app.url, timeout=30) as client:
        direct, body = raw_get(client, addresses[0], **{"accept-encoding": "identity"})
    assert direct.status_code == 200 and body == site.assets[addresses[0][8:].partition("?")[0]].body
    assert f'"GET {addresses[0]} HTTP/1.1" 200' in proxy.app.log()


def test_a_json_body_over_256_kb_is_refused_by_the_proxy(proxy: Proxy) -> None:
    body = b'{"sentence": "' + b"a" * 300_000 + b'"}'
    response = httpx.post(
        f"{proxy.url}/api/translate", content=body, headers={"content-type": "application/json"}, timeout=30
    )
    assert_from_the_proxy(response, 413, limits.JSON_TOO_LARGE)
    assert "POST /api/translate" not in proxy.app.log()  # the app never saw it


def length(answer: bytes) -> int:
    """The Content-Length an HTTP answer's head declares (0 until the head is in)."""
    found = re.search(rb"(?im)^content-length:\s*(\d+)\r$", answer.partition(b"\r\n\r\n")[0])
    return int(found.group(1)) if found else 0


def test_an_upload_over_the_limit_is_refused_by_the_proxy_and_one_of_4_mb_reaches_the_app(
    proxy: Proxy,
) -> None:
    """A body declared past the upload limit is refused by nginx from its headers alone (nothing is sent);
    a 4 MB .npy, past the limit of .json and .csv files, goes through to the app and is diagnosed."""
    limit = get_settings().max_upload_bytes

    declared = limit + multipart.ENVELOPE_BYTES + 1
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=30) as raw:
        raw.sendall(
            b"POST /api/diagnose HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            + f"Content-Length: {declared}\r\n\r\n".encode()
        )
        answer = b""
        # Read the answer, then stop: nginx would linger up to lingering_timeout for the body never sent.
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < length(answer):
            answer += raw.recv(65536) or b"!"  # a closed connection ends the answer (and fails the test)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413") and b"application/json" in head, head
    assert json.loads(body) == {"detail": too_large(limit).detail}
    assert "POST /api/diagnose" not in proxy.app.log()
    weights = io.BytesIO()
    np.save(weights, np.eye(512)[None].repeat(2, axis=0))
    assert 2**21 < len(weights.getvalue()) < limit
    response = httpx.post(
        f"{proxy.url}/api/diagnose", files={"file": ("w.npy", weights.getvalue())}, timeout=30
    )
    assert response.status_code == 200 and response.json()["verdict"] == "causal"
    assert '"POST /api/diagnose HTTP/1.1" 200' in proxy.app.log()


def test_more_requests_at_once_than_the_per_client_limit_get_429s(proxy: Proxy) -> None:
    """Each held request waits for a body it will not get (nginx reads bodies before passing requests on),
    so all are in progress at once."""
    extra = 5
    held = [socket.create_connection(("127.0.0.1", proxy.port)) for _ in range(REQUESTS_PER_ADDRESS + extra)]
    try:
        for sock in held:
            sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
        answers = {}
        # The refusals come at once; the others wait for their bodies for 10 s (client_body_timeout), so
        # the window is long enough for a slow machine and still shorter than that.
        deadline = time.monotonic() + SLACK
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([s for s in held if s not in answers], [], [], left)
            for sock in readable:
                answers[sock] = sock.recv(4096)
    finally:
        for sock in held:
            sock.close()
    refused = list(answers.values())
    assert len(refused) == extra, answers
    for answer in refused:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 429 ") and b"application/json" in head
        assert body == json.dumps({"detail": nginx.TOO_MANY_REQUESTS}).encode()


def test_a_request_head_over_16_kb_is_refused_by_the_proxy(proxy: Proxy) -> None:
    detail = head_too_large(server.H11_MAX_INCOMPLETE_EVENT_SIZE)
    with httpx.Client(base_url=proxy.url, timeout=30) as client:
        assert_from_the_proxy(client.get("/healthz", headers={"x-padding": "a" * 20_000}), 400, detail)
        assert_from_the_proxy(client.get("/healthz", params={"padding": "a" * 20_000}), 400, detail)
        passed = client.get("/healthz", headers={"x-padding": "a" * 12_000})  # within both limits
        assert passed.status_code == 200
        assert_from_the_app(passed)


def test_a_malformed_request_gets_a_json_400_from_the_proxy(proxy: Proxy) -> None:
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        head, _, body = sock.recv(4096).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and body == json.dumps({"detail": nginx.BAD_REQUEST}).encode()


def open_connections(port: int, address: str, count: int) -> list[socket.socket]:
    """``count`` connections from ``address`` (any 127.x.y.z is this machine), each having sent the first
    line of a request head and no more."""
    opened = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", port))
        with contextlib.suppress(OSError):  # closed as soon as it was accepted
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        opened.append(sock)
    return opened


def still_open(opened: list[socket.socket]) -> int:
    """How many of the connections nginx still holds: the others it has closed (they read as ended)."""
    time.sleep(SLACK / 3)  # time for nginx to close those past its limits; the heads time out after 10 s
    closed = 0
    for sock in opened:
        readable, _, _ = select.select([sock], [], [], 0)
        if readable:
            try:
                closed += sock.recv(1) == b""
            except ConnectionResetError:
                closed += 1
    return len(opened) - closed


def test_trickled_heads_are_counted_as_they_open_and_others_get_through(proxy: Proxy, tmp_path: Path) -> None:
    """Past its limits, per address and in all, the stream server closes a connection as it opens, before a
    byte of its head (the http server alone counted it only once the head was in, so a few hundred trickling
    heads from one address took every connection the worker had). Meanwhile a reader from another address
    is served, and its address, not the stream server's, is the one nginx's limits and logs see. A nginx of
    its own, so that the module's slow client does not count."""
    per_address, in_all = stream_limits(configuration()[1])
    with nginx_in_front_of(f"127.0.0.1:{proxy.app.port}", tmp_path) as (url, port, error_log):
        held: list[socket.socket] = []
        try:
            held += open_connections(port, "127.0.0.2", 4 * per_address)
            assert still_open(held) == per_address
            probe = socket.socket()
            probe.bind(("127.0.0.250", 0))
            probe.connect(("127.0.0.1", port))
            with probe:
                probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                probe.settimeout(10)
                answer = b""
                while chunk := probe.recv(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"status":"ok"}'), answer[-300:]
            # many addresses: the limit in all
            addresses = [f"127.0.1.{k}" for k in range(1, in_all // per_address + 3)]
            for address in addresses:
                held += open_connections(port, address, per_address)
            assert still_open(held) == in_all
        finally:
            for sock in held:
                sock.close()
        access = (tmp_path / "access.log").read_text()
    served_probe = r"^127\.0\.0\.250 - - .*\"GET /healthz HTTP/1\.1\" 200 "
    assert re.search(served_probe, access, flags=re.M), access[-500:]
    log = error_log.read_text()
    assert 'limiting connections by zone "explorable_accepted"' in log
    assert 'limiting connections by zone "explorable_accepted_all"' in log


def test_a_slow_header_client_is_cut_off_by_the_proxy(proxy: Proxy) -> None:
    """Last in the module: the client started with the proxy and has been trickling ever since."""
    proxy.slow_client.join(timeout=SLACK * TIMEOUT_HEADER + 5)
    assert proxy.slow_client.cut_off, f"still open after {SLACK * TIMEOUT_HEADER:g} s"
    assert proxy.slow_client.trickled >= 10  # it kept sending all along, and the clock ran on regardless
    assert proxy.slow_client.received == b""  # nginx drops such a client without an answer
    log = proxy.error_log.read_text().splitlines()
    assert any("client timed out" in line and "reading client request headers" in line for line in log)


def test_the_production_doc_gives_the_proxys_limits_as_the_configuration_has_them() -> None:
    template, stream = configuration()
    upstream = re.search(r"upstream explorable_app \{(.*?)\n\}", template, flags=re.S)
    assert upstream is not None
    (idle,) = directive("keepalive", upstream.group(1))
    in_all = directive("limit_conn", template)[1].split()[1]
    doc = re.sub(r"\s+", " ", (ROOT / "docs" / "production.md").read_text())
    assert f"a limit in all ({in_all} requests, so that with the {idle} idle connections" in doc
    assert f"nginx never needs more than the app's {LIMIT_CONCURRENCY})" in doc
    per_address, in_all = stream_limits(stream)
    assert (
        f"at most {per_address} from one address (the app's own `--limit-per-address`) and {in_all} in all"
        in doc
    )
    assert f"closes connections past {per_address} from one address and {in_all} in all as they open" in doc
