"""Train the generator's English→French translator and measure it on held-out pairs with the numpy model.

    pip install -e '.[train]'      # PyTorch, CPU build
    python -m training.train_translator

writes ``app/weights/translator.npz`` (float32 parameters and both vocabularies) and
``app/weights/translator_record.json`` (the configuration, the loss curve, and two figures measured on
held-out pairs, i.e. pairs whose English never occurs in training, with the numpy model the server runs):

* exact match: the greedy translation equals the reference, token for token;
* alignment, per decoder layer: for every French word of the reference whose English source is known, does
  the cross-attention of the step that writes it, averaged over the layer's heads, put its maximum on one of
  those source words? The best layer by this measure is the one the page names.

The model is trained on translation alone (cross-entropy with label smoothing); the attention weights are
never a training target. Fixed seeds and deterministic kernels: the same command gives the same weights
on the same machine.
"""

from __future__ import annotations

import json
import os
import time
from typing import cast

# Idle OpenMP threads sleep instead of spinning: on a shared machine, spinning threads fight the other
# processes for the two cores and a training step can take ten times longer.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from app.core.attention import sinusoidal_positions  # noqa: E402
from app.models.translator.committed import RECORD_FILE, WEIGHTS_FILE, TranslatorModel  # noqa: E402
from app.models.translator.network import DECODER_PARAMETERS, ENCODER_PARAMETERS, Translator  # noqa: E402
from app.models.translator.words import BOS, EOS, PAD, SPECIALS  # noqa: E402
from training.command import command_line  # noqa: E402
from training.evaluation import everyday_measured, measure, unread_measured  # noqa: E402
from training.french_vocabulary import ENGLISH_WORDS, FRENCH_WORDS, lexicon_entries  # noqa: E402
from training.parallel_corpus import (  # noqa: E402
    CONSTRUCTION_SETS,
    TRAINING_PAIRS,
    heldout_pairs,
    novel_pairs,
    training_pairs,
)
from training.parallel_heldout import novel_description  # noqa: E402
from training.parallel_phrases import Pair  # noqa: E402
from training.steps import reproducible, save  # noqa: E402
from training.steps import train as train_steps  # noqa: E402
from training.train_relations import WEIGHTS  # noqa: E402

MAX_POSITIONS = 64  # the positional table of the training model; the numpy model computes any position


def vocabularies() -> tuple[list[str], list[str]]:
    """Source and target token lists: the three specials, then every word form the grammar can write."""
    return [*SPECIALS, *ENGLISH_WORDS], [*SPECIALS, *FRENCH_WORDS]


