"""The translator's fast path, which serving runs: the greedy decoding of ``Translator`` (network.py here)
with as few numpy calls as it allows, one sentence at a time (``greedy``) or several in step
(``greedy_many``), in float64 or float32.

The arithmetic is the readable path's, in its order; what is taken out is the validation, the kept
intermediates and the per-step allocations (tests/models/test_translator_fast.py checks the two give the same
tokens and attention maps; bench/translate.py and bench/translate_batch.py time them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from app.core.attention import FloatArray, sinusoidal_positions
from app.core.layers import EPS
from app.models.translator.steps import MAX_STEPS, Step
from app.models.translator.words import BOS, EOS, PAD

if TYPE_CHECKING:
    from app.models.translator.network import Translator

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
