"""The real server: uvicorn with bounds on what a slow or greedy client can hold.

uvicorn limits the size of a request head (h11's incomplete-event size) and how long a kept-alive connection
may sit idle after an answer, but not how long a client may take to send a request: its keep-alive timer
starts only after a first response, and any byte received cancels it. A client trickling its headers a byte
at a time kept its connection, and so a file descriptor, for as long as it liked; twenty thousand of them
ran a worker out of descriptors. The protocol here adds the two missing clocks (one for the head, one for a
stalled body) and turns away connections past a per-worker cap as soon as they open. ``serve`` runs it in one
process or several, as ``uvicorn.run`` would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections import Counter
from http import HTTPStatus
from typing import Any

import h11
import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState
from uvicorn.supervisors import Multiprocess

APP = "app.main:create_app"  # an import string and a factory, so that each worker builds its own application

TIMEOUT_KEEP_ALIVE = 5.0  # an idle kept-alive connection is closed after this long (uvicorn's own default)
TIMEOUT_HEADER = 10.0  # a request line and headers must all arrive within this long
TIMEOUT_BODY = 10.0  # a request body may go this long without a byte before the connection is closed
# Open connections per worker. Each holds a file descriptor and its buffers, and while its request runs a task
# and the body (up to 256 KB of JSON; an upload streams to a temporary file, and its diagnosis holds a block
# of heads, about 13 MB, whatever the file's size), so the cap bounds descriptors and memory in flight
# alike. 128 is twice the 64 concurrent clients that bench/load.py serves without an error, and far below the
# usual 1,024 descriptors a process may open.
LIMIT_CONCURRENCY = 128
# Open connections from one address, per worker: a quarter of the cap, so that one reader's misbehaving client
# (slow heads reopened as they are cut, idle keep-alives) cannot take every place. Behind a proxy every
# connection comes from the proxy's address: compose.yaml lifts this to the whole cap there.
LIMIT_PER_ADDRESS = 32
# How much of an unfinished request head (request line and headers) a connection may buffer; past it, h11
# answers 400. A whole head that arrives in one read is parsed whatever its size, so this bounds the memory a
# slow head can hold more than the size of every head. 16 KB is h11's own default.
H11_MAX_INCOMPLETE_EVENT_SIZE = 16 * 1024
REFUSAL_LOG_INTERVAL = 5.0  # seconds between two log lines about refused connections

logger = logging.getLogger("uvicorn.error")


def raw_response(status: int, detail: str) -> bytes:
    """A whole HTTP/1.1 answer with the app's kind of body, ``{"detail": ...}``, that closes the connection.

    Written straight to the socket: h11 will not send a response before it has read a request, and these
    answers are for clients that never finished sending one, or that arrive when there is no room for them.
    """
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "x-content-type-options: nosniff\r\n"
        "connection: close\r\n"
        "\r\n"
    )
    return head.encode("ascii") + body


class RefusalLog:
    """Connections turned away at the cap, logged at most once every REFUSAL_LOG_INTERVAL seconds.

    A flood of refusals is exactly when a line (or a traceback) per refusal would fill the disk, so the first
    refusal is logged at once and the rest are counted and logged together when the interval ends.
    """

    def __init__(self, message: str) -> None:
        self.message = message  # with %d for the count and %d for the limit
        self.count = 0
        self.timer: asyncio.TimerHandle | None = None

    def refused(self, loop: asyncio.AbstractEventLoop, limit: int) -> None:
        self.count += 1
        if self.timer is None:
            self.report(loop, limit)

    def report(self, loop: asyncio.AbstractEventLoop, limit: int) -> None:
        if self.count == 0:  # a quiet interval: the next refusal is logged at once again
            self.timer = None
            return
        logger.warning(self.message, self.count, limit)
        self.count = 0
        self.timer = loop.call_later(REFUSAL_LOG_INTERVAL, self.report, loop, limit)


# one of each per process, as a worker's connections are
refusals = RefusalLog(
    "Refused %d connection(s): this worker already holds its limit of %d (--limit-concurrency)"
)
crowded = RefusalLog("Refused %d connection(s) from an address that holds %d already (--limit-per-address)")
ADDRESSES: Counter[str] = Counter()  # this worker's open connections by the peer's address


class ClockedFlow(FlowControl):
    """uvicorn's flow control, remembering when it last let reading resume: while the server itself is not
    reading a body (its buffer is full), the client is not the one stalling."""

    def __init__(self, transport: asyncio.Transport) -> None:
        super().__init__(transport)
        self.resumed_at = 0.0

    def resume_reading(self) -> None:
        if self.read_paused:
            self.resumed_at = time.monotonic()
        super().resume_reading()


class CoalescedWrites:
    """A connection's transport whose writes made in one turn of the event loop go out as one.

    uvicorn writes an answer's head, its body and h11's end of message as three writes, and each write of an
    empty buffer is a send of its own: an answer was at least two packets, two system calls, and a process
    that died between them had sent a head without its body, which no proxy can pass on to another process.
    Here the writes are joined and sent once the current turn ends (``call_soon``): a whole small answer is
    one send, delayed by nothing but the rest of the turn. Closing or asking the buffer's size sends what is
    pending first; aborting drops it. Everything else is the transport's own.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self.loop = loop
        self.pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self.pending:
            self.loop.call_soon(self.flush)
        self.pending.append(data)

    def flush(self) -> None:
        if self.pending:
            data = b"".join(self.pending)
            self.pending.clear()
            if not self.transport.is_closing():
                self.transport.write(data)

    def get_write_buffer_size(self) -> int:
        self.flush()
        return self.transport.get_write_buffer_size()

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        self.pending.clear()
        self.transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the request head, a stall timeout for the body, and a cap
    on open connections.

    The head's clock starts when the connection opens, or at the first byte of a further request on a
    kept-alive one, and is not reset by later bytes: a client that trickles its headers is cut off on time.
    The body's clock is reset by every byte, as a slow upload is fine and a stopped one is not. Both answer a
    raw 408 when nothing has been answered yet. The timeouts come from ServerConfig; with uvicorn's plain
    Config (``uvicorn --http app.web.server:LimitedH11Protocol``) they take the defaults above.
    """

    flow: ClockedFlow

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # The cap is enforced here, as a connection opens. uvicorn's own check, when a request arrives, counts
        # that request's connection too, so at the cap it would refuse every request on every connection with
        # a bare 503 and an unthrottled log line: it is moved one past the cap, where it never fires.
        self.connection_cap = self.limit_concurrency
        if self.connection_cap is not None:
            self.limit_concurrency = self.connection_cap + 1
        self.per_address: int = getattr(config, "limit_per_address", LIMIT_PER_ADDRESS)
        self.address: str | None = None  # the peer's, once the connection is admitted
        self.timeout_header: float = getattr(config, "timeout_header", TIMEOUT_HEADER)
        self.timeout_body: float = getattr(config, "timeout_body", TIMEOUT_BODY)
        self.header_timer: asyncio.TimerHandle | None = None
        self.body_timer: asyncio.TimerHandle | None = None
        self.last_read = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        limit = self.connection_cap
        if limit is not None and len(self.connections) >= limit:
            # Answered and closed before it joins the server's connections: it never holds a slot, and its
            # descriptor is freed as soon as the answer is written.
            self.transport = transport
            detail = f"the server is busy: it holds at most {limit} connections at once; try again shortly"
            self.give_up(503, detail)
            refusals.refused(self.loop, limit)
            return
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if address is not None and ADDRESSES[address] >= self.per_address:
            self.transport = transport
            detail = (
                f"your address holds {self.per_address} connections to this server already, the most one "
                "may: close one, or try again shortly"
            )
            self.give_up(503, detail)
            crowded.refused(self.loop, self.per_address)
            return
        if address is not None:
            self.address = address
            ADDRESSES[address] += 1
        super().connection_made(transport)
        self.flow = ClockedFlow(transport)
        self.transport = CoalescedWrites(transport, self.loop)  # type: ignore[assignment]
        self.last_read = time.monotonic()
        self.header_timer = self.loop.call_later(self.timeout_header, self.head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            ADDRESSES[self.address] -= 1
            if not ADDRESSES[self.address]:
                del ADDRESSES[self.address]
            self.address = None
        self.stop_clocks()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.last_read = time.monotonic()
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        self.watch_request()

    def watch_request(self) -> None:
        """Run the clock that fits where the client is: sending a head, sending a body, or neither."""
        state = self.conn.their_state
        if self.transport.is_closing() or state not in (h11.IDLE, h11.SEND_BODY):
            self.stop_clocks()  # waiting for our answer, or done: uvicorn's keep-alive timer takes over
        elif state is h11.IDLE:
            self.body_timer = cancelled(self.body_timer)
            # Part of a further head has arrived on a kept-alive connection (uvicorn has just stopped its
            # keep-alive timer). A head still pending since the connection opened keeps its first clock.
            if self.header_timer is None and self.conn.trailing_data[0]:
                self.header_timer = self.loop.call_later(self.timeout_header, self.head_timed_out)
        else:
            self.header_timer = cancelled(self.header_timer)
            if self.body_timer is None:
                self.body_timer = self.loop.call_later(self.timeout_body, self.body_check)

    def stop_clocks(self) -> None:
        self.header_timer = cancelled(self.header_timer)
        self.body_timer = cancelled(self.body_timer)

    def head_timed_out(self) -> None:
        self.header_timer = None
        if not self.transport.is_closing():
            self.give_up(408, f"the request head did not arrive within {self.timeout_header:g} s")

    def body_check(self) -> None:
        """Close the connection if its body has stalled; otherwise look again when it next could have."""
        self.body_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        quiet = time.monotonic() - max(self.last_read, self.flow.resumed_at)
        if self.flow.read_paused:
            wait = self.timeout_body  # uvicorn stopped reading: the client cannot be blamed yet
        elif quiet < self.timeout_body:
            wait = self.timeout_body - quiet
        elif self.cycle is not None and self.cycle.response_started:
            self.transport.close()  # the app has begun its answer: a 408 now would garble it
            return
        else:
            self.give_up(408, f"the request body stalled: nothing arrived for {self.timeout_body:g} s")
            return
        self.body_timer = self.loop.call_later(wait, self.body_check)

    def give_up(self, status: int, detail: str) -> None:
        """Answer ``status`` and close. A client that reads nothing cannot keep the connection open by leaving
        the answer unsent: then the connection is dropped outright."""
        self.transport.write(raw_response(status, detail))
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        else:
            self.transport.close()


def cancelled(timer: asyncio.TimerHandle | None) -> None:
    """Cancel ``timer``, if there is one, and give None to store in its place."""
    if timer is not None:
        timer.cancel()


TICK_SECONDS = 1.0  # how often an idle server wakes: uvicorn's own clock wakes ten times a second


class QuietServer(uvicorn.Server):
    """uvicorn's server with a clock that ticks once a second instead of ten times.

    uvicorn's main loop wakes every 0.1 s to refresh the Date header (which changes once a second) and to see
    whether it has been asked to stop: an idle worker spent 2 to 3 ms of CPU a second on it, more than a page
    view's own requests over the seconds a reader takes to scroll the page (bench/page_view.py). Here it wakes
    once a second, each time at a whole tick of uvicorn's count (so every tick refreshes the Date header, as
    every tenth did), and a signal to stop wakes it at once, so stopping is as quick as before.
    """

    async def main_loop(self) -> None:
        self.woken = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 10) % 864_000  # uvicorn's count of tenths, wrapping at a day as its own does
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.woken.wait(), TICK_SECONDS)
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        loop = getattr(self, "loop", None)
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.woken.set)


class ServerConfig(uvicorn.Config):
    """uvicorn's Config carrying the two request clocks too. ``--workers N`` starts each worker by pickling
    the config, so settings the protocol reads must live on it, not in this process's globals."""

    def __init__(
        self,
        app: str,
        *,
        timeout_header: float = TIMEOUT_HEADER,
        timeout_body: float = TIMEOUT_BODY,
        limit_per_address: int = LIMIT_PER_ADDRESS,
        **kwargs: Any,
    ) -> None:
        super().__init__(app, **kwargs)
        self.timeout_header = timeout_header
        self.timeout_body = timeout_body
        self.limit_per_address = limit_per_address


