"""PettingZoo ``ParallelEnv`` over :class:`~ohmygoods_env.engine.Game`: every seat steps at once.

This module owns the parallel interface; the rules, masks and observations come from the
engine, the spaces, seeding, infos and global state from :mod:`.pettingzoo_env` (the AEC
env), so both envs see a game the same way.

* Agents ``player_0 .. player_{n-1}``; all of them are live from ``reset`` to the end of
  the game and each gets an observation, a reward, flags and an info at every step.
* One seat acts per step: the seat the engine asks (its mask is the engine's legal mask).
  Every other seat has nothing to decide: its mask has exactly one legal action,
  ``layout.A_WAIT``, and its action must be ``A_WAIT`` (or left out of the dict). The
  rules' simultaneous choices (phase I keep/discard, R4.1; phase II assistants, worker and
  set-aside, R5.2) are asked one seat at a time, as in the AEC env; the engine hides the
  choices already made (R4.1, R5.2), so the order leaks nothing.
* Spaces as in the AEC env: ``Dict(observation=Box(0, high, (OBS_DIM,), float32),
  action_mask=Box(0, 1, (N_ACTIONS,), int8))`` and ``Discrete(N_ACTIONS)``.
* Rewards: 0 during the game; the step that ends it gives **every** agent its final reward
  (``reward="win"``: +1 winners, -1 others, 0 if all tie; ``"score"`` / ``"margin"``) and
  terminates all agents; ``agents`` is then empty until ``reset``. At the end every mask is
  the wait mask.
* Infos: numbers only, same keys for every agent (``pettingzoo_env.INFO_KEYS``).
* ``state()`` / ``state_space``: the **privileged** global state for centralised critics
  (:func:`~ohmygoods_env.envs.pettingzoo_env.global_state`); never for a policy.
* Seeding as in the AEC env: ``reset(seed=s)`` deals ``Game(seed=s)`` and re-seeds the env's
  RNG with ``s``; ``reset()`` draws the next game seed from that RNG.
* Errors (``illegal="raise"``, the default): an illegal action, a missing action of the
  acting seat, a non-wait action of a waiting seat or an unknown agent raise ``ValueError``
  (a wrong type ``TypeError``); the game is unchanged. With ``illegal="penalty"`` (Pgx
  style, as in ``BatchGames``) an illegal or out-of-range action of the acting seat ends the
  game at once: the offender gets ``penalty`` (a finite number, default -1), every other seat
  ``-penalty / (P - 1)``; the waiting seats' actions are then ignored. (PettingZoo's
  ``parallel_seed_test`` samples unmasked actions and needs this mode.)

``parallel_to_aec(parallel_env())`` gives a cycling AEC env (every seat steps once per
cycle, ``A_WAIT`` when it has nothing to decide).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from .. import core
from .. import layout as L
from ..checks import check_finite, optional_seed
from ..engine import Game, IllegalActionError, check_action
from .pettingzoo_env import game_infos, global_state, raw_env, render_spectator

__all__ = ["OhMyGoodsParallelEnv", "parallel_env"]

_SEED_BOUND = 2**63 - 1


class OhMyGoodsParallelEnv(ParallelEnv):
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
        rules: str = "omg2",
        render_mode: str | None = None,
        reward: str = "win",
        auto_forced: bool = True,
        illegal: str = "raise",
        penalty: float = -1.0,
        **rule_options: Any,
    ) -> None:
        if illegal not in ("raise", "penalty"):
            raise ValueError(f"illegal must be one of ['raise', 'penalty'], got {illegal!r}")
        # The AEC env (same render modes) owns the spaces and validates render_mode, reward and the
        # game arguments; it is not stepped.
        spec = raw_env(
            num_players=num_players,
            rules=rules,
            render_mode=render_mode,
            reward=reward,
            auto_forced=auto_forced,
            **rule_options,
        )
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal = illegal
        self.penalty = check_finite(penalty, "penalty")
        self._penalised = False
        self._game_args = (num_players, rules)
        self._rule_options = {"auto_forced": auto_forced, **rule_options}
        self._game: Game = spec.game
        self._rng = np.random.default_rng()
        self.possible_agents = list(spec.possible_agents)
        self.agent_name_mapping = dict(spec.agent_name_mapping)
        self.observation_spaces = spec.observation_spaces
        self.action_spaces = spec.action_spaces
        self.state_space = spec.state_space
        self.agents: list[str] = []

    # ------------------------------------------------------------------ spaces and access
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The underlying engine game (a forward model holding hidden information)."""
        return self._game

    @property
    def seed_used(self) -> int | None:
        """The seed the current game was dealt from (``None`` before the first reset)."""
        return getattr(self, "_seed_used", None)

    @property
    def acting_agent(self) -> str | None:
        """The agent whose mask is the engine's (``None`` when the game is over)."""
        return None if self._over else self.possible_agents[self._game.current_player]

    @property
    def _over(self) -> bool:
        return self._game.done or self._penalised

    def state(self) -> np.ndarray:
        """**Privileged** global state (float32[STATE_DIM]): for centralised critics, never a policy."""
        g = self._game
        return global_state(g.state[None], g.observe(0)[None])[0]

    # ------------------------------------------------------------------ PettingZoo API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game; returns every agent's observation and info."""
        seed = optional_seed(seed)
        if seed is not None:
            game_seed = seed
            self._rng = np.random.default_rng(game_seed)
        else:
            game_seed = int(self._rng.integers(0, _SEED_BOUND))
        num_players, rules = self._game_args
        self._game = Game(num_players, rules, seed=game_seed, cards=self._game.cards, **self._rule_options)
        self._seed_used = game_seed
        self._penalised = False
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the acting seat's action (the others wait); returns obs, rewards, terminations, truncations, infos."""
        if not self.agents:
            raise RuntimeError("step() called with no live agents: call reset() first")
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        g = self._game
        actor = self.possible_agents[g.current_player]
        raising = self.illegal == "raise"
        for agent, action in actions.items():
            if agent not in self.agent_name_mapping:
                raise ValueError(f"unknown agent {agent!r}: expected some of {self.possible_agents}")
            if raising and agent != actor and action is not None and check_action(action) != L.A_WAIT:
                raise ValueError(
                    f"{agent} has nothing to decide ({actor} is to act, decision '{g.decision_name}'): "
                    f"its action must be A_WAIT ({L.A_WAIT}), got {action!r}"
                )
        if actor not in actions or actions[actor] is None:
            raise ValueError(f"no action for {actor}, the agent to act (decision '{g.decision_name}')")
        agents = self.agents
        if not raising and not self._is_legal(actions[actor]):
            self._penalised = True
            p = self.agent_name_mapping[actor]
            n = len(self.possible_agents)
            rewards = {a: self.penalty if i == p else -self.penalty / max(n - 1, 1) for a, i in self._seats()}
        else:
            try:
                g.step(actions[actor])
            except IllegalActionError:
                raise
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{exc} ({actor}, decision '{g.decision_name}')") from None
            final = g.rewards(self.reward_mode) if g.done else None
            rewards = {a: 0.0 if final is None else float(final[i]) for a, i in self._seats()}
        over = self._over
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, False)
        observations, infos = self._observations(), self._infos()
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | np.ndarray | None:
        """The spectator view, as in the AEC env (:func:`.pettingzoo_env.render_spectator`)."""
        return render_spectator(self._game, self.render_mode)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ helpers
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation and mask now (what ``reset``/``step`` returned for it)."""
        try:
            p = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}: expected one of {self.possible_agents}") from None
        g = self._game
        obs = np.empty(L.OBS_DIM, np.float32)
        mask = np.empty(L.N_ACTIONS, np.int8)
        core.observe_with_mask(g.state, g.cards.buildings, g.cards.assistants, p, obs, mask)
        if self._penalised:
            mask[:] = 0
        if not mask.any():  # not this seat's decision, or the game is over
            mask[L.A_WAIT] = 1
        return {"observation": obs, "action_mask": mask}

    def _seats(self) -> list[tuple[str, int]]:
        return [(a, self.agent_name_mapping[a]) for a in self.agents]

    def _is_legal(self, action: object) -> bool:
        a = check_action(action) if not isinstance(action, (int, np.integer)) else int(action)
        return 0 <= a < L.N_ACTIONS and bool(self._game.legal_mask()[a])

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self.observe(a) for a in self.agents}

    def _infos(self) -> dict[str, dict[str, int]]:
        return game_infos(self._game, self.agents, self.agent_name_mapping)


def parallel_env(**kwargs: Any) -> OhMyGoodsParallelEnv:
    """The parallel env (no wrappers: it checks its own input; see the module docstring)."""
    return OhMyGoodsParallelEnv(**kwargs)
