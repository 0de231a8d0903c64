"""Figure 4's translator, run in numpy: an encoder-decoder Transformer that writes French one token at a time.

The network is the one of Vaswani et al. (2017), small and pre-norm:

    encoder:  x = E_src[source] · √d_model + PE                      (S, d_model)
              per layer:  x = x + SelfAttention(LN(x))                  (no mask: every word sees every word)
                          x = x + FFN(LN(x))
              memory = LN(x)                                            (S, d_model)

    decoder:  y = E_tgt[<s>, y_1, …] · √d_model + PE                  (T, d_model)
              per layer:  y = y + MaskedSelfAttention(LN(y))            (position t sees positions ≤ t)
                          y = y + CrossAttention(LN(y), memory)         (queries: y; keys, values: memory)
                          y = y + FFN(LN(y))
              logits = LN(y) E_tgtᵀ                                      (T, V_tgt): the embedding, reused

    FFN(x) = max(0, x W_1 + b_1) W_2 + b_2,  PE = sinusoidal_positions

Serving encodes the source once, then decodes greedily: each step feeds the last token written, appends
that position's keys and values to a cache (so earlier positions are never recomputed), and returns the
step's masked self-attention (over the positions written so far) and its cross-attention (over the source),
for every layer and head. ``forward`` runs the whole target prefix at once with the causal mask; the tests
check that the two agree.

Weights come from ``training/train_translator.py``; see ``app/weights/README.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.config import get_settings
from app.core.attention import (
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    sinusoidal_positions,
    split_heads,
)
from app.core.layers import SELF_ATTENTION_BLOCK, feed_forward, layer_norm
from app.models.close_words import close_words
from app.refusal import Refusal, UnknownWords

FloatArray = NDArray[np.float64]
PAD, BOS, EOS = "<pad>", "<s>", "</s>"
SPECIALS = (PAD, BOS, EOS)
WEIGHTS_FILE = "translator.npz"
RECORD_FILE = "translator_record.json"
MAX_STEPS = 80  # the longest translation written, whatever the source
# The longest English sentence among the training pairs: training/parallel_corpus.py draws 3 to 30 words
# (MAX_WORDS there; tests/models/test_translator.py checks the two agree). Past it, the model is guessing.
TRAINED_MAX_WORDS = 30
VOCABULARY = "the translator's vocabulary"

ENCODER_PARAMETERS = SELF_ATTENTION_BLOCK
DECODER_PARAMETERS = (
    "ln1_g",
    "ln1_b",
    "self_w_q",
    "self_w_k",
    "self_w_v",
    "self_w_o",
    "ln2_g",
    "ln2_b",
    "cross_w_q",
    "cross_w_k",
    "cross_w_v",
    "cross_w_o",
    "ln3_g",
    "ln3_b",
    "ff_w1",
    "ff_b1",
    "ff_w2",
    "ff_b2",
)


@dataclass(frozen=True)
class Encoding:
    """The encoder's output: memory (S, d_model), its self-attention (layers, h, S, S), and per decoder layer
    the cross-attention keys and values, split into heads once: (h, S, d_k) each."""

    memory: FloatArray
    self_attention: FloatArray
    cross_keys: list[FloatArray]
    cross_values: list[FloatArray]


@dataclass
class DecoderCache:
    """Keys and values of every position decoded so far, per decoder layer: (h, t, d_k), growing along t."""

    keys: list[FloatArray]
    values: list[FloatArray]
    length: int = 0


@dataclass(frozen=True)
class Step:
    """One decoding step at position t: next-token logits (V_tgt,), masked self-attention (layers, h, t + 1)
    over the decoder inputs so far, and cross-attention (layers, h, S) over the source."""

    logits: FloatArray
    self_attention: FloatArray
    cross_attention: FloatArray


@dataclass(frozen=True)
class Forward:
    """A whole target prefix at once: logits (T, V_tgt), self-attention (layers, h, T, T) with the future
    masked, cross-attention (layers, h, T, S)."""

    logits: FloatArray
    self_attention: FloatArray
    cross_attention: FloatArray


@dataclass(frozen=True)
class Translation:
    """Greedy decoding of one source: the words written and every step's attention."""

    source: list[str]
    target: list[str]
    steps: list[Step] = field(repr=False)


