"""The random baseline: a uniformly random legal action, from its own seeded generator."""

from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Uniform over the legal actions; ``seed`` makes its choices reproducible."""

    name = "random"
    needs_observation = False  # act reads the mask only

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        return int(legal[self.rng.integers(legal.size)])
