"""PettingZoo AEC env over any game of the registry: one pending seat asked per step.

* Agents ``player_0 .. player_{n-1}``; ``agent_selection`` is the game's ``current_player``
  (the first pending seat). A simultaneous choice is asked one seat at a time: the model
  records each choice face down and no observation shows it before the reveal (the game's
  promise); the next pending seat is asked next.
* Spaces: ``Dict(observation=Box(low, high, (obs_size,), float32), action_mask=Box(0, 1,
  (num_actions,), int8))`` and ``Discrete(num_actions)``, from the model's sizes and the
  spec's ``obs_bounds``. The mask of an agent that is not to act is all zeros.
* Rewards: 0 during the game; at the end every agent receives its final reward
  (``reward``: one of the spec's reward modes) and is terminated, then steps ``None``.
* Infos: numbers only, same keys for every agent: ``to_act`` (1 for the agent to act) and
  ``winner`` (1 for the winners at the end).
* Errors: a wrong type ``TypeError``, an out-of-range id ``ValueError``, an illegal action
  :class:`~ohmygoods_env.framework.game.IllegalActionError` (a ``ValueError``; checked here
  against the mask, so every game raises the framework's error), naming the agent; the game
  and the env are unchanged.
* Seeds: ``reset(seed=s)`` deals ``new_game(seed=s)`` and re-seeds the env's RNG with ``s``;
  ``reset()`` deals the game of the next seed that RNG draws.

:func:`aec_env` wraps :class:`GameAECEnv` in PettingZoo's ``OrderEnforcingWrapper`` only
(the env checks its own actions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..game import ForwardModel, GameSpec, IllegalActionError, check_action, illegal_message
from .common import GameSetup, check_render_mode, next_game_seed, render_view, seat_infos, seat_of, seat_spaces

__all__ = ["GameAECEnv", "aec_env"]


class GameAECEnv(AECEnv):
    """A registered game as a PettingZoo AEC env (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "game_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str | GameSpec,
        num_players: int = 2,
        reward: str = "win",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.setup = GameSetup(game, num_players, reward, options)
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.metadata = {**self.metadata, "name": self.setup.env_name()}
        self._model = self.setup.new_game(0)  # bad options fail here, not at reset
        self._rng = np.random.default_rng()
        self.possible_agents, self.agent_name_mapping, self.observation_spaces, self.action_spaces = seat_spaces(
            self.setup, self._model, self._model.num_actions
        )
        self.agents = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> ForwardModel:
        """The forward model (holds hidden information: not for a policy)."""
        return self._model

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        game_seed, self._rng = next_game_seed(seed, self._rng)
        self._model = self.setup.new_game(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._sync()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        m = self._model
        mask = m.legal_mask(p) if p == m.current_player else np.zeros(m.num_actions, np.int8)
        return {"observation": m.observe(p), "action_mask": mask.astype(np.int8)}

    def step(self, action: int | None) -> None:
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        m = self._model
        try:
            a = check_action(action, m.num_actions)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{exc} ({agent})") from None
        if not m.legal_mask(m.current_player)[a]:  # the framework's error, whatever the game raises
            raise IllegalActionError(f"{illegal_message(m, m.current_player, a)} ({agent})")
        m.step(a)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self._model.done:
            final = self._model.rewards(self.setup.reward)
            for a in self.agents:
                self.rewards[a] = float(final[self.agent_name_mapping[a]])
            self.terminations = dict.fromkeys(self.agents, True)
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        return render_view(self.setup, self._model, self.render_mode)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def _sync(self) -> None:
        m = self._model
        cur = m.current_player
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        self.infos = seat_infos(m, self.agents, self.agent_name_mapping, (cur,) if cur >= 0 else ())


def aec_env(game: str | GameSpec, **kwargs: Any) -> AECEnv:
    """:class:`GameAECEnv` in PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(GameAECEnv(game, **kwargs))
