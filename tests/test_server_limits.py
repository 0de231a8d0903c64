"""What a slow or greedy client can hold of the real server (app/web/server.py): a request head trickled a
byte at a time and a stalled body are cut off with a 408, a kept-alive connection still serves, connections
past the per-worker cap get a 503 at once, and the server's file descriptors stay bounded however many clients
connect. One server with short timeouts and a small cap serves the whole module."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import pickle
import signal
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
import uvicorn

from app.__main__ import build_parser
from app.web.server import APP, CoalescedWrites, LimitedH11Protocol, QuietServer, ServerConfig
from tools.serving import Served, healthy, served

T = TypeVar("T")

HEADER, BODY, KEEP_ALIVE = 1.0, 1.0, 3.0  # seconds, far below the defaults so that each test is quick
CAP = 20  # connections per worker
HEAD_BYTES = 4096
SLACK = 3  # a loaded two-core machine may be this many times slower than a timeout
TRICKLE = 0.3  # seconds between two bytes of a slowloris client


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    args = [
        *("--timeout-header", str(HEADER), "--timeout-body", str(BODY)),
        *("--timeout-keep-alive", str(KEEP_ALIVE), "--limit-concurrency", str(CAP)),
        *("--h11-max-incomplete-event-size", str(HEAD_BYTES)),
    ]
    with served(*args) as running:
        yield running


def connect(server: Served) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=SLACK * HEADER)


def read_until_closed(sock: socket.socket, within: float) -> bytes:
    """All the server sends until it closes the connection; fails if it is still open after `within` s."""
    sock.settimeout(within)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the connection was still open after {within:g} s")
    return received


def parse(answer: bytes) -> tuple[int, dict[str, str], Any]:
    """A whole HTTP/1.1 answer as its status, its headers (names in lower case) and its JSON body."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, json.loads(body) if body else None


