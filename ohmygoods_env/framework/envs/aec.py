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
* Infos: numbers only, same keys for every agent at every step: the spec's ``info`` hook
  (:class:`~ohmygoods_env.framework.env_hooks.EnvHooks`), by default ``to_act`` (1 for the agent
  to act) and ``winner`` (1 for the winners at the end). Mid-game a step gives new dicts only to
  the seat that acted and the seat to act (an info handed out earlier keeps its values); reset
  and the end rebuild all.
* Errors: a wrong type ``TypeError``, an out-of-range id ``ValueError``, an illegal action
  :class:`~ohmygoods_env.framework.game.IllegalActionError` (a ``ValueError``), naming the agent
  (and the decision, where the spec names decisions); the game and the env are unchanged. The
  env checks the action against the mask, unless the spec says the model checks its actions
  itself (``EnvHooks.checks_actions``): then the model's own words reach the user.
* Seeds: ``reset(seed=s)`` deals ``new_game(seed=s)`` and re-seeds the env's RNG with ``s``;
  ``reset()`` deals the game of the next seed that RNG draws (``seed_used``: the seed dealt).
* What a spec's hooks add: a privileged ``state()`` / ``state_space``, picture render modes,
  a fused observe-with-mask kernel (:mod:`ohmygoods_env.framework.env_hooks`).

:func:`aec_env` wraps :class:`GameAECEnv` in :class:`OrderEnforcing` only (the env checks its
own actions): PettingZoo's ``TerminateIllegalWrapper`` would silently turn an illegal move
into a loss, and ``AssertOutOfBoundsWrapper`` would turn a bad action's ``TypeError`` /
``ValueError`` into a bare ``AssertionError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..env_hooks import generic_info
from ..game import GameSpec, IllegalActionError, check_action, illegal_message
from .common import (
    SeatedEnvMixin,
    aec_dead_step,
    aec_reset_bookkeeping,
    seat_infos,
    seat_of,
)

__all__ = ["GameAECEnv", "OrderEnforcing", "aec_env"]

