"""PettingZoo ``ParallelEnv`` over any game of the registry: every pending seat acts in the same step.

* Agents ``player_0 .. player_{n-1}``, all live from ``reset`` to the end of the game; each
  gets an observation, a reward, flags and an info at every step.
* Each step the game's ``pending_players()`` act **together**: in a sequential part that
  is one seat, during a simultaneous choice every seat still to choose. Their actions are
  applied with ``step_joint`` (all checked before any is applied), so no seat's action can
  depend on another's, and the number of steps a simultaneous choice takes never depends
  on anybody's choice. A game that asks a simultaneous choice one seat at a time (its
  ``pending_players()`` is one seat, e.g. *Oh my Goods!* through
  :mod:`ohmygoods_env.game_spec`; its own :mod:`ohmygoods_env.envs.parallel` is the
  simultaneous one) is played one seat per step here.
* A seat that is not pending waits: its mask allows exactly one action, the wait action
  (the spec's ``wait_action``, or for a game without one an extra id ``num_actions`` added
  after the game's actions: the action space is then ``Discrete(num_actions + 1)``), and
  its action must be that id or ``None`` or left out of the dict.
* Spaces: ``Dict(observation=Box(low, high, (obs_size,), float32), action_mask=Box(0, 1,
  (n,), int8))`` and ``Discrete(n)``.
* Rewards: 0 during the game; the step that ends it gives every agent its final reward and
  terminates all; ``agents`` is then empty until ``reset``.
* Infos: numbers only, same keys for every agent: ``to_act`` and ``winner`` (as the AEC env).
* Errors (``illegal="raise"``, the default): an unknown agent, a missing action of a
  pending seat, a waiting seat's action other than the wait id: ``ValueError``; a wrong type
  ``TypeError``; an illegal action ``IllegalActionError``; nothing changes. With
  ``illegal="penalty"`` (Pgx style) an illegal or out-of-range action of a pending seat
  ends the game: each of the ``k`` offenders gets ``penalty``, every other seat
  ``-penalty * k / (P - k)``, and the waiting seats' actions are ignored; PettingZoo's
  ``parallel_seed_test`` samples unmasked actions and needs this mode.
* Seeds as in the AEC env.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from ..game import GameSpec, IllegalActionError, check_action, check_joint, illegal_message
from .common import (
    SeatedEnvMixin,
    check_illegal_mode,
    check_joint_actions,
    is_legal,
    next_game_seed,
    parallel_step_result,
    penalty_rewards,
    seat_infos,
    seat_of,
)

__all__ = ["GameParallelEnv", "parallel_env"]


class GameParallelEnv(SeatedEnvMixin, ParallelEnv):
    """A registered game as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "game_v0", "is_parallelizable": True}

    def __init__(
        self,
        game: str | GameSpec,
        num_players: int = 2,
        reward: str = "win",
        render_mode: str | None = None,
        illegal: str = "raise",
        penalty: float = -1.0,
        **options: Any,
    ) -> None:
        self._setup_game(game, num_players, reward, render_mode, options)
        self.illegal, self.penalty = check_illegal_mode(illegal, penalty)
        self._penalised = False
        spec_wait = self.setup.spec.wait_action
        #: the action id of a seat that has nothing to decide
        self.wait_action = spec_wait if spec_wait is not None else self._model.num_actions
        self.num_actions = max(self._model.num_actions, self.wait_action + 1)
        self._setup_agents(self.num_actions)

    @property
    def acting_agents(self) -> list[str]:
        """The agents that act in this step (the game's pending seats), empty at the end."""
        return [self.possible_agents[p] for p in self._pending()]

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        game_seed, self._rng = next_game_seed(seed, self._rng)
        self._model = self.setup.new_game(game_seed)
        self._penalised = False
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        check_joint_actions(self.agents, actions)
        chosen = self._check(actions)
        n = len(self.possible_agents)
        offenders = [p for p, a in chosen.items() if not is_legal(self._model, p, a)]
        if offenders:  # only in penalty mode: _check raised otherwise
            self._penalised = True
            final = penalty_rewards(n, offenders, self.penalty)
        else:
            self._model.step_joint({p: int(a) for p, a in chosen.items()})
            final = self._model.rewards(self.setup.reward) if self._model.done else np.zeros(n, np.float32)
        rewards = {a: float(final[self.agent_name_mapping[a]]) for a in self.agents}
        return parallel_step_result(self, rewards, self._over)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and mask now (the wait mask when it has nothing to decide)."""
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        mask = np.zeros(self.num_actions, np.int8)
        if p in self._pending():
            mask[: self._model.num_actions] = self._model.legal_mask(p)
        else:
            mask[self.wait_action] = 1
        return {"observation": self._model.observe(p), "action_mask": mask}

    # ------------------------------------------------------------------ helpers
    @property
    def _over(self) -> bool:
        return self._model.done or self._penalised

    def _pending(self) -> tuple[int, ...]:
        return () if self._over else self._model.pending_players()

    def _check(self, actions: dict[str, Any]) -> dict[int, Any]:
        """The pending seats' actions, checked before anything changes (see the module docstring)."""
        pending = self._pending()
        for agent, action in actions.items():
            p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
            if self.illegal == "raise" and p not in pending and action is not None:
                a = check_action(action, self.num_actions)
                if a != self.wait_action:
                    raise ValueError(
                        f"{agent} has nothing to decide ({', '.join(self.acting_agents)} to act): its action must "
                        f"be the wait action {self.wait_action} or None, got {action!r}"
                    )
        chosen = {}
        for p in pending:
            agent = self.possible_agents[p]
            if actions.get(agent) is None:
                raise ValueError(f"no action for {agent}, an agent to act (acting: {self.acting_agents})")
            chosen[p] = actions[agent]
        if self.illegal == "raise":
            for p, a in chosen.items():
                try:
                    a = check_action(a, self.num_actions)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"{exc} ({self.possible_agents[p]})") from None
                if a >= self._model.num_actions:  # the added wait id: a pending seat must decide
                    raise IllegalActionError(illegal_message(self._model, p, a) + " (the wait action)")
            checked = {p: int(a) for p, a in chosen.items()}
            check_joint(self._model, checked)
        else:
            for a in chosen.values():  # a wrong type is still an error, not a penalty
                if not isinstance(a, (int, np.integer)) or isinstance(a, (bool, np.bool_)):
                    check_action(a, self._model.num_actions)
        return chosen

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, int]]:
        return seat_infos(self._model, self.agents, self.agent_name_mapping, self._pending())


def parallel_env(game: str | GameSpec, **kwargs: Any) -> GameParallelEnv:
    """:class:`GameParallelEnv` (no wrappers: it checks its own input)."""
    return GameParallelEnv(game, **kwargs)
