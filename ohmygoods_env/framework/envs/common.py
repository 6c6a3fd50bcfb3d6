"""What every front end over the game interface shares: the game setup, spaces, seeds, agent names.

:class:`GameSetup` is one frozen config (game, player count, reward mode, game options) that
every adapter forwards, so an option has one spelling everywhere. It builds the models
(:meth:`GameSetup.new_game`) and the spaces from the model's own sizes and the spec's
bounds. The adapters do not import each other; they import this module.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env_logger import EnvLogger

from ..checks import check_finite, optional_seed
from ..env_hooks import NO_HOOKS, EnvHooks
from ..game import ForwardModel, GameSpec, check_action, game_tools, resolve_game

__all__ = [
    "SEED_BOUND",
    "GameSetup",
    "SeatedEnvMixin",
    "agent_names_of",
    "aec_dead_step",
    "aec_reset_bookkeeping",
    "check_illegal_mode",
    "check_joint_actions",
    "check_render_mode",
    "dict_obs_space",
    "next_game_seed",
    "parallel_step_result",
    "render_view",
    "seat_infos",
    "seat_of",
    "seat_spaces",
    "show_text",
    "warn_no_render_mode",
]

#: game seeds drawn by an env's RNG lie in ``[0, SEED_BOUND)``
SEED_BOUND = 2**63 - 1


@dataclass(frozen=True)
class GameSetup:
    """The game an adapter plays: ``game`` (a registered name or a spec), ``num_players``,
    ``reward`` (one of the spec's reward modes) and ``options`` for ``new_game``."""

    game: str | GameSpec
    num_players: int = 2
    reward: str = "win"
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        spec = resolve_game(self.game)
        object.__setattr__(self, "game", spec)
        object.__setattr__(self, "num_players", spec.check_num_players(self.num_players))
        spec.check_reward_mode(self.reward)

    @property
    def spec(self) -> GameSpec:
        return self.game  # type: ignore[return-value]

    def new_game(self, seed: int | None) -> ForwardModel:
        return self.spec.new_game(self.num_players, seed=seed, **self.options)

    def agents(self) -> list[str]:
        return agent_names_of(self.num_players)

    def obs_box(self, model: ForwardModel) -> spaces.Box:
        low, high = self.spec.obs_bounds(self.num_players)
        n = model.obs_size
        lo = np.broadcast_to(np.asarray(low, np.float32), (n,)).copy()
        hi = np.broadcast_to(np.asarray(high, np.float32), (n,)).copy()
        return spaces.Box(lo, hi, (n,), np.float32)

    def env_name(self) -> str:
        """``{name}_v{version}``: the name is the game tools' ``env_name`` (``oh_my_goods``), else the spec's."""
        return f"{game_tools(self.spec).env_name or self.spec.name}_v{self.spec.version}"

    @property
    def hooks(self) -> EnvHooks:
        """The spec's :class:`~ohmygoods_env.framework.env_hooks.EnvHooks` (the generic ones when it declares none)."""
        hooks = self.spec.env_hooks
        if hooks is None:
            return NO_HOOKS
        if not isinstance(hooks, EnvHooks):
            raise TypeError(f"{self.spec.name}: env_hooks must be an EnvHooks, got {type(hooks).__name__}")
        return hooks


def agent_names_of(num_players: int) -> list[str]:
    """``player_0 .. player_{n-1}``."""
    return [f"player_{i}" for i in range(num_players)]


def dict_obs_space(box: spaces.Box, num_actions: int) -> spaces.Dict:
    """``Dict(observation=box, action_mask=Box(0, 1, (num_actions,), int8))`` in that key order."""
    return spaces.Dict(
        OrderedDict(observation=box, action_mask=spaces.Box(0, 1, (num_actions,), np.int8))  # order kept
    )


def seat_of(agent: object, mapping: dict[str, int], possible: list[str]) -> int:
    """The seat of agent name ``agent``; ``ValueError`` naming the agents otherwise."""
    try:
        return mapping[agent]  # type: ignore[index]
    except (KeyError, TypeError):
        raise ValueError(f"unknown agent {agent!r}: expected one of {possible}") from None


def check_illegal_mode(illegal: object, penalty: object) -> tuple[str, float]:
    """``illegal`` in ``("raise", "penalty")`` and a finite ``penalty``."""
    if illegal not in ("raise", "penalty"):
        raise ValueError(f"illegal must be one of ['raise', 'penalty'], got {illegal!r}")
    return str(illegal), check_finite(penalty, "penalty")


def is_legal(model: ForwardModel, player: int, action: object) -> bool:
    """Is ``action`` a legal action of ``player`` now? (``TypeError`` for a non-int, as ``check_action``.)"""
    try:
        a = check_action(action, model.num_actions)
    except ValueError:
        return False
    return bool(model.legal_mask(player)[a])


def penalty_rewards(num_players: int, offenders: list[int], penalty: float) -> np.ndarray:
    """Each offender gets ``penalty``, every other seat ``-penalty * k / (P - k)`` (zero-sum)."""
    k = len(offenders)
    other = -penalty * k / (num_players - k) if num_players > k else 0.0
    out = np.full(num_players, other, np.float32)
    out[offenders] = penalty
    return out


def seat_infos(
    model: ForwardModel,
    agents: list[str],
    mapping: dict[str, int],
    acting: tuple[int, ...],
    info: Callable[..., dict[str, int]] | None = None,
    choice: Any = None,
) -> dict[str, dict[str, int]]:
    """Every agent's info from the spec's ``info`` hook (numbers only, the same keys); without one the
    generic ``to_act`` (in ``acting``) and ``winner`` (at the end)."""
    if info is None:
        winners = set(model.winners()) if model.done else set()
        return {a: {"to_act": int(mapping[a] in acting), "winner": int(mapping[a] in winners)} for a in agents}
    return {a: info(model, mapping[a], mapping[a] in acting, choice) for a in agents}


def check_render_mode(render_mode: object, modes: list[str]) -> str | None:
    """``render_mode`` if it is ``None`` or one of ``modes``, else ``ValueError``."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
    return render_mode  # type: ignore[return-value]


def warn_no_render_mode() -> None:
    """Gymnasium's warning for ``render()`` on an env made without a render mode."""
    gymnasium.logger.warn("You are calling render method without specifying any render mode.")


def show_text(text: str, render_mode: str) -> str | None:
    """A text view in a text render mode: returned for ``"ansi"``, printed for ``"human"``."""
    if render_mode == "ansi":
        return text
    print(text)
    return None


def render_view(setup: GameSetup, model: ForwardModel, render_mode: str | None, player: int | None = None) -> Any:
    """The game's text view (``render_text``): returned for ``"ansi"``, printed for ``"human"``; a render
    mode of the spec's hooks (``EnvHooks.render_modes``, a picture) is the hook's ``render``."""
    if render_mode is None:
        warn_no_render_mode()
        return None
    hooks = setup.hooks
    if render_mode in hooks.render_modes:
        return hooks.render(model, render_mode)  # type: ignore[misc]
    return show_text(setup.spec.render_text(model, player), render_mode)


def seat_spaces(
    setup: GameSetup, model: ForwardModel, num_actions: int
) -> tuple[list[str], dict[str, int], dict[str, spaces.Dict], dict[str, spaces.Discrete]]:
    """Agent names, their seats, and every agent's (one shared) observation and action space."""
    agents = setup.agents()
    obs_space = dict_obs_space(setup.obs_box(model), num_actions)
    act_space = spaces.Discrete(num_actions)
    seats = {a: i for i, a in enumerate(agents)}
    return agents, seats, dict.fromkeys(agents, obs_space), dict.fromkeys(agents, act_space)


def next_game_seed(seed: object, rng: np.random.Generator) -> tuple[int, np.random.Generator]:
    """The seed of the next game and the env's RNG: ``seed`` re-seeds the RNG and deals itself; ``None`` draws."""
    s = optional_seed(seed)
    if s is not None:
        return s, np.random.default_rng(s)
    return int(rng.integers(0, SEED_BOUND)), rng


# ===================================================================== PettingZoo bookkeeping


def aec_reset_bookkeeping(env: Any) -> None:
    """An AEC env's ``reset`` bookkeeping: every agent live, zero rewards, no flags set."""
    env.agents = env.possible_agents[:]
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)


