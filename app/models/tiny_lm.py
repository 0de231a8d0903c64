"""Figure 7's tiny language models, run in numpy: the same network trained with different masks.

A decoder over word pieces (app/models/word_pieces.py), so that it reads any word: token and position
embeddings, two pre-norm blocks of masked multi-head self-attention and a ReLU feed-forward layer, a final
layer norm, and the token embedding reused as the output layer. The models differ only in the mask their
attention used in training (and uses here): ``neg_inf`` (the honest causal mask), ``zero`` (the
``masked_fill(mask, 0)`` bug), ``none``, and, when the weights file holds it, ``next_word`` (the off-by-one
``triu(ones, diagonal=2)`` that leaks the next word). A pass may apply another mask to the same trained
weights (``forward(ids, mask=...)``), any of the attention modes including the mask bug zoo's: figure 6 runs
the ``neg_inf`` model, a real decoder, under each.

Weights come from ``training/train_lm.py``; see ``app/weights/README.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.config import get_settings
from app.core.attention import multi_head_attention
from app.core.layers import SELF_ATTENTION_BLOCK, feed_forward, layer_norm
from app.core.masks import ATTENTION_MODES, AttentionMode
from app.models.word_pieces import joined, split_words
from app.web.refusal import Refusal

FloatArray = NDArray[np.float64]
PAD, BOS, EOS = "<pad>", "<s>", "</s>"
SPECIALS = (PAD, BOS, EOS)
WEIGHTS_FILE = "tiny_lm.npz"
CURVES_FILE = "tiny_lm_curves.json"
MAX_POSITIONS = 48  # the start token and the pieces, with room for what the model writes after them
MAX_WORDS = 24  # a sentence's words; their pieces must also fit in MAX_POSITIONS - 1
# A sentence for the models: the page's Sentence box and GET /api/lm/attention both read this one number.
MAX_SENTENCE_CHARS = 200
# Sentences of the models' grammar, every word one token: what figure 6 and GET /api/lm/attention start with,
# and what figure 7's reading-versus-writing panel and GET /api/lm/predictions start with.
DEFAULT_SENTENCE = "the old farmer sold the horse"
READING_SENTENCE = "the old farmer sold the hungry horse"
LAYER_PARAMETERS = SELF_ATTENTION_BLOCK
# The order the models are listed in wherever they are compared: the honest one first, then the leaks from the
# quietest to the loudest. A model the weights file does not hold is skipped.
MODEL_ORDER = ("neg_inf", "zero", "next_word", "none")


@dataclass(frozen=True)
class Reading:
    """Next-word predictions at every position of a sentence (BOS, then its words), read one way.

    At position t the true next word is the sentence's word t + 1 (the end token after the last word).
    """

    predicted: list[str]  # (T,) the likeliest next word, the start and padding tokens excluded
    probability: FloatArray  # (T,) the probability of that word
    target_probability: FloatArray  # (T,) the probability of the true next word
    loss: float  # mean over positions of −log target_probability: the cross-entropy training minimises


@dataclass(frozen=True)
class Forward:
    """What one pass over a sequence gives: next-token logits (T, V), attention weights (layers, h, T, T),
    and the scaled scores q·k/√d_k (layers, h, T, T) those weights are the masked softmax of."""

    logits: FloatArray
    attention: FloatArray
    scaled: FloatArray


class TinyLM:
    """One trained model: its parameters, its mask, and greedy or sampled generation."""

    def __init__(
        self, mask: AttentionMode, params: dict[str, FloatArray], heads: int, vocabulary: list[str]
    ) -> None:
        self.mask = mask
        self.params = params
        self.heads = heads
        self.layers = sum(1 for name in params if name.endswith("ln1_g"))
        self.vocabulary = vocabulary
        self.index = {w: k for k, w in enumerate(vocabulary)}

    def forward(self, ids: list[int], mask: AttentionMode | None = None) -> Forward:
        """Run the network over token ids, BOS first, at most MAX_POSITIONS long.

        ``mask`` is the mask every layer's attention applies: by default the one the model was trained
        with; another one (any of ATTENTION_MODES, the zoo's included) runs the same trained weights with
        that mask instead (figure 6). Under ``hides_self`` position 0 sees nothing: its weights, and from
        there everything that reads its output, are NaN, as they would be in any framework.
        """
        mask = self.mask if mask is None else mask
        p = self.params
        T = len(ids)
        x = p["tok_emb"][ids] + p["pos_emb"][:T]  # (T, d_model)
        maps, scaled = [], []
        for layer in range(self.layers):
            q = {name: p[f"layer{layer}.{name}"] for name in LAYER_PARAMETERS}
            h = layer_norm(x, q["ln1_g"], q["ln1_b"])
            att = multi_head_attention(h, q["w_q"], q["w_k"], q["w_v"], self.heads, w_o=q["w_o"], mask=mask)
            assert att.output is not None
            x = x + att.output
            h = layer_norm(x, q["ln2_g"], q["ln2_b"])
            x = x + feed_forward(h, q)
            maps.append(att.stages.weights)  # (h, T, T)
            scaled.append(att.stages.scaled)  # (h, T, T), before the mask
        logits = layer_norm(x, p["ln_f_g"], p["ln_f_b"]) @ p["tok_emb"].T  # (T, V): the embedding, reused
        return Forward(logits=logits, attention=np.stack(maps), scaled=np.stack(scaled))

    def teacher_forced(self, ids: list[int]) -> FloatArray:
        """(T, V) next-word logits with the whole sequence as input, as training and validation see it."""
        return self.forward(ids).logits

    def free_running(self, ids: list[int]) -> FloatArray:
        """(T, V) next-word logits where position t sees only ids[: t + 1], as when the model writes.

        One pass per position: a leaky model's prediction at t changes once later words are in the input,
        so they must not be. For the causal model every row equals ``teacher_forced``'s.
        """
        return np.stack([self.forward(ids[: t + 1]).logits[-1] for t in range(len(ids))])

    def reading(self, logits: FloatArray, targets: list[int]) -> Reading:
        """The predictions and loss of next-word ``logits`` (T, V) against the true next ids ``targets``."""
        z = logits - logits.max(axis=-1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # (T, V) log-softmax
        allowed = log_p.copy()
        allowed[:, [self.index[PAD], self.index[BOS]]] = -np.inf  # as generate() never writes them
        best = allowed.argmax(axis=-1)  # (T,)
        rows = np.arange(len(targets))
        target_log_p = log_p[rows, targets]
        return Reading(
            predicted=[self.vocabulary[k] for k in best],
            probability=np.exp(log_p[rows, best]),
            target_probability=np.exp(target_log_p),
            loss=float(-target_log_p.mean()),
        )

    def read_and_write(self, words: list[str]) -> tuple[Reading, Reading]:
        """The sentence's next words predicted teacher-forced (the sentence in the input) and free-running
        (only the words so far): what the loss rewards, and what writing gets."""
        ids = self.encode(words)
        targets = ids[1:] + [self.index[EOS]]
        return (
            self.reading(self.teacher_forced(ids), targets),
            self.reading(self.free_running(ids), targets),
        )

    def pieces(self, words: list[str]) -> tuple[list[str], list[int]]:
        """The words' pieces and, per piece, the index of its word; a Refusal naming characters no piece
        spells, or saying the pieces do not fit the model's positions."""
        tokens, owner = split_words(words, self.index)
        if len(tokens) > MAX_POSITIONS - 1:
            raise Refusal(
                f"sentence is {len(tokens)} word pieces; the decoders read at most {MAX_POSITIONS - 1}",
                fields={"pieces": len(tokens)},
            )
        return tokens, owner

    def encode(self, words: list[str]) -> list[int]:
        """BOS, then the ids of the words' pieces (see ``pieces`` for the refusals)."""
        return [self.index[BOS]] + [self.index[t] for t in self.pieces(words)[0]]

    def generate(
        self,
        prompt: list[str],
        strategy: str = "greedy",
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
    ) -> list[str]:
        """Continue the prompt one piece at a time until the end token or the position limit; the words
        (pieces joined), the prompt's included."""
        ids = self.encode(prompt)
        rng = rng or np.random.default_rng(0)
        banned = [self.index[PAD], self.index[BOS]]
        while len(ids) < MAX_POSITIONS:
            logits = self.forward(ids).logits[-1]
            logits[banned] = -np.inf
            if strategy == "greedy":
                nxt = int(np.argmax(logits))
            else:
                z = logits / temperature
                probs = np.exp(z - z.max())
                nxt = int(rng.choice(len(probs), p=probs / probs.sum()))
            if nxt == self.index[EOS]:
                break
            ids.append(nxt)
        return joined([self.vocabulary[k] for k in ids[1:]])


class TinyLMs:
    """The trained models, keyed by the mask each was trained with, and their training record.

    The record's "models" list names the masks; each model whose parameters (``<mask>/<name>``) the weights
    file holds is loaded, listed in MODEL_ORDER (so a model added to both files appears without a code
    change).
    """

    def __init__(self, weights: Path, curves: Path) -> None:
        self.record: dict[str, Any] = json.loads(curves.read_text(encoding="utf-8"))
        listed = [m["mask"] for m in self.record["models"]]
        with np.load(weights, allow_pickle=False) as data:
            vocabulary = [str(w) for w in data["vocabulary"]]
            heads = int(data["heads"])
            held = {k.split("/", 1)[0] for k in data.files if "/" in k}
            masks = [m for m in MODEL_ORDER if m in listed and m in held]
            masks += [m for m in listed if m in held and m not in masks and m in ATTENTION_MODES]
            self.models = {
                mask: TinyLM(
                    mask,
                    {
                        k.split("/", 1)[1]: data[k].astype(np.float64)
                        for k in data.files
                        if k.startswith(f"{mask}/")
                    },
                    heads,
                    vocabulary,
                )
                for mask in masks
            }


@lru_cache
def get_tiny_lms() -> TinyLMs:
    weights_dir = get_settings().weights_dir
    return TinyLMs(weights_dir / WEIGHTS_FILE, weights_dir / CURVES_FILE)
