"""The shared browser modules (static/js/lib), exercised inside the real page."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

# A page of the site that asks the server nothing of its own (figure 9 alone): the modules are imported there.
QUIET = "/figure/blueprint"


@pytest.fixture
def run_in_page(watched_page):
    """A function that opens the quiet page (with `query`) in the test's watched page and runs `script`, an
    async function, in it; what the script returns. `refusals`: the script provokes 422 answers, which the
    browser logs as console errors."""
    page, watch = watched_page

    def run(script: str, query: str = "", refusals: bool = False, arg=None):
        if refusals:
            watch.expected_console.append("status of 422")
        page.goto(f"{QUIET}{query}")
        return page.evaluate(script, arg)

    return run


def test_api_memoises_supersedes_and_reports_the_server_detail(run_in_page):
    result = run_in_page(
        """async () => {
          const { Api, isAbort } = await import("/static/js/lib/api.js");
          const f = new Api();
          const a = "/api/attention?sentence=the+dog+ran&heads=2";
          const b = "/api/attention?sentence=the+cat+sat&heads=2";
          const first = f.get(a, { channel: "t" });
          const second = f.get(b, { channel: "t" });     // supersedes the first
          const aborted = await first.then(() => false, (e) => isAbort(e));
          const answer = await second;
          const again = await f.get(a, { channel: "t" }); // an aborted URL is asked afresh
          const count = () =>
            performance.getEntriesByType("resource").filter((e) => e.name.includes("cat+sat")).length;
          const before = count();
          const cached = await f.get(b);                  // memoised: no new request
          let detail = null;
          try { await f.get("/api/attention?sentence=x&heads=5"); } catch (e) { detail = e.message; }
          return { aborted, tokens: answer.tokens, again: again.tokens, same: cached === answer,
                   newRequests: count() - before, detail };
        }""",
        refusals=True,
    )
    assert result["aborted"] is True
    assert result["tokens"] == ["the", "cat", "sat"]
    assert result["again"] == ["the", "dog", "ran"]
    assert result["same"] is True
    assert result["newRequests"] == 0
    assert "heads must divide" in result["detail"]


def test_api_remembers_a_post_by_its_body_and_never_an_upload(run_in_page):
    result = run_in_page(
        """async () => {
          const { Api, requestKey } = await import("/static/js/lib/api.js");
          const f = new Api({ limit: 2 });
          const posts = () => performance.getEntriesByType("resource")
            .filter((e) => e.name.endsWith("/api/lm/generate")).length;
          const ask = (prompt) => ({ url: "/api/lm/generate", body: { model: "neg_inf", prompt, count: 1 } });
          const one = await f.get(ask("the"), { channel: "g" });
          const before = posts();
          const same = await f.get(ask("the"), { channel: "g" });   // the same body: remembered
          const afterSame = posts();
          await f.get(ask("the cat"));
          await f.get(ask("the dog"));                            // a third answer: the oldest is forgotten
          const forgotten = f.cached(ask("the")) === undefined;
          const form = new FormData();
          form.append("file", new Blob(["[[1]]"], { type: "application/json" }), "w.json");
          let refusal = null;
          try { await f.get({ url: "/api/diagnose", form }); } catch (e) { refusal = e.status; }
          return { remembered: one === same, extra: afterSame - before, forgotten, refusal,
                   uploadKey: requestKey({ url: "/api/diagnose", form }) };
        }""",
        refusals=True,
    )
    assert result["remembered"] is True
    assert result["extra"] == 0
    assert result["forgotten"] is True
    assert result["refusal"] == 422  # a 1x1 matrix is no attention to diagnose: the server's detail arrives
    assert result["uploadKey"] is None


def test_url_state_reads_defaults_for_invalid_values_and_keeps_other_parameters(run_in_page):
    result = run_in_page(
        """async () => {
          const { readState, stateToSearch, parse, format } = await import("/static/js/lib/url-state.js");
          const schema = {
            heads: { fallback: 3, parse: parse.oneOf([1, 2, 3, 4]) },
            trained: { fallback: true, parse: parse.boolean, format: format.boolean },
            head: { fallback: null, parse: parse.integer(1, 4) },
          };
          const state = readState(schema);
          return { state, search: stateToSearch(schema, { heads: 4, trained: true, head: 2 }) };
        }""",
        query="?embed=1&heads=7&trained=0",
    )
    assert result["state"] == {"heads": 3, "trained": False, "head": None}
    assert result["search"] == "?embed=1&heads=4&head=2"


def test_api_load_shows_the_current_view_and_drops_answers_the_reader_moved_past(run_in_page):
    result = run_in_page(
        """async () => {
          const { Api } = await import("/static/js/lib/api.js");
          const f = new Api();
          const log = [];
          let current = "/api/attention?sentence=the+dog+ran&heads=2";
          const view = (url) => ({
            channel: "v",
            current: () => current,
            busy: (b) => log.push(`busy ${b}`),
            show: (d) => log.push(`show ${d.tokens.join(" ")}`),
            fail: (m) => log.push(`fail ${m.slice(0, 18)}`),
          });
          f.load(current, view(current));
          const stale = current;
          current = "/api/attention?sentence=a+cat+sat&heads=2";  // the reader moves on at once
          f.load(current, view(current));
          await f.get(current);
          await new Promise((r) => setTimeout(r, 50));
          f.load(stale, view(stale));                             // not current: its answer is dropped
          await new Promise((r) => setTimeout(r, 300));
          current = "/api/attention?sentence=x&heads=5";
          f.load(current, view(current));
          await new Promise((r) => setTimeout(r, 300));
          return log;
        }""",
        refusals=True,
    )
    assert result[:2] == ["busy true", "busy true"]
    assert "show a cat sat" in result and "show the dog ran" not in result
    assert result[-1].startswith("fail heads must divide")


def test_sentence_box_waits_for_a_pause_and_takes_enter_at_once(run_in_page):
    result = run_in_page(
        """async () => {
          const { watchSentence } = await import("/static/js/lib/sentence-box.js");
          const input = document.createElement("input");
          document.body.appendChild(input);
          const taken = [];
          watchSentence(input, (text) => taken.push(text), 80);
          const type = (text) => { input.value = text; input.dispatchEvent(new Event("input")); };
          const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
          type("the"); type("the dog"); type("  the dog ran ");
          await sleep(20);
          const early = taken.length;
          await sleep(120);
          const afterPause = [...taken];
          type("a cat");
          const enter = new KeyboardEvent("keydown", { key: "Enter", cancelable: true });
          input.dispatchEvent(enter);
          await sleep(10);
          type("");
          await sleep(120);
          input.remove();
          return { early, afterPause, taken, prevented: enter.defaultPrevented };
        }""",
    )
    assert result["early"] == 0
    assert result["afterPause"] == ["the dog ran"]  # one call for three keystrokes, trimmed
    assert result["taken"] == ["the dog ran", "a cat", ""]  # Enter at once; an empty box is passed on too
    assert result["prevented"] is True


def test_csv_export_keeps_a_label_from_running_as_a_spreadsheet_formula(run_in_page):
    """A token named =HYPERLINK(...) reaches a spreadsheet as text; numbers, negative ones too, as numbers."""
    text = run_in_page(
        """async () => {
          const { dataCsv } = await import("/static/js/lib/figure-numbers.js");
          return dataCsv({ matrices: [{
            name: "@head",
            rows: ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0"],
            columns: ["-2+3", "\\tplain", "ok"],
            values: [[-0.5, null, 1], [0, 0.25, 0.75]],
          }] });
        }""",
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["matrix", "row", "column", "value"]
    assert rows[1] == ["'@head", '\'=HYPERLINK("http://evil.example","x")', "'-2+3", "-0.5"]
    assert rows[2][2:] == ["'\tplain", "-inf"]
    assert rows[4][1] == "'+1+cmd|' /C calc'!A0"
    assert all(label[0] not in "=+-@\t\r" for row in rows[1:] for label in row[:3])
    assert [row[3] for row in rows[1:]] == ["-0.5", "-inf", "1", "0", "0.25", "0.75"]


def test_the_api_client_reads_a_packed_answer_back_into_the_json_answer(run_in_page):
    """lib/packed.js through lib/api.js: every field of the packed answer as the JSON answer has it, the
    weights within the documented 1.6e-5, exact zeros exact (the −∞ mask's future)."""
    result = run_in_page(
        """async () => {
          const { Api } = await import("/static/js/lib/api.js");
          const words = "the river bank was steep and a bat flew near the old mill".split(" ");
          const sentence = Array.from({ length: 40 }, (_, i) => words[(i * 5) % words.length]).join(" ");
          const query = new URLSearchParams({ sentence, heads: 6, mask: "neg_inf" });
          const packed = await new Api().get(`/api/attention?${query}&format=packed`);
          const full = await (await fetch(`/api/attention?${query}`)).json();
          let worst = 0, zeros = 0, zerosKept = true, outside = 0;
          full.weights.forEach((head, h) => head.forEach((row, i) => row.forEach((w, j) => {
            const p = packed.weights[h][i][j];
            if (w === 0) { zeros += 1; zerosKept &&= p === 0; }
            else {
              if (Math.abs(p - w) > 1.6e-5 * w + 3.6e-43) outside += 1;  // 2^-141 below float32's normals
              if (w >= 1.2e-38) worst = Math.max(worst, Math.abs(p - w) / w);
            }
          })));
          const rest = (a) => JSON.stringify({ ...a, weights: undefined });
          return { worst, outside, zeros, zerosKept, same: rest(packed) === rest(full),
                   shape: [packed.weights.length, packed.weights[0].length, packed.weights[0][0].length] };
        }"""
    )
    assert result["same"], "every field but the weights is the JSON answer's"
    assert result["shape"] == [6, 40, 40]
    assert result["zeros"] == 6 * 40 * 39 // 2 and result["zerosKept"]
    assert 0 < result["worst"] <= 1.6e-5 and result["outside"] == 0


def test_npy_reads_a_head_of_every_dtype_the_server_accepts_from_the_file_itself(run_in_page):
    """interview/npy.js decodes head 1 of a .npy file from its bytes at the offset the server gives: float16
    bit for bit (subnormals, infinities and NaN too), float32, float64 and integers, little- or big-endian."""
    heads = {
        "<f2": np.array([0, 1, -2, 0.1, 65504, 6e-8, np.inf, -np.inf, np.nan], dtype="<f2"),
        "<f4": np.array([0.25, 1 / 3, -7.5, 1e-30, 3, 4, 5, 6, 7], dtype="<f4"),
        ">f8": np.array([0.1, 2.5, -1e300, 5e-324, 0, 1, 2, 3, 4], dtype=">f8"),
        "<i8": np.array([0, 1, -3, 2**40, 5, 6, 7, 8, 9], dtype="<i8"),
        "|u1": np.array([0, 1, 200, 255, 4, 5, 6, 7, 8], dtype="|u1"),
    }
    # A made-up 8-byte header, a head 0 of nines, then the head under test: [2, 3, 3] after the header.
    cases = [
        {"dtype": dtype, "bytes": list(b"HEADER!!" + np.full(9, 9, dtype=dtype).tobytes() + head.tobytes())}
        for dtype, head in heads.items()
    ]
    result = run_in_page(
        """async (cases) => {
          const { readHead, halfToNumber } = await import("/static/js/figures/interview/npy.js");
          const out = [];
          for (const { dtype, bytes } of cases) {
            const file = new File([new Uint8Array(bytes)], "w.npy");
            const rows = await readHead(file, { offset: 8, dtype, shape: [2, 3, 3] }, 1);
            out.push(rows.flatMap((r) => Array.from(r, (x) => (Number.isNaN(x) ? "NaN" : x))));
          }
          return { out, largest: halfToNumber(0x7bff), smallest: halfToNumber(0x0001) };
        }""",
        arg=cases,
    )
    assert (result["largest"], result["smallest"]) == (65504, 2**-24)
    for (dtype, head), decoded in zip(heads.items(), result["out"], strict=True):
        expected = ["NaN" if np.isnan(x) else x for x in head.astype(np.float64).tolist()]
        assert decoded == expected, dtype


def test_a_score_under_the_tracking_bar_never_reads_as_the_bar(run_in_page):
    """Figure 11 had said a head "puts 0.50 … short of the 0.50 that tracking takes" (its score 0.498)."""
    shown = run_in_page(
        """async () => {
          const { scoreText, TRACKS_AT } = await import("/static/js/figures/real-heads/relations.js");
          return { bar: TRACKS_AT, texts: [0.498, 0.4999, 0.5, 0.5004, 0.62, 0.1].map(scoreText) };
        }"""
    )
    assert shown["bar"] == 0.5
    assert shown["texts"] == ["0.498", "0.4999", "0.50", "0.50", "0.62", "0.10"]


def test_a_json_or_csv_upload_is_read_in_the_page_as_the_server_reads_it(run_in_page):
    """The server no longer sends an upload back: the page reads the head it draws from the reader's own
    .json (nested lists or {"weights": ...}, NaN or null for a missing number) or .csv."""
    heads = run_in_page(
        """async () => {
          const { isTextFile, readTextHead } = await import("/static/js/figures/interview/npy.js");
          const file = (name, text) => new File([text], name);
          const nested = file("w.json", JSON.stringify([[[[1, 0], [0.5, 0.5]], [[1, 0], [0.25, 0.75]]]]));
          const object = file("w.JSON", '{"tokens": ["a NaN", "b"], "weights": [[NaN, NaN], [0.5, 0.5]]}');
          const csv = file("w.csv", "\\ufeff1,0\\r\\n0.125, 0.875\\n\\n");
          const read = async (f, k) => (await readTextHead(f, k)).map((row) => row.map(String));
          let missing = "";
          try { await readTextHead(nested, 2); } catch (error) { missing = error.message; }
          return {
            second: await read(nested, 1), object: await read(object, 0), csv: await read(csv, 0), missing,
            text: [isTextFile(csv), isTextFile(object), isTextFile(new File([""], "w.npy"))],
          };
        }"""
    )
    assert heads["second"] == [["1", "0"], ["0.25", "0.75"]]
    assert heads["object"] == [["NaN", "NaN"], ["0.5", "0.5"]]
    assert heads["csv"] == [["1", "0"], ["0.125", "0.875"]]
    assert heads["missing"] == "the file holds no head 3"
    assert heads["text"] == [True, True, False]
