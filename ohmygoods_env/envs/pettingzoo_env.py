"""*Oh my Goods!* as a PettingZoo AEC env: the framework's :class:`~ohmygoods_env.framework.envs.aec.GameAECEnv`
with the game's argument spelling.

:class:`raw_env` is ``GameAECEnv("ohmygoods", ...)``: no step, observe or reset logic of its
own. What the game adds to the generic env its spec declares (``GameSpec.env_hooks``,
:data:`ohmygoods_env.game_spec.ENV_HOOKS`), so ``framework.envs.aec_env("ohmygoods")`` behaves
the same way:

* Agents ``player_0 .. player_{n-1}``; ``agent_selection`` is the seat that must decide
  now (phases I and II are simultaneous in the rules and asked one seat at a time, R5.2).
* Action space ``Discrete(N_ACTIONS)`` (table in :mod:`ohmygoods_env.actions`).
* Observation space ``Dict(observation=Box(0, high, (OBS_DIM,), float32),
  action_mask=Box(0, 1, (N_ACTIONS,), int8))``; the mask of an agent that is not to act
  is all zeros (``layout.A_WAIT`` exists for the parallel env and is never legal here).
  ``high`` is a per-entry bound derived from the card tables
  (:func:`observation_high`). Observation and mask come from one kernel call.
* Rewards: 0 during the game; at the end **every** agent receives its final reward
  (``reward="win"``: +1 winners, -1 others, 0 if all tie; or ``"score"`` / ``"margin"``),
  and all agents are terminated. Each then steps ``None`` (``_was_dead_step``).
* Arguments: ``num_players``, ``rules``, ``render_mode``, ``reward``, ``auto_forced``,
  ``cards`` and rule options (``max_rounds``, ...), spelled as in every env of
  :mod:`ohmygoods_env.envs`.
* An illegal action raises :class:`ValueError` (``IllegalActionError``, the engine's words:
  the action, the player and the decision); the game and the env are unchanged. A wrong type
  raises ``TypeError``, an out-of-range id ``ValueError``, both naming the agent and the decision.
* ``infos[agent]`` holds numbers only, with the same keys for every agent at every step
  (:data:`INFO_KEYS`): ``decision`` — the pending decision id (``layout.D_*``; names in
  ``layout.DECISION_NAMES``) for the agent to act, -1 for the others, ``layout.D_OVER`` for
  everyone at the end; ``score``, ``leftover_coins`` and ``winner`` (0/1) — 0 until the game
  is over, then the final values. Mid-game a step gives new dicts only to the seat that acted
  and the seat to act (an info handed out earlier keeps its values); the end rebuilds all.
* :meth:`raw_env.state` is a **privileged** global state (:func:`global_state`, shape
  ``state_space``) for centralised critics (MAPPO): it holds hidden information and must
  never reach a policy.
* ``reset(seed=...)`` takes an int in ``0 <= seed < 2**64`` (or ``None``); anything else raises
  ``TypeError`` (not an int) or ``ValueError`` (out of range). ``reset(seed=s)`` deals
  ``Game(seed=s)`` and seeds the env's RNG with ``s``; ``reset()`` deals the game of the next
  seed that RNG draws, which a never-seeded env starts from fresh entropy (Gymnasium's contract).
* Render modes ``human``, ``ansi`` (the spectator text), ``rgb_array`` and ``svg`` (pictures).
* ``metadata["is_parallelizable"]`` is False: seats do not act in a cycle (one seat takes
  many decisions in a row), so PettingZoo's ``aec_to_parallel`` refuses this env. The
  parallel form is :func:`ohmygoods_env.envs.parallel.parallel_env`.

:func:`env` wraps :class:`raw_env` in the framework's
:class:`~ohmygoods_env.framework.envs.aec.OrderEnforcing` only (PettingZoo's order checks with
direct ``last``/``step``): ``TerminateIllegalWrapper`` would silently turn an illegal move
into a loss, and ``AssertOutOfBoundsWrapper`` would turn the engine's ``TypeError``/``ValueError``
for a bad action into a bare ``AssertionError``; the raw env already checks both.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .. import layout as L
from ..cards import CardSet
from ..framework.envs.aec import GameAECEnv, OrderEnforcing
from ..game_spec import OHMYGOODS
from ..rules import RuleSet
from .common import (
    INFO_KEYS,
    N_PLACES,
    STATE_DIM,
    EngineGameMixin,
    game_infos,
    global_state,
    observation_high,
    state_space,
)

__all__ = [
    "INFO_KEYS",
    "N_PLACES",
    "STATE_DIM",
    "env",
    "game_infos",
    "global_state",
    "observation_high",
    "raw_env",
    "state_space",
]


class raw_env(EngineGameMixin, GameAECEnv):
    """Oh my Goods! as a PettingZoo AEC environment: ``GameAECEnv("ohmygoods")`` (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array", "svg"],
        "name": f"oh_my_goods_v{L.LAYOUT_VERSION}",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        render_mode: str | None = None,
        reward: str = "win",
        auto_forced: bool = True,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        options = {"rules": rules, "auto_forced": auto_forced, "cards": cards, **rule_options}
        super().__init__(OHMYGOODS, num_players, reward, render_mode, **options)


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` wrapped for order checks (see the module docstring for why no other wrappers)."""
    return OrderEnforcing(raw_env(**kwargs))
