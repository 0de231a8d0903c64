"""Figure 2's key/value cache modules (static/js/figures/accounting/: kv-config.js, kv-counts.js and
kv-words.js), imported in the real page: the key/value cache and attention weights of MHA, GQA, MQA and MLA,
the presets' figures against arithmetic done by hand here, and every way a config.json is refused.

One page serves the modules' tests (figure 2's own page, which asks the server nothing); `k` holds the three
modules' exports together."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import DESKTOP, watched

MODULES = [f"/static/js/figures/accounting/{name}.js" for name in ("kv-config", "kv-counts", "kv-words")]
# The three modules' exports as one object `k`, in a page's script.
IMPORT_K = f"const k = Object.assign({{}}, ...(await Promise.all({MODULES!r}.map((m) => import(m)))));"
MIB = 1024**2
CONTEXTS = [4096, 32768, 131072]

# Each preset's shape by hand, from its published config.json: elements cached per token per layer for the
# model and for the multi-head attention it would otherwise need, its layers, and its weights of one layer.
HAND = {
    "llama-3-8b": {
        "kind": "GQA",
        "elements": 2 * 8 * 128,  # g = 8 key/value heads of d_head = 4096 / 32
        "mha_elements": 2 * 32 * 128,
        "layers": 32,
        "weights": [4096 * 32 * 128, 4096 * 8 * 128, 4096 * 8 * 128, 32 * 128 * 4096],
        "mha_weights": [4096 * 4096] * 4,
    },
    "mistral-7b": {
        "kind": "GQA",
        "elements": 2 * 8 * 128,
        "mha_elements": 2 * 32 * 128,
        "layers": 32,
        "weights": [4096 * 4096, 4096 * 1024, 4096 * 1024, 4096 * 4096],
        "mha_weights": [4096 * 4096] * 4,
    },
    "falcon-7b": {
        "kind": "MQA",
        "elements": 2 * 1 * 64,  # one key/value head of d_head = 4544 / 71 = 64
        "mha_elements": 2 * 71 * 64,
        "layers": 32,
        "weights": [4544 * 71 * 64, 4544 * 64, 4544 * 64, 71 * 64 * 4544],
        "mha_weights": [4544 * 4544] * 4,
    },
    "deepseek-v2": {
        "kind": "MLA",
        "elements": 512 + 64,  # d_c + d_rope
        # MHA with keys qk_nope + qk_rope = 128 + 64 wide and values v_head_dim = 128 wide, for 128 heads
        "mha_elements": 128 * (128 + 64) + 128 * 128,
        "layers": 60,
        "weights": [
            5120 * 1536 + 1536 * 128 * 128 + 1536 * 128 * 64,  # W_DQ, W_UQ, W_QR
            5120 * 512 + 512 * 128 * 128 + 5120 * 64,  # W_DKV, W_UK, W_KR
            512 * 128 * 128,  # W_UV
            128 * 128 * 5120,  # W_O
        ],
        "mha_weights": [5120 * 128 * 192, 5120 * 128 * 192, 5120 * 128 * 128, 128 * 128 * 5120],
    },
    "llama-2-7b": {
        "kind": "MHA",
        "elements": 2 * 32 * 128,
        "mha_elements": 2 * 32 * 128,
        "layers": 32,
        "weights": [4096 * 4096] * 4,
        "mha_weights": [4096 * 4096] * 4,
    },
}

# Every preset as the table shows it: {kind, perToken, contexts, mha: {…}, saving, weights, mhaWeights}.
PRESET_FIGURES = (
    "(options) => (async () => {\n  "
    + IMPORT_K
    + """
  const rows = ["w_q", "w_k", "w_v", "w_o"];
  const out = {};
  for (const key of Object.keys(k.PRESETS)) {
    const a = k.presetAttention(key);
    const t = k.cacheTable(a, options);
    const w = k.layerWeights(a);
    const m = k.layerWeights(k.mhaOf(a));
    out[key] = { kind: a.kind, layers: a.layers, elements: t.model.elements, mhaElements: t.mha.elements,
      perToken: t.model.perToken, contexts: t.model.contexts, mhaPerToken: t.mha.perToken,
      mhaContexts: t.mha.contexts, saving: t.saving, weights: rows.map((r) => w[r].count), total: w.total,
      mhaWeights: rows.map((r) => m[r].count), mhaTotal: m.total,
      human: [t.model.perToken, ...t.model.contexts].map(k.humanBytes) };
  }
  return out;
})()"""
)


@pytest.fixture(scope="module")
def kv(browser, server):
    """Run `script`, an expression using `k` (the modules' exports), in one page opened for their tests."""
    with watched(browser, server, DESKTOP) as (page, _):
        page.goto("/figure/accounting")

        def run(script: str, arg=None):
            return page.evaluate(
                f"async (arg) => {{ {IMPORT_K} return {script}; }}",
                arg,
            )

        run.page = page
        yield run


def test_every_preset_matches_the_arithmetic_done_by_hand(kv) -> None:
    figures = kv.page.evaluate(PRESET_FIGURES, {"dtype": "bfloat16", "batch": 1})
    assert sorted(figures) == sorted(HAND)
    for key, hand in HAND.items():
        got = figures[key]
        per_token = hand["elements"] * hand["layers"] * 2  # bfloat16: 2 bytes an element
        mha_per_token = hand["mha_elements"] * hand["layers"] * 2
        assert got["kind"] == hand["kind"], key
        assert got["perToken"] == per_token, key
        assert got["contexts"] == [per_token * n for n in CONTEXTS], key
        assert got["mhaPerToken"] == mha_per_token, key
        assert got["mhaContexts"] == [mha_per_token * n for n in CONTEXTS], key
        assert got["saving"] == pytest.approx(hand["mha_elements"] / hand["elements"]), key
        assert got["weights"] == hand["weights"], key
        assert got["total"] == sum(hand["weights"]), key
        assert got["mhaWeights"] == hand["mha_weights"], key
        assert got["mhaTotal"] == sum(hand["mha_weights"]), key
    # The figures the page shows, in binary units.
    llama = figures["llama-3-8b"]
    assert llama["perToken"] == 131_072  # 2 · 8 · 128 · 2 bytes · 32 layers
    assert llama["contexts"][0] == 512 * MIB
    assert llama["human"] == ["128 KiB", "512 MiB", "4 GiB", "16 GiB"]
    assert llama["saving"] == 4
    assert figures["llama-2-7b"]["human"] == ["512 KiB", "2 GiB", "16 GiB", "64 GiB"]
    assert figures["llama-2-7b"]["saving"] == 1
    assert figures["falcon-7b"]["human"] == ["8 KiB", "32 MiB", "256 MiB", "1 GiB"]
    assert figures["falcon-7b"]["saving"] == 71
    assert figures["deepseek-v2"]["human"] == ["67.5 KiB", "270 MiB", "2.11 GiB", "8.44 GiB"]


FOUR_ROWS = """(key) => { const t = k.cacheTable(k.presetAttention(key), { dtype: "bfloat16", batch: 1 });
  return t.rows.map((r) => [r.kind, r.label, r.own, r.perToken, r.saving]); }"""


def test_every_model_shows_mha_gqa_mqa_and_mla_from_its_own_shape(kv) -> None:
    rows = kv(f"({FOUR_ROWS})(arg)", "llama-3-8b")
    assert [r[0] for r in rows] == ["MHA", "GQA", "MQA", "MLA"]
    assert [r[2] for r in rows] == [False, True, False, False]  # Llama 3 8B is GQA
    # Bytes per token in bfloat16 (2 bytes), 32 layers, d_head = 4,096 / 32 = 128.
    mha = 2 * 32 * 128 * 2 * 32
    assert [r[3] for r in rows] == [
        mha,  # 524,288: 32 key/value heads
        2 * 8 * 128 * 2 * 32,  # 131,072: the model's own g = 8
        2 * 128 * 2 * 32,  # 16,384: one key/value head
        (512 + 64) * 2 * 32,  # 36,864: a latent of 4 · 128, a rotary key of 128 / 2
    ]
    assert [r[3] for r in rows] == [524_288, 131_072, 16_384, 36_864]
    assert [r[4] for r in rows] == [mha / r[3] for r in rows]  # the ratio column, MHA ÷ the row
    assert rows[1][1] == "GQA, g = 8"
    assert rows[3][1] == "MLA, d_c = 512, rotary 64 (DeepSeek-V2's proportions)"

    # DeepSeek-V2 is MLA: its own 512 + 64 over 60 layers; the other kinds keep its heads' widths
    # (keys 128 + 64, values 128) for h = 128, grouped as g = 8.
    deepseek = kv(f"({FOUR_ROWS})(arg)", "deepseek-v2")
    assert [(r[0], r[2], r[3]) for r in deepseek] == [
        ("MHA", False, 128 * (192 + 128) * 2 * 60),
        ("GQA", False, 8 * (192 + 128) * 2 * 60),
        ("MQA", False, (192 + 128) * 2 * 60),
        ("MLA", True, (512 + 64) * 2 * 60),
    ]
    assert deepseek[3][1] == "MLA, d_c = 512, rotary 64"
    # Llama 2 7B (MHA, h = 32) is grouped as g = 8; Falcon 7B (h = 71, prime) has no g between 1 and h.
    assert kv(f"({FOUR_ROWS})(arg)", "llama-2-7b")[1][1:4] == ["GQA, g = 8", False, 2 * 8 * 128 * 2 * 32]
    falcon = kv(f"({FOUR_ROWS})(arg)", "falcon-7b")
    assert falcon[1] == ["GQA", "GQA: no g between 1 and 71 divides 71", False, None, None]
    assert falcon[2][2] is True
    # The g for a model that is not GQA: 8 when 8 divides h and 8 < h, else h's largest divisor below h but 1.
    assert kv("[32, 8, 12, 6, 9, 4, 3, 2, 1].map(k.groupsFor)") == [8, 4, 6, 3, 3, 2, None, None, None]


def test_dtype_and_batch_scale_the_cache(kv) -> None:
    base = kv.page.evaluate(PRESET_FIGURES, {"dtype": "bfloat16", "batch": 1})
    for dtype, size in (("float32", 4), ("float16", 2), ("fp8", 1), ("int8", 1)):
        got = kv.page.evaluate(PRESET_FIGURES, {"dtype": dtype, "batch": 8})
        for key, hand in HAND.items():
            per_token = hand["elements"] * hand["layers"] * size
            assert got[key]["perToken"] == per_token, (key, dtype)  # per token of one sequence
            assert got[key]["contexts"] == [per_token * n * 8 for n in CONTEXTS], (key, dtype)
            assert got[key]["saving"] == base[key]["saving"]
    assert kv(
        "k.cacheBytes(k.presetAttention('llama-3-8b'), { dtype: 'float32', tokens: 32768, batch: 4 })"
    ) == (2 * 8 * 128 * 4 * 32 * 32768 * 4)
    assert (
        kv(
            "(() => { try { k.cacheBytes(k.presetAttention('llama-3-8b'), { dtype: 'int4' }); } "
            "catch (e) { return e.message; } })()"
        )
        == "unknown dtype int4"
    )


def test_mla_is_counted_as_deepseek_v2_describes_it(kv) -> None:
    a = kv("k.presetAttention('deepseek-v2')")
    assert a["mla"] == {"kvRank": 512, "qRank": 1536, "ropeDim": 64, "nopeDim": 128, "vDim": 128}
    assert kv("k.cacheElements(k.presetAttention('deepseek-v2'))") * a["layers"] == (512 + 64) * 60
    parts = kv(
        "(() => { const w = k.layerWeights(k.presetAttention('deepseek-v2'));"
        " return Object.fromEntries(['w_q', 'w_k', 'w_v', 'w_o'].map((r) => [r, w[r].parts.map((p) =>"
        " [p.name, p.rows, p.cols])])); })()"
    )
    assert parts == {
        "w_q": [["W_DQ", 5120, 1536], ["W_UQ", 1536, 128 * 128], ["W_QR", 1536, 128 * 64]],
        "w_k": [["W_DKV", 5120, 512], ["W_UK", 512, 128 * 128], ["W_KR", 5120, 64]],
        "w_v": [["W_UV", 512, 128 * 128]],
        "w_o": [["W_O", 128 * 128, 5120]],
    }
    # Without q_lora_rank (DeepSeek-V2-Lite's null) the queries come straight from the input; with neither
    # qk_nope_head_dim nor v_head_dim, both are d_model / h.
    lite = {
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "q_lora_rank": None,
    }
    got = kv(
        "(() => { const a = k.attentionFromConfig(arg); const w = k.layerWeights(a);"
        " return { mla: a.mla, elements: k.cacheElements(a), mha: k.cacheElements(k.mhaOf(a)),"
        " q: w.w_q.parts.map((p) => [p.name, p.rows, p.cols]) }; })()",
        lite,
    )
    assert got["mla"] == {"kvRank": 512, "qRank": None, "ropeDim": 64, "nopeDim": 128, "vDim": 128}
    assert got["elements"] == 512 + 64
    assert got["mha"] == 16 * (128 + 64) + 16 * 128
    assert got["q"] == [["W_Q", 2048, 16 * 128], ["W_QR", 2048, 16 * 64]]


def test_a_pasted_config_gives_the_presets_numbers(kv) -> None:
    same = kv(
        "Object.keys(k.PRESETS).map((key) => {"
        " const pasted = JSON.stringify({ vocab_size: 32000, rope_theta: 10000, ...k.PRESETS[key].config });"
        " return [key, JSON.stringify(k.readConfig(pasted)) === JSON.stringify(k.presetAttention(key)),"
        " JSON.stringify(k.readConfig(k.presetText(key))) === JSON.stringify(k.presetAttention(key))]; })"
    )
    assert same == [[key, True, True] for key in HAND]
    # Falcon's older spellings (n_head, n_layer) and multi_query read as the preset; Falcon-40B's
    # new_decoder_architecture reads num_kv_heads.
    falcon = {"hidden_size": 4544, "n_head": 71, "n_layer": 32, "multi_query": True}
    assert kv("k.attentionFromConfig(arg)", falcon) == kv("k.presetAttention('falcon-7b')")
    falcon_40b = {
        "hidden_size": 8192,
        "num_attention_heads": 128,
        "num_kv_heads": 8,
        "num_hidden_layers": 60,
        "new_decoder_architecture": True,
        "multi_query": True,
    }
    got = kv("k.attentionFromConfig(arg)", falcon_40b)
    assert (got["kind"], got["kvHeads"], got["dQK"]) == ("GQA", 8, 64)
    # head_dim, where given, wins over d_model / h (Gemma 7B: 3,072 wide, 16 heads of 256).
    gemma = {
        "hidden_size": 3072,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 256,
        "num_hidden_layers": 28,
    }
    assert kv("k.cacheElements(k.attentionFromConfig(arg))", gemma) == 2 * 16 * 256


LLAMA = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32}
REFUSED = [
    ('{"hidden_size": 4096,', "config.json", "not valid JSON"),
    ("[4096, 32]", "config.json", "one JSON object"),
    ("null", "config.json", "one JSON object"),
    (json.dumps({**LLAMA, "hidden_size": None}), "hidden_size", "no hidden_size"),
    (
        json.dumps({k: v for k, v in LLAMA.items() if k != "num_attention_heads"}),
        "num_attention_heads",
        "no num_attention_heads",
    ),
    (
        json.dumps({k: v for k, v in LLAMA.items() if k != "num_hidden_layers"}),
        "num_hidden_layers",
        "no num_hidden_layers",
    ),
    (json.dumps({**LLAMA, "num_attention_heads": "32"}), "num_attention_heads", 'whole number, not "32"'),
    (json.dumps({**LLAMA, "hidden_size": 4096.5}), "hidden_size", "whole number, not 4096.5"),
    (json.dumps({**LLAMA, "num_hidden_layers": True}), "num_hidden_layers", "whole number, not true"),
    (json.dumps({**LLAMA, "num_key_value_heads": 0}), "num_key_value_heads", "at least 1, not 0"),
    (json.dumps({**LLAMA, "num_hidden_layers": -2}), "num_hidden_layers", "at least 1, not -2"),
    (
        json.dumps({**LLAMA, "num_key_value_heads": 5}),
        "num_key_value_heads",
        "not a multiple of num_key_value_heads (5)",
    ),
    (json.dumps({**LLAMA, "num_key_value_heads": 64}), "num_key_value_heads", "(32) is not a multiple"),
    (
        json.dumps({**LLAMA, "num_attention_heads": 30, "num_key_value_heads": 10}),
        "head_dim",
        "hidden_size (4,096) is not a multiple of num_attention_heads (30)",
    ),
    (json.dumps({**LLAMA, "hidden_size": 70000}), "hidden_size", "at most 65,536"),
    (json.dumps({**LLAMA, "num_hidden_layers": 1001}), "num_hidden_layers", "at most 1,000"),
    (
        json.dumps({**LLAMA, "num_attention_heads": 2048, "num_key_value_heads": 8}),
        "num_attention_heads",
        "at most 1,024",
    ),
    (json.dumps({**LLAMA, "head_dim": 8192}), "head_dim", "at most 4,096"),
    (
        json.dumps({"hidden_size": 4544, "n_head": 71, "n_layer": 32, "multi_query": "yes"}),
        "multi_query",
        "true or false",
    ),
    (json.dumps({"hidden_size": 4544, "n_head": 0, "n_layer": 32}), "n_head", "at least 1"),
    (json.dumps({**LLAMA, "kv_lora_rank": 512}), "qk_rope_head_dim", "no qk_rope_head_dim"),
    (json.dumps({**LLAMA, "kv_lora_rank": 0, "qk_rope_head_dim": 64}), "kv_lora_rank", "at least 1"),
    (
        json.dumps({**LLAMA, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "v_head_dim": 1.5}),
        "v_head_dim",
        "whole number",
    ),
    (
        json.dumps({**LLAMA, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "q_lora_rank": 100000}),
        "q_lora_rank",
        "at most 65,536",
    ),
    (json.dumps({**LLAMA, "sliding_window": "4k"}), "sliding_window", "whole number"),
]


