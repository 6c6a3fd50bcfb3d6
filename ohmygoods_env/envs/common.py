"""What the env adapters share: action-id checks, spaces, agents and infos, the global state, rendering.

Every adapter module (:mod:`.pettingzoo_env`, :mod:`.parallel`, :mod:`.gym_env`, :mod:`.vector`,
:mod:`.sb3`, :mod:`.seat_vec`, :mod:`.batched`) imports its shared pieces from here, from
:mod:`.learner` (the single-learner core) or :mod:`.sb3_base` (SB3 ``VecEnv`` plumbing), never
from a sibling adapter (``tests/envs/test_adapter_imports.py``). Nothing here steps a game:

* action ids: :func:`action_id`, :func:`action_ids` (``TypeError`` / ``ValueError`` naming the
  expected range and the first bad row);
* spaces: :func:`observation_high`, :func:`obs_high`, :func:`observation_space`,
  :func:`action_space`;
* the PettingZoo infos (:data:`INFO_KEYS`, :func:`game_infos`: the spec's info hook for every agent);
* the **privileged** global state for centralised critics (:func:`global_state`,
  :func:`state_space`, :data:`STATE_DIM`), never for a policy;
* :func:`check_reward`; the render-mode check, seeds and agent names are the framework's
  (:mod:`ohmygoods_env.framework.envs.common`, re-exported here);
* :class:`EngineGameMixin`: the PettingZoo envs' ``game`` is the engine :class:`~ohmygoods_env.engine.Game`
  (the framework's envs, which the game's AEC and parallel env are, hold its forward model).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .. import layout as L
from .. import spaces as _spaces
from ..cards import CardSet
from ..engine import REWARD_MODES, Game
from ..framework.envs.common import SEED_BOUND, check_render_mode, next_game_seed
from ..game_spec import INFO_KEYS, OhMyGoodsModel, _seat_info
from ..rules import DEFAULT_MAX_ROUNDS, RuleSet
from ..spaces import N_PLACES, STATE_DIM, action_space, global_state, state_space

__all__ = [
    "INFO_KEYS",
    "N_PLACES",
    "SEED_BOUND",
    "STATE_DIM",
    "action_id",
    "action_ids",
    "EngineGameMixin",
    "action_space",
    "check_render_mode",
    "check_reward",
    "game_infos",
    "global_state",
    "next_game_seed",
    "obs_high",
    "observation_high",
    "observation_space",
    "state_space",
]


# ===================================================================== action ids


def action_id(action: Any) -> int:
    """``action`` as an action id, or a ``TypeError`` / ``ValueError`` naming what was expected.

    Accepts a Python or numpy integer (or a one-element integer array); refuses bools,
    strings, floats, ``None`` and ids outside ``0..N_ACTIONS - 1``.
    """
    a = action
    if isinstance(a, np.ndarray) and a.size == 1 and np.issubdtype(a.dtype, np.integer):
        a = a.reshape(-1)[0]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(
            f"an action must be an int action id in 0..{L.N_ACTIONS - 1} (see ohmygoods_env.actions), "
            f"got {type(action).__name__} {action!r}"
        )
    if not 0 <= int(a) < L.N_ACTIONS:
        raise ValueError(f"action {int(a)} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}")
    return int(a)


def action_ids(actions: Any, n: int) -> np.ndarray:
    """``actions`` as ``int64[n]`` action ids; else ``TypeError`` / ``ValueError`` naming the first bad row, value."""
    try:
        a = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"actions must be {n} int action ids in 0..{L.N_ACTIONS - 1}, got {actions!r}") from exc
    flat = a.reshape(-1)
    if flat.dtype.kind in "iu":
        bad = np.flatnonzero((flat < 0) | (flat >= L.N_ACTIONS))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"row {i}: action {int(flat[i])} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}"
            )
    else:
        for i, x in enumerate(flat.tolist() if flat.dtype != object else flat):
            try:
                action_id(x)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"row {i}: {exc}") from None
    if a.size != n:
        raise ValueError(f"expected {n} actions (one per env), got shape {a.shape}")
    return flat.astype(np.int64)


# ===================================================================== spaces


def observation_high(cards: CardSet | None = None, rules: RuleSet | None = None) -> np.ndarray:
    """Per-entry upper bound (float32[OBS_DIM]): :func:`ohmygoods_env.spaces.observation_high`."""
    return _spaces.observation_high(cards, rules)


def obs_high(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> float:
    """The largest entry of :func:`ohmygoods_env.spaces.observation_high` under these rules and cards."""
    return float(_spaces.observation_high(cards, RuleSet(max_rounds=max_rounds)).max())


def observation_space(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> spaces.Box:
    """The single-game observation space: :func:`ohmygoods_env.spaces.observation_space`."""
    return _spaces.observation_space(cards, RuleSet(max_rounds=max_rounds))


# ===================================================================== infos and global state


def game_infos(game: Game, agents: list[str], mapping: dict[str, int]) -> dict[str, dict[str, int]]:
    """Every agent's info (:data:`INFO_KEYS`, ints) rebuilt from ``game`` with the spec's info hook: the
    acting seat's decision id, final results at the end."""
    model = OhMyGoodsModel(game)
    cur = game.current_player
    return {a: _seat_info(model, mapping[a], mapping[a] == cur) for a in agents}


# ===================================================================== arguments


def check_reward(reward: str) -> str:
    """``reward`` if it is a reward mode of :data:`ohmygoods_env.engine.REWARD_MODES`; else a ``ValueError``."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {list(REWARD_MODES)}, got {reward!r}")
    return reward


# ===================================================================== the PettingZoo envs' engine game


class EngineGameMixin:
    """For the game's AEC and parallel env (subclasses of the framework's): ``game`` is the engine game.

    Mixed in before the framework's env class; the framework's envs hold the forward model
    (:class:`~ohmygoods_env.game_spec.OhMyGoodsModel`), whose ``game`` this is.
    """

    _model: OhMyGoodsModel

    @property
    def game(self) -> Game:
        """The underlying engine game (a forward model holding hidden information)."""
        return self._model.game