class TorchTranslator(torch.nn.Module):
    """The network of app.models.translator.network, in PyTorch, with padding masks for batches."""

    pe: torch.Tensor  # (MAX_POSITIONS, d_model): the sinusoidal table, a buffer

    def __init__(
        self,
        source_vocab: int,
        target_vocab: int,
        d_model: int,
        heads: int,
        encoder_layers: int,
        decoder_layers: int,
        d_ff: int,
    ) -> None:
        super().__init__()
        self.heads, self.d_model = heads, d_model
        self.src_emb = torch.nn.Parameter(torch.randn(source_vocab, d_model) / d_model**0.5)
        self.tgt_emb = torch.nn.Parameter(torch.randn(target_vocab, d_model) / d_model**0.5)
        depth = encoder_layers + decoder_layers

        def square(out_scale: float = 1.0) -> torch.nn.Parameter:
            return torch.nn.Parameter(torch.randn(d_model, d_model) / d_model**0.5 * out_scale)

        def norm(names: tuple[str, ...]) -> dict[str, torch.nn.Parameter]:
            made = {}
            for name in names:
                if name.endswith("_g"):
                    made[name] = torch.nn.Parameter(torch.ones(d_model))
                elif name.endswith("_b") and name.startswith("ln"):
                    made[name] = torch.nn.Parameter(torch.zeros(d_model))
            return made

        def feed_forward() -> dict[str, torch.nn.Parameter]:
            return {
                "ff_w1": torch.nn.Parameter(torch.randn(d_model, d_ff) / d_model**0.5),
                "ff_b1": torch.nn.Parameter(torch.zeros(d_ff)),
                "ff_w2": torch.nn.Parameter(torch.randn(d_ff, d_model) / d_ff**0.5 / depth**0.5),
                "ff_b2": torch.nn.Parameter(torch.zeros(d_model)),
            }

        self.encoder = torch.nn.ModuleList()
        for _ in range(encoder_layers):
            attention = {name: square() for name in ("w_q", "w_k", "w_v")} | {"w_o": square(depth**-0.5)}
            self.encoder.append(torch.nn.ParameterDict(norm(ENCODER_PARAMETERS) | attention | feed_forward()))
        self.decoder = torch.nn.ModuleList()
        for _ in range(decoder_layers):
            attention = {}
            for kind in ("self", "cross"):
                attention |= {f"{kind}_{name}": square() for name in ("w_q", "w_k", "w_v")}
                attention[f"{kind}_w_o"] = square(depth**-0.5)
            self.decoder.append(torch.nn.ParameterDict(norm(DECODER_PARAMETERS) | attention | feed_forward()))
        self.enc_ln_g = torch.nn.Parameter(torch.ones(d_model))
        self.enc_ln_b = torch.nn.Parameter(torch.zeros(d_model))
        self.dec_ln_g = torch.nn.Parameter(torch.ones(d_model))
        self.dec_ln_b = torch.nn.Parameter(torch.zeros(d_model))
        pe = torch.from_numpy(sinusoidal_positions(MAX_POSITIONS, d_model)).float()
        self.register_buffer("pe", pe, persistent=False)

    def attend(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        weights: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor],
        key_pad: torch.Tensor | None,
        causal: bool,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Multi-head attention of x's queries over memory's keys and values: (output, weights)."""
        w_q, w_k, w_v, w_o = weights
        B, T, d = x.shape
        S = memory.shape[1]
        h, d_k = self.heads, d // self.heads
        q = (x @ w_q).view(B, T, h, d_k).transpose(1, 2)  # (B, T, d) -> (B, h, T, d_k)
        k = (memory @ w_k).view(B, S, h, d_k).transpose(1, 2)  # (B, S, d) -> (B, h, S, d_k)
        v = (memory @ w_v).view(B, S, h, d_k).transpose(1, 2)  # (B, S, d) -> (B, h, S, d_k)
        scores = q @ k.transpose(-1, -2) / d_k**0.5  # (B, h, T, S)
        if causal:
            future = torch.triu(torch.ones(T, S, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if key_pad is not None:
            scores = scores.masked_fill(key_pad[:, None, None, :], float("-inf"))  # padding is never a word
        attention = torch.softmax(scores, dim=-1)
        context = (attention @ v).transpose(1, 2).reshape(B, T, d)  # (B, h, T, d_k) -> (B, T, d)
        return context @ w_o, attention

    @staticmethod
    def _layers(stack: torch.nn.ModuleList) -> list[torch.nn.ParameterDict]:
        return [cast(torch.nn.ParameterDict, p) for p in stack]

    @staticmethod
    def _norm(x: torch.Tensor, gain: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), gain, bias, eps=1e-5)

    @staticmethod
    def _ffn(x: torch.Tensor, p: torch.nn.ParameterDict) -> torch.Tensor:
        return torch.relu(x @ p["ff_w1"] + p["ff_b1"]) @ p["ff_w2"] + p["ff_b2"]

    def encode(self, source: torch.Tensor, source_pad: torch.Tensor) -> torch.Tensor:
        x = self.src_emb[source] * self.d_model**0.5 + self.pe[: source.shape[1]]
        for p in self._layers(self.encoder):
            weights = (p["w_q"], p["w_k"], p["w_v"], p["w_o"])
            a = self._norm(x, p["ln1_g"], p["ln1_b"])
            x = x + self.attend(a, a, weights, source_pad, causal=False)[0]
            x = x + self._ffn(self._norm(x, p["ln2_g"], p["ln2_b"]), p)
        return self._norm(x, self.enc_ln_g, self.enc_ln_b)

    def decode(
        self, memory: torch.Tensor, source_pad: torch.Tensor, target: torch.Tensor
    ) -> tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """Logits (B, T, V), and per layer the self (B, h, T, T) and cross (B, h, T, S) attention."""
        y = self.tgt_emb[target] * self.d_model**0.5 + self.pe[: target.shape[1]]
        selfs, crosses = [], []
        for p in self._layers(self.decoder):
            a = self._norm(y, p["ln1_g"], p["ln1_b"])
            own = (p["self_w_q"], p["self_w_k"], p["self_w_v"], p["self_w_o"])
            update, self_weights = self.attend(a, a, own, None, causal=True)
            y = y + update
            other = (p["cross_w_q"], p["cross_w_k"], p["cross_w_v"], p["cross_w_o"])
            update, cross_weights = self.attend(
                self._norm(y, p["ln2_g"], p["ln2_b"]), memory, other, source_pad, causal=False
            )
            y = y + update
            y = y + self._ffn(self._norm(y, p["ln3_g"], p["ln3_b"]), p)
            selfs.append(self_weights)
            crosses.append(cross_weights)
        logits = self._norm(y, self.dec_ln_g, self.dec_ln_b) @ self.tgt_emb.T
        return logits, selfs, crosses

    def forward(self, source: torch.Tensor, source_pad: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(source, source_pad), source_pad, target)[0]

    def numpy_params(self) -> dict[str, np.ndarray]:
        out: dict[str, torch.Tensor] = {
            "src_emb": self.src_emb,
            "tgt_emb": self.tgt_emb,
            "enc_ln_g": self.enc_ln_g,
            "enc_ln_b": self.enc_ln_b,
            "dec_ln_g": self.dec_ln_g,
            "dec_ln_b": self.dec_ln_b,
        }
        for layer, p in enumerate(self._layers(self.encoder)):
            out.update({f"enc{layer}.{name}": p[name] for name in ENCODER_PARAMETERS})
        for layer, p in enumerate(self._layers(self.decoder)):
            out.update({f"dec{layer}.{name}": p[name] for name in DECODER_PARAMETERS})
        return {k: v.detach().numpy().astype(np.float32) for k, v in out.items()}

    def load_numpy(self, params: dict[str, np.ndarray]) -> None:
        """Copy numpy parameters (as ``numpy_params`` names them) into this model."""
        mine = {"src_emb", "tgt_emb", "enc_ln_g", "enc_ln_b", "dec_ln_g", "dec_ln_b"}
        with torch.no_grad():
            for name, value in params.items():
                target: torch.Tensor
                if name in mine:
                    target = getattr(self, name)
                else:
                    stack, rest = name.split(".", 1)  # "dec1.cross_w_q" -> decoder layer 1, "cross_w_q"
                    layers = self._layers(self.encoder if stack.startswith("enc") else self.decoder)
                    target = layers[int(stack[3:])][rest]
                target.copy_(torch.from_numpy(np.asarray(value)).to(target.dtype))


def batch(
    pairs: list[Pair], source_index: dict[str, int], target_index: dict[str, int]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Source ids, source padding mask, decoder inputs (<s> + French) and targets (French + </s>), padded."""
    S = max(len(p.english) for p in pairs)
    T = max(len(p.french) for p in pairs) + 1
    source = torch.full((len(pairs), S), source_index[PAD])
    inputs = torch.full((len(pairs), T), target_index[PAD])
    targets = torch.full((len(pairs), T), -100)  # -100: ignored by cross_entropy
    for b, pair in enumerate(pairs):
        source[b, : len(pair.english)] = torch.tensor([source_index[w] for w in pair.english])
        ids = [target_index[BOS]] + [target_index[w] for w in pair.french] + [target_index[EOS]]
        inputs[b, : len(ids) - 1] = torch.tensor(ids[:-1])
        targets[b, : len(ids) - 1] = torch.tensor(ids[1:])
    return source, source == source_index[PAD], inputs, targets


