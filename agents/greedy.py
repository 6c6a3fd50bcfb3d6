"""The light greedy policy of the MCTS rollouts, as an agent of its own (a ladder step).

It runs :func:`ohmygoods_agents._kernels.greedy_action` on the information state: it reads only
public information and its own cards (the market, its hand, its goods), never hidden cards.
"""

from __future__ import annotations

import numpy as np

from ohmygoods_env.cards import CardSet, default_cards

from ._kernels import chain_tiers, greedy_action
from .base import Agent, require_info_state


class GreedyAgent(Agent):
    """Greedy rollout policy; ``eps`` is the share of uniformly random moves (0 by default)."""

    name = "greedy"
    needs_info_state = True
    needs_observation = False  # act reads the mask and the information state only

    def __init__(self, seed: int | None = None, cards: CardSet | None = None, eps: float = 0.0) -> None:
        self.cards = cards if cards is not None else default_cards()
        self.tier = chain_tiers(self.cards.buildings)
        self.word = np.array([(0 if seed is None else int(seed)) * 2654435761 % (1 << 32) or 1], np.int64)
        self.eps = float(eps)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        info = require_info_state(self.name, info_state)
        m = np.ascontiguousarray(mask, dtype=np.int8)
        n = int(m.sum())
        if n == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        c = self.cards
        return int(greedy_action(info, c.buildings, c.assistants, m, n, self.tier, self.word, self.eps))
