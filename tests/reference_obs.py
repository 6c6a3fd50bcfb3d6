"""The reference observation of batched games: ``core.observe`` row by row, for tests of the fast kernels."""

from __future__ import annotations

import numpy as np

from ohmygoods_env import core
from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames

#: (games, players, rules, rule options) of the observation tests: solo to 4 players, both editions, the
#: variants, and batches of at least PARALLEL_MIN games (the multi-threaded kernels)
OBSERVE_CASES = [
    (3, 1, "omg2", {}),
    (130, 2, "royal", {}),
    (4, 3, "omg2", {"keep_one": True, "two_for_one": True}),
    (130, 4, "omg2", {}),
]


def reference_observations(g: BatchGames, seats: np.ndarray, games: np.ndarray) -> np.ndarray:
    """float32[len(games), OBS_DIM]: ``core.observe`` of seat ``seats[j]`` in game ``games[j]`` (-1: the
    player to act, seat 0 in a finished game), one row at a time."""
    C, AS = g.cards.buildings, g.cards.assistants
    out = np.zeros((len(games), L.OBS_DIM), np.float32)
    for j, (p, i) in enumerate(zip(seats, games, strict=True)):
        seat = int(p) if p >= 0 else max(int(g.state[i, L.F_CUR]), 0)
        core.observe(g.state[int(i)], C, AS, seat, out[j])
    return out
