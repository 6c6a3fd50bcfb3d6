"""PettingZoo ``ParallelEnv`` over :class:`~ohmygoods_env.engine.Game`: every seat steps at once.

This module owns the parallel interface; the rules, masks and observations come from the
engine, the spaces, seeding, infos and global state from :mod:`.common`, which the AEC env
(:mod:`.pettingzoo_env`) uses too, so both envs see a game the same way.

* Agents ``player_0 .. player_{n-1}``; all of them are live from ``reset`` to the end of
  the game and each gets an observation, a reward, flags and an info at every step.
* Outside the simultaneous phases one seat acts per step: the seat the engine asks (its
  mask is the engine's legal mask). Every other seat has nothing to decide: its mask has
  exactly one legal action, ``layout.A_WAIT``, and its action must be ``A_WAIT`` (or left
  out of the dict).
* The rules' simultaneous choices (phase I keep/discard, R4.1; phase II assistants and
  their payment, worker and set-aside, R5.2-R5.5) are **simultaneous** here: every seat
  with a pending choice acts in the same step, each on its own line of decisions, and the
  phase takes a number of steps fixed by public information at its start, whatever anybody
  chooses (a seat that has finished waits). The choices are applied to the game in turn
  order when the phase's steps are over (:mod:`.simultaneous`). During such a phase
  :attr:`game`, ``state()`` and ``render()`` show the game as at its start.
  ``simultaneous=False`` asks those choices one seat per step instead, as the engine,
  ``BatchGames`` and :class:`~ohmygoods_env.envs.seat_vec.SeatVecEnv` do: the observations
  still hide every choice, but the number of steps before a seat's turn then tells a
  recurrent policy how many decisions the seats before it took.
* Spaces as in the AEC env: ``Dict(observation=Box(0, high, (OBS_DIM,), float32),
  action_mask=Box(0, 1, (N_ACTIONS,), int8))`` and ``Discrete(N_ACTIONS)``.
* Rewards: 0 during the game; the step that ends it gives **every** agent its final reward
  (``reward="win"``: +1 winners, -1 others, 0 if all tie; ``"score"`` / ``"margin"``) and
  terminates all agents; ``agents`` is then empty until ``reset``. At the end every mask is
  the wait mask.
* Infos: numbers only, same keys for every agent (``common.INFO_KEYS``).
* ``state()`` / ``state_space``: the **privileged** global state for centralised critics
  (:func:`~ohmygoods_env.envs.common.global_state`); never for a policy.
* Seeding as in the AEC env: ``reset(seed=s)`` deals ``Game(seed=s)`` and re-seeds the env's
  RNG with ``s``; ``reset()`` draws the next game seed from that RNG.
* Errors (``illegal="raise"``, the default): an illegal action, a missing action of the
  acting seat, a non-wait action of a waiting seat or an unknown agent raise ``ValueError``
  (a wrong type ``TypeError``); the game is unchanged. With ``illegal="penalty"`` (Pgx
  style, as in ``BatchGames``) an illegal or out-of-range action of an acting seat ends the
  game at once: each of the ``k`` offenders gets ``penalty`` (a finite number, default -1), every other seat
  ``-penalty * k / (P - k)``; the waiting seats' actions are then ignored. (PettingZoo's
  ``parallel_seed_test`` samples unmasked actions and needs this mode.)

``parallel_to_aec(parallel_env())`` gives a cycling AEC env (every seat steps once per
cycle, ``A_WAIT`` when it has nothing to decide).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from .. import core
from .. import layout as L
from ..cards import CardSet
from ..engine import IllegalActionError, check_action, illegal_action_message
from ..framework.checks import optional_seed
from ..framework.envs.common import check_illegal_mode, check_joint_actions, parallel_step_result, seat_of
from ..rules import RuleSet
from .common import GameAgents, game_infos, render_spectator
from .simultaneous import SimultaneousPhase

__all__ = ["OhMyGoodsParallelEnv", "parallel_env"]


class OhMyGoodsParallelEnv(GameAgents, ParallelEnv):
    """Oh my Goods! as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array", "svg"],
        "name": f"oh_my_goods_v{L.LAYOUT_VERSION}",
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        render_mode: str | None = None,
        reward: str = "win",
        auto_forced: bool = True,
        illegal: str = "raise",
        penalty: float = -1.0,
        simultaneous: bool = True,
        cards: CardSet | None = None,
        **rule_options: Any,
    ) -> None:
        illegal, penalty = check_illegal_mode(illegal, penalty)
        if not isinstance(simultaneous, (bool, np.bool_)):
            raise TypeError(f"simultaneous must be a bool, got {type(simultaneous).__name__} {simultaneous!r}")
        self.illegal = illegal
        self.penalty = penalty
        self._penalised = False
        self.simultaneous = bool(simultaneous)
        self._phase: SimultaneousPhase | None = None
        self._setup(num_players, rules, render_mode, reward, auto_forced, cards, rule_options)
        self.agents: list[str] = []

    # ------------------------------------------------------------------ spaces and access
    @property
    def acting_agents(self) -> list[str]:
        """The agents with a decision in this step, in turn order (empty when the game is over)."""
        return [self.possible_agents[p] for p in self._acting()]

    @property
    def acting_agent(self) -> str | None:
        """The first of :attr:`acting_agents` (``None`` when the game is over)."""
        acting = self.acting_agents
        return acting[0] if acting else None

    def _acting(self) -> list[int]:
        if self._over:
            return []
        return self._phase.acting() if self._phase is not None else [self._game.current_player]

    @property
    def _over(self) -> bool:
        return self._game.done or self._penalised

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game; returns every agent's observation and info."""
        self._deal(optional_seed(seed))
        self._penalised = False
        self._phase = None
        self._begin_phase()
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the acting seats' actions (the others wait); returns obs, rewards, terminations, truncations, infos."""
        check_joint_actions(self.agents, actions)
        chosen = self._check(actions)
        offenders = [] if self.illegal == "raise" else [p for p, a in chosen.items() if not self._is_legal(p, a)]
        if offenders:
            self._penalised = True
            self._phase = None
            n, k = len(self.possible_agents), len(offenders)
            other = -self.penalty * k / (n - k) if n > k else 0.0
            rewards = {a: self.penalty if i in offenders else other for a, i in self._seats()}
        else:
            self._apply(chosen)
            final = self._game.rewards(self.reward_mode) if self._game.done else None
            rewards = {a: 0.0 if final is None else float(final[i]) for a, i in self._seats()}
        return parallel_step_result(self, rewards, self._over)

    def render(self) -> str | np.ndarray | None:
        """The spectator view, as in the AEC env (:func:`.common.render_spectator`)."""
        return render_spectator(self._game, self.render_mode)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and mask now (what ``reset``/``step`` returned for it)."""
        p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
        g = self._game
        obs = np.empty(L.OBS_DIM, np.float32)
        mask = np.empty(L.N_ACTIONS, np.int8)
        line = self._phase.lines.get(p) if self._phase is not None else None
        if line is not None:  # its own decisions in a simultaneous phase
            line.observe(obs)
            mask[:] = line.mask()
        else:
            core.observe_with_mask(g.state, g.cards.buildings, g.cards.assistants, p, obs, mask)
        if self._penalised:
            mask[:] = 0
        if not mask.any():  # not this seat's decision, or the game is over
            mask[L.A_WAIT] = 1
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------------ helpers
    def _check(self, actions: dict[str, Any]) -> dict[int, Any]:
        """The acting seats' actions; raises for an unknown agent, a missing action or (``illegal="raise"``)
        a waiting seat that does not wait or an illegal action, before anything changes."""
        acting = self._acting()
        raising = self.illegal == "raise"
        decision = self._game.decision_name
        for agent, action in actions.items():
            p = seat_of(agent, self.agent_name_mapping, self.possible_agents)
            if raising and p not in acting and action is not None and check_action(action) != L.A_WAIT:
                names = [self.possible_agents[q] for q in acting]
                raise ValueError(
                    f"{agent} has nothing to decide ({', '.join(names) or 'nobody'} to act, decision "
                    f"'{decision}'): its action must be A_WAIT ({L.A_WAIT}), got {action!r}"
                )
        chosen = {}
        for p in acting:
            agent = self.possible_agents[p]
            if actions.get(agent) is None:
                raise ValueError(f"no action for {agent}, an agent to act (decision '{self._decision_name(p)}')")
            chosen[p] = actions[agent]
        if raising:
            for p, action in chosen.items():
                self._check_legal(p, action)
        return chosen

    def _check_legal(self, p: int, action: Any) -> None:
        try:
            a = check_action(action)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{exc} ({self.possible_agents[p]}, decision '{self._decision_name(p)}')") from None
        mask = self._mask_of(p)
        if not mask[a]:
            legal = [int(x) for x in np.flatnonzero(mask)]
            dec = self._decision_of(p)
            raise IllegalActionError(illegal_action_message(a, dec, p, legal, self._game))

    def _apply(self, chosen: dict[int, Any]) -> None:
        """Step the game (one seat) or the simultaneous phase (every acting seat)."""
        if self._phase is None:
            ((p, action),) = chosen.items()
            try:
                self._game.step(action)
            except IllegalActionError:
                raise
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} ({self.possible_agents[p]}, decision '{self._game.decision_name}')") from None
        else:
            self._phase.step({p: check_action(a) for p, a in chosen.items()})
            if self._phase.over:
                phase, self._phase = self._phase, None
                phase.apply_to(self._game)
        self._begin_phase()

    def _begin_phase(self) -> None:
        if self.simultaneous and self._phase is None and SimultaneousPhase.begins(self._game):
            self._phase = SimultaneousPhase(self._game)

    def _mask_of(self, p: int) -> np.ndarray:
        if self._phase is not None:
            return self._phase.lines[p].mask()
        return self._game.legal_mask()

    def _decision_of(self, p: int) -> int:
        if self._phase is not None:
            return int(self._phase.lines[p].row[L.F_DEC])
        return self._game.decision

    def _decision_name(self, p: int) -> str:
        return L.DECISION_NAMES[self._decision_of(p)]

    def _seats(self) -> list[tuple[str, int]]:
        return [(a, self.agent_name_mapping[a]) for a in self.agents]

    def _is_legal(self, p: int, action: object) -> bool:
        try:
            a = check_action(action)
        except (TypeError, ValueError):
            if isinstance(action, (int, np.integer)):
                return False  # out of range: illegal
            raise
        return bool(self._mask_of(p)[a])

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, int]]:
        infos = game_infos(self._game, self.agents, self.agent_name_mapping)
        if self._phase is not None and not self._over:
            acting = set(self._acting())
            for a in self.agents:
                p = self.agent_name_mapping[a]
                infos[a]["decision"] = self._decision_of(p) if p in acting else -1
        return infos


def parallel_env(**kwargs: Any) -> OhMyGoodsParallelEnv:
    """The parallel env (no wrappers: it checks its own input; see the module docstring)."""
    return OhMyGoodsParallelEnv(**kwargs)
