"""SB3 ``VecEnv`` with one row per (game, seat): :class:`SeatVecEnv`, the SuperSuit convention, natively.

PettingZoo's SB3 tutorials turn a parallel env into a vector env with SuperSuit::

    venv = ss.pettingzoo_env_to_vec_env_v1(parallel_env(num_players=P, simultaneous=False))
    venv = ss.concat_vec_envs_v1(venv, N, base_class="stable_baselines3")

``SeatVecEnv(num_games=N, num_players=P)`` is that vector env built on
:class:`~ohmygoods_env.batch.BatchGames`: each ``step`` is one numba call for the games and
one for the ``N * P`` observations. Row ``g * P + p`` is seat ``p`` of game ``g``. Every
seat's decisions are training data for one shared policy (self-play, e.g. sb3-contrib
``MaskablePPO``); rows of seats that are not to act carry the wait mask (only
``layout.A_WAIT`` legal) and must send ``A_WAIT``. Like the engine, it asks the simultaneous
phase-I and phase-II choices one seat per step (``parallel_env(simultaneous=False)``): the
observations hide them, but a seat's row can count the steps before its turn.

==========================  ===================================================================
returned by ``step``        content
==========================  ===================================================================
observations                ``float32[N * P, OBS_DIM]``: each seat's own observation
rewards                     ``float32[N * P]``: each seat's final reward in games that ended
dones                       ``bool[N * P]``: the game ended; it restarts in the same step
infos                       one dict per row; for finished games ``terminal_observation``
                            and ``TimeLimit.truncated``
``action_masks()``          ``bool[N * P, N_ACTIONS]``: the acting seat's legal actions, the
                            wait mask for the others
==========================  ===================================================================

Seeding follows SuperSuit's ``concat_vec_envs_v1`` over :func:`.parallel.parallel_env` (``simultaneous=False``), so
the two give the same games step by step: after ``seed(s)`` and ``reset()``, game ``g``
is dealt from seed ``s + g`` and its later games from
``numpy.random.default_rng(s + g).integers(0, 2**63 - 1)``, drawn one per game as the
parallel env's ``reset()`` draws them. Seeds are ints in ``0 <= s < 2**64`` (``s + g`` wraps
below ``2**64``); without a seed the base seed is drawn from fresh entropy. A bad action
(wrong type, out of range, or not ``A_WAIT`` on a waiting row) raises ``TypeError`` /
``ValueError`` naming the row and the value; illegal actions raise ``ValueError`` naming the
game (no game changes).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np
from gymnasium import spaces
from numba import njit
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from .. import layout as L
from ..batch import BatchGames
from ..cards import CardSet
from ..engine import IllegalActionError
from ..framework import jit as _jit
from ..framework.checks import fresh_seed, offset_seed, optional_seed
from ..rules import RuleSet
from .common import SEED_BOUND, action_ids, check_reward, global_state, observation_high
from .sb3_base import BatchedVecEnv

__all__ = ["SeatVecEnv"]

_NO_INFO: dict[str, Any] = {}  # copied for each row: a fresh empty dict per row and step


@njit(cache=True, _nrt=False)
def _acting_actions(acts, state, p, out):
    """``out[g]``: the action on the row of game ``g``'s player to act (row ``g * p + seat``; a
    current player of -1 reads as the last seat, as numpy indexing does). Returns the first other
    row whose action is not ``A_WAIT``, or -1."""
    bad = -1
    for g in range(out.shape[0]):
        cur = state[g, L.F_CUR] % p
        out[g] = acts[g * p + cur]
        for s in range(p):
            if bad < 0 and s != cur and acts[g * p + s] != L.A_WAIT:
                bad = g * p + s
    return bad


class SeatVecEnv(BatchedVecEnv):
    """``num_games`` games x ``num_players`` seats as ``num_games * num_players`` SB3 envs (module docstring)."""

    def __init__(
        self,
        num_games: int = 8,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        seed: int | None = None,
        reward: str = "win",
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        self.render_mode = None
        self.games = BatchGames(
            num_games, num_players, rules, seed=0, reward_mode=check_reward(reward), cards=cards, **rule_options
        )
        n, p = self.games.num_games, self.games.num_players
        self.num_games, self.num_players = n, p
        high = observation_high(self.games.cards, self.games.rules)
        super().__init__(n * p, spaces.Box(0.0, high, (L.OBS_DIM,), np.float32), spaces.Discrete(L.N_ACTIONS))
        self._rows = np.repeat(np.arange(n, dtype=np.int64), p)  # game of each row
        self._seats = np.tile(np.arange(p, dtype=np.int64), n)  # seat of each row
        self._masks = np.zeros((n, p, L.N_ACTIONS), np.bool_)
        self._rngs: list[np.random.Generator] = []
        self._pending_seed = optional_seed(seed)
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ facts
    def action_masks(self) -> np.ndarray:
        """bool[N * P, N_ACTIONS]: the acting seat's legal actions; the wait mask on every other row."""
        return self._masks.reshape(self.num_envs, L.N_ACTIONS)

    def global_state(self) -> np.ndarray:
        """**Privileged** float32[N * P, STATE_DIM]: each row's game state for a centralised critic, never a policy."""
        g = self.games
        states = global_state(g.state, g.observe(np.zeros(self.num_games, np.int64)))
        return np.repeat(states, self.num_players, axis=0)

    # ------------------------------------------------------------------ VecEnv API
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Base seed for the next :meth:`reset` (``None``: fresh entropy); returns each game's first seed."""
        seed = optional_seed(seed)
        if seed is None:
            seed = fresh_seed()
        self._pending_seed = seed
        return self._first_seeds(seed)

    def reset(self) -> np.ndarray:
        if self._pending_seed is not None:
            base = self._pending_seed
            self._pending_seed = None
            firsts = self._first_seeds(base)
            self._rngs = [np.random.default_rng(s) for s in firsts]
            seeds = np.array(firsts, np.uint64)
        else:
            if not self._rngs:  # never seeded: draw a base seed
                self.seed()
                return self.reset()
            seeds = self._next_seeds(np.arange(self.num_games))
        self.games.start(np.arange(self.num_games, dtype=np.int64), seeds)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = action_ids(actions, self.num_envs)  # names the first bad row and its value

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_async() must be called before step_wait()")
        acts, self._actions = self._actions, None
        g, p = self.games, self.num_players
        acting = np.empty(self.num_games, np.int64)
        bad = _acting_actions(acts, g.state, p, acting)
        if bad >= 0:
            gi, seat = divmod(bad, p)
            raise ValueError(
                f"row {bad} (game {gi}, seat {seat}) has nothing to decide: "
                f"its action must be A_WAIT ({L.A_WAIT}), got {int(acts[bad])}"
            )
        try:
            rewards, te, tr = g.step(acting)
        except IllegalActionError as exc:
            cur = g.state[:, L.F_CUR] % p
            gi = int(np.flatnonzero(g.masks(copy=False)[np.arange(self.num_games), acting] == 0)[0])
            raise IllegalActionError(f"row {gi * p + int(cur[gi])} (game {gi}, seat {int(cur[gi])}): {exc}") from None
        done_games = te | tr
        infos: list[dict[str, Any]] = list(map(dict.copy, repeat(_NO_INFO, self.num_envs)))
        if done_games.any():
            games = np.flatnonzero(done_games).astype(np.int64)
            rows = (games[:, None] * p + np.arange(p)).ravel()
            final_obs = g.observe(self._seats[rows], self._rows[rows])
            truncated = (tr & ~te).tolist()
            for j, r in enumerate(rows.tolist()):
                infos[r]["terminal_observation"] = final_obs[j]
                infos[r]["TimeLimit.truncated"] = truncated[r // p]
            g.start(games, self._next_seeds(games))
        obs = self._observe()
        return obs, rewards.reshape(-1), np.repeat(done_games, p), infos

    # ------------------------------------------------------------------ helpers
    def _first_seeds(self, base: int) -> list[int]:
        """Each game's first seed: ``base + g``, wrapped below ``2**64``."""
        return [offset_seed(base, g) for g in range(self.num_games)]

    def _next_seeds(self, games: np.ndarray) -> np.ndarray:
        return np.array([self._rngs[int(i)].integers(0, SEED_BOUND) for i in games], np.int64)

    def _observe(self) -> np.ndarray:
        # a fresh array (SB3 keeps what step returns); the masks are written into the persistent buffer
        return self.games.observe_seats(masks=self.action_masks())


_jit.register(globals(), L)
