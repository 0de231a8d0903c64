"""The article's and the documentation's sentences say what the numbers show.

Each test computes the fact a sentence states and reads the sentence from the rendered page or the page of
docs/ that holds it (docs/article.md, docs/api.md, docs/training.md), so that the claim and the computation
cannot drift apart unnoticed.
"""

import html
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.core.accounting import head_accounting
from app.core.head_signatures import SIGNATURE_RULES, SIGNATURES
from app.models.heads import get_relation_heads
from app.models.order import HEADS, order_check
from app.models.relations import POSITION_SLICE, analyse
from app.models.translator.network import FLOAT32_MAPS
from app.routes.pages import RECORDS
from training.evaluation import story as story_of
from training.french_vocabulary import ENGLISH_WORDS, FRENCH_WORDS
from training.written import DEVELOPMENT, SECOND, agreement
from training.written import load as load_written

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ARTICLE_MD = (ROOT / "docs" / "article.md").read_text(encoding="utf-8")  # what is on the page
API_MD = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
TRAINING_MD = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
WEIGHTS_README = (get_settings().weights_dir / "README.md").read_text(encoding="utf-8")
CURVE = json.loads((get_settings().weights_dir / "relations_curve.json").read_text())


@pytest.fixture(scope="module")
def article(client: TestClient) -> str:
    return client.get("/").text


def text_of(markup: str) -> str:
    """The words of an HTML fragment, tags dropped and white space collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def section(article: str, name: str) -> str:
    """The text of the article's section `name`, up to the next section."""
    start = article.index(f'<section id="{name}"')
    end = article.find("<section id=", start + 1)
    return text_of(article[start : end if end > 0 else None])


def test_no_sentence_claims_every_number_is_computed_live(article: str) -> None:
    """Held-out scores, loss curves and the translator's measures are records of training runs."""
    claim = re.compile(r"every number[^.]*(computed|live)", re.IGNORECASE)
    assert not claim.search(text_of(article))
    for doc in (README, *(page.read_text(encoding="utf-8") for page in (ROOT / "docs").glob("*.md"))):
        assert not claim.search(doc)


def test_the_numbers_section_names_every_record_its_file_and_command(article: str) -> None:
    """Every JSON record beside the weights is listed with the training module that writes it, and that module
    exists and writes that file; the weights README names the same command for the same file."""
    records = {p.name for p in get_settings().weights_dir.glob("*.json")}
    assert {r["file"] for r in RECORDS} == records
    numbers = section(article, "numbers")
    for record in RECORDS:
        assert record["file"] in numbers and f"python -m {record['command']}" in numbers
        spec = importlib.util.find_spec(record["command"])
        assert spec is not None and spec.origin is not None
        assert record["file"].split(".")[0] in Path(spec.origin).read_text(encoding="utf-8")
        row = next(line for line in WEIGHTS_README.splitlines() if f"`{record['file']}`" in line)
        assert f"python -m {record['command']}" in row or "the same command" in row


def percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def count(measured: dict, share: str) -> int:
    """How many of a story record's sentences a share of it is (the page gives counts, which do not round
    599 of 600 up to all)."""
    return round(measured[share] * measured["sentences"])


def test_section_one_reports_the_story_and_the_scores_of_the_record(article: str) -> None:
    """Section 1 gives how often the story holds on the sentences held out by construction and on the written
    ones, and the one-head and three-head best scores there, all as the record has them."""
    story = CURVE["story"]
    one, three = (next(e for e in CURVE["heads"] if e["heads"] == h)["novel"] for h in (1, 3))
    text = section(article, "heads")
    novel, written = story["novel"], story["written"]
    assert f"Over {novel['sentences']} sentences made of words the layer never saw in training" in text
    assert f"a head of its own in {count(novel, 'own_head_at_3')} of them" in text
    assert f"serves every relation in {count(novel, 'one_head_serves_all')};" in text
    assert f"on {written['sentences']} everyday sentences written by hand" in text
    assert f"it is {count(written, 'own_head_at_3')} and {count(written, 'one_head_serves_all')}." in text
    scores = [f"{one['best_score'][r]:.2f}" for r in ("meaning", "grammar", "position")]
    scores3 = [f"{three['best_score'][r]:.2f}" for r in ("meaning", "grammar", "position")]
    assert f"{scores[0]} for meaning, {scores[1]} for grammar and {scores[2]} for position" in text
    assert f"three heads reach {scores3[0]}, {scores3[1]} and {scores3[2]}" in text


