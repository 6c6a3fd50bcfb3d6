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
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game import GameSpec, IllegalActionError, check_action, illegal_message
from .common import (
    SeatedEnvMixin,
    aec_dead_step,
    aec_reset_bookkeeping,
    next_game_seed,
    seat_infos,
    seat_of,
)

__all__ = ["GameAECEnv", "aec_env"]


class GameAECEnv(SeatedEnvMixin, AECEnv):
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
        self._setup_game(game, num_players, reward, render_mode, options)
        self._setup_agents(self._model.num_actions)

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        game_seed, self._rng = next_game_seed(seed, self._rng)
        self._model = self.setup.new_game(game_seed)
        aec_reset_bookkeeping(self)
        self._sync()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        m = self._model
        mask = m.legal_mask(p) if p == m.current_player else np.zeros(m.num_actions, np.int8)
        return {"observation": m.observe(p), "action_mask": mask.astype(np.int8)}

    def step(self, action: int | None) -> None:
        if aec_dead_step(self, action):
            return
        agent = self.agent_selection
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