def serve(
    *,
    host: str,
    port: int,
    workers: int = 1,
    timeout_keep_alive: float = TIMEOUT_KEEP_ALIVE,
    timeout_header: float = TIMEOUT_HEADER,
    timeout_body: float = TIMEOUT_BODY,
    limit_concurrency: int = LIMIT_CONCURRENCY,
    limit_per_address: int = LIMIT_PER_ADDRESS,
    h11_max_incomplete_event_size: int = H11_MAX_INCOMPLETE_EVENT_SIZE,
) -> None:
    """Serve the explorable until interrupted: what ``uvicorn.run`` does, with the limited protocol and every
    limit set explicitly. With more than one worker the socket is bound here and shared by them all."""
    config = ServerConfig(
        APP,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=LimitedH11Protocol,
        server_header=False,  # no "server: uvicorn" banner
        timeout_keep_alive=timeout_keep_alive,  # type: ignore[arg-type]  # uvicorn hints int; any delay works
        limit_concurrency=limit_concurrency,
        h11_max_incomplete_event_size=h11_max_incomplete_event_size,
        timeout_header=timeout_header,
        timeout_body=timeout_body,
        limit_per_address=limit_per_address,
    )
    server = QuietServer(config)  # one worker's; with --workers N, uvicorn makes each worker's own
    try:
        if workers > 1:
            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            server.run()
    except KeyboardInterrupt:
        pass  # Ctrl-C: uvicorn has shut down cleanly and raises the signal again on its way out
    if workers == 1 and not server.started:
        sys.exit(STARTUP_FAILURE)
