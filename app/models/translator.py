"""Figure 5's translator, run in numpy: an encoder-decoder Transformer that writes French one token at a time.

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

``encode`` and ``step`` are the readable path, written with app/core/attention.py's stage-by-stage functions.
``translate`` serves with ``FastDecoder``: the same arithmetic in the same order, with the validation, the
kept intermediates and the per-step allocations taken out (tests/models/test_translator_fast.py checks the
two give the same tokens and attention maps). ``translate_many`` decodes several sentences in step, their
rows stacked so that each weight matrix is read once per step for all of them (``FastDecoder.greedy_many``;
bench/translate_batch.py measures what it saves).

Weights come from ``training/train_translator.py``; see ``app/weights/README.md``.
"""

from __future__ import annotations

import json
import math
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
from app.core.layers import EPS, SELF_ATTENTION_BLOCK, feed_forward, layer_norm
from app.models.suggest import Suggestions
from app.web.refusal import Refusal, UnknownWords

FloatArray = NDArray[np.float64]
PAD, BOS, EOS = "<pad>", "<s>", "</s>"
SPECIALS = (PAD, BOS, EOS)
WEIGHTS_FILE = "translator.npz"
RECORD_FILE = "translator_record.json"
MAX_STEPS = 80  # the longest translation written, whatever the source
# The longest English sentence among the training pairs: training/parallel_corpus.py draws 3 to 30 words
# (MAX_WORDS there; tests/models/test_translator.py checks the two agree). Past it, the model is guessing.
TRAINED_MAX_WORDS = 30
FLOAT32_MAPS = 1e-5  # how far a map decoded in float32 may be from the float64 one, alone or in a batch
VOCABULARY = "the translator's vocabulary"
SUGGESTED_AT_MOST = 8  # the unknown words of one refusal given close known words; any others are named alone
# A content word no step read: the most weight that any one step's cross-attention (the best layer, its heads
# averaged) put on it stays below this. Chosen from the training record's "unread" measurement, which
# train_translator --measure writes: how many of the words left out it catches and how many right
# translations it flags, at this threshold and at others (the record keeps them all).
UNREAD_BELOW = 0.4
CONTENT_KINDS = frozenset({"noun", "verb", "adjective", "number", "negation"})  # the kinds the check reads

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
        self.suggestions = Suggestions(self.words)
        self.fast = FastDecoder(self)
        # What the server answers with: the same decoding in float32, the precision the network was trained
        # in, at about half the time in a batch (tests/models/test_translator_fast.py bounds the difference).
        self.fast32 = FastDecoder(self, np.float32)

    def _layer(self, stack: str, layer: int, names: tuple[str, ...]) -> dict[str, FloatArray]:
        return {name: self.params[f"{stack}{layer}.{name}"] for name in names}

    def _embed(self, table: str, ids: list[int], start: int = 0) -> FloatArray:
        """E[ids] · √d_model + PE[start : start + T]."""
        pe = sinusoidal_positions(start + len(ids), self.d_model)[start:]  # (T, d_model)
        return self.params[table][ids] * np.sqrt(self.d_model) + pe  # (T, d_model)

    # ---- the encoder -------------------------------------------------------------------------------------

    def unknown(self, words: list[str]) -> list[str]:
        """The words outside the vocabulary, once each and in order: a set lookup a word, cheap enough to ask
        before deciding whether a sentence needs ``check``'s refusal worked out."""
        return list(dict.fromkeys(w for w in words if w not in self.source_index or w in SPECIALS))

    def unknown_words(self, words: list[str]) -> UnknownWords | None:
        """UnknownWords naming the words outside the vocabulary, once each and in order, the first
        SUGGESTED_AT_MOST each with up to three known words that fit where it stands (app/models/suggest.py:
        by meaning for a real word, by spelling for a typo); None when every word is known."""
        unknown = self.unknown(words)
        if not unknown:
            return None
        before = {}
        for k, w in enumerate(words):
            before.setdefault(w, words[k - 1] if k else "")
        suggestions = {w: list(self.suggestions.find(w, before[w])) for w in unknown[:SUGGESTED_AT_MOST]}
        return UnknownWords(unknown, VOCABULARY, suggestions, listed=True)

    def check(self, words: list[str]) -> None:
        """Refuse, before any decoding, a sentence the translator cannot honestly translate: one longer than
        any it was trained on, or with words it does not know (both named in one refusal when both apply).
        The refusal states its facts as fields too: ``max_words`` and ``word_count`` for the length,
        ``unknown`` and ``suggestions`` for the words. The length is judged first; close words are looked
        for only for the first SUGGESTED_AT_MOST unknown words, and each word's are remembered."""
        if len(words) <= TRAINED_MAX_WORDS:
            unknown = self.unknown_words(words)
            if unknown:
                raise unknown
            return
        unknown = self.unknown_words(words)
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

    def step_limit(self, words: list[str], max_steps: int | None = None) -> int:
        """How many tokens greedy decoding may write: ``max_steps``, or twice the source plus four (at most
        MAX_STEPS)."""
        return max_steps if max_steps is not None else min(MAX_STEPS, 2 * len(words) + 4)

    def translate(self, words: list[str], max_steps: int | None = None) -> Translation:
        """Greedy decoding: encode once, then feed back the most likely token until </s>.

        Steps that write </s> are not returned; every returned step wrote the word ``target[t]``. Runs
        ``FastDecoder``; ``translate_stepwise`` is the same decoding through ``encode`` and ``step``.
        """
        ids = self.source_ids(words)
        target, steps = self.fast.greedy(ids, self.step_limit(words, max_steps))
        return Translation(source=list(words), target=target, steps=steps)

    def translate_many(
        self, sentences: list[list[str]], max_steps: int | None = None, *, float32: bool = False
    ) -> list[Translation]:
        """``translate`` of several sentences in one pass over the weights (``FastDecoder.greedy_many``): each
        item is what ``translate`` returns for its sentence, tokens equal and every number within 1e-12 (the
        batched products round differently from the lone ones; a batch of one is ``translate`` itself).
        Refuses, as ``translate`` would, the first sentence with words outside the vocabulary.

        ``float32=True`` decodes in float32 (``fast32``), as the server does: every map within FLOAT32_MAPS of
        the float64 one, and the same words on every held-out and novel pair of the tests."""
        ids = [self.source_ids(words) for words in sentences]
        limits = [self.step_limit(words, max_steps) for words in sentences]
        decoded = (self.fast32 if float32 else self.fast).greedy_many(ids, limits)
        return [
            Translation(source=list(words), target=target, steps=steps)
            for words, (target, steps) in zip(sentences, decoded, strict=True)
        ]

    def translate_stepwise(self, words: list[str], max_steps: int | None = None) -> Translation:
        """``translate`` written with the readable ``encode`` and ``step`` (the reference the fast path is
        checked against, and the baseline bench/translate.py times it against)."""
        encoding = self.encode(self.source_ids(words))
        limit = self.step_limit(words, max_steps)
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


