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
  is all zeros. ``high`` is a per-entry bound derived from the card tables
  (:func:`observation_high`).
* Rewards: 0 during the game; at the end **every** agent receives its final reward
  (``reward="win"``: +1 winners, -1 others, 0 if all tie; or ``"score"`` / ``"margin"``),
  and all agents are terminated. Each then steps ``None`` (``_was_dead_step``).
* An illegal action raises :class:`ValueError` (``IllegalActionError``) naming the action
  and the decision; the game and the env are unchanged. A wrong type raises ``TypeError``.
* ``infos[agent]`` carries ``{"decision": name}`` for the agent to act; at the end every
  agent's info holds its final ``score``, ``leftover_coins`` and ``winner`` flag.

:func:`env` wraps :class:`raw_env` in ``OrderEnforcingWrapper`` only (a subclass whose
``last``/``step`` skip the stock wrapper's per-attribute ``__getattr__`` hops): PettingZoo's
``TerminateIllegalWrapper`` would silently turn an illegal move into a loss, and
``AssertOutOfBoundsWrapper`` would turn the engine's ``TypeError``/``ValueError`` for a
bad action into a bare ``AssertionError``; the raw env already checks both.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .. import core
from .. import layout as L
from .. import spaces as _spaces
from ..cards import (
    CardSet,
)
from ..engine import REWARD_MODES, Game, IllegalActionError
from ..render import render_text
from ..rules import RuleSet

__all__ = ["env", "observation_high", "raw_env"]

_SEED_BOUND = 2**63 - 1


def observation_high(cards: CardSet | None = None, rules: RuleSet | None = None) -> np.ndarray:
    """Per-entry upper bound (float32[OBS_DIM]): :func:`ohmygoods_env.spaces.observation_high`."""
    return _spaces.observation_high(cards, rules)


class raw_env(AECEnv):
    """Oh my Goods! as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "oh_my_goods_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        rules: str = "omg2",
        render_mode: str | None = None,
        reward: str = "win",
        auto_forced: bool = True,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {list(REWARD_MODES)}, got {reward!r}")
        self.render_mode = render_mode
        self.reward_mode = reward
        self._game_args = (num_players, rules)
        self._rule_options = {"auto_forced": auto_forced, **rule_options}
        # Built once here so that bad arguments fail at construction, not at reset.
        self._game = Game(num_players, rules, seed=0, **self._rule_options)
        self._rng = np.random.default_rng()
        n = self._game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        high = observation_high(self._game.cards, self._game.rules)
        self.observation_spaces = {
            a: spaces.Dict(
                OrderedDict(  # a plain dict would be sorted by key; the documented order is kept
                    observation=spaces.Box(0.0, high, (L.OBS_DIM,), np.float32),
                    action_mask=spaces.Box(0, 1, (L.N_ACTIONS,), np.int8),
                )
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(L.N_ACTIONS) for a in self.possible_agents}

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ access
    @property
    def game(self) -> Game:
        """The underlying engine game (a forward model holding hidden information)."""
        return self._game

    @property
    def seed_used(self) -> int | None:
        """The seed the current game was dealt from (``None`` before the first reset)."""
        return getattr(self, "_seed_used", None)

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``seed`` fixes it (same seed, same game), ``None`` draws one from the env's RNG."""
        if seed is not None:
            game_seed = int(seed)
            self._rng = np.random.default_rng(game_seed % 2**64)
        else:
            game_seed = int(self._rng.integers(0, _SEED_BOUND))
        num_players, rules = self._game_args
        self._game = Game(num_players, rules, seed=game_seed, cards=self._game.cards, **self._rule_options)
        self._seed_used = game_seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.possible_agents[self._game.current_player]
        self._set_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            p = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}: expected one of {self.possible_agents}") from None
        g = self._game
        obs = np.empty(L.OBS_DIM, np.float32)
        mask = np.empty(L.N_ACTIONS, np.int8)
        # One kernel call writes both; the mask is all 0 unless ``p`` is the seat to act.
        core.observe_with_mask(g.state, g.cards.buildings, g.cards.assistants, p, obs, mask)
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
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._apply(agent, action)
        g = self._game
        if g.done:
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
            # so the PettingZoo clear/accumulate bookkeeping has nothing to do here.
            self.agent_selection = self.possible_agents[g.state[L.F_CUR]]
            self._set_infos()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The spectator view: text (:func:`~ohmygoods_env.render.render_text`) or a picture.

        ``"ansi"`` returns the text, ``"human"`` prints it, ``"rgb_array"`` returns
        ``uint8[H, W, 3]`` from :func:`~ohmygoods_env.picture.render_image` (needs matplotlib).
        """
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            from ..picture import render_image

            return render_image(self._game)
        text = render_text(self._game)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _apply(self, agent: str, action: object) -> None:
        """Step the game; on any error the game is unchanged and the message names the decision."""
        try:
            self._game.step(action)
        except IllegalActionError:
            raise  # already names the action, the player and the decision
        except (TypeError, ValueError) as exc:  # wrong type or out-of-range id (check_action)
            raise type(exc)(f"{exc} ({agent}, decision '{self._game.decision_name}')") from None

    def _set_infos(self) -> None:
        g = self._game
        if g.done:
            scores, winners = g.scores(), g.winners()
            self.infos = {}
            for a in self.agents:
                score, left = scores[self.agent_name_mapping[a]]
                self.infos[a] = {
                    "decision": g.decision_name,
                    "score": score,
                    "leftover_coins": left,
                    "winner": self.agent_name_mapping[a] in winners,
                }
        else:
            self.infos = {a: {} for a in self.agents}
            self.infos[self.agent_selection] = {"decision": g.decision_name}


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
