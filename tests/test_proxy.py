"""The production reverse proxy: nginx/explorable.conf.template and compose.yaml.

Checked without Docker (the files compose mounts exist, the template's placeholders are what compose sets, its
limits are the app's), then run: Debian's nginx with the template, filled in as the nginx image fills it in,
in front of the real app on loopback. Through it, pages and the API answer with the app's headers, while the
proxy itself refuses, in the app's JSON, a body or a head too large and a client with too many requests at
once, and cuts off a client trickling its headers.
"""

from __future__ import annotations

import io
import json
import re
import select
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import yaml

from app.config import get_settings
from app.limits import JSON_BODY_BYTES, JSON_TOO_LARGE
from app.middleware import CONTENT_SECURITY_POLICY, SECURITY_HEADERS
from app.multipart import ENVELOPE_BYTES, too_large
from app.server import (
    H11_MAX_INCOMPLETE_EVENT_SIZE,
    LIMIT_CONCURRENCY,
    TIMEOUT_BODY,
    TIMEOUT_HEADER,
    TIMEOUT_KEEP_ALIVE,
)
from tests.optional import missing
from tests.serving import Served, free_port, healthy, served, stop
from tests.test_container import only

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "nginx" / "explorable.conf.template"
NGINX = Path("/usr/sbin/nginx")  # Debian's; /usr/sbin is not on every PATH
# What envsubst replaces: $NAME or ${NAME}, when NAME is set in its environment.
SUBSTITUTION = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))")
CLIENT_HEADER_TIMEOUT = 10.0  # the template's, which the slow client below has to wait out
SLACK = 3  # a loaded two-core machine may be this many times slower than a timeout
TRICKLE = 0.3  # seconds between two bytes of the slow client
PER_CLIENT = 20  # the template's limit_conn

# The main configuration nginx needs around the template (the nginx image has its own). One process, running
# as whoever runs the test (master_process off), writing only under the test's directory.
MAIN_CONFIG = """\
master_process off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{}}
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
    assert value.endswith("s"), value
    return float(value[:-1])


# The configuration, checked without Docker.


def test_compose_mounts_files_that_exist_and_builds_the_dockerfile() -> None:
    services = compose()["services"]
    assert services["app"]["build"] == "." and (ROOT / "Dockerfile").is_file()
    mounts = [volume.split(":") for service in services.values() for volume in service.get("volumes", [])]
    assert mounts, "the proxy mounts no configuration"
    for host, container, *_ in mounts:
        assert (ROOT / host).is_file(), host
        assert container.startswith("/etc/nginx/templates/") and container.endswith(".template"), container


def test_the_templates_placeholders_are_exactly_what_compose_sets() -> None:
    environment = compose()["services"]["proxy"]["environment"]
    template = TEMPLATE.read_text()
    named = [match["braced"] or match["bare"] for match in SUBSTITUTION.finditer(template)]
    placeholders = {match["braced"] for match in SUBSTITUTION.finditer(template) if match["braced"]}
    assert placeholders == set(environment) == {"EXPLORABLE_UPSTREAM", "NGINX_PORT"}
    # Every other variable is nginx's own, all in lower case, so no variable of the image's environment
    # (PATH, HOSTNAME, NGINX_VERSION, ...) can be substituted into it by mistake.
    assert all(name.islower() for name in named if name not in placeholders), named
    assert "${" not in fill(template, environment)


def test_compose_runs_the_app_unpublished_on_the_dockerfiles_port_behind_the_proxy() -> None:
    services = compose()["services"]
    app, proxy = services["app"], services["proxy"]
    (exposed,) = only("EXPOSE")
    assert "ports" not in app and [str(port) for port in app["expose"]] == [exposed]
    assert proxy["environment"]["EXPLORABLE_UPSTREAM"] == f"app:{exposed}"
    assert proxy["ports"] == [f"8080:{proxy['environment']['NGINX_PORT']}"]
    assert proxy["depends_on"] == {"app": {"condition": "service_healthy"}} and only("HEALTHCHECK")
    image, _, tag = proxy["image"].partition(":")
    assert image == "nginx" and re.fullmatch(r"\d+\.\d+(\.\d+)?", tag), proxy["image"]


def test_behind_the_proxy_the_app_runs_the_dockerfiles_command_with_no_cap_per_address() -> None:
    """Every connection reaches the app from nginx's one address, so its cap per address is its whole cap;
    otherwise the dockerfile's command, unchanged."""
    command = compose()["services"]["app"]["command"]
    (dockerfile,) = only("CMD")
    at = command.index("--limit-per-address")
    assert command[:at] == json.loads(dockerfile) and command[at + 1 :] == [str(LIMIT_CONCURRENCY)]