class Translator:
    """The trained network, its vocabularies, and greedy decoding with a cache of earlier steps."""

    def __init__(
        self,
        params: dict[str, FloatArray],
        heads: int,
        source_vocabulary: list[str],
        target_vocabulary: list[str],
    ) -> None:
        self.params = params
        self.heads = heads
        self.encoder_layers = sum(1 for name in params if name.startswith("enc") and name.endswith("ln1_g"))
        self.decoder_layers = sum(1 for name in params if name.startswith("dec") and name.endswith("ln1_g"))
        self.d_model = int(params["src_emb"].shape[1])
        assert self.d_model % heads == 0, f"d_model={self.d_model} is not a multiple of heads={heads}"
        self.source_vocabulary = source_vocabulary
        self.target_vocabulary = target_vocabulary
        self.source_index = {w: k for k, w in enumerate(source_vocabulary)}
        self.target_index = {w: k for k, w in enumerate(target_vocabulary)}
        self.words = sorted(w for w in source_vocabulary if w not in SPECIALS)

    def _layer(self, stack: str, layer: int, names: tuple[str, ...]) -> dict[str, FloatArray]:
        return {name: self.params[f"{stack}{layer}.{name}"] for name in names}

    def _embed(self, table: str, ids: list[int], start: int = 0) -> FloatArray:
        """E[ids] · √d_model + PE[start : start + T]."""
        pe = sinusoidal_positions(start + len(ids), self.d_model)[start:]  # (T, d_model)
        return self.params[table][ids] * np.sqrt(self.d_model) + pe  # (T, d_model)

    # ---- the encoder -------------------------------------------------------------------------------------

    def unknown_words(self, words: list[str]) -> UnknownWords | None:
        """UnknownWords naming the words outside the vocabulary, once each and in order, each with up to
        three close known words (app/models/close_words.py); None when every word is known."""
        unknown = list(dict.fromkeys(w for w in words if w not in self.source_index or w in SPECIALS))
        if not unknown:
            return None
        suggestions = {w: close_words(w, self.words) for w in unknown}
        return UnknownWords(unknown, VOCABULARY, suggestions, listed=True)

    def check(self, words: list[str]) -> None:
        """Refuse, before any decoding, a sentence the translator cannot honestly translate: one longer than
        any it was trained on, or with words it does not know (both named in one refusal when both apply).
        The refusal states its facts as fields too: ``max_words`` and ``word_count`` for the length,
        ``unknown`` and ``suggestions`` for the words."""
        unknown = self.unknown_words(words)
        if len(words) <= TRAINED_MAX_WORDS:
            if unknown:
                raise unknown
            return
        detail = (
            f"The translator was trained on sentences of at most {TRAINED_MAX_WORDS} words; "
            f"this one has {len(words)}."
        )
        fields = {"max_words": TRAINED_MAX_WORDS, "word_count": len(words)}
        if unknown:
            raise Refusal(f"{detail} Also {unknown.detail}", fields={**fields, **unknown.fields})
        raise Refusal(detail, fields=fields)

    def source_ids(self, words: list[str]) -> list[int]:
        """Token ids of the source words, or UnknownWords naming the others with close known words."""
        unknown = self.unknown_words(words)
        if unknown:
            raise unknown
        return [self.source_index[w] for w in words]

    def encode(self, ids: list[int]) -> Encoding:
        """Run the encoder once over the source; precompute every decoder layer's cross keys and values."""
        h = self.heads
        x = self._embed("src_emb", ids)  # (S, d_model)
        maps = []
        for layer in range(self.encoder_layers):
            p = self._layer("enc", layer, ENCODER_PARAMETERS)
            att = multi_head_attention(
                layer_norm(x, p["ln1_g"], p["ln1_b"]), p["w_q"], p["w_k"], p["w_v"], h, w_o=p["w_o"]
            )
            assert att.output is not None
            x = x + att.output
            x = x + feed_forward(layer_norm(x, p["ln2_g"], p["ln2_b"]), p)
            maps.append(att.stages.weights)  # (h, S, S)
        memory = layer_norm(x, self.params["enc_ln_g"], self.params["enc_ln_b"])  # (S, d_model)
        keys, values = [], []
        for layer in range(self.decoder_layers):
            p = self._layer("dec", layer, DECODER_PARAMETERS)
            keys.append(split_heads(memory @ p["cross_w_k"], h))  # (S, d_model) -> (h, S, d_k)
            values.append(split_heads(memory @ p["cross_w_v"], h))  # (S, d_model) -> (h, S, d_k)
        return Encoding(memory=memory, self_attention=np.stack(maps), cross_keys=keys, cross_values=values)

    # ---- the decoder -------------------------------------------------------------------------------------

    def new_cache(self) -> DecoderCache:
        d_k = self.d_model // self.heads
        empty = np.zeros((self.heads, 0, d_k))
        return DecoderCache(
            keys=[empty] * self.decoder_layers, values=[empty] * self.decoder_layers, length=0
        )

    def _cross(
        self, x: FloatArray, p: dict[str, FloatArray], encoding: Encoding, layer: int
    ) -> tuple[FloatArray, FloatArray]:
        """CrossAttention(LN(x), memory): queries from the decoder, keys and values from the source.

        Returns the residual update (T, d_model) and the weights (h, T, S)."""
        q = split_heads(layer_norm(x, p["ln2_g"], p["ln2_b"]) @ p["cross_w_q"], self.heads)  # (h, T, d_k)
        att = scaled_dot_product_attention(q, encoding.cross_keys[layer], encoding.cross_values[layer])
        return merge_heads(att.context) @ p["cross_w_o"], att.weights  # (h, T, d_k) -> (T, d_model)

    def step(self, encoding: Encoding, cache: DecoderCache, token: int) -> Step:
        """Decode position t = cache.length, whose input is ``token``; extends the cache by one position.

        Only the new position's query, key and value are computed; its self-attention reads the cached keys
        and values of positions 0..t, so there is nothing in the future to mask.
        """
        h, t = self.heads, cache.length
        x = self._embed("tgt_emb", [token], start=t)  # (1, d_model)
        self_maps, cross_maps = [], []
        for layer in range(self.decoder_layers):
            p = self._layer("dec", layer, DECODER_PARAMETERS)
            a = layer_norm(x, p["ln1_g"], p["ln1_b"])  # (1, d_model)
            q = split_heads(a @ p["self_w_q"], h)  # (1, d_model) -> (h, 1, d_k)
            k = split_heads(a @ p["self_w_k"], h)  # (1, d_model) -> (h, 1, d_k)
            v = split_heads(a @ p["self_w_v"], h)  # (1, d_model) -> (h, 1, d_k)
            cache.keys[layer] = np.concatenate([cache.keys[layer], k], axis=1)  # (h, t + 1, d_k)
            cache.values[layer] = np.concatenate([cache.values[layer], v], axis=1)  # (h, t + 1, d_k)
            att = scaled_dot_product_attention(q, cache.keys[layer], cache.values[layer])  # (h, 1, t + 1)
            x = x + merge_heads(att.context) @ p["self_w_o"]  # (h, 1, d_k) -> (1, d_model)
            update, cross = self._cross(x, p, encoding, layer)  # cross: (h, 1, S)
            x = x + update
            x = x + feed_forward(layer_norm(x, p["ln3_g"], p["ln3_b"]), p)
            self_maps.append(att.weights[:, 0])  # (h, t + 1)
            cross_maps.append(cross[:, 0])  # (h, S)
        cache.length = t + 1
        y = layer_norm(x, self.params["dec_ln_g"], self.params["dec_ln_b"])  # (1, d_model)
        logits = (y @ self.params["tgt_emb"].T)[0]  # (1, d_model) @ (d_model, V) -> (V,)
        return Step(logits=logits, self_attention=np.stack(self_maps), cross_attention=np.stack(cross_maps))

    def forward(self, encoding: Encoding, ids: list[int]) -> Forward:
        """The decoder over a whole prefix at once (teacher forcing), with the causal mask set to −∞."""
        x = self._embed("tgt_emb", ids)  # (T, d_model)
        self_maps, cross_maps = [], []
        for layer in range(self.decoder_layers):
            p = self._layer("dec", layer, DECODER_PARAMETERS)
            att = multi_head_attention(
                layer_norm(x, p["ln1_g"], p["ln1_b"]),
                p["self_w_q"],
                p["self_w_k"],
                p["self_w_v"],
                self.heads,
                w_o=p["self_w_o"],
                mask="neg_inf",
            )
            assert att.output is not None
            x = x + att.output
            update, cross = self._cross(x, p, encoding, layer)  # cross: (h, T, S)
            x = x + update
            x = x + feed_forward(layer_norm(x, p["ln3_g"], p["ln3_b"]), p)
            self_maps.append(att.stages.weights)  # (h, T, T)
            cross_maps.append(cross)
        y = layer_norm(x, self.params["dec_ln_g"], self.params["dec_ln_b"])  # (T, d_model)
        logits = y @ self.params["tgt_emb"].T  # (T, d_model) @ (d_model, V) -> (T, V)
        return Forward(
            logits=logits, self_attention=np.stack(self_maps), cross_attention=np.stack(cross_maps)
        )

    def translate(self, words: list[str], max_steps: int | None = None) -> Translation:
        """Greedy decoding: encode once, then feed back the most likely token until </s>.

        Steps that write </s> are not returned; every returned step wrote the word ``target[t]``.
        """
        encoding = self.encode(self.source_ids(words))
        limit = max_steps if max_steps is not None else min(MAX_STEPS, 2 * len(words) + 4)
        banned = [self.target_index[PAD], self.target_index[BOS]]
        cache = self.new_cache()
        token = self.target_index[BOS]
        target: list[str] = []
        steps: list[Step] = []
        for _ in range(limit):
            step = self.step(encoding, cache, token)
            scores = step.logits.copy()
            scores[banned] = -np.inf
            token = int(np.argmax(scores))
            if token == self.target_index[EOS]:
                break
            target.append(self.target_vocabulary[token])
            steps.append(step)
        return Translation(source=list(words), target=target, steps=steps)


class TranslatorModel:
    """The committed translator and its training record."""

    def __init__(self, weights: Path, record: Path) -> None:
        with np.load(weights, allow_pickle=False) as data:
            self.translator = Translator(
                {k: data[k].astype(np.float64) for k in data.files if "vocabulary" not in k and k != "heads"},
                int(data["heads"]),
                [str(w) for w in data["source_vocabulary"]],
                [str(w) for w in data["target_vocabulary"]],
            )
        self.record: dict[str, Any] = json.loads(record.read_text(encoding="utf-8"))

    @property
    def best_layer(self) -> int:
        return int(self.record["best_layer"])


@lru_cache
def get_translator() -> TranslatorModel:
    weights_dir = get_settings().weights_dir
    return TranslatorModel(weights_dir / WEIGHTS_FILE, weights_dir / RECORD_FILE)
