"""Figure 5's endpoints: a translation step by step with every attention map, the record, and their 422s."""

import asyncio

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.models.translator.network import FLOAT32_MAPS, Translator
from app.models.translator.steps import MAX_STEPS
from app.models.translator.words import SUGGESTED_AT_MOST, TRAINED_MAX_WORDS
from tools.inprocess import concurrently


def test_the_default_sentence_step_by_step(client: TestClient) -> None:
    response = client.post("/api/translate", json={"sentence": "the river bank was steep"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "source",
        "target",
        "translation",
        "layers",
        "heads",
        "best_layer",
        "unread",
        "steps",
    }
    assert body["unread"] == []  # "river" is read with "bank", into "rive"
    assert body["source"] == ["the", "river", "bank", "was", "steep"]
    assert body["target"] == ["la", "rive", "était", "escarpée"]
    assert body["translation"] == "La rive était escarpée"
    assert 0 <= body["best_layer"] < body["layers"]
    assert [s["token"] for s in body["steps"]] == body["target"]
    for t, step in enumerate(body["steps"]):
        cross, own = np.array(step["cross"]), np.array(step["self"])
        assert cross.shape == (body["layers"], body["heads"], len(body["source"]))
        assert own.shape == (body["layers"], body["heads"], t + 1)  # positions ≤ t only
        np.testing.assert_allclose(cross.sum(-1), 1.0, rtol=0, atol=1e-6)  # float32 maps
        np.testing.assert_allclose(own.sum(-1), 1.0, rtol=0, atol=1e-6)


def test_each_step_carries_its_maps_averaged_over_the_heads(client: TestClient) -> None:
    """cross_mean and self_mean are the heads' mean, key by key (what the figure draws for "Average"),
    checked against a plain loop."""
    body = client.post("/api/translate", json={"sentence": "a farmer sold the bat near the cave"}).json()
    for step in body["steps"]:
        assert set(step) == {"token", "cross", "self", "cross_mean", "self_mean"}
        for name in ("cross", "self"):
            for layer, heads in enumerate(step[name]):
                mean = [sum(h[j] for h in heads) / len(heads) for j in range(len(heads[0]))]
                assert step[f"{name}_mean"][layer] == pytest.approx(mean, rel=2e-7, abs=1e-7)  # float32


def test_rive_looks_at_river_bank_in_the_best_layer(client: TestClient) -> None:
    body = client.post("/api/translate", json={"sentence": "the river bank was steep"}).json()
    rive = np.array(body["steps"][1]["cross"][body["best_layer"]]).mean(axis=0)
    assert int(np.argmax(rive)) in (1, 2)


def test_case_and_punctuation(client: TestClient) -> None:
    body = client.post("/api/translate", json={"sentence": "  The River Bank, was STEEP! "}).json()
    assert body["source"] == ["the", "river", "bank", "was", "steep"]
    assert body["translation"] == "La rive était escarpée !"
    body = client.post("/api/translate", json={"sentence": "She saw the old crane on the dock."}).json()
    assert body["translation"] == "Elle a vu la vieille grue sur le quai."


def test_the_longest_trained_sentence_is_answered(client: TestClient) -> None:
    words = ("the dog of the farmer was happy and " * 4).split()[:TRAINED_MAX_WORDS]
    body = client.post("/api/translate", json={"sentence": " ".join(words)}).json()
    assert len(body["source"]) == TRAINED_MAX_WORDS and len(body["steps"]) <= MAX_STEPS
    for t, step in enumerate(body["steps"]):
        assert np.array(step["self"]).shape[-1] == t + 1


def test_a_sentence_past_the_trained_length_is_refused_naming_both_lengths(client: TestClient) -> None:
    """Once cut off silently (64 words went through); now refused before decoding, with the trained length."""
    count = TRAINED_MAX_WORDS + 4
    words = ("the dog of the farmer was happy and " * 10).split()[:count]
    response = client.post("/api/translate", json={"sentence": " ".join(words)})
    assert response.status_code == 422
    assert response.json() == {
        "detail": f"The translator was trained on sentences of at most {TRAINED_MAX_WORDS} words; "
        f"this one has {count}.",
        "max_words": TRAINED_MAX_WORDS,
        "word_count": count,
    }


def test_an_unknown_word_gets_close_known_words_as_text_and_as_a_field(client: TestClient) -> None:
    response = client.post("/api/translate", json={"sentence": "the apel was red"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": "not in the translator's vocabulary: apel (did you mean apple, april or paper?)",
        "unknown": ["apel"],
        "suggestions": {"apel": ["apple", "april", "paper"]},
    }


def test_a_refusal_names_every_unknown_word_and_looks_for_close_words_for_the_first_few(
    client: TestClient,
) -> None:
    """A body of many made-up words once cost about 0.45 s on the event loop (close words for each of up to
    64); now the close words of the first SUGGESTED_AT_MOST are looked for, and the rest named alone."""
    made_up = [f"zq{letter}x{n}" for n, letter in enumerate("abcdefghijkl")]
    sentence = " ".join([*made_up[:SUGGESTED_AT_MOST], "apel", *made_up[SUGGESTED_AT_MOST:], "rivr"])
    body = client.post("/api/translate", json={"sentence": sentence}).json()
    assert body["unknown"] == sentence.split()
    assert body["suggestions"]["apel"] == body["suggestions"]["rivr"] == []  # past the first few
    solo = client.post("/api/translate", json={"sentence": "the apel and the rivr"}).json()
    assert solo["suggestions"] == {"apel": ["apple", "april", "paper"], "rivr": ["river", "driver", "rivers"]}


def test_a_refusal_is_worked_out_off_the_event_loop_and_a_translation_never_asks(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Translator.check runs in a thread (app/web/offload.py's computed), where no event loop runs; a sentence
    of known words within the trained length does not call it at all."""
    on_a_loop: list[bool] = []
    check = Translator.check

    def recorded(self: Translator, words: list[str]) -> None:
        try:
            asyncio.get_running_loop()
            on_a_loop.append(True)
        except RuntimeError:
            on_a_loop.append(False)
        check(self, words)

    monkeypatch.setattr(Translator, "check", recorded)
    assert client.post("/api/translate", json={"sentence": "the apel was red"}).status_code == 422
    long = " ".join(["the dog was happy"] * 9)
    assert client.post("/api/translate", json={"sentence": long}).status_code == 422
    assert client.post("/api/translate", json={"sentence": "the dog was happy"}).status_code == 200
    assert on_a_loop == [False, False]


def test_too_long_with_unknown_words_names_both(client: TestClient) -> None:
    sentence = "the apel of the farmer was happy and " * 4 + "zorblax"
    count = len(sentence.split())
    assert count > TRAINED_MAX_WORDS
    body = client.post("/api/translate", json={"sentence": sentence}).json()
    assert body["detail"] == (
        f"The translator was trained on sentences of at most {TRAINED_MAX_WORDS} words; this one has "
        f"{count}. Also not in the translator's vocabulary: "
        "apel (did you mean apple, april or paper?), zorblax"
    )
    assert body["suggestions"] == {"apel": ["apple", "april", "paper"], "zorblax": []}
    assert body["unknown"] == ["apel", "zorblax"] and body["word_count"] == count


@pytest.mark.parametrize(
    ("sentence", "detail"),
    [
        (
            "the rivr bank was steep",
            "not in the translator's vocabulary: rivr (did you mean river, driver or rivers?)",
        ),
        (
            "the zorblax bank was stepe",
            "not in the translator's vocabulary: zorblax, stepe (did you mean steep, steeper or sheep?)",
        ),
        ("the bank's door", "not in the translator's vocabulary: bank's (did you mean bank?)"),
    ],
)
def test_unknown_words_get_a_422_that_names_them(client: TestClient, sentence: str, detail: str) -> None:
    response = client.post("/api/translate", json={"sentence": sentence})
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == detail
    assert set(body) == {"detail", "unknown", "suggestions"}


@pytest.mark.parametrize(
    ("sentence", "detail"),
    [
        ("?!", "sentence has no words: type at least one word"),
        ("the " * 65, "sentence has 65 words; at most 64 are allowed"),
    ],
)
def test_bad_sentences_get_a_422_that_says_why(client: TestClient, sentence: str, detail: str) -> None:
    response = client.post("/api/translate", json={"sentence": sentence})
    assert response.status_code == 422
    assert response.json() == {"detail": detail}


@pytest.mark.parametrize(
    "body",
    [{}, {"sentence": ""}, {"sentence": "a" * 501}, {"sentence": 3}, {"sentence": "the dog", "heads": 2}],
)
def test_malformed_bodies_get_a_422(client: TestClient, body: dict) -> None:
    response = client.post("/api/translate", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"


def test_about_gives_the_record_for_the_page(client: TestClient) -> None:
    body = client.get("/api/translate/about").json()
    assert body["exact_match"] >= 0.95 and body["alignment"] >= 0.85
    assert body["alignment"] == body["alignment_by_layer"][body["best_layer"]]
    assert len(body["alignment_by_head"]) == body["layers"] >= 2
    assert body["encoder_layers"] >= 2 and body["heads"] >= 2 and body["lexicon_entries"] >= 150
    assert "river" in body["vocabulary"] and "<s>" not in body["vocabulary"]
    assert body["source_vocab_size"] == len(body["vocabulary"]) + 3


def test_both_endpoints_are_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "post" in paths["/api/translate"] and "get" in paths["/api/translate/about"]


def test_the_openapi_document_describes_both_refusals(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    post = document["paths"]["/api/translate"]["post"]
    assert f"at most {TRAINED_MAX_WORDS} words" in post["description"]
    assert "did you mean apple or paper?" in post["description"]
    schema = post["responses"]["422"]["content"]["application/json"]["schema"]
    refusal = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    assert {"detail", "unknown", "suggestions", "max_words", "word_count"} <= set(refusal["properties"])


def test_concurrent_sentences_are_decoded_together_and_each_gets_its_own_answer() -> None:
    """Translations that wait together are one batch (app/web/offload.py's Batches): each answer is the one
    its sentence gets alone (within float32 rounding: a batch's products round as their shape does), and a
    refused sentence among them is refused alone."""
    from app.models.translator.committed import get_translator
    from app.routes.translate import batches, translate_response

    sentences = [
        f"the {who} {did} the {what} near the {where}"
        for who in ("farmer", "girl")
        for did in ("sold", "saw")
        for what in ("horse", "bat")
        for where in ("cave", "river")
    ]  # sixteen distinct sentences
    asked = [("POST", "/api/translate", {"json": {"sentence": s}}) for s in [*sentences, "the rivr bank"]]
    *answers, refused = concurrently(create_app(), asked)
    assert refused.status_code == 422 and refused.json()["unknown"] == ["rivr"]
    model = get_translator()
    assert max(batches(model).sizes) > 1  # some did share
    for sentence, response in zip(sentences, answers, strict=True):
        assert response.status_code == 200, response.text
        (lone,) = model.translator.translate_many([sentence.split()], float32=True)
        alone = translate_response(lone, model, sentence)
        got = response.json()
        assert got["target"] == alone["target"] and len(got["steps"]) == len(alone["steps"])
        for step, expected in zip(got["steps"], alone["steps"], strict=True):
            for name in ("cross", "self", "cross_mean", "self_mean"):
                np.testing.assert_allclose(step[name], expected[name], rtol=0, atol=FLOAT32_MAPS)


def test_an_answer_names_the_content_words_no_step_read(client: TestClient) -> None:
    """The French stops before "is my aunt" ("la femme qui travaille ici"), and the answer names the content
    word it left out; every position it names is a noun, verb, adjective or number of the source."""
    body = client.post("/api/translate", json={"sentence": "the woman who works here is my aunt"}).json()
    assert body["target"][-2:] == ["travaille", "ici"]
    assert [body["source"][i] for i in body["unread"]] == ["aunt"]
    about = client.get("/api/translate/about").json()
    content = {w for kind in ("noun", "verb", "adjective", "number") for w in about["vocabulary_kinds"][kind]}
    assert {body["source"][i] for i in body["unread"]} <= content
    # each named word got less than the threshold from every step of the best layer, heads averaged
    layer = body["best_layer"]
    for i in body["unread"]:
        assert max(step["cross_mean"][layer][i] for step in body["steps"]) < about["unread"]["threshold"]


def test_the_about_record_lists_every_word_by_kind(client: TestClient) -> None:
    about = client.get("/api/translate/about").json()
    listed = {w for words in about["vocabulary_kinds"].values() for w in words}
    assert listed == set(about["vocabulary"])
    assert "apples" in about["vocabulary_kinds"]["noun"] and "three" in about["vocabulary_kinds"]["number"]
