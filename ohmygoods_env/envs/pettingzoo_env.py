"""PettingZoo AEC environment over :class:`~ohmygoods_env.engine.Game`: a thin adapter, no rules.

This module owns the turn-based multi-agent interface: agent names, spaces, the
PettingZoo bookkeeping (rewards, cumulative rewards, terminations, dead steps), seeding
and rendering hooks. Every rule, every legal mask and every observation comes from the
engine.

* Agents ``player_0 .. player_{n-1}``; ``agent_selection`` is the seat that must decide
  now (phases I and II are simultaneous in the rules and asked one seat at a time, R5.2).
* Action space ``Discrete(N_ACTIONS)`` (table in :mod:`ohmygoods_env.actions`).
* Observation space ``Dict(observation=Box(0, high, (OBS_DIM,), float32),
  action_mask=Box(0, 1, (N_ACTIONS,), int8))``; the mask of an agent that is not to act
  is all zeros (``layout.A_WAIT`` exists for the parallel env and is never legal here).
  ``high`` is a per-entry bound derived from the card tables
  (:func:`observation_high`).
* Rewards: 0 during the game; at the end **every** agent receives its final reward
  (``reward="win"``: +1 winners, -1 others, 0 if all tie; or ``"score"`` / ``"margin"``),
  and all agents are terminated. Each then steps ``None`` (``_was_dead_step``).
* Arguments: ``num_players``, ``rules``, ``render_mode``, ``reward``, ``auto_forced``,
  ``cards`` and rule options (``max_rounds``, ...), spelled as in every env of
  :mod:`ohmygoods_env.envs`; the agents, spaces, dealing and ``state()`` are shared with the
  parallel env (:class:`~ohmygoods_env.envs.common.GameAgents`).
* An illegal action raises :class:`ValueError` (``IllegalActionError``) naming the action
  and the decision; the game and the env are unchanged. A wrong type raises ``TypeError``.
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
* ``metadata["is_parallelizable"]`` is False: seats do not act in a cycle (one seat takes
  many decisions in a row), so PettingZoo's ``aec_to_parallel`` refuses this env. The
  parallel form is :func:`ohmygoods_env.envs.parallel.parallel_env`.

:func:`env` wraps :class:`raw_env` in ``OrderEnforcingWrapper`` only (a subclass whose
``last``/``step`` skip the stock wrapper's per-attribute ``__getattr__`` hops): PettingZoo's
``TerminateIllegalWrapper`` would silently turn an illegal move into a loss, and
``AssertOutOfBoundsWrapper`` would turn the engine's ``TypeError``/``ValueError`` for a
bad action into a bare ``AssertionError``; the raw env already checks both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .. import core
from .. import layout as L
from ..cards import CardSet
from ..engine import IllegalActionError
from ..framework.checks import optional_seed
from ..framework.envs.common import aec_dead_step, aec_reset_bookkeeping, seat_of
from ..rules import RuleSet
from .common import (
    INFO_KEYS,
    N_PLACES,
    STATE_DIM,
    GameAgents,
    game_infos,
    global_state,
    observation_high,
    render_spectator,
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

# Module-level names for the per-step paths (one global lookup instead of attribute hops).
_OBS_DIM, _N_ACTIONS, _F_CUR, _F_DEC, _D_OVER = L.OBS_DIM, L.N_ACTIONS, L.F_CUR, L.F_DEC, L.D_OVER
_F32, _I8 = np.float32, np.int8


class raw_env(GameAgents, AECEnv):
    """Oh my Goods! as a PettingZoo AEC environment (see the module docstring)."""

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
        super().__init__()
        self._setup(num_players, rules, render_mode, reward, auto_forced, cards, rule_options)

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` fixes it (same seed, same game), ``None`` draws one from the env's RNG."""
        self._deal(optional_seed(seed))
        aec_reset_bookkeeping(self)
        self.agent_selection = self.possible_agents[self._game.current_player]
        self._set_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        g = self._game
        cards = g.cards
        obs = np.empty(_OBS_DIM, _F32)
        mask = np.empty(_N_ACTIONS, _I8)
        # One kernel call writes both; the mask is all 0 unless ``p`` is the seat to act.
        core.observe_with_mask(g.state, cards.buildings, cards.assistants, p, obs, mask)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of ``agent_selection``."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        if aec_dead_step(self, action):
            return
        agent = self.agent_selection
        g = self._game
        try:
            g.step(action)
        except IllegalActionError:
            raise  # already names the action, the player and the decision; nothing changed
        except (TypeError, ValueError) as exc:  # wrong type or out-of-range id (check_action)
            raise type(exc)(f"{exc} ({agent}, decision '{g.decision_name}')") from None
        state = g.state
        dec = state.item(_F_DEC)
        if dec == _D_OVER:
            self._cumulative_rewards[agent] = 0.0
            self._clear_rewards()
            final = g.rewards(self.reward_mode)
            for a in self.agents:
                self.rewards[a] = float(final[self.agent_name_mapping[a]])
            self.terminations = dict.fromkeys(self.agents, True)
            self._set_infos()
            self._accumulate_rewards()
        else:
            # Mid-game every reward and cumulative reward is 0 (rewards come only at the end),
            # so the PettingZoo clear/accumulate bookkeeping has nothing to do here. Only two
            # infos can change: the seat that acted (now -1 unless it acts again) and the seat
            # to act; each gets a new dict, so an info handed out earlier keeps its values.
            nxt = self.possible_agents[state[_F_CUR]]
            infos = self.infos
            if nxt != agent:
                infos[agent] = {"decision": -1, "score": 0, "leftover_coins": 0, "winner": 0}
            infos[nxt] = {"decision": dec, "score": 0, "leftover_coins": 0, "winner": 0}
            self.agent_selection = nxt
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The spectator view: text (:func:`~ohmygoods_env.render.render_text`) or a picture.

        ``"ansi"`` returns the text, ``"human"`` prints it, ``"rgb_array"`` returns
        ``uint8[H, W, 3]`` from :func:`~ohmygoods_env.picture.render_image` (needs cairosvg),
        ``"svg"`` the SVG text of :func:`~ohmygoods_env.picture.render_svg`.
        """
        return render_spectator(self._game, self.render_mode)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _set_infos(self) -> None:
        self.infos = game_infos(self._game, self.agents, self.agent_name_mapping)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct ``last`` and ``step``.

    The stock wrapper runs ``AECEnv.last`` on itself, so each of its five attribute reads
    goes through two ``__getattr__`` hops; here ``last`` checks the order once and asks the
    wrapped env. Same checks, same errors and warnings: before ``reset`` the stock paths
    run (and raise), and a step with no agents left takes the stock path (a warning).
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def __str__(self) -> str:
        return str(self.env)  # as the stock wrapper prints itself: the env's name


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` wrapped for order checks (see the module docstring for why no other wrappers)."""
    return _OrderEnforcing(raw_env(**kwargs))