def test_every_config_error_names_its_field(kv) -> None:
    got = kv("arg.map((text) => k.tryReadConfig(text))", [text for text, _, _ in REFUSED])
    for (text, field, words), answer in zip(REFUSED, got, strict=True):
        assert "error" in answer, text
        assert answer["error"]["field"] == field, text
        assert words in answer["error"]["message"], (text, answer["error"]["message"])
        if field != "config.json":
            assert field in answer["error"]["message"], text
    # The parser's own complaint comes along with malformed JSON.
    assert "JSON" in got[0]["error"]["message"].split(": ", 1)[1]
    # Not an error: a null head_dim is absent, a sliding window a config does not use is not noted.
    fine = kv(
        "arg.map((c) => k.attentionFromConfig(c).slidingWindow)",
        [
            {**LLAMA, "head_dim": None},
            {**LLAMA, "sliding_window": 131072, "use_sliding_window": False},
            {**LLAMA, "sliding_window": 4096},
        ],
    )
    assert fine == [None, None, 4096]


def test_units_and_ratios_are_written_in_binary_units_to_three_figures(kv) -> None:
    assert kv("[1, 1000, 1024, 1536, 69120, 4915200, 2 ** 40, 1.5 * 2 ** 50].map(k.humanBytes)") == [
        "1 byte",
        "1,000 bytes",
        "1 KiB",
        "1.5 KiB",
        "67.5 KiB",
        "4.69 MiB",
        "1 TiB",
        "1.5 PiB",
    ]
    assert kv("[1, 4, 71, 40960 / 576, 128].map(k.ratioText)") == ["1×", "4×", "71×", "71.1×", "128×"]
    assert kv("k.describeAttention(k.presetAttention('llama-3-8b'))") == (
        "grouped-query attention (GQA): 32 query heads of width 128 share 8 key/value heads; 32 layers, "
        "d_model 4,096."
    )
