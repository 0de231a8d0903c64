"""The field codes of figure 1's relation layer: one unit vector per semantic field, in the inputs, set apart
so that the layer can tell the fields apart. Training computes them once (training/train_relations.py) and
stores them with the weights.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app.models.relations import FIELD_DIM


def spread_field_codes(
    fields: tuple[str, ...], seed: int = 0, steps: int = 3000
) -> dict[str, NDArray[np.float64]]:
    """Unit FIELD_DIM-vectors, one per field, pushed apart so that no two fields point the same way.

    Each step moves every code away from the others, weighted by exp(8 cos) so the closest pairs push
    hardest. The codes are stored with the trained weights, so serving never recomputes them.
    """
    rng = np.random.default_rng(seed)
    codes = rng.normal(size=(len(fields), FIELD_DIM))
    codes /= np.linalg.norm(codes, axis=1, keepdims=True)
    for _ in range(steps):
        push = np.exp(8.0 * (codes @ codes.T))  # (F, F)
        np.fill_diagonal(push, 0.0)
        codes -= 0.01 * (push @ codes) / push.sum(axis=1, keepdims=True)
        codes /= np.linalg.norm(codes, axis=1, keepdims=True)
    return {field: codes[k] for k, field in enumerate(fields)}