def aec_dead_step(env: Any, action: object) -> bool:
    """Handles an AEC ``step`` after the end (PettingZoo's warning, or its dead step for a
    terminated or truncated agent); ``True`` when it did and the step is over."""
    if not env.agents:
        EnvLogger.warn_step_after_terminated_truncated()
        return True
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env._was_dead_step(action)
        return True
    return False


def check_joint_actions(agents: list[str], actions: object) -> None:
    """A parallel ``step``'s input: live agents (else ``RuntimeError``) and a dict of actions (else ``TypeError``)."""
    if not agents:
        raise RuntimeError("step() called with no live agents: the game is over or not dealt, call reset() first")
    if not isinstance(actions, dict):
        raise TypeError(f"actions must be a dict agent -> action, got {type(actions).__name__}")


def parallel_step_result(env: Any, rewards: dict[str, float], over: bool) -> tuple[dict, dict, dict, dict, dict]:
    """A parallel env's ``step`` return after the game moved on: every live agent's observation,
    ``rewards``, flags (terminated when ``over``) and info; at the end ``agents`` empties. Renders in
    ``"human"`` mode. The env provides ``_observations()`` and ``_infos()``."""
    agents = env.agents
    terminations = dict.fromkeys(agents, over)
    truncations = dict.fromkeys(agents, False)
    observations, infos = env._observations(), env._infos()
    if over:
        env.agents = []
    if env.render_mode == "human":
        env.render()
    return observations, rewards, terminations, truncations, infos