_F32, _I8 = np.float32, np.int8
_empty = np.empty


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
        hooks = self._hooks
        self._fused = hooks.observe_with_mask
        self._checks = hooks.checks_actions
        self._obs_size, self._num_actions = self._model.obs_size, self._model.num_actions
        #: mid-game infos: the acting seat's from the hook, an idle seat's a copy of ``idle_info`` where declared
        self._acting_info = hooks.info or generic_info
        self._idle_info = hooks.idle_info if hooks.info is not None else {"to_act": 0, "winner": 0}
        #: the spec's step-and-observe (EnvHooks.stepper) and the model's step it made (at each deal)
        self._make_stepper = hooks.stepper
        self._stepper: Any = None
        #: (agent, observation dict) a fast step wrote for the seat to act, handed out once by last()/observe()
        self._ready: tuple[str, dict[str, np.ndarray]] | None = None
        #: a step was asked since OrderEnforcing's agent_iter last looked (its ``_has_updated``)
        self._updated = False

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_stepper"] = state["_stepper"] is not None  # a function of the model (a closure): made again on load
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._stepper = self._make_stepper(self._model) if state["_stepper"] else None

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed)
        self._ready = None
        make = self._make_stepper
        self._stepper = make(self._model) if make is not None else None
        aec_reset_bookkeeping(self)
        m = self._model
        cur = m.current_player
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]
        self._set_infos()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            p = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            p = seat_of(agent, self.agent_name_mapping, self.possible_agents)  # raises, naming the agents
        ready = self._ready
        if ready is not None and ready[0] == agent:  # what the last step wrote for this seat, handed out once
            self._ready = None
            return ready[1]
        m = self._model
        fused = self._fused
        if fused is not None:  # one kernel call writes both; the mask is all 0 unless ``p`` is to act
            obs = _empty(self._obs_size, _F32)
            mask = _empty(self._num_actions, _I8)
            fused(m, p, obs, mask)
            return {"observation": obs, "action_mask": mask}
        mask = m.legal_mask(p) if p == m.current_player else np.zeros(m.num_actions, np.int8)
        return {"observation": m.observe(p), "action_mask": mask.astype(np.int8)}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of ``agent_selection``."""
        agent = self.agent_selection
        ready = self._ready
        if ready is not None and observe and ready[0] == agent:  # the last step observed this seat already
            self._ready = None
            seen = ready[1]
        elif observe and self._fused is not None:  # observe()'s fused path inline: one call less per step
            obs = _empty(self._obs_size, _F32)
            mask = _empty(self._num_actions, _I8)
            self._fused(self._model, self.agent_name_mapping[agent], obs, mask)
            seen = {"observation": obs, "action_mask": mask}
        else:
            seen = self.observe(agent) if observe else None
        return (
            seen,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        self._updated = True
        agent = self.agent_selection if self.agents else None
        if agent is None or self.terminations[agent] or self.truncations[agent]:
            aec_dead_step(self, action)  # PettingZoo's warning, or its dead step
            return
        stepper = self._stepper
        if stepper is not None and type(action) is int and 0 <= action < self._num_actions:
            # the spec's one call: the model's step, then the observation and mask of the seat to act
            obs = _empty(self._obs_size, _F32)
            mask = _empty(self._num_actions, _I8)
            cur = stepper(action, obs, mask)
            if cur >= 0:  # mid-game: the seat to act gets what the stepper observed for it
                self._next_seat(agent, cur)
                self._ready = (self.agent_selection, {"observation": obs, "action_mask": mask})
            elif cur == -1:
                self._ready = None
                self._game_over(agent)
            if cur >= -1:
                if self.render_mode == "human":
                    self.render()
                return
            # refused, nothing changed: the path below raises the model's error
        m = self._model
        if self._checks:  # the model checks the action itself, in its own words; nothing changes on error
            try:
                m.step(action)
            except IllegalActionError:
                raise
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} ({self._where(agent, m.current_player)})") from None
        else:
            cur = m.current_player
            try:
                a = check_action(action, m.num_actions)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} ({self._where(agent, cur)})") from None
            if not m.legal_mask(cur)[a]:  # the framework's error, whatever the game raises
                raise IllegalActionError(f"{illegal_message(m, cur, a)} ({self._where(agent, cur)})")
            m.step(a)
        self._ready = None  # the game moved on: what a step observed before is stale
        cur = m.current_player
        if cur < 0:  # the game is over (a model asks nobody only then)
            self._game_over(agent)
        else:
            self._next_seat(agent, cur)
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ helpers
    def _next_seat(self, agent: str, cur: int) -> None:
        """Mid-game, after ``agent`` acted: seat ``cur`` is to act.

        Every reward and cumulative reward is 0 mid-game (rewards come only at the end), so the
        PettingZoo clear/accumulate bookkeeping has nothing to do. Only two infos can change
        (EnvHooks.info): the seat that acted and the seat to act; each gets a new dict, so an
        info handed out earlier keeps its values.
        """
        nxt = self.possible_agents[cur]
        infos = self.infos
        info = self._acting_info
        if nxt != agent:
            idle = self._idle_info
            infos[agent] = (
                idle.copy() if idle is not None else info(self._model, self.agent_name_mapping[agent], False, None)
            )
        infos[nxt] = info(self._model, cur, True, None)
        self.agent_selection = nxt

    def _game_over(self, agent: str) -> None:
        """After ``agent``'s step ended the game: every agent's final reward, flag and info."""
        m = self._model
        if not m.done:
            raise RuntimeError(f"{self.setup.spec.title}: the model asks no player but the game is not over")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        final = m.rewards(self.setup.reward)
        mapping = self.agent_name_mapping
        for a in self.agents:
            self.rewards[a] = float(final[mapping[a]])
        self.terminations = dict.fromkeys(self.agents, True)
        self._set_infos()
        self._accumulate_rewards()

    def _set_infos(self) -> None:
        m = self._model
        cur = m.current_player
        self.infos = seat_infos(m, self.agents, self.agent_name_mapping, (cur,) if cur >= 0 else (), self._info)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with direct ``last`` and ``step``.

    The stock wrapper runs ``AECEnv.last`` on itself, so each of its five attribute reads
    goes through two ``__getattr__`` hops; here ``last`` checks the order once and asks the
    wrapped env. Same checks, same errors and warnings: before ``reset`` the stock paths
    run (and raise), and a step with no agents left takes the stock path (a warning).

    Once a :class:`GameAECEnv` is reset, the wrapper's ``last`` and ``step`` *are* the env's
    (bound on the instance: no wrapper call per step). Nothing is left to check then: a reset
    never un-happens, the env's step warns as the stock wrapper does when no agent is left,
    and the flag ``agent_iter`` checks (``_has_updated``) is the env's own ``_updated``, which
    its ``step`` sets.
    """

    def __init__(self, env: AECEnv) -> None:
        self.env = env  # before the stock __init__, which sets _has_updated (a flag of the env)
        super().__init__(env)

    @property
    def _has_updated(self) -> bool:
        return self.env._updated

    @_has_updated.setter
    def _has_updated(self, value: bool) -> None:
        self.env._updated = value

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        super().reset(seed=seed, options=options)
        env = self.env
        if isinstance(env, GameAECEnv):
            self.last, self.step = env.last, env.step

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        env = self.env
        if self._has_reset and env.agents:
            self._has_updated = True
            env.step(action)
        else:
            super().step(action)

    def __str__(self) -> str:
        return str(self.env)  # as the stock wrapper prints itself: the env's name


def aec_env(game: str | GameSpec, **kwargs: Any) -> AECEnv:
    """:class:`GameAECEnv` in :class:`OrderEnforcing` (see the module docstring for why no other wrappers)."""
    return OrderEnforcing(GameAECEnv(game, **kwargs))