# ---- the fast path ---------------------------------------------------------------------------------------


# ufunc reductions called directly: what ndarray.sum, .mean and .max call, without their Python wrappers
_sum, _max = np.add.reduce, np.maximum.reduce


def _norm(x: FloatArray, gain: FloatArray, bias: FloatArray) -> FloatArray:
    """layer_norm (app/core/layers.py) over the last axis, in its operations and their order, without the
    generic mean and var wrappers:  c = x − Σx / d;  c / √(Σc² / d + eps) · gain + bias."""
    width = x.shape[-1]
    centred = x - _sum(x, axis=-1, keepdims=True) / width
    return centred / np.sqrt(_sum(centred * centred, axis=-1, keepdims=True) / width + EPS) * gain + bias


def _norm_row(x: FloatArray, gain: FloatArray, bias: FloatArray) -> FloatArray:
    """``_norm`` of one row (d_model,), the mean and variance as scalars (fewer numpy calls, same numbers)."""
    width = x.shape[0]
    centred = x - _sum(x) / width
    return centred / math.sqrt(_sum(centred * centred) / width + EPS) * gain + bias


def _softmax(z: FloatArray, out: FloatArray | None = None) -> FloatArray:
    """softmax (app/core/masks.py) over the last axis, written into ``out`` if given:
    exp(z − max z) / Σ exp(z − max z). The scores here are always finite, so the reference's guard for a
    row of −∞ is left out."""
    e = np.exp(z - _max(z, axis=-1, keepdims=True))
    return np.divide(e, _sum(e, axis=-1, keepdims=True), out=out)


