"""Potential-based reward shaping for the training loops: the potential of each seat.

The potential of seat ``p`` is its score by R8.3 with the coins counted exactly
(``VP of buildings and assistants + coins / 5``, not the floor of it), and for the
``margin`` reward minus the best such value among the other seats (in a solo game, R10.3,
the score alone). A seat's shaped reward for one of its decisions is the change of its
potential up to its next decision; at the end of the game its last decision gets the final
reward minus the potential it had at that decision. The shaped rewards of a seat therefore
add up to its final reward minus its potential at its first decision (a constant of the
deal), so the undiscounted objective is unchanged while the signal comes at every decision.

The potential is computed from the true state: it is a reward, never part of an observation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ohmygoods_env import layout as L
from ohmygoods_env.core import score_player

_MAXP = L.MAX_PLAYERS

#: reward modes the potential is defined for (``win`` is ±1, another unit)
SHAPED_MODES = ("margin", "score")


@njit(cache=True)
def _potentials(S, C, AS, rows, seats, num_players, relative, out):
    phi = np.zeros(_MAXP, np.float64)
    for j in range(rows.shape[0]):
        g = S[rows[j]]
        for p in range(num_players):
            sc, left = score_player(g, C, AS, p)
            phi[p] = sc + left / 5.0
        p = seats[j]
        v = phi[p]
        if relative and num_players > 1:
            best = -1e18
            for q in range(num_players):
                if q != p and phi[q] > best:
                    best = phi[q]
            v -= best
        out[j] = v


def potentials(games, rows: np.ndarray, seats: np.ndarray, reward_mode: str) -> np.ndarray:
    """float64[len(rows)]: the potential of ``seats[j]`` in game ``rows[j]`` of a ``BatchGames``."""
    if reward_mode not in SHAPED_MODES:
        raise ValueError(f"reward shaping needs reward mode {' or '.join(SHAPED_MODES)}, got {reward_mode!r}")
    rows = np.ascontiguousarray(rows, np.int64)
    seats = np.ascontiguousarray(seats, np.int64)
    out = np.zeros(rows.shape[0], np.float64)
    C, AS = games.cards.buildings, games.cards.assistants
    _potentials(games.state, C, AS, rows, seats, games.num_players, reward_mode == "margin", out)
    return out


__all__ = ["SHAPED_MODES", "potentials"]
