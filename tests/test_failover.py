"""Two app processes behind nginx/explorable.conf.template (as tools/nginx.py renders it), and one of them
killed under load.

compose.yaml runs the app as replicas of one service, and nginx takes each replica's address as a server of
its own. Here two `python -m app` processes stand in for two replicas behind Debian's nginx (started as
tests/test_proxy.py starts it), readers' page views come from several threads, and one process is stopped
and then killed with SIGKILL halfway through: nginx passes every request that process failed, POSTs
included, to the other one, so that no reader sees the death. No answer is cut short either: the app sends a
small answer's head and body in one write (app/web/server.py CoalescedWrites), so a process that dies has sent
all of an answer or none of it, and none is left for nginx to have passed on half of.
"""

from __future__ import annotations

import json
import math
import re
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.models.translator.network import FLOAT32_MAPS
from tests.test_proxy import nginx_in_front_of
from tools.serving import Served, served

READERS = 6  # threads viewing the page, each one reader with a connection of its own
TRANSLATORS = 2  # and threads that only translate, so that POSTs are certain to be in flight at the kill
BEFORE_KILL = 2.0  # seconds of load with both processes up
HELD = 0.5  # seconds the doomed process is stopped before it is killed, holding the requests sent to it
AFTER_KILL = 3.0  # seconds of load with one process

# What a page view asks for besides the page and its static files (static/js/main.js and its figures).
API_GETS = [
    "/api/attention?sentence=the+river+bank+was+steep&heads=3&format=packed",
    "/api/lm/attention?model=neg_inf&sentence=the+old+farmer+sold+the+horse",
    "/api/order?sentence=dog+bites+man",
]
TRANSLATE = {"sentence": "the dog sleeps"}


@dataclass(eq=False)  # a thread is hashed by identity
class Reader(threading.Thread):
    """Views the page again and again until ``until``: the page (revalidated by its ETag after the first
    time, as a browser does), a few of its static files, the API's GETs and a translation; or, as a
    translator, only translates. Every answer is checked against ``expected``; whatever went wrong is kept
    in ``failures``."""

    url: str
    static: list[str]
    expected: dict[str, bytes]
    until: float
    translator: bool = False
    answered: int = 0
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(daemon=True)

    def run(self) -> None:
        etag = None
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while time.monotonic() < self.until:
                if self.translator:
                    self.check(client, "POST", "/api/translate", {})
                    continue
                headers = {"if-none-match": etag} if etag else {}
                for method, address in [("GET", "/"), *(("GET", a) for a in [*self.static, *API_GETS])]:
                    etag = self.check(client, method, address, headers if address == "/" else {}) or etag
                self.check(client, "POST", "/api/translate", {})

    def check(self, client: httpx.Client, method: str, address: str, headers: dict[str, str]) -> str | None:
        """Ask, and record a failure unless the answer is a 200 with the expected body (the translation's
        numbers within float32 rounding of it) or a 304 to a revalidation; the answer's ETag."""
        try:
            if method == "POST":
                response = client.post(address, json=TRANSLATE)
            else:
                response = client.get(address, headers=headers)
        except httpx.HTTPError as error:
            self.failures.append(f"{method} {address}: {error!r}")
            return None
        self.answered += 1
        if response.status_code == 304 and "if-none-match" in headers:  # the page, unchanged
            return response.headers.get("etag")
        if method == "POST":
            right = response.status_code == 200 and same(response.json(), json.loads(self.expected[address]))
        else:
            right = response.status_code == 200 and response.content == self.expected[address]
        if not right:
            self.failures.append(f"{method} {address}: {response.status_code} {response.content[:200]!r}")
        return response.headers.get("etag")


def same(answer: object, expected: object) -> bool:
    """Whether two decoded JSON answers are equal, numbers within FLOAT32_MAPS of each other: a translation
    decoded in a batch with others may differ from one decoded alone by float32 rounding
    (app/routes/translate.py), and under load most are decoded in batches."""
    if isinstance(answer, float) or isinstance(expected, float):
        numbers = isinstance(answer, int | float) and isinstance(expected, int | float)
        return numbers and math.isclose(answer, expected, abs_tol=FLOAT32_MAPS)
    if isinstance(answer, list) and isinstance(expected, list):
        return len(answer) == len(expected) and all(map(same, answer, expected))
    if isinstance(answer, dict) and isinstance(expected, dict):
        return answer.keys() == expected.keys() and all(same(answer[k], expected[k]) for k in answer)
    return answer == expected


def access_lines(server: Served) -> int:
    """How many requests the server's access log has."""
    return len(re.findall(r'" (200|304) ', server.log()))


def test_a_process_killed_under_load_loses_only_an_answer_it_was_sending(tmp_path: Path) -> None:
    with served() as first, served() as second:
        upstreams = [f"127.0.0.1:{first.port}", f"127.0.0.1:{second.port}"]
        with nginx_in_front_of(upstreams, tmp_path) as (url, _, error_log):
            with httpx.Client(base_url=url, timeout=30) as client:
                page = client.get("/")
                assert page.status_code == 200
                named = re.findall(r'(?:src|href)="(/static/[^"?]+\?v=[0-9a-f]{12})"', page.text)
                # The page's script and style sheet, and two of the modules the script imports.
                static = [a for a in named if a.startswith(("/static/js/main.js?", "/static/css/main.css?"))]
                static += [a for a in named if a.startswith("/static/js/lib/")][:2]
                assert len(static) == 4, named
                expected = {"/": page.content}
                for address in [*static, *API_GETS]:
                    expected[address] = client.get(address).content
                expected["/api/translate"] = client.post("/api/translate", json=TRANSLATE).content
            assert json.loads(expected["/api/translate"])["translation"] == "Le chien dort"
            # Either process gives the same answers, so one body is right whichever answered.
            for address in API_GETS:
                assert httpx.get(f"{second.url}{address}").content == expected[address]

            until = time.monotonic() + BEFORE_KILL + HELD + AFTER_KILL
            readers = [Reader(url, static, expected, until) for _ in range(READERS)]
            readers += [Reader(url, static, expected, until, translator=True) for _ in range(TRANSLATORS)]
            for reader in readers:
                reader.start()
            time.sleep(BEFORE_KILL)
            served_before = access_lines(first), access_lines(second)
            # Stopped first, so that it dies with requests in its hands: within HELD every reader's next
            # request that nginx sends to it waits there, each translator's a POST.
            first.process.send_signal(signal.SIGSTOP)

            time.sleep(HELD)
            first.process.kill()
            first.process.wait()

            for reader in readers:
                reader.join(timeout=AFTER_KILL + 30)
            failures = [failure for reader in readers for failure in reader.failures]
            answered = sum(reader.answered for reader in readers)
            log = error_log.read_text()
        served_after = access_lines(second)

    assert not any(reader.is_alive() for reader in readers)
    assert failures == [], f"{len(failures)} of {answered + len(failures)} requests failed: {failures[:5]}"
    # Both processes had been answering (round robin), and the survivor answered alone afterwards.
    assert min(served_before) > 0, served_before
    assert served_after > served_before[1], (served_before, served_after)
    # nginx did meet the dead process with requests in flight, a translation among them, and went on to the
    # other with each.
    dead = [line for line in log.splitlines() if f'upstream: "http://127.0.0.1:{first.port}/' in line]
    assert any('request: "POST /api/translate ' in line for line in dead), log[-2000:]
