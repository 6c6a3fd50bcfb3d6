"""PettingZoo ``ParallelEnv`` over any game of the registry: every pending seat acts in the same step.

* Agents ``player_0 .. player_{n-1}``, all live from ``reset`` to the end of the game; each
  gets an observation, a reward, flags and an info at every step.
* Each step the game's ``pending_players()`` act **together**: in a sequential part that
  is one seat, during a simultaneous choice every seat still to choose. Their actions are
  applied with ``step_joint`` (all checked before any is applied), so no seat's action can
  depend on another's, and the number of steps a simultaneous choice takes never depends
  on anybody's choice.
* A game whose model asks a simultaneous choice one seat at a time, several decisions each
  (*Oh my Goods!*'s phases I and II), declares it in its spec (``GameSpec.simultaneous``,
  :class:`~ohmygoods_env.framework.game.SimultaneousChoice`): while the model stands at one,
  every seat with a decision on its own line acts in the same step, a seat whose line is
  finished waits until the choice's fixed number of steps is over, and the choices are then
  applied to the model in the declared order. Meanwhile :attr:`game` and ``render()`` show the
  game as at the choice's start. ``simultaneous=False`` ignores the declaration (one pending
  seat per step, as the model asks).
* A seat that is not pending waits: its mask allows exactly one action, the wait action
  (the spec's ``wait_action``, or for a game without one an extra id ``num_actions`` added
  after the game's actions: the action space is then ``Discrete(num_actions + 1)``), and
  its action must be that id or ``None`` or left out of the dict.
* Spaces: ``Dict(observation=Box(low, high, (obs_size,), float32), action_mask=Box(0, 1,
  (n,), int8))`` and ``Discrete(n)``.
* Rewards: 0 during the game; the step that ends it gives every agent its final reward and
  terminates all; ``agents`` is then empty until ``reset``.
* Infos: numbers only, same keys for every agent: the spec's ``info`` hook, by default
  ``to_act`` and ``winner`` (as the AEC env).
* ``state()`` / ``state_space``, picture render modes and a fused observe-with-mask kernel
  where the spec's hooks declare them (:mod:`ohmygoods_env.framework.env_hooks`).
* Errors (``illegal="raise"``, the default): an unknown agent, a missing action of a
  pending seat, a waiting seat's action other than the wait id: ``ValueError``; a wrong type
  ``TypeError``; an illegal action ``IllegalActionError``; nothing changes. The errors name
  the agent and, where the spec names decisions, the decision; a model that checks its own
  actions (``EnvHooks.checks_actions``) is stepped directly when one seat acts, so its own
  words reach the user. With
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

from ..game import GameSpec, IllegalActionError, SimultaneousChoice, check_action, check_joint, illegal_message
from .common import (
    SeatedEnvMixin,
    check_illegal_mode,
    check_joint_actions,
    is_legal,
    parallel_step_result,
    seat_infos,
    seat_of,
)

__all__ = ["GameParallelEnv", "parallel_env"]

_F32, _I8 = np.float32, np.int8


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
        simultaneous: bool = True,
        **options: Any,
    ) -> None:
        self._setup_game(game, num_players, reward, render_mode, options)
        self.illegal, self.penalty = check_illegal_mode(illegal, penalty)
        if not isinstance(simultaneous, (bool, np.bool_)):
            raise TypeError(f"simultaneous must be a bool, got {type(simultaneous).__name__} {simultaneous!r}")
        self.simultaneous = bool(simultaneous)
        #: the spec's declaration of its simultaneous choices (None: the pending seats decide together)
        self._declared = self.setup.spec.simultaneous if self.simultaneous else None
        self._choice: SimultaneousChoice | None = None
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

    @property
    def acting_agent(self) -> str | None:
        """The first of :attr:`acting_agents` (``None`` when nobody acts: the end, or every seat waits)."""
        acting = self.acting_agents
        return acting[0] if acting else None

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self._new_game(seed)
        self._penalised = False
        self._choice = None
        self._begin_choice()
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        check_joint_actions(self.agents, actions)
        chosen = self._check(actions)
        n = len(self.possible_agents)
        mapping = self.agent_name_mapping
        offenders = [] if self.illegal == "raise" else [p for p, a in chosen.items() if not self._is_legal(p, a)]
        if offenders:  # penalty mode: each offender gets the penalty, the others share it (zero-sum)
            self._penalised = True
            self._choice = None
            k = len(offenders)
            other = -self.penalty * k / (n - k) if n > k else 0.0
            rewards = {a: self.penalty if mapping[a] in offenders else other for a in self.agents}
        else:
            self._apply({p: int(a) for p, a in chosen.items()})
            final = self._model.rewards(self.setup.reward) if self._model.done else None
            rewards = {a: 0.0 if final is None else float(final[mapping[a]]) for a in self.agents}
        return parallel_step_result(self, rewards, self._over)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and mask now (the wait mask when it has nothing to decide)."""
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        m = self._model
        mask = np.zeros(self.num_actions, _I8)
        pending = p in self._pending()
        fused = self._hooks.observe_with_mask
        if self._choice is None and fused is not None:  # one call: the observation and the seat's mask
            obs = np.empty(m.obs_size, _F32)
            fused(m, p, obs, mask[: m.num_actions])
            if not pending:
                mask[:] = 0
        else:
            obs = m.observe(p) if self._choice is None else self._choice.observe(p)
            if pending:
                mask[: m.num_actions] = self._mask_of(p)
        if not pending:
            mask[self.wait_action] = 1
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------------ helpers
    @property
    def _over(self) -> bool:
        return self._model.done or self._penalised

    def _pending(self) -> tuple[int, ...]:
        if self._over:
            return ()
        return self._model.pending_players() if self._choice is None else tuple(self._choice.acting())

    def _begin_choice(self) -> None:
        """Begin the declared simultaneous choice where the model stands at one."""
        if self._declared is not None and self._choice is None and not self._model.done:
            self._choice = self._declared(self._model)

    def _apply(self, chosen: dict[int, int]) -> None:
        """Step the model (the pending seats) or the simultaneous choice (applied to the model at its end)."""
        if self._choice is None:
            if self._hooks.checks_actions and len(chosen) == 1:  # the model checks it, in its own words
                ((p, action),) = chosen.items()
                self._model.step(action)
            else:
                self._model.step_joint(chosen)
        else:
            self._choice.step(chosen)
            if self._choice.over:
                choice, self._choice = self._choice, None
                choice.apply_to(self._model)
        self._begin_choice()

    def _mask_of(self, p: int) -> np.ndarray:
        return self._model.legal_mask(p) if self._choice is None else self._choice.legal_mask(p)

    def _is_legal(self, p: int, action: object) -> bool:
        if self._choice is None:
            return is_legal(self._model, p, action)
        try:
            a = check_action(action, self._model.num_actions)
        except ValueError:
            return False
        return bool(self._choice.legal_mask(p)[a])

    def _check(self, actions: dict[str, Any]) -> dict[int, Any]:
        """The pending seats' actions, checked before anything changes (see the module docstring)."""
        pending = self._pending()
        choice = self._choice
        for agent, action in actions.items():
            p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
            if self.illegal == "raise" and p not in pending and action is not None:
                a = check_action(action, self.num_actions)
                if a != self.wait_action:
                    acting = ", ".join(self.acting_agents) or "nobody"
                    if self._hooks.decision_name is not None and pending:
                        acting += f" to act, decision '{self._hooks.decision_name(self._model, pending[0], None)}'"
                    else:
                        acting += " to act"
                    wait = self._hooks.wait_label or "the wait action"
                    raise ValueError(
                        f"{agent} has nothing to decide ({acting}): its action must be {wait} ({self.wait_action}) "
                        f"or None, got {action!r}"
                    )
        chosen = {}
        for p in pending:
            agent = self.possible_agents[p]
            if actions.get(agent) is None:
                where = self._where(f"acting: {self.acting_agents}", p, choice)
                raise ValueError(f"no action for {agent}, an agent to act ({where})")
            chosen[p] = actions[agent]
        if self.illegal == "raise":
            for p, a in chosen.items():
                try:
                    a = check_action(a, self.num_actions)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"{exc} ({self._where(self.possible_agents[p], p, choice)})") from None
                if a >= self._model.num_actions:  # the added wait id: a pending seat must decide
                    raise IllegalActionError(illegal_message(self._model, p, a) + " (the wait action)")
            checked = {p: int(a) for p, a in chosen.items()}
            if choice is None:
                if not (self._hooks.checks_actions and len(checked) == 1):  # else the model checks it (_apply)
                    check_joint(self._model, checked)
            else:
                for p, a in checked.items():
                    mask = choice.legal_mask(p)
                    if not mask[a]:
                        legal = [int(x) for x in np.flatnonzero(mask)]
                        raise IllegalActionError(
                            f"action {a} is illegal for player {p} in the simultaneous choice; legal actions: "
                            f"{legal} ({self._where(self.possible_agents[p], p, choice)})"
                        )
        else:
            for a in chosen.values():  # a wrong type is still an error, not a penalty
                if not isinstance(a, (int, np.integer)) or isinstance(a, (bool, np.bool_)):
                    check_action(a, self._model.num_actions)
        return chosen

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, int]]:
        return seat_infos(self._model, self.agents, self.agent_name_mapping, self._pending(), self._info, self._choice)


def parallel_env(game: str | GameSpec, **kwargs: Any) -> GameParallelEnv:
    """:class:`GameParallelEnv` (no wrappers: it checks its own input)."""
    return GameParallelEnv(game, **kwargs)
