"""The translator's network as written: an encoder-decoder Transformer that writes French one token at a time.

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

The English side (the vocabulary, unknown words, the refusal of a sentence) is ``SourceWords``
(app/models/translator/words.py), which ``Translator`` extends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.attention import (
    FloatArray,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    sinusoidal_positions,
    split_heads,
)
from app.core.layers import SELF_ATTENTION_BLOCK, feed_forward, layer_norm
from app.models.translator.fast_decoder import FastDecoder
from app.models.translator.spelling import spell
from app.models.translator.steps import MAX_STEPS, Forward, Step, Translation
from app.models.translator.words import BOS, EOS, PAD, SourceWords

FLOAT32_MAPS = 1e-5  # how far a map decoded in float32 may be from the float64 one, alone or in a batch

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


class Translator(SourceWords):
    """The trained network, its vocabularies, and greedy decoding with a cache of earlier steps."""

    def __init__(
        self,
        params: dict[str, FloatArray],
        heads: int,
        source_vocabulary: list[str],
        target_vocabulary: list[str],
    ) -> None:
        super().__init__(source_vocabulary)
        self.params = params
        self.heads = heads
        self.encoder_layers = sum(1 for name in params if name.startswith("enc") and name.endswith("ln1_g"))
        self.decoder_layers = sum(1 for name in params if name.startswith("dec") and name.endswith("ln1_g"))
        self.d_model = int(params["src_emb"].shape[1])
        assert self.d_model % heads == 0, f"d_model={self.d_model} is not a multiple of heads={heads}"
        self.target_vocabulary = target_vocabulary
        self.target_index = {w: k for k, w in enumerate(target_vocabulary)}
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
        return Translation(source=list(words), target=spell(target), steps=steps)

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
            Translation(source=list(words), target=spell(target), steps=steps)
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
        return Translation(source=list(words), target=spell(target), steps=steps)