def test_the_proxys_limits_are_the_apps() -> None:
    template = TEMPLATE.read_text()
    upload = re.search(r"location = /api/diagnose \{(.*?)\}", template, flags=re.S)
    assert upload is not None
    limit = get_settings().max_upload_bytes
    assert [size(v) for v in directive("client_max_body_size", template)] == [
        JSON_BODY_BYTES,
        limit + ENVELOPE_BYTES,
    ]
    assert (
        directive("client_max_body_size", upload.group(1)) == directive("client_max_body_size", template)[1:]
    )
    (buffers,) = directive("large_client_header_buffers", template)
    assert buffers.split()[0] == "1" and size(buffers.split()[1]) == H11_MAX_INCOMPLETE_EVENT_SIZE
    assert seconds(directive("client_header_timeout", template)[0]) == TIMEOUT_HEADER == CLIENT_HEADER_TIMEOUT
    assert seconds(directive("client_body_timeout", template)[0]) == TIMEOUT_BODY
    # nginx lets an idle connection to the app go before the app would close it under nginx's feet. (The
    # block ends at the brace on a line of its own, not at the placeholder's.)
    upstream = re.search(r"upstream explorable_app \{(.*?)\n\}", template, flags=re.S)
    assert upstream is not None
    (upstream_idle,) = directive("keepalive_timeout", upstream.group(1))
    assert seconds(upstream_idle) < TIMEOUT_KEEP_ALIVE
    # The 413's words are the app's own.
    assert f'/api/diagnose "{too_large(limit).detail}";' in template
    assert f'default "{JSON_TOO_LARGE}";' in template
    per_client, in_all = directive("limit_conn", template)
    assert per_client == f"explorable_conn {PER_CLIENT}"
    # nginx's connections to the app, busy and idle, stay within what the app admits
    (idle,) = directive("keepalive", upstream.group(1))
    assert in_all.split()[0] == "explorable_all" and int(in_all.split()[1]) + int(idle) <= LIMIT_CONCURRENCY
    # an upload is streamed to the app, which bounds its pace, rather than held on nginx's disk
    assert directive("proxy_request_buffering", upload.group(1)) == ["off"]


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
            deadline = time.monotonic() + SLACK * CLIENT_HEADER_TIMEOUT
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
def nginx_in_front_of(upstream: str, tmp: Path) -> Iterator[tuple[str, int, Path]]:
    """Debian's nginx with the shipped configuration in front of ``upstream`` (host:port), until the block
    ends: its URL, port and error log."""
    port = free_port()
    environment = {"EXPLORABLE_UPSTREAM": upstream, "NGINX_PORT": f"127.0.0.1:{port}"}
    (tmp / "explorable.conf").write_text(fill(TEMPLATE.read_text(), environment))
    (tmp / "nginx.conf").write_text(MAIN_CONFIG.format(tmp=tmp))
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
    if not NGINX.is_file():
        missing(f"the proxy tests need Debian's nginx at {NGINX} (apt-get install nginx)")
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
    if not NGINX.is_file():
        missing(f"the proxy tests need Debian's nginx at {NGINX} (apt-get install nginx)")
    nobody = free_port()  # nothing listens there
    with nginx_in_front_of(f"127.0.0.1:{nobody}", tmp_path) as (url, _, _):
        response = httpx.get(f"{url}/healthz", timeout=10)
    assert_from_the_proxy(response, 503, "the explorable is not answering just now: try again shortly")


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


def test_a_json_body_over_256_kb_is_refused_by_the_proxy(proxy: Proxy) -> None:
    body = b'{"sentence": "' + b"a" * 300_000 + b'"}'
    response = httpx.post(
        f"{proxy.url}/api/translate", content=body, headers={"content-type": "application/json"}, timeout=30
    )
    assert_from_the_proxy(response, 413, JSON_TOO_LARGE)
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

    declared = limit + ENVELOPE_BYTES + 1
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
    held = [socket.create_connection(("127.0.0.1", proxy.port)) for _ in range(PER_CLIENT + extra)]
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
        assert body == b'{"detail": "too many requests at once from your address: try again shortly"}'


def test_a_request_head_over_16_kb_is_refused_by_the_proxy(proxy: Proxy) -> None:
    detail = f"the request head is larger than 16 KB ({H11_MAX_INCOMPLETE_EVENT_SIZE} bytes)"
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
    assert head.startswith(b"HTTP/1.1 400 ") and body == b'{"detail": "invalid HTTP request received"}'


def test_a_slow_header_client_is_cut_off_by_the_proxy(proxy: Proxy) -> None:
    """Last in the module: the client started with the proxy and has been trickling ever since."""
    proxy.slow_client.join(timeout=SLACK * CLIENT_HEADER_TIMEOUT + 5)
    assert proxy.slow_client.cut_off, f"still open after {SLACK * CLIENT_HEADER_TIMEOUT:g} s"
    assert proxy.slow_client.trickled >= 10  # it kept sending all along, and the clock ran on regardless
    assert proxy.slow_client.received == b""  # nginx drops such a client without an answer
    log = proxy.error_log.read_text().splitlines()
    assert any("client timed out" in line and "reading client request headers" in line for line in log)


def test_the_readme_gives_the_proxys_limit_in_all_as_the_template_has_it() -> None:
    template = TEMPLATE.read_text()
    upstream = re.search(r"upstream explorable_app \{(.*?)\n\}", template, flags=re.S)
    assert upstream is not None
    (idle,) = directive("keepalive", upstream.group(1))
    in_all = directive("limit_conn", template)[1].split()[1]
    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    assert f"a limit in all ({in_all} requests, so that with the {idle} idle connections" in readme
    assert f"nginx never needs more than the app's {LIMIT_CONCURRENCY})" in readme