def remeasure(heldout: list[Pair], novel: list[Pair]) -> None:
    """Measure the committed translator's check for unread words and its everyday sentences again and write
    them, with the vocabulary's kinds, into the record, leaving the weights and the rest of the record as they
    are."""
    model = TranslatorModel(WEIGHTS / WEIGHTS_FILE, WEIGHTS / RECORD_FILE)
    record = {**model.record, **unread_measured(model.translator, model.best_layer, heldout + novel)}
    record |= everyday_measured(model.translator)
    everyday = {s["name"]: (s["right"], s["refused"], s["sentences"]) for s in record["everyday_sets"]}
    print("unread", json.dumps(record["unread"]), "everyday (right, refused, of)", everyday, flush=True)
    (WEIGHTS / RECORD_FILE).write_text(
        json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> None:
    parser = command_line(
        __doc__,
        train=(TRAINING_PAIRS, "training pairs"),
        heldout=(2000, "held-out pairs from the training grammar, never seen in training"),
        novel=(1000, "held-out pairs of structures training never saw (parallel_corpus.novel_pairs)"),
        **{name: (1000, f"held-out pairs: {about()}") for name, (_, about) in CONSTRUCTION_SETS.items()},
        steps=12000,
        batch_size=64,
        lr=2e-3,
        label_smoothing=0.1,
        d_model=128,
        heads=4,
        encoder_layers=2,
        decoder_layers=2,
        d_ff=512,
        seed=0,
    )
    parser.add_argument(
        "--measure",
        action="store_true",
        help="train nothing: measure the committed translator's check for unread words and the everyday "
        "sentences again",
    )
    args = parser.parse_args()
    if args.measure:
        remeasure(list(heldout_pairs(args.heldout, args.train)), list(novel_pairs(args.novel, args.train)))
        return
    reproducible()
    started = time.time()

    source_vocabulary, target_vocabulary = vocabularies()
    source_index = {w: k for k, w in enumerate(source_vocabulary)}
    target_index = {w: k for k, w in enumerate(target_vocabulary)}
    train = list(training_pairs(args.train))
    heldout = heldout_pairs(args.heldout, args.train)
    novel = novel_pairs(args.novel, args.train)
    constructions = {
        name: made(getattr(args, name), args.train) for name, (made, _) in CONSTRUCTION_SETS.items()
    }

    torch.manual_seed(args.seed)
    model = TorchTranslator(
        len(source_vocabulary),
        len(target_vocabulary),
        args.d_model,
        args.heads,
        args.encoder_layers,
        args.decoder_layers,
        args.d_ff,
    )
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=args.lr, total_steps=args.steps, pct_start=0.1
    )
    curve: dict[str, list[float]] = {"step": [], "train": []}

    def loss_on(picks: list[int]) -> torch.Tensor:
        source, source_pad, inputs, targets = batch([train[k] for k in picks], source_index, target_index)
        logits = model(source, source_pad, inputs)
        return torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), label_smoothing=args.label_smoothing
        )

    def report(step: int, mean: float) -> None:
        curve["step"].append(step)
        curve["train"].append(round(mean, 4))
        print(f"step {step:5d}  loss {curve['train'][-1]:.4f}  {time.time() - started:.0f}s", flush=True)

    train_steps(
        optimiser,
        schedule,
        loss_on,
        examples=len(train),
        steps=args.steps,
        batch_size=args.batch_size,
        seed=args.seed + 1,
        every=250,
        report=report,
        clip=model.parameters(),
    )
    trained_seconds = time.time() - started

    params = model.numpy_params()
    translator = Translator(
        {k: v.astype(np.float64) for k, v in params.items()}, args.heads, source_vocabulary, target_vocabulary
    )
    figures = measure(translator, heldout)
    novel_figures = measure(translator, novel)
    construction_figures = {name: measure(translator, held) for name, held in constructions.items()}
    examples = [
        {"source": sentence, "translation": " ".join(translator.translate(sentence.split()).target)}
        for sentence in (
            "the river bank was steep",
            "a farmer sold the bat near the cave",
            "she saw the old crane on the dock",
        )
    ]
    record = {
        "architecture": "encoder-decoder Transformer, pre-norm, sinusoidal positions, tied output embedding",
        "d_model": args.d_model,
        "heads": args.heads,
        "encoder_layers": args.encoder_layers,
        "layers": args.decoder_layers,
        "d_ff": args.d_ff,
        "parameters": int(sum(v.size for v in params.values())),
        "source_vocab_size": len(source_vocabulary),
        "target_vocab_size": len(target_vocabulary),
        "lexicon_entries": len(lexicon_entries()),
        "training_pairs": len(train),
        "steps": args.steps,
        "batch_size": args.batch_size,
        "label_smoothing": args.label_smoothing,
        "seed": args.seed,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "training_seconds": round(trained_seconds, 1),
        "curve": curve,
        "final_loss": curve["train"][-1],
        "max_words": max(len(p.english) for p in train),
        **figures,
        "novel": novel_figures,
        "novel_description": novel_description(),
        "constructions": {
            name: {"description": describe(), **construction_figures[name]}
            for name, (_, describe) in CONSTRUCTION_SETS.items()
        },
        "alignment_method": (
            "teacher forcing on the reference; for each French word with a known English source, the step "
            "that writes it, cross-attention of one decoder layer averaged over its heads; a hit when the "
            "argmax is one of the word's source positions. Attention is never trained on."
        ),
        "examples": examples,
        **unread_measured(translator, figures["best_layer"], list(heldout) + list(novel)),
        **everyday_measured(translator),
    }
    arrays: dict[str, np.ndarray] = {
        **params,
        "heads": np.array(args.heads),
        "source_vocabulary": np.array(source_vocabulary),
        "target_vocabulary": np.array(target_vocabulary),
    }
    save(WEIGHTS / WEIGHTS_FILE, arrays, WEIGHTS / RECORD_FILE, record)
    print(
        f"held-out exact match {figures['exact_match']:.1%} over {figures['heldout_pairs']} pairs; "
        f"alignment {figures['alignment']:.1%} at decoder layer {figures['best_layer']} "
        f"(by layer: {', '.join(f'{a:.1%}' for a in figures['alignment_by_layer'])}); "
        f"novel structures: exact match {novel_figures['exact_match']:.1%} over "
        f"{novel_figures['heldout_pairs']} pairs, alignment {novel_figures['alignment']:.1%}; "
        + "".join(
            f"{name}: exact match {f['exact_match']:.1%}, alignment {f['alignment']:.1%}; "
            for name, f in construction_figures.items()
        )
        + "".join(
            f"everyday, {s['name']} set: {s['right']} of {s['sentences']} right, {s['refused']} refused; "
            for s in record["everyday_sets"]
        )
        + f"trained in {trained_seconds:.0f}s, {time.time() - started:.0f}s in all",
        flush=True,
    )


if __name__ == "__main__":
    main()
