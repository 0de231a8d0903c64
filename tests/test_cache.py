"""The response cache: its bounds and order (app/web/cache.py), and the endpoints that answer from it."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.deps import response_cache
from app.main import create_app
from app.web.cache import ResponseCache


def test_a_stored_answer_comes_back_and_counts_as_a_hit() -> None:
    cache = ResponseCache(max_entries=4, max_bytes=100)
    assert cache.get("a") is None
    cache.put("a", b"123")
    assert cache.get("a") == b"123"
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.entries, stats.bytes) == (1, 1, 1, 3)


def test_the_least_recently_used_entry_is_evicted_past_max_entries() -> None:
    cache = ResponseCache(max_entries=2, max_bytes=100)
    cache.put("a", b"1")
    cache.put("b", b"2")
    assert cache.get("a") == b"1"  # "a" is now more recent than "b"
    cache.put("c", b"3")
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == (b"1", b"3")
    assert cache.stats().evictions == 1 and cache.stats().entries == 2


def test_the_byte_bound_evicts_until_the_total_fits() -> None:
    cache = ResponseCache(max_entries=100, max_bytes=10)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    cache.put("c", b"123456")  # 14 bytes: "a" goes, 10 remain
    assert cache.get("a") is None
    assert cache.stats().bytes == 10 == len(cache.get("b") or b"") + len(cache.get("c") or b"")
    cache.put("b", b"1")  # replacing an entry counts its new size only
    assert cache.stats().bytes == 7


def test_a_value_larger_than_the_whole_cache_is_not_kept() -> None:
    cache = ResponseCache(max_entries=10, max_bytes=10)
    cache.put("small", b"1")
    cache.put("big", b"x" * 11)
    assert cache.get("big") is None and cache.get("small") == b"1"
    assert cache.stats().bytes == 1


def test_zero_entries_turns_the_cache_off() -> None:
    cache = ResponseCache(max_entries=0)
    for _ in range(2):
        cache.put("k", b"v")
        assert cache.get("k") is None
    assert cache.stats().entries == 0


def test_threads_keep_the_bounds() -> None:
    cache = ResponseCache(max_entries=8, max_bytes=64)

    def work(t: int) -> None:
        for i in range(500):
            if cache.get((t, i % 20)) is None:
                cache.put((t, i % 20), bytes(i % 13))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats = cache.stats()
    assert stats.entries <= 8 and stats.bytes <= 64
    assert stats.bytes == sum(len(cache._items[k]) for k in list(cache._items))


# ---- the endpoints ----------------------------------------------------------------------------------------


@pytest.fixture
def cached() -> Iterator[tuple[TestClient, ResponseCache]]:
    """A client whose app answers from a cache of its own, empty at the start of each test."""
    app = create_app()
    cache = ResponseCache()
    app.dependency_overrides[response_cache] = lambda: cache
    with TestClient(app) as client:
        yield client, cache


def test_a_repeated_attention_request_is_answered_from_the_cache_with_the_same_bytes(
    cached: tuple[TestClient, ResponseCache],
) -> None:
    client, cache = cached
    params = {"sentence": "the river bank was steep", "heads": 4, "mask": "zero"}
    first = client.get("/api/attention", params=params)
    second = client.get("/api/attention", params=params)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert first.headers["content-type"] == second.headers["content-type"] == "application/json"
    assert (cache.stats().misses, cache.stats().hits) == (1, 1)
    # the same words written differently are the same question
    assert client.get(
        "/api/attention", params={**params, "sentence": "the  river bank was steep!"}
    ).content == (first.content)
    assert cache.stats().hits == 2


def test_cached_and_uncached_attention_answers_are_equal(cached: tuple[TestClient, ResponseCache]) -> None:
    client, cache = cached
    params = {"sentence": "a bat flew over the bank", "heads": 6, "trained": "false"}
    uncached = client.get("/api/attention", params=params).json()
    cache.clear()
    assert client.get("/api/attention", params=params).json() == uncached
    assert client.get("/api/attention", params=params).json() == uncached
    assert cache.stats().hits == 1


@pytest.mark.parametrize(
    "change",
    [{"heads": 6}, {"mask": "neg_inf"}, {"trained": "false"}, {"sentence": "the river bank was flat"}],
)
def test_different_attention_questions_do_not_share_an_entry(
    cached: tuple[TestClient, ResponseCache], change: dict
) -> None:
    client, cache = cached
    base = {"sentence": "the river bank was steep", "heads": 3, "mask": "none", "trained": "true"}
    first = client.get("/api/attention", params=base).json()
    other = client.get("/api/attention", params={**base, **change}).json()
    assert first != other
    assert (cache.stats().entries, cache.stats().hits) == (2, 0)
    for name, value in change.items():
        expected = value.split() if name == "sentence" else value == "true" if name == "trained" else value
        assert other["tokens" if name == "sentence" else name] == expected


def test_attention_errors_are_not_cached(cached: tuple[TestClient, ResponseCache]) -> None:
    client, cache = cached
    for _ in range(2):
        response = client.get("/api/attention", params={"heads": 5})
        assert response.status_code == 422
        assert response.json()["detail"].startswith("heads must divide d_model = 48")
    assert cache.stats().entries == 0


def test_a_repeated_translation_is_answered_from_the_cache(cached: tuple[TestClient, ResponseCache]) -> None:
    client, cache = cached
    first = client.post("/api/translate", json={"sentence": "the river bank was steep"})
    again = client.post("/api/translate", json={"sentence": "The river bank was steep"})
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert (cache.stats().misses, cache.stats().hits) == (1, 1)
    assert '"self":' in first.text and "self_attention" not in first.text  # the schema's name


def test_a_translation_keeps_its_own_final_punctuation(cached: tuple[TestClient, ResponseCache]) -> None:
    client, _ = cached
    plain = client.post("/api/translate", json={"sentence": "the river bank was steep"}).json()
    shout = client.post("/api/translate", json={"sentence": "the river bank was steep!"}).json()
    ask = client.post("/api/translate", json={"sentence": "the river bank was steep ?"}).json()
    assert plain["translation"] == "La rive était escarpée"
    assert shout["translation"] == "La rive était escarpée !"
    assert ask["translation"] == "La rive était escarpée ?"
    assert plain["steps"] == shout["steps"]


def test_translation_errors_are_not_cached(cached: tuple[TestClient, ResponseCache]) -> None:
    client, cache = cached
    for _ in range(2):
        response = client.post("/api/translate", json={"sentence": "the rivr bank"})
        assert response.status_code == 422
        assert response.json()["detail"].startswith("not in the translator's vocabulary: rivr")
    assert cache.stats().entries == 0


def test_the_documented_schemas_stay_in_the_openapi_document(
    cached: tuple[TestClient, ResponseCache],
) -> None:
    client, _ = cached
    paths = client.get("/openapi.json").json()["paths"]
    for path, method, schema in [
        ("/api/attention", "get", "AttentionResponse"),
        ("/api/translate", "post", "TranslateResponse"),
    ]:
        ok = paths[path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok == {"$ref": f"#/components/schemas/{schema}"}


def test_a_repeated_real_attention_request_is_answered_from_the_cache(
    cached: tuple[TestClient, ResponseCache],
) -> None:
    client, cache = cached
    if not client.get("/api/real-attention/status").json()["available"]:
        pytest.skip("the optional model is not installed")
    params = {"sentence": "The river bank was steep.", "layer": "2"}
    first = client.get("/api/real-attention", params=params)
    again = client.get("/api/real-attention", params=params)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert (cache.stats().misses, cache.stats().hits) == (1, 1)
    # WordPiece sees case and punctuation: another spelling is another question
    other = client.get("/api/real-attention", params={**params, "sentence": "the river bank was steep"})
    assert other.status_code == 200 and other.content != first.content
    assert client.get("/api/real-attention", params={**params, "layer": "9"}).status_code == 422
    assert cache.stats().entries == 2