def request_head(method: str, path: str, **headers: str) -> bytes:
    fields = {"Host": "127.0.0.1", **{name.replace("_", "-"): value for name, value in headers.items()}}
    return f"{method} {path} HTTP/1.1\r\n".encode() + b"".join(
        f"{name}: {value}\r\n".encode() for name, value in fields.items()
    )


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_the_limits_have_sane_defaults() -> None:
    args = build_parser().parse_args([])
    assert (args.timeout_keep_alive, args.timeout_header, args.timeout_body) == (5, 10, 10)
    assert (args.limit_concurrency, args.h11_max_incomplete_event_size) == (128, 16384)
    assert args.limit_per_address == 32
    doc = (Path(__file__).resolve().parent.parent / "docs" / "production.md").read_text()
    for flag in ("limit_concurrency", "limit_per_address", "h11_max_incomplete_event_size"):
        assert f"`--{flag.replace('_', '-')} " in doc and f"` ({getattr(args, flag)})" in doc, flag


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--timeout-keep-alive", "0"),
        ("--timeout-header", "-1"),
        ("--timeout-body", "nan"),
        ("--timeout-header", "inf"),
        ("--limit-concurrency", "0"),
        ("--limit-per-address", "0"),
        ("--h11-max-incomplete-event-size", "-5"),
    ],
)
def test_a_limit_must_be_positive(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([flag, value])
    assert exit_.value.code == 2
    assert flag in capsys.readouterr().err


def test_the_limits_travel_with_the_config_to_worker_processes() -> None:
    """--workers N starts each worker from a pickled copy of the config: the clocks must survive it."""
    config = ServerConfig(
        APP, factory=True, http=LimitedH11Protocol, timeout_header=3, timeout_body=4, limit_per_address=5
    )
    copy = pickle.loads(pickle.dumps(config))
    assert (copy.timeout_header, copy.timeout_body, copy.http) == (3, 4, LimitedH11Protocol)
    assert copy.limit_per_address == 5


def test_a_head_trickled_a_byte_at_a_time_is_cut_off_with_a_408(server: Served) -> None:
    with connect(server) as sock:
        sock.sendall(request_head("GET", "/healthz") + b"X-Slow: ")
        sock.settimeout(TRICKLE)
        started = time.monotonic()
        trickled, answer = 0, b""
        while time.monotonic() - started < SLACK * HEADER:
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                with contextlib.suppress(OSError):  # the server may close between our read and this write
                    sock.sendall(b"a")
                    trickled += 1
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
        else:
            pytest.fail(f"the connection was still open after {SLACK * HEADER:g} s of trickling")
    assert trickled >= 2  # bytes kept coming, and the clock ran on regardless
    status, headers, body = parse(answer)
    assert (status, headers["connection"], headers["content-type"]) == (408, "close", "application/json")
    assert body == {"detail": f"the request head did not arrive within {HEADER:g} s"}


def test_a_stalled_body_is_cut_off_with_a_408(server: Served) -> None:
    with connect(server) as sock:
        sock.sendall(request_head("POST", "/api/translate", Content_Length="64") + b'\r\n{"sentence": ')
        answer = read_until_closed(sock, within=SLACK * BODY)
    status, headers, body = parse(answer)
    assert (status, headers["connection"]) == (408, "close")
    assert body == {"detail": f"the request body stalled: nothing arrived for {BODY:g} s"}


def test_a_slow_body_that_keeps_coming_reaches_the_app(server: Served) -> None:
    """Each byte of a body restarts its clock: an upload over a slow line is slow, not stalled."""
    body = b'{"a": 1}'
    pause = BODY / 4  # the whole body takes twice the body timeout, every gap a quarter of it
    with connect(server) as sock:
        sock.sendall(request_head("POST", "/api/translate", Content_Length=str(len(body))) + b"\r\n")
        for byte in body:
            time.sleep(pause)
            sock.sendall(bytes([byte]))
        sock.settimeout(SLACK * BODY)
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 422 ")  # the app's answer: the body has no sentence


def test_a_kept_alive_connection_serves_again_after_idling_past_the_head_timeout(server: Served) -> None:
    """The head's clock starts with a request's first byte, not while a kept-alive connection waits for one;
    uvicorn's keep-alive timeout (--timeout-keep-alive) closes it once it has idled that long."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=SLACK * KEEP_ALIVE)
    try:
        sockets = []
        for pause in (1.5 * HEADER, 0):  # past the head's timeout, well within the keep-alive
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            assert (response.status, json.loads(response.read())) == (200, {"status": "ok"})
            sockets.append(connection.sock)
            time.sleep(pause)
        assert sockets[0] is sockets[1]  # both requests went over one connection
        assert read_until_closed(sockets[1], within=SLACK * KEEP_ALIVE) == b""  # then closed without a word
    finally:
        connection.close()


def test_an_unfinished_head_over_the_size_limit_gets_a_400(server: Served) -> None:
    """h11 refuses to hold more than --h11-max-incomplete-event-size bytes of a head that has not ended."""
    with connect(server) as sock:
        sock.sendall(request_head("GET", "/healthz", Connection="close", X_Padding="a" * HEAD_BYTES))
        assert read_until_closed(sock, within=SLACK * HEADER).startswith(b"HTTP/1.1 400 ")
    with connect(server) as sock:  # the same head, ended and within the limit, is served
        sock.sendall(request_head("GET", "/healthz", Connection="close", X_Padding="a" * (HEAD_BYTES // 2)))
        sock.sendall(b"\r\n")
        assert read_until_closed(sock, within=SLACK * HEADER).startswith(b"HTTP/1.1 200 ")


def test_connections_past_the_cap_get_a_503_and_healthz_answers_once_they_are_gone(server: Served) -> None:
    held = [connect(server) for _ in range(CAP)]
    try:
        for _ in range(3):
            with connect(server) as sock:
                status, headers, body = parse(read_until_closed(sock, within=SLACK * HEADER))
            assert (status, headers["connection"]) == (503, "close")
            assert body == {
                "detail": f"the server is busy: it holds at most {CAP} connections at once; try again shortly"
            }
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + SLACK * HEADER
    while not healthy(server.url):
        assert time.monotonic() < deadline, "/healthz did not answer once the held connections were closed"
        time.sleep(0.1)
    # The first refusal is logged at once; the next ones are counted into one line a few seconds later.
    refused = f"Refused 1 connection(s): this worker already holds its limit of {CAP} (--limit-concurrency)"
    assert refused in server.log()


def test_every_connection_up_to_the_cap_is_served_with_the_apps_headers(server: Served) -> None:
    """The last connection the cap admits is served like the first. It once got uvicorn's own plain-text
    503 on every request (uvicorn's check counts the asking connection too, so it sat one below the cap),
    without the security headers, and "Exceeded concurrency limit." was logged for each."""
    held = [connect(server) for _ in range(CAP)]
    try:
        for sock in (held[0], held[-1]):
            sock.sendall(request_head("GET", "/healthz") + b"\r\n")
            sock.settimeout(SLACK * HEADER)
            answer = sock.recv(65536)
            status, headers, _ = parse(answer)
            assert status == 200 and headers["x-content-type-options"] == "nosniff", answer[:200]
            assert "content-security-policy" in headers
    finally:
        for sock in held:
            sock.close()
    assert "Exceeded concurrency limit" not in server.log()


def test_one_address_holds_at_most_its_share_of_connections() -> None:
    """One client opening connections (slow heads reopened as they are cut, idle keep-alives) once took all
    128 places of the app run without nginx; now an address holds at most --limit-per-address."""
    share = 3
    with served("--limit-per-address", str(share), "--limit-concurrency", str(CAP)) as server:
        held = [connect(server) for _ in range(share)]
        try:
            with connect(server) as sock:
                status, headers, body = parse(read_until_closed(sock, within=SLACK * HEADER))
            assert (status, headers["connection"]) == (503, "close")
            assert body == {
                "detail": f"your address holds {share} connections to this server already, the most one may: "
                "close one, or try again shortly"
            }
            held.pop().close()
            deadline = time.monotonic() + SLACK * HEADER
            while not healthy(server.url):  # the place is free again once the server has seen it close
                assert time.monotonic() < deadline
                time.sleep(0.05)
        finally:
            for sock in held:
                sock.close()
        logged = f"Refused 1 connection(s) from an address that holds {share} already (--limit-per-address)"
        assert logged in server.log()


def test_file_descriptors_stay_bounded_under_hundreds_of_idle_connections(server: Served) -> None:
    pid = server.process.pid
    before = open_descriptors(pid)
    log_lines = len(server.log().splitlines())
    sockets = [connect(server) for _ in range(300)]
    try:
        peak, statuses = before, list[int]()
        for sock in sockets:  # the refused are answered at once, the admitted when the head's clock runs out
            statuses.append(parse(read_until_closed(sock, within=SLACK * HEADER))[0])
            peak = max(peak, open_descriptors(pid))
    finally:
        for sock in sockets:
            sock.close()
    assert peak - before <= CAP + 5, (before, peak)
    assert set(statuses) == {408, 503} and statuses.count(408) <= 2 * CAP, statuses
    new_lines = server.log().splitlines()[log_lines:]
    assert len([line for line in new_lines if "Refused" in line]) <= 2  # hundreds refused, a line or two
    assert not any("Traceback" in line or line.startswith("ERROR") for line in new_lines), new_lines
    assert healthy(server.url)


class RecordingTransport:
    """What CoalescedWrites passes its writes to: a record of them."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def in_a_thread_of_its_own(work: Callable[[], T]) -> T:
    """``work()`` run in a new thread, whose event loops cannot meet one another test left running in this
    thread (Playwright's sync API runs one)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work).result()


def test_an_answers_writes_leave_as_one_when_the_turn_ends() -> None:
    """A head, a body and an end of message written in one turn are one write (a process that dies has
    sent a whole answer or none of it); closing sends what is pending first, aborting drops it."""
    in_a_thread_of_its_own(check_coalesced_writes)


def check_coalesced_writes() -> None:
    loop = asyncio.new_event_loop()
    try:
        raw = RecordingTransport()
        transport = CoalescedWrites(raw, loop)  # type: ignore[arg-type]
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b"body")
        transport.write(b"")
        assert raw.writes == []  # nothing yet: the turn has not ended
        loop.run_until_complete(asyncio.sleep(0))
        assert raw.writes == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        transport.write(b"last")
        transport.close()
        assert raw.writes[-1] == b"last" and raw.closed
        loop.run_until_complete(asyncio.sleep(0))
        assert len(raw.writes) == 2  # the flush the write had asked for finds nothing left
        other = RecordingTransport()
        dropped = CoalescedWrites(other, loop)  # type: ignore[arg-type]
        dropped.write(b"never")
        dropped.abort()
        loop.run_until_complete(asyncio.sleep(0))
        assert other.writes == [] and other.aborted
        assert dropped.get_extra_info("peername") == "extra peername"
    finally:
        loop.close()


def test_an_idle_server_wakes_once_a_second_and_at_once_to_stop() -> None:
    """QuietServer's clock: ticks a second apart, each refreshing the Date header (uvicorn does so on every
    tenth of its ticks), and a signal to stop ends the loop without waiting for the next tick."""

    async def nothing(scope: dict, receive: object, send: object) -> None:
        return None

    server = QuietServer(uvicorn.Config(nothing))
    ticks: list[tuple[float, int]] = []

    async def on_tick(counter: int) -> bool:
        ticks.append((time.monotonic(), counter))
        return server.should_exit

    server.on_tick = on_tick  # type: ignore[method-assign]

    async def run() -> float:
        loop = asyncio.get_running_loop()
        loop.call_later(2.5, server.handle_exit, signal.SIGTERM, None)
        started = time.monotonic()
        await server.main_loop()
        return time.monotonic() - started

    took = in_a_thread_of_its_own(lambda: asyncio.run(run()))
    assert 2.4 < took < 2.9  # stopped at the signal, not at the next tick (3 s)
    counters = [counter for _, counter in ticks]
    assert counters[:3] == [0, 10, 20] and all(counter % 10 == 0 for counter in counters)
    gaps = [b - a for (a, _), (b, _) in zip(ticks[:2], ticks[1:3], strict=True)]
    # a second apart, not uvicorn's tenth; how late a busy machine wakes the loop is bounded by `took` above
    assert all(gap > 0.9 for gap in gaps), gaps