def test_the_figures_doc_gives_the_records_story(article: str) -> None:
    """The paragraph on figure 1 in docs/article.md states the story's figures as the record has them."""
    story = CURVE["story"]
    paragraph = ARTICLE_MD[
        ARTICLE_MD.index("**Figure 1, the heads dial.**") : ARTICLE_MD.index("**Figure 2, the accounting.**")
    ]
    text = re.sub(r"\s+", " ", paragraph)
    for name in ("novel", "written"):
        found = story[name]
        assert f"{count(found, 'own_head_at_3')} of {found['sentences']}" in text, name
    by_rules = story["written_by_the_rules"]
    assert f"holds on {round(by_rules['own_head_at_3'] * by_rules['sentences'])} of them" in text
    written = load_written()
    agree = sum(sorted(analyse(w.words).targets["meaning"]) == w.targets["meaning"] for w in written)
    assert f"matches the hand-written one on {agree} of the {len(written)}" in text
    assert f"width {CURVE['d_model']}" in text
    dev = story["dev"]
    assert f"holds by hand on {count(dev, 'own_head_at_3')} of the {dev['sentences']}" in text

    # where the story fails by hand: the layer fails on the rules' own pairs too, or the rules read otherwise
    model = get_relation_heads()
    layers = {h: model.layers[(h, "trained")] for h in (1, 3)}

    def holds(w: Any, targets: Any) -> bool:
        return bool(story_of(layers, [w.words], model.field_codes, targets)["story_holds"])

    fails = [w for w in written if not holds(w, [w.targets])]
    layer_too = sum(not holds(w, None) for w in fails)
    grammar_differs = sum(
        sorted(analyse(w.words).targets["grammar"]) != w.targets["grammar"] for w in written
    )
    assert f"It fails by hand on {len(fails)}; on the rules' own pairs, on {layer_too} of those" in text
    assert f"in {len(fails) - layer_too} the rules read the sentence otherwise than the person" in text
    assert f"other grammatical partners than the person in {grammar_differs}." in text
    people = agreement(load_written(DEVELOPMENT), load_written(SECOND))  # the written set before this one
    assert (
        f"chose the same meaning pair as the first on {people.same_meaning} of the {people.sentences} and the"
        f" same grammatical partners for {people.same_partners} of the {people.words} words" in text
    )


def test_the_figures_doc_gives_the_language_models_record() -> None:
    """The paragraph on figure 7 in docs/article.md states each model's validation loss and share of
    well-formed sentences as the training record has them."""
    record = json.loads((get_settings().weights_dir / "tiny_lm_curves.json").read_text())
    by = {m["mask"]: m for m in record["models"]}
    paragraph = ARTICLE_MD[ARTICLE_MD.index("**Figure 7, the interview question.**") :].split("\n\n")[0]
    text = re.sub(r"\s+", " ", paragraph)
    for mask, name in (("zero", "×0"), ("none", "no mask"), ("next_word", "off by one")):
        assert f"{by[mask]['final_validation']:.4f} ({name}" in text, mask
    assert f"honest model's {by['neg_inf']['final_validation']:.2f}" in text
    leaky = sorted({percent(by[m]["grammatical_share"]) for m in ("zero", "none", "next_word")})
    assert f"{' to '.join(leaky)} of their own sentences are well formed against " in text
    assert f"against {percent(by['neg_inf']['grammatical_share'])}" in text
    assert f"{percent(record['shuffled_accepted'])} of the validation sentences" in text
    assert f"d_model {record['d_model']}" in text and f"{record['train_sentences']:,} sentences" in text


def test_the_order_section_says_which_inputs_ignore_order(article: str) -> None:
    """Reversed, "dog bites man" attends the same only without the order-dependent inputs; the sentence says
    so, and names where the parser puts each word's partners, which breaks it without any position code."""
    model = get_relation_heads()
    words = "dog bites man".split()
    assert order_check(model, words, positional=False).equivariant
    words = "the dog bit the old man".split()  # reversed, the parser finds other partners
    x = model.inputs(words)[1]
    x_reversed = model.inputs(words[::-1])[1]
    # no positions, but the parser's partner places kept
    x[:, POSITION_SLICE] = x_reversed[:, POSITION_SLICE] = 0.0
    w = model.weights(x, HEADS, "none", trained=True)
    w_reversed = model.weights(x_reversed, HEADS, "none", trained=True)[:, ::-1][:, :, ::-1]
    assert np.abs(w - w_reversed).max() > 0.1
    text = section(article, "order-teaser")
    sentence = next(s for s in re.split(r"(?<=\.) ", text) if "man bites dog" in s)
    assert "only what each word is" in sentence
    assert "where its parser puts each word's grammatical partners" in text