# Rows multiplied by a weight matrix at once in the batched paths. OpenBLAS multiplies a product of at most
# 100³ multiply-adds with a kernel that does not pack its operands first: on the development machine 8 rows
# of a (128, 512) or (128, 782) weight took 0.4× the time of 16 rows (which take the general path), and a
# 96-row feed-forward layer done 8 rows at a time 0.8× the time of all at once (with no hidden layer of
# 96 × 512 to allocate and fault in).
ROW_BLOCK = 8


def _rows_product(x: FloatArray, w: FloatArray) -> FloatArray:
    """x @ w for many rows, (n, k) @ (k, m) -> (n, m), ROW_BLOCK rows at a time (each row's product is the
    same; only how many are done at once changes)."""
    n = len(x)
    if n <= ROW_BLOCK:
        return x @ w
    out = np.empty((n, w.shape[1]), dtype=x.dtype)
    for start in range(0, n, ROW_BLOCK):
        np.matmul(x[start : start + ROW_BLOCK], w, out=out[start : start + ROW_BLOCK])
    return out


Norm = tuple[FloatArray, FloatArray]  # a layer norm's (gain, bias), each (d_model,)


@dataclass(frozen=True, slots=True)
class _FastBlock:
    """One encoder layer's weights as the fast path reads them; ``w_qkv`` is [W_Q | W_K | W_V]
    (d_model, 3 d_model), so one product gives the query, key and value of every head."""

    attention_norm: Norm
    w_qkv: FloatArray
    w_o: FloatArray
    ffn_norm: Norm
    ff_w1: FloatArray
    ff_b1: FloatArray
    ff_w2: FloatArray
    ff_b2: FloatArray

    def feed_forward(self, x: FloatArray) -> FloatArray:
        """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, as app/core/layers.py writes it."""
        return np.maximum(x @ self.ff_w1 + self.ff_b1, 0.0) @ self.ff_w2 + self.ff_b2

    def feed_forward_rows(self, x: FloatArray) -> FloatArray:
        """``feed_forward`` of many rows (n, d_model) for the batched paths, ROW_BLOCK rows at a time, each
        block's hidden layer (ROW_BLOCK, d_ff) done in place: the same operations on every row."""
        out = np.empty_like(x)  # (n, d_model)
        for start in range(0, len(x), ROW_BLOCK):
            hidden = x[start : start + ROW_BLOCK] @ self.ff_w1  # (ROW_BLOCK, d_ff)
            hidden += self.ff_b1
            np.maximum(hidden, 0.0, out=hidden)
            np.matmul(hidden, self.ff_w2, out=out[start : start + ROW_BLOCK])
        out += self.ff_b2
        return out


@dataclass(frozen=True, slots=True)
class _FastDecoderBlock(_FastBlock):
    """One decoder layer's: the masked self-attention's and the FFN's as in ``_FastBlock``, and the
    cross-attention's query and output projections (its keys and values come from the encoder, once per
    sentence)."""

    cross_norm: Norm
    cross_w_q: FloatArray
    cross_w_o: FloatArray


