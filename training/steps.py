"""The parts of a training run that the language models' and the translator's commands share: the settings
that make a run reproducible, the loop of optimiser steps, and writing the weights and their record.

Every step draws its batch's examples from a generator of its own, seeded, so the batches do not depend on
whatever else draws from torch's global generator (dropout, initial weights).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import torch


def reproducible() -> None:
    """Two threads and torch's deterministic kernels. Two threads alone are not enough to reproduce a run:
    some kernels' multi-threaded sums come out in a different order each time, and a few thousand steps of
    training amplify the last-bit differences. The deterministic kernels make a rerun give the same arrays,
    bit for bit."""
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)


def train(
    optimiser: torch.optim.Optimizer,
    schedule: torch.optim.lr_scheduler.LRScheduler,
    loss_on: Callable[[list[int]], torch.Tensor],
    *,
    examples: int,
    steps: int,
    batch_size: int,
    seed: int,
    every: int,
    report: Callable[[int, float], None],
    clip: Iterable[torch.nn.Parameter] | None = None,
) -> None:
    """Run ``steps`` optimiser steps, each on the loss of ``batch_size`` examples drawn (as indices below
    ``examples``) by a generator seeded with ``seed``; every ``every`` steps, ``report`` the step and the
    mean training loss since the last report. ``clip``: parameters whose gradient norm is cut to 1."""
    clipped = list(clip) if clip is not None else None
    order = torch.Generator().manual_seed(seed)
    running: list[float] = []
    for step in range(1, steps + 1):
        picks = torch.randint(0, examples, (batch_size,), generator=order).tolist()
        loss = loss_on(picks)
        optimiser.zero_grad()
        loss.backward()
        if clipped is not None:
            torch.nn.utils.clip_grad_norm_(clipped, 1.0)
        optimiser.step()
        schedule.step()
        running.append(loss.item())
        if step % every == 0:
            report(step, float(np.mean(running)))
            running = []


def save(weights: Path, arrays: dict[str, np.ndarray], record: Path, measured: dict[str, object]) -> None:
    """Write the arrays to ``weights`` (compressed) and what was measured to ``record`` (JSON)."""
    np.savez_compressed(weights, **arrays)  # type: ignore[arg-type]
    record.write_text(json.dumps(measured, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