def test_no_sentence_says_splitting_costs_nothing(article: str) -> None:
    """Splitting adds no weights and no multiply-adds, but h times the softmax exponentials."""
    costs = head_accounting(24, 3, 5)
    split, single = costs["split"], costs["single"]
    assert split["weights"]["total"] == single["weights"]["total"]
    assert split["multiply_adds"]["total"] == single["multiply_adds"]["total"]
    assert split["exps"] == 3 * single["exps"]
    assert "nothing extra" not in text_of(article)
    assert "only more, smaller softmaxes" in section(article, "verdict")


def test_minilm_is_said_to_be_fine_tuned_on_the_sentence_pairs(article: str) -> None:
    text = section(article, "real-transformer")
    assert "fine-tuned on about a billion sentence pairs" in text
    assert "trained on a billion" not in text


def test_the_api_doc_names_every_refusal_status_the_api_documents(client: TestClient) -> None:
    documented = {
        int(code)
        for path in client.get("/openapi.json").json()["paths"].values()
        for operation in path.values()
        for code in operation.get("responses", {})
        if code.isdigit() and int(code) >= 400
    }
    refusals = API_MD[API_MD.index("Every refusal is a 4xx") :].split("\n\n")[0]
    assert documented and {code for code in documented if str(code) not in refusals} == set()


def test_the_api_doc_gives_how_many_unknown_words_get_close_words() -> None:
    from app.models.translator.words import SUGGESTED_AT_MOST

    assert f"for the first {SUGGESTED_AT_MOST} unknown words only" in re.sub(r"\s+", " ", API_MD)


def test_the_api_doc_gives_the_uploads_pace_and_parts() -> None:
    from app.web.multipart import MAX_PARTS, MIN_RATE, RATE_GRACE

    text = re.sub(r"\s+", " ", API_MD)
    assert f"An upload must average {MIN_RATE // 1024} KB/s once {RATE_GRACE:g} s have passed" in text
    assert f"hold at most {MAX_PARTS} multipart parts" in text


def test_the_api_doc_gives_the_row_sum_tolerances() -> None:
    from app.core.head_signatures import ROW_SUM_TOLERANCE

    assert (
        f"(by more than {ROW_SUM_TOLERANCE:g}, or twice what rounding to float16 or bfloat16 can do" in API_MD
    )


def test_the_figures_doc_counts_the_translators_words_without_its_special_tokens() -> None:
    """The figures' doc said 515 and 782, which counted <pad>, <s> and </s> as words."""
    from app.models.translator.committed import get_translator
    from app.models.translator.words import SPECIALS

    translator = get_translator().translator
    english = len([w for w in translator.source_vocabulary if w not in SPECIALS])
    french = len([w for w in translator.target_vocabulary if w not in SPECIALS])
    text = re.sub(r"\s+", " ", ARTICLE_MD)
    assert f"from {english} English and {french} French word forms" in text


def test_the_figures_doc_gives_the_translators_record_and_its_float32_bound() -> None:
    """The translator's paragraph: its held-out figures, size and training time as its record holds them, and
    the float32 bound the server's decoding is held to."""
    record = json.loads((get_settings().weights_dir / "translator_record.json").read_text())
    novel = record["novel"]
    text = re.sub(r"\s+", " ", ARTICLE_MD)
    percent = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    assert (
        f"{record['heldout_pairs']:,} pairs of that grammar never seen in training "
        f"({percent(record['exact_match'])} exact match, {percent(record['alignment'])} of aligned words"
    ) in text
    assert (
        f"{novel['heldout_pairs']:,} pairs built from" in text
        and f"{percent(novel['exact_match'])} exact, {percent(novel['alignment'])} aligned" in text
    )
    for found in record["constructions"].values():
        assert (
            f"{found['heldout_pairs']:,} pairs with {found['description']}: {percent(found['exact_match'])} "
            f"exact, {percent(found['alignment'])} aligned"
        ) in text

    def said(found: dict[str, Any]) -> str:
        return f"it writes {found['right']} right" + (
            f" and refuses {found['refused']}" if found["refused"] else ""
        )

    grown = [s for s in record["everyday_sets"] if not s["blind"]]
    (blind,) = [s for s in record["everyday_sets"] if s["blind"]]
    assert (
        "Of everyday sentences written for the test without looking at its words, it writes "
        + " and ".join(f"{s['right']} of {s['sentences']}" for s in grown)
        + f" right in the sets its grammar then grew on; of {blind['sentences']} written later "
        f"and scored once after training, {said(blind)}"
    ) in text
    assert f"from {len(ENGLISH_WORDS)} English and {len(FRENCH_WORDS)} French word forms" in text
    assert (
        f"{record['parameters'] / 1e6:.2f} M parameters (d_model {record['d_model']}, "
        f"{record['heads']} heads, {record['encoder_layers']} + {record['layers']} layers), trained in "
        f"{round(record['training_seconds'] / 60)} minutes" in text
    )
    assert f"every map within {FLOAT32_MAPS:g} of float64, alone or in a batch" in text
    # the check for words no step read, at its threshold and its neighbours
    check = record["unread"]
    by = {row["threshold"]: row for row in check["by_threshold"]}
    below, above = by[round(check["threshold"] - 0.1, 1)], by[round(check["threshold"] + 0.1, 1)]
    assert (
        f"put {check['threshold']} on them" in text
        and f"On {check['joined_sentences']:,} longer sentences joined from held-out ones, the translations "
        f"left out {check['left_out']} such words and the check names {check['caught']}; of the "
        f"{check['right_translations']:,} held-out pairs translated right it names a word in "
        f"{check['right_flagged']} ({below['threshold']} caught {below['caught']}, "
        f"{above['threshold']} named a word in {above['right_flagged']} right ones;"
        in text
    )