class FastDecoder:
    """``Translator.translate``'s arithmetic with as few numpy calls as it allows, for serving.

    Per step and decoder layer: one product for the new position's query, key and value (W_QKV concatenated
    at load); its key and value written into a preallocated (h, steps, d_k) cache instead of a concatenation;
    layer norm and softmax inline, without validation; every attention map written straight into one array
    per sentence, which the returned steps view. The encoder runs the same way and projects the cross keys
    and values of every decoder layer in one product. Every operation is the readable path's, in its order:
    on every held-out and novel pair the two agree bit for bit (tests/models/test_translator_fast.py allows
    1e-12, in case another BLAS splits a product differently).
    """

    def __init__(self, translator: Translator, dtype: type[np.floating[Any]] = np.float64) -> None:
        def weight(name: str) -> FloatArray:
            return np.ascontiguousarray(translator.params[name], dtype=dtype)

        def norm(prefix: str) -> Norm:
            return weight(f"{prefix}_g"), weight(f"{prefix}_b")

        def block(stack: str, k: int, self_: str = "") -> dict[str, Any]:
            """The weights an encoder layer and a decoder layer share (the decoder's self-attention ones are
            named self_w_q, …)."""
            w_qkv = np.concatenate([weight(f"{stack}{k}.{self_}w_{m}") for m in "qkv"], axis=1)
            ffn = {name: weight(f"{stack}{k}.{name}") for name in ("ff_w1", "ff_b1", "ff_w2", "ff_b2")}
            return {
                "attention_norm": norm(f"{stack}{k}.ln1"),
                "w_qkv": w_qkv,
                "w_o": weight(f"{stack}{k}.{self_}w_o"),
                **ffn,
            }

        self.dtype = dtype
        self.heads = translator.heads
        self.d_model = translator.d_model
        self.encoder = [
            _FastBlock(**block("enc", k), ffn_norm=norm(f"enc{k}.ln2"))
            for k in range(translator.encoder_layers)
        ]
        self.decoder = [
            _FastDecoderBlock(
                **block("dec", k, "self_"),
                cross_norm=norm(f"dec{k}.ln2"),
                cross_w_q=weight(f"dec{k}.cross_w_q"),
                cross_w_o=weight(f"dec{k}.cross_w_o"),
                ffn_norm=norm(f"dec{k}.ln3"),
            )
            for k in range(translator.decoder_layers)
        ]
        # [W_K | W_V] of decoder layer 0's cross-attention, then layer 1's, …: (d_model, 2 · layers · d_model)
        self.cross_w_kv = np.concatenate(
            [weight(f"dec{k}.cross_w_{m}") for k in range(translator.decoder_layers) for m in "kv"], axis=1
        )
        self.src_emb = weight("src_emb")  # (V_src, d_model)
        self.tgt_emb = weight("tgt_emb")  # (V_tgt, d_model)
        self.tgt_emb_t = np.ascontiguousarray(self.tgt_emb.T)  # (d_model, V_tgt): the batched logits' matrix
        self.enc_norm = norm("enc_ln")
        self.dec_norm = norm("dec_ln")
        self.embedding_scale = dtype(np.sqrt(self.d_model))  # a float64 scalar would promote float32 arrays
        self.key_scale = dtype(np.sqrt(self.d_model // self.heads))  # √d_k
        self.positions = sinusoidal_positions(MAX_STEPS, self.d_model).astype(dtype)  # grown on demand
        # 0 for a token greedy decoding may write, −∞ for <pad> and <s>: added to the logits before argmax
        self.banned = np.zeros(len(translator.target_vocabulary), dtype=dtype)
        self.banned[[translator.target_index[PAD], translator.target_index[BOS]]] = -np.inf
        self.bos = translator.target_index[BOS]
        self.eos = translator.target_index[EOS]
        self.target_vocabulary = translator.target_vocabulary

    def _positions(self, n: int) -> FloatArray:
        """PE[0:n] (n, d_model); a row does not depend on n, so one table serves every length."""
        if n > len(self.positions):
            self.positions = sinusoidal_positions(n, self.d_model).astype(self.dtype)
        return self.positions[:n]

    def encode(self, ids: list[int]) -> tuple[FloatArray, FloatArray]:
        """The encoder over the source; returns the cross keys and values of every decoder layer, each
        (layers, h, S, d_k). The encoder's own attention maps are not kept (serving does not send them)."""
        h, d = self.heads, self.d_model
        S, d_k = len(ids), d // h
        x = self.src_emb[ids] * self.embedding_scale + self._positions(S)  # (S, d_model)
        for p in self.encoder:
            qkv = _norm(x, *p.attention_norm) @ p.w_qkv  # (S, 3 d_model)
            q, k, v = qkv.reshape(S, 3, h, d_k).transpose(1, 2, 0, 3)  # each (h, S, d_k)
            weights = _softmax(q @ k.transpose(0, 2, 1) / self.key_scale)  # (h, S, S)
            x = x + (weights @ v).transpose(1, 0, 2).reshape(S, d) @ p.w_o  # (h, S, d_k) -> (S, d_model)
            x = x + p.feed_forward(_norm(x, *p.ffn_norm))
        memory = _norm(x, *self.enc_norm)  # (S, d_model)
        kv = (memory @ self.cross_w_kv).reshape(S, len(self.decoder), 2, h, d_k)  # (S, layers, 2, h, d_k)
        keys, values = kv.transpose(2, 1, 3, 0, 4)  # each (layers, h, S, d_k)
        return keys, values

    def greedy(self, ids: list[int], limit: int) -> tuple[list[str], list[Step]]:
        """Greedy decoding of the source ``ids`` for at most ``limit`` tokens: the words written and the step
        of each (the step that writes </s> is not returned)."""
        h, d = self.heads, self.d_model
        d_k, layers, S = d // h, len(self.decoder), len(ids)
        cross_keys, cross_values = self.encode(ids)  # (layers, h, S, d_k) each
        cross_keys_t = cross_keys.transpose(0, 1, 3, 2)  # (layers, h, d_k, S)
        # the self-attention cache: keys (index 0) and values (1) of position t, written at step t
        cache = np.empty((layers, 2, h, limit, d_k), dtype=self.dtype)
        # every step's maps: step t writes self_maps[t, layer, :, 0, : t + 1] and cross_maps[t, layer, :, 0]
        self_maps = np.empty((limit, layers, h, 1, limit), dtype=self.dtype)
        cross_maps = np.empty((limit, layers, h, 1, S), dtype=self.dtype)
        positions = self._positions(limit)
        target: list[str] = []
        steps: list[Step] = []
        token = self.bos
        for t in range(limit):
            x = self.tgt_emb[token] * self.embedding_scale + positions[t]  # (d_model,)
            for layer, p in enumerate(self.decoder):
                qkv = _norm_row(x, *p.attention_norm) @ p.w_qkv  # (3 d_model,)
                cache[layer, :, :, t] = qkv[d:].reshape(2, h, d_k)
                k, v = cache[layer, :, :, : t + 1]  # (h, t + 1, d_k) each
                scores = qkv[:d].reshape(h, 1, d_k) @ k.transpose(0, 2, 1)  # (h, 1, t + 1)
                weights = _softmax(scores / self.key_scale, out=self_maps[t, layer, :, :, : t + 1])
                x = x + (weights @ v).reshape(d) @ p.w_o  # (h, 1, d_k) -> (d_model,)

                q = (_norm_row(x, *p.cross_norm) @ p.cross_w_q).reshape(h, 1, d_k)
                weights = _softmax(q @ cross_keys_t[layer] / self.key_scale, out=cross_maps[t, layer])
                x = x + (weights @ cross_values[layer]).reshape(d) @ p.cross_w_o  # (h, 1, S) -> (d_model,)

                x = x + p.feed_forward(_norm_row(x, *p.ffn_norm))
            logits = _norm_row(x, *self.dec_norm) @ self.tgt_emb.T  # (d_model,) @ (d_model, V) -> (V,)
            token = int((logits + self.banned).argmax())
            if token == self.eos:
                break
            target.append(self.target_vocabulary[token])
            steps.append(
                Step(
                    logits=logits,
                    self_attention=self_maps[t, :, :, 0, : t + 1],  # (layers, h, t + 1)
                    cross_attention=cross_maps[t, :, :, 0],  # (layers, h, S)
                )
            )
        return target, steps

    def encode_many(self, sources: list[list[int]]) -> tuple[FloatArray, FloatArray]:
        """``encode`` of G sources of one length S at once, every linear product over all G · S rows: the
        cross keys and values of every decoder layer, each (layers, G, h, S, d_k)."""
        h, d = self.heads, self.d_model
        G, S, d_k = len(sources), len(sources[0]), d // h
        x = (self.src_emb[sources] * self.embedding_scale + self._positions(S)).reshape(G * S, d)
        for p in self.encoder:
            qkv = _norm(x, *p.attention_norm) @ p.w_qkv  # (G · S, 3 d_model)
            q, k, v = qkv.reshape(G, S, 3, h, d_k).transpose(2, 0, 3, 1, 4)  # each (G, h, S, d_k)
            weights = _softmax(q @ k.transpose(0, 1, 3, 2) / self.key_scale)  # (G, h, S, S)
            context = (weights @ v).transpose(0, 2, 1, 3).reshape(G * S, d)  # (G, h, S, d_k) -> (G · S, d)
            x += context @ p.w_o
            x += p.feed_forward_rows(_norm(x, *p.ffn_norm))
        memory = _norm(x, *self.enc_norm)  # (G · S, d_model)
        kv = (memory @ self.cross_w_kv).reshape(G, S, len(self.decoder), 2, h, d_k)
        keys, values = kv.transpose(3, 2, 0, 4, 1, 5)  # each (layers, G, h, S, d_k)
        return keys, values

    def greedy_many(self, sources: list[list[int]], limits: list[int]) -> list[tuple[list[str], list[Step]]]:
        """``greedy`` of B sources at once, each for at most its own limit: what ``greedy`` returns for each.

        A batch of one is ``greedy`` itself. Otherwise the sources are encoded a length at a time, and the B
        sentences decode in step: their current rows stacked (n, d_model), so each weight matrix is read once
        per step for all of them. The self-attention cache holds every sentence's positions 0..t (they are
        all at step t); the cross-attention reads keys and values padded to the longest source, with −∞
        scores on the padding (so its weights there are exactly 0, and each sentence's map is cut to its own
        S columns). A sentence that writes </s> or reaches its limit leaves the batch: the last rows still
        decoding move into its slot, so the n rows decoding are always the first n.
        """
        B = len(sources)
        if B == 1:
            return [self.greedy(sources[0], limits[0])]
        h, d = self.heads, self.d_model
        d_k, layers = d // h, len(self.decoder)
        lengths = [len(ids) for ids in sources]
        if 0 in lengths:  # as ``greedy`` refuses one: there would be nothing to attend to
            raise ValueError("an empty source")
        S, limit = max(lengths, default=0), max(limits, default=0)
        # cross keys (transposed) and values, padded with zeros to the longest source; one encoding per length
        cross_keys_t = np.zeros((layers, B, h, d_k, S), dtype=self.dtype)
        cross_values = np.zeros((layers, B, h, S, d_k), dtype=self.dtype)
        for length in sorted(set(lengths)):
            rows = [b for b in range(B) if lengths[b] == length]
            keys, values = self.encode_many([sources[b] for b in rows])  # (layers, G, h, S_b, d_k) each
            cross_keys_t[:, rows, :, :, :length] = keys.transpose(0, 1, 2, 4, 3)
            cross_values[:, rows, :, :length] = values
        # 0 on a source's own columns, −∞ on its padding; None when every source has the longest length
        padding: FloatArray | None = None
        if min(lengths, default=0) < S:
            padding = np.where(np.arange(S) < np.array(lengths)[:, None], 0.0, -np.inf).astype(self.dtype)
            padding = padding[:, None, None, :]  # (B, 1, 1, S): added to the (n, h, 1, S) scores
        # the self-attention cache: keys (index 0) and values (1) of position t of every row, written at step
        # t; position first, so that a step touches only its own position's memory
        cache = np.empty((limit, layers, 2, B, h, d_k), dtype=self.dtype)
        positions = self._positions(limit)
        results: list[tuple[list[str], list[Step]]] = [([], []) for _ in range(B)]
        sentence = [b for b in range(B) if limits[b] > 0]  # the sentence each row decodes
        n = len(sentence)
        if n < B:  # a limit of 0 writes nothing: move the others to the first rows
            cache_rows = np.array(sentence, dtype=np.intp)
            cross_keys_t, cross_values = cross_keys_t[:, cache_rows], cross_values[:, cache_rows]
            padding = None if padding is None else padding[cache_rows]
        tokens = np.full(n, self.bos, dtype=np.intp)
        for t in range(limit):
            if n == 0:
                break
            # this step's maps of every row, which the returned steps view: (n, layers, h, 1, t + 1 or S)
            self_maps = np.empty((n, layers, h, 1, t + 1), dtype=self.dtype)
            cross_maps = np.empty((n, layers, h, 1, S), dtype=self.dtype)
            x = self.tgt_emb[tokens] * self.embedding_scale + positions[t]  # (n, d_model)
            for layer, p in enumerate(self.decoder):
                qkv = (_norm(x, *p.attention_norm) @ p.w_qkv).reshape(n, 3, h, d_k)  # (n, 3, h, d_k)
                cache[t, layer, :, :n] = qkv[:, 1:].transpose(1, 0, 2, 3)
                k, v = cache[: t + 1, layer, :, :n].transpose(1, 2, 3, 0, 4)  # (n, h, t + 1, d_k) each
                scores = qkv[:, 0, :, None] @ k.transpose(0, 1, 3, 2)  # (n, h, 1, t + 1)
                weights = _softmax(scores / self.key_scale, out=self_maps[:, layer])
                x += (weights @ v).reshape(n, d) @ p.w_o  # (n, h, 1, d_k) -> (n, d_model)

                q = (_norm(x, *p.cross_norm) @ p.cross_w_q).reshape(n, h, 1, d_k)
                scores = q @ cross_keys_t[layer, :n] / self.key_scale  # (n, h, 1, S)
                if padding is not None:
                    scores += padding[:n]
                weights = _softmax(scores, out=cross_maps[:, layer])
                x += (weights @ cross_values[layer, :n]).reshape(n, d) @ p.cross_w_o  # -> (n, d_model)

                x += p.feed_forward_rows(_norm(x, *p.ffn_norm))
            logits = _rows_product(_norm(x, *self.dec_norm), self.tgt_emb_t)  # (n, d_model) @ (d_model, V)
            written = (logits + self.banned).argmax(axis=1).tolist()
            # each row's views, made in one call each: (V,), (layers, h, t + 1) and (layers, h, S)
            rows = zip(logits, self_maps[:, :, :, 0], cross_maps[:, :, :, 0], strict=True)
            done = []  # the rows whose sentence ends at this step
            for row, (token, (row_logits, self_map, cross_map)) in enumerate(zip(written, rows, strict=True)):
                b = sentence[row]
                if token != self.eos:
                    target, steps = results[b]
                    target.append(self.target_vocabulary[token])
                    if lengths[b] < S:
                        cross_map = cross_map[:, :, : lengths[b]]  # (layers, h, S_b): its own columns
                    steps.append(Step(logits=row_logits, self_attention=self_map, cross_attention=cross_map))
                if token == self.eos or t + 1 == limits[b]:
                    done.append(row)
            tokens = np.array(written, dtype=np.intp)
            if done:
                # the rows still decoding past the first n − len(done) move into the finished rows below
                n -= len(done)
                holes = [row for row in done if row < n]
                movers = [row for row in range(n, n + len(done)) if row not in done]
                for hole, mover in zip(holes, movers, strict=True):
                    sentence[hole] = sentence[mover]
                if holes:
                    cache[: t + 1, :, :, holes] = cache[: t + 1, :, :, movers]
                    cross_keys_t[:, holes] = cross_keys_t[:, movers]
                    cross_values[:, holes] = cross_values[:, movers]
                    tokens[holes] = tokens[movers]
                    if padding is not None:
                        padding[holes] = padding[movers]
                del sentence[n:]
                tokens = tokens[:n]
        return results


def word_kinds(by_kind: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """{kind: [words]} (the record's "vocabulary_kinds") -> {word: its kinds}."""
    kinds: dict[str, frozenset[str]] = {}
    for kind, words in by_kind.items():
        for word in words:
            kinds[word] = kinds.get(word, frozenset()) | {kind}
    return kinds


def readings(translation: Translation, layer: int, kinds: dict[str, frozenset[str]]) -> FloatArray:
    """For each source word, the most weight any one step of ``translation`` put on it: the step's
    cross-attention in ``layer``, its heads averaged (zeros when nothing was written). A noun right before
    another noun is read with it, as one ("bus" in "bus drivers" -> "chauffeurs", "apple" in "apple trees" ->
    "pommiers"): both take the larger of the two. ``kinds`` maps a word to its kinds (the record's)."""
    source = translation.source
    if not translation.steps:
        return np.zeros(len(source))
    # every step's (layers, heads, S) -> (T, S) for the layer, its heads averaged -> the most a step gave
    read = np.stack([step.cross_attention[layer].mean(axis=0) for step in translation.steps]).max(axis=0)
    noun = [("noun" in kinds.get(w, ())) for w in source]
    for i in range(len(source) - 1):
        if noun[i] and noun[i + 1]:
            read[i] = read[i + 1] = max(read[i], read[i + 1])
    return read


def unread(translation: Translation, layer: int, kinds: dict[str, frozenset[str]]) -> list[int]:
    """The source positions of the content words (CONTENT_KINDS) that no step of ``translation`` read: their
    ``readings`` are below UNREAD_BELOW."""
    read = readings(translation, layer, kinds)
    return [
        i
        for i, word in enumerate(translation.source)
        if kinds.get(word, frozenset()) & CONTENT_KINDS and read[i] < UNREAD_BELOW
    ]


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
        self.kinds = word_kinds(self.record.get("vocabulary_kinds", {}))  # each English word -> its kinds

    def unread(self, translation: Translation) -> list[int]:
        """The content words ``translation`` never read (``unread``, at the best layer)."""
        return unread(translation, self.best_layer, self.kinds)

    @property
    def best_layer(self) -> int:
        return int(self.record["best_layer"])


@lru_cache
def get_translator() -> TranslatorModel:
    weights_dir = get_settings().weights_dir
    return TranslatorModel(weights_dir / WEIGHTS_FILE, weights_dir / RECORD_FILE)