class SeatedEnvMixin:
    """What the PettingZoo AEC and parallel envs over the interface share: the setup and the first
    model (:meth:`_setup_game`; bad options fail at construction, not at reset), the agents and
    their spaces (:meth:`_setup_agents`), the model, the text render and ``close``. Mixed in
    before ``AECEnv`` / ``ParallelEnv``."""

    metadata: dict[str, Any]

    def _setup_game(
        self, game: str | GameSpec, num_players: int, reward: str, render_mode: str | None, options: dict[str, Any]
    ) -> None:
        self.setup = GameSetup(game, num_players, reward, options)
        hooks = self._hooks = self.setup.hooks
        meta = {**self.metadata, "name": self.setup.env_name()}
        extra = [m for m in hooks.render_modes if m not in meta["render_modes"]]
        meta["render_modes"] = [*meta["render_modes"], *extra]
        if hooks.render_fps is not None:
            meta["render_fps"] = hooks.render_fps
        self.metadata = meta
        self.render_mode = check_render_mode(render_mode, meta["render_modes"])
        self._model = self.setup.new_game(0)  # bad options fail here, not at reset
        if hooks.deal_options is not None:  # what every later deal reuses from the first (EnvHooks)
            self.setup = replace(self.setup, options={**options, **hooks.deal_options(self._model)})
        self._rng = np.random.default_rng()
        self._seed_used: int | None = None
        #: the spec's info hook (None: the generic to_act / winner)
        self._info = hooks.info
        if hooks.state_space is not None:
            #: the space of the privileged ``state()`` (only for a game whose spec declares one)
            self.state_space = hooks.state_space(self._model)

    def _new_game(self, seed: object) -> None:
        """Deal the game of a ``reset``: from ``seed`` (re-seeding the env's RNG), else the RNG's next seed."""
        game_seed, self._rng = next_game_seed(seed, self._rng)
        self._model = self.setup.new_game(game_seed)
        self._seed_used = game_seed

    def _where(self, agent: str, player: int, choice: Any = None) -> str:
        """How an error names the agent: ``agent`` and, where the spec names decisions, ``decision 'name'``."""
        name = self._hooks.decision_name
        return agent if name is None else f"{agent}, decision '{name(self._model, player, choice)}'"

    def _setup_agents(self, num_actions: int) -> None:
        self.possible_agents, self.agent_name_mapping, self.observation_spaces, self.action_spaces = seat_spaces(
            self.setup, self._model, num_actions
        )
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> ForwardModel:
        """The forward model (holds hidden information: not for a policy)."""
        return self._model

    @property
    def reward_mode(self) -> str:
        """The reward mode the games end with (``reward=``)."""
        return self.setup.reward

    @property
    def seed_used(self) -> int | None:
        """The seed the current game was dealt from (``None`` before the first reset)."""
        return self._seed_used

    def state(self) -> np.ndarray:
        """The **privileged** global state of the spec's ``state`` hook (critics only, never a policy)."""
        state = self._hooks.state
        if state is None:
            raise NotImplementedError(f"{self.setup.spec.title} declares no global state (EnvHooks.state)")
        return state(self._model)

    def render(self) -> Any:
        return render_view(self.setup, self._model, self.render_mode)

    def close(self) -> None:
        pass