def test_the_api_docs_signature_table_is_the_codes() -> None:
    """One table of the diagnosis's signatures, in app/core/head_signatures.py; docs/api.md's is the same, row
    for row, and names every signature the code can give."""
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", API_MD, flags=re.M)
    table = {name: (shows, code) for name, shows, code in rows if name in SIGNATURES}
    assert set(SIGNATURE_RULES) == set(SIGNATURES)
    assert table == {name: (shows, code) for name, (shows, code, _) in SIGNATURE_RULES.items()}


@pytest.mark.parametrize(
    ("record", "runs", "command"),
    [
        ("relations_curve.json", "heads", "`python -m training.train_relations`:"),
        ("relations_shared_curve.json", "layers", "`python -m training.train_sharing`:"),
        ("tiny_lm_curves.json", "models", "`python -m training.train_lm`:"),
    ],
)
def test_the_training_doc_gives_each_training_commands_time_as_its_record_has_it(
    record: str, runs: str, command: str
) -> None:
    """Each record holds every run's seconds; docs/training.md gives their sum to the nearest five minutes, in
    the command's own line."""
    data = json.loads((get_settings().weights_dir / record).read_text())
    minutes = sum(run["seconds"] for run in data[runs]) / 60
    (item,) = [item for item in re.split(r"^- ", TRAINING_MD, flags=re.M) if item.startswith(command)]
    assert f"about {5 * round(minutes / 5)} minutes on two cores" in re.sub(r"\s+", " ", item)


def test_the_figures_doc_gives_the_sharing_records_losses_and_scores() -> None:
    """Figure 3's paragraph: the losses it quotes and what meaning and position score at 12 query heads."""
    record = json.loads((get_settings().weights_dir / "relations_shared_curve.json").read_text())
    run = {(r["heads"], r["kv_heads"]): r for r in record["layers"]}
    loss = {key: f"{r['final_loss']:.5f}" for key, r in run.items()}
    best = {key: {name: max(s) for name, s in r["heldout"]["per_head"].items()} for key, r in run.items()}
    text = re.sub(r"\s+", " ", ARTICLE_MD)
    assert (
        f"(h = 6: loss {loss[6, 6]} at g = 6, {loss[6, 3]} at g = 3, {loss[6, 2]} at g = 2, "
        f"{loss[6, 1]} at g = 1)"
    ) in text
    assert f"(loss {loss[12, 12]} at g = 12, {loss[12, 1]} at g = 1)" in text
    drop = {name: best[12, 12][name] - best[12, 1][name] for name in best[12, 1]}
    pays, holds = max(drop, key=drop.get), min(drop, key=drop.get)  # the relation sharing costs most, least
    assert f"it is {pays} that pays ({best[12, 12][pays]:.2f} → {best[12, 1][pays]:.2f})" in text
    assert f"while {holds} holds at {best[12, 1][holds]:.2f}" in text


def test_the_api_doc_gives_the_width_the_head_count_divides() -> None:
    from app.models.heads import VALID_HEADS

    d_model = max(VALID_HEADS)  # every width divides itself
    assert f"`heads` defaults to 3 and must divide d_model = {d_model}." in re.sub(r"\s+", " ", API_MD)
