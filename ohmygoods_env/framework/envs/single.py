"""Single-agent Gymnasium env over any game of the registry: the learner plays one seat, agents the others.

Opponents
---------
``opponents`` is one opponent for every other seat, or a sequence of ``num_players - 1``
opponents for the seats after the learner's (learner + 1, learner + 2, ... modulo the
player count). An opponent is an agent name or spec resolved by the per-game registry of
:mod:`ohmygoods_env.framework.agents` (``"random"``, ``"ismcts"`` once
``ohmygoods_agents.ismcts`` is imported, the game's own agents), an object following the
agent protocol ``act(observation, mask, info_state=None)``, a plain callable, or ``None``
(random). Agents with ``needs_info_state = True`` get the seat's
:class:`~ohmygoods_env.framework.game.InformationSet`, never the true state.

Simultaneous choices: when the learner and opponents are pending together, the opponents
choose from their own observations **before** the learner's action is applied (they cannot
see it) and all pending actions are applied with ``step_joint``.

Spaces and episode
------------------
=====================  =======================================================================
observation            ``Box(low, high, (obs_size,), float32)`` from the learner's seat
action                 ``Discrete(num_actions)``
``action_masks()``     ``bool[num_actions]``: legal actions now (sb3-contrib ``MaskablePPO``)
``info``               ``action_mask`` (int8), ``seat``; at the end ``rewards`` (every seat)
                       and ``illegal_action``
reward                 the learner's final reward when the game ends (``reward`` mode), else 0
illegal action         ``illegal="penalty"`` (default): the game ends, the learner gets
                       ``penalty``, the others ``-penalty / (P - 1)``; ``illegal="raise"``:
                       ``IllegalActionError``, nothing changes
not an action          ``TypeError`` / ``ValueError`` naming the expected range, nothing changes
=====================  =======================================================================

Each ``reset`` draws a game seed from the env's ``np_random`` (or takes
``options["game_seed"]``); opponents with a ``seed(int)`` method are reseeded from it. The
learner's seat is ``learner_seat`` or, with ``"random"``, drawn from ``np_random``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..agents import choose, resolve_agent
from ..checks import check_seed
from ..game import ForwardModel, GameSpec, IllegalActionError, check_action, illegal_message
from .common import SEED_BOUND, GameSetup, check_illegal_mode, check_render_mode, penalty_rewards, render_view

__all__ = ["GameSingleAgentEnv"]


class GameSingleAgentEnv(gym.Env):
    """A registered game for one learner against opponent agents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str | GameSpec,
        num_players: int = 2,
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward: str = "win",
        illegal: str = "penalty",
        penalty: float = -1.0,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.setup = GameSetup(game, num_players, reward, options)
        n = self.setup.num_players
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if learner_seat != "random" and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be 'random' or an int in 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        self.illegal, self.penalty = check_illegal_mode(illegal, penalty)
        self.opponents = self._opponents(opponents, n)
        self._model = self.setup.new_game(0)
        self.seat = 0 if learner_seat == "random" else int(learner_seat)
        self.observation_space = self.setup.obs_box(self._model)
        self.action_space = gym.spaces.Discrete(self._model.num_actions)
        self._ended = True

    def _opponents(self, opponents: Any, n: int) -> list[Any]:
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents must be one agent or a sequence of {n - 1}, got {len(opponents)}")
            return [resolve_agent(self.setup.spec, o) for o in opponents]
        return [resolve_agent(self.setup.spec, opponents) for _ in range(n - 1)]

    @property
    def game(self) -> ForwardModel:
        """The forward model (holds hidden information: not for a policy)."""
        return self._model

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        opts = options or {}
        game_seed = check_seed(opts["game_seed"], "game_seed") if "game_seed" in opts else None
        if game_seed is None:
            game_seed = int(self.np_random.integers(0, SEED_BOUND))
        if self.learner_seat == "random":
            self.seat = int(self.np_random.integers(self.setup.num_players))
        for k, opp in enumerate(self.opponents):
            if callable(getattr(opp, "seed", None)):
                opp.seed((game_seed + k + 1) % 2**64)
        self._model = self.setup.new_game(game_seed)
        self._ended = False
        self._play_opponents(None)
        return self._model.observe(self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._ended:
            raise RuntimeError("step() after the episode ended: call reset() first")
        a = check_action(action, self._model.num_actions)
        m, n = self._model, self.setup.num_players
        if not m.legal_mask(self.seat)[a]:
            if self.illegal == "raise":
                raise IllegalActionError(illegal_message(m, self.seat, a))
            self._ended = True
            final = penalty_rewards(n, [self.seat], self.penalty)
            info = {**self._info(), "rewards": final, "illegal_action": True}
            return m.observe(self.seat), float(final[self.seat]), True, False, info
        self._play_opponents(a)
        info = self._info()
        if not m.done:
            return m.observe(self.seat), 0.0, False, False, info
        self._ended = True
        final = m.rewards(self.setup.reward)
        info.update(rewards=final, illegal_action=False)
        return m.observe(self.seat), float(final[self.seat]), True, False, info

    def action_masks(self) -> np.ndarray:
        """``bool[num_actions]``: the learner's legal actions now."""
        return self._model.legal_mask(self.seat).astype(bool)

    def render(self) -> str | None:
        """The learner's view as text (``render_mode="ansi"``)."""
        return render_view(self.setup, self._model, self.render_mode, self.seat)

    # ------------------------------------------------------------------ helpers
    def _opponent_of(self, p: int) -> Any:
        return self.opponents[(p - self.seat - 1) % self.setup.num_players]

    def _play_opponents(self, action: int | None) -> None:
        """Apply the learner's ``action`` (``None``: none yet) with the opponents' moves until the learner is asked."""
        m = self._model
        while not m.done:
            pending = m.pending_players()
            if self.seat in pending and action is None:
                return
            joint = {p: choose(self._opponent_of(p), m, p) for p in pending if p != self.seat}
            if self.seat in pending:
                joint[self.seat], action = action, None  # type: ignore[assignment]
            m.step_joint(joint)

    def _info(self) -> dict[str, Any]:
        mask = self._model.legal_mask(self.seat) if not self._model.done else np.zeros(self._model.num_actions, np.int8)
        return {"action_mask": mask.astype(np.int8), "seat": self.seat}
