"""*Oh my Goods!* on the framework's game interface: :class:`OhMyGoodsModel` and the spec ``"ohmygoods"``.

:class:`OhMyGoodsModel` adapts :class:`~ohmygoods_env.engine.Game` to
:class:`~ohmygoods_env.framework.game.ForwardModel` without changing it: the same action
ids, observation layout (``layout.LAYOUT_VERSION``), rewards and records; ``model.game`` is
the engine game itself. Importing this module registers :data:`OHMYGOODS` (importing
:mod:`ohmygoods_env` does).

Simultaneous choices: the engine asks the simultaneous choices of phases I and II (R4.1,
R5.2-R5.5) one seat at a time, each seat taking several decisions in a row, so through this
interface ``pending_players()`` is always the one seat the engine asks,
``(current_player,)``. The spec declares those phases (``simultaneous``: a
:class:`~ohmygoods_env.envs.simultaneous.SimultaneousPhase`), so the framework's parallel env acts
every seat of a phase in the same step; the AEC env asks them one seat at a time (observations
still hide every undisclosed choice).

Envs: the spec's :data:`ENV_HOOKS` (:class:`~ohmygoods_env.framework.env_hooks.EnvHooks`) give
the framework's PettingZoo envs this game's infos (``decision``, ``score``, ``leftover_coins``,
``winner``), its privileged ``state()`` / ``state_space``, the picture render modes (``rgb_array``,
``svg``), the fused observe-with-mask kernel and the engine's own action checks and error
wording; :mod:`ohmygoods_env.envs` names those envs with the game's argument spelling
(``raw_env``, ``env``, ``parallel_env``).

``determinize(player, seed)`` redacts the state to ``player``'s information state and
samples a full state from it (:mod:`ohmygoods_env.infostate`); ``info_state(player)`` is the
redacted row that the package's agents read (``heuristic``, ``greedy``, ``mcts``), so every
agent of :func:`ohmygoods_env.policy.make_agent` plays in the generic front ends too.

Agents: this game's agents are registered in the framework's registry under ``"ohmygoods"``
(the agents package, entry points ``ohmygoods.NAME`` of ``ohmygoods.game_agents``); this
module registers the game's ``random`` (:class:`ohmygoods_env.policy.RandomAgent`, whose draws
come from the engine's RNG words), and the spec names the older entry point group
``ohmygoods.agents``, still read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import core, engine
from . import layout as L
from .engine import REWARD_MODES, Game, GameRecord, observation_tables
from .framework.agents import register_agent
from .framework.env_hooks import EnvHooks
from .framework.game import GameSpec, JointStepMixin, check_player, register_game
from .infostate import determinize as _determinize
from .infostate import redact

__all__ = ["ENV_HOOKS", "INFO_KEYS", "OHMYGOODS", "OhMyGoodsModel"]


_F_CUR, _F_DEC, _D_OVER = L.F_CUR, L.F_DEC, L.D_OVER


def _seed_word(seed: int) -> int:
    """A non-zero signed 32-bit word from a seed, for ``infostate.determinize``."""
    w = int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint32)[0]) or 1
    return w - (1 << 32) if w >= 1 << 31 else w


class OhMyGoodsModel(JointStepMixin):
    """:class:`~ohmygoods_env.engine.Game` as a :class:`~ohmygoods_env.framework.game.ForwardModel`."""

    num_actions = L.N_ACTIONS
    obs_size = L.OBS_DIM

    def __init__(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"game must be an ohmygoods_env.engine.Game, got {type(game).__name__}")
        self.game = game
        self.num_players = game.num_players
        # the engine game's own bound ``step`` (it checks the action and raises the framework's errors):
        # one Python call less per env step than the method below, which documents it
        self.step = game.step

    @classmethod
    def new(cls, num_players: int = 2, seed: int | None = None, **options: Any) -> OhMyGoodsModel:
        """A new deal: ``Game(num_players, seed=seed, **options)`` (``rules="omg2"`` or ``"royal"``, variants)."""
        return cls(Game(num_players, seed=seed, **options))

    @property
    def current_player(self) -> int:
        return self.game.state.item(_F_CUR)  # read off the row directly: the envs ask it every step

    @property
    def done(self) -> bool:
        return self.game.state.item(_F_DEC) == _D_OVER

    @property
    def seed(self) -> int:
        return self.game.seed

    def pending_players(self) -> tuple[int, ...]:
        """The seat the engine asks (one at a time, simultaneous phases too); ``()`` at the end."""
        cur = self.game.current_player
        return (cur,) if cur >= 0 else ()

    def legal_mask(self, player: int | None = None) -> np.ndarray:
        if player is not None and check_player(player, self.num_players) != self.game.current_player:
            return np.zeros(L.N_ACTIONS, np.int8)
        return self.game.legal_mask()

    def observe(self, player: int) -> np.ndarray:
        return self.game.observe(player)

    def step(self, action: int) -> None:
        self.game.step(action)  # the engine raises the framework's errors

    def clone(self) -> OhMyGoodsModel:
        return OhMyGoodsModel(self.game.clone())

    def rewards(self, mode: str = "win") -> np.ndarray:
        return self.game.rewards(mode)

    def scores(self) -> list[tuple[int, int]]:
        return self.game.scores()

    def winners(self) -> list[int]:
        return self.game.winners()

    def info_state(self, player: int) -> np.ndarray:
        """``player``'s information state: the state row redacted by :func:`ohmygoods_env.infostate.redact`."""
        out = np.zeros(L.STATE_LEN, np.int32)
        redact(self.game.state, check_player(player, self.num_players), out)
        return out

    def determinize(self, player: int, seed: int) -> OhMyGoodsModel:
        """A world consistent with ``player``'s information state; hidden cards and choices drawn from ``seed``."""
        g = self.game
        out = np.zeros(L.STATE_LEN, np.int32)
        _determinize(self.info_state(player), g.cards.buildings, int(player), _seed_word(seed), out)
        return OhMyGoodsModel(Game.from_state(out, g.rules, g.cards, seed=seed))

    def record(self) -> GameRecord:
        return self.game.record()

    @classmethod
    def replay(cls, record: GameRecord) -> OhMyGoodsModel:
        return cls(Game.replay(record))


def _describe(action: int, game: OhMyGoodsModel | None = None) -> str:
    return engine.describe(action, None if game is None else game.game)


def _render_text(game: OhMyGoodsModel, player: int | None = None) -> str:
    from .render import render_text

    return render_text(game.game, player)


def _obs_size(num_players: int) -> int:
    return L.OBS_DIM


def _obs_bounds(num_players: int) -> tuple[float, np.ndarray]:
    from .rules import make_rules
    from .spaces import observation_high

    highs = [observation_high(None, make_rules(num_players, r)) for r in ("omg2", "royal")]
    return 0.0, np.maximum(*highs)


def _random_agent(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    """``random`` of this game: :class:`ohmygoods_env.policy.RandomAgent` (the engine's RNG words)."""
    from .policy import random_factory

    return random_factory(arg, seed=seed, **kwargs)


def _simultaneous(model: OhMyGoodsModel) -> Any:
    """Phases I and II as the framework's simultaneous choice (``ohmygoods_env.envs.simultaneous``, imported
    on first use: only the parallel env asks)."""
    from .envs.simultaneous import simultaneous_choice

    return simultaneous_choice(model)


def _new_game(num_players: int, seed: int | None = None, **options: Any) -> OhMyGoodsModel:
    return OhMyGoodsModel.new(num_players, seed=seed, **options)


# ===================================================================== what its PettingZoo envs show

#: The keys of every agent's info dict, at every step (values are ints).
INFO_KEYS: tuple[str, ...] = ("decision", "score", "leftover_coins", "winner")


def _seat_info(model: OhMyGoodsModel, player: int, acting: bool, choice: Any = None) -> dict[str, int]:
    """Seat ``player``'s info (:data:`INFO_KEYS`): the pending decision id (``layout.D_*``) of a seat to
    act, -1 for the others, ``D_OVER`` for everyone at the end; ``score``, ``leftover_coins`` and
    ``winner`` (0/1) 0 until the end, then the final values. In a simultaneous phase a seat's
    decision is the one on its own line (``choice``)."""
    if acting:  # mid-game (nobody acts at the end)
        dec = model.game.state.item(_F_DEC) if choice is None else choice.decision(player)
        return {"decision": dec, "score": 0, "leftover_coins": 0, "winner": 0}
    g = model.game
    if g.state.item(_F_DEC) == _D_OVER:
        score, leftover = g.scores()[player]
        won = int(player in g.winners())
        return {"decision": _D_OVER, "score": int(score), "leftover_coins": int(leftover), "winner": won}
    return {"decision": -1, "score": 0, "leftover_coins": 0, "winner": 0}


def _decision_name(model: OhMyGoodsModel, player: int, choice: Any = None) -> str:
    """The name of the decision ``player`` faces: its own line's in a simultaneous phase, else the game's."""
    if choice is not None and player in choice.order:
        return L.DECISION_NAMES[choice.decision(player)]
    return model.game.decision_name


def _observe_with_mask(model: OhMyGoodsModel, player: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """One kernel call writes ``player``'s observation and mask (all 0 unless the seat is to act)."""
    g = model.game
    cards = g.cards
    core.observe_with_mask(g.state, cards.buildings, cards.assistants, observation_tables(cards), player, obs, mask)


def _stepper(model: OhMyGoodsModel) -> Callable[[int, np.ndarray, np.ndarray], int]:
    """``step(action, obs, mask)``: ``Game.step`` and the next seat's observe-with-mask in one kernel call
    (:func:`ohmygoods_env.env_kernels.step_observe`); the action joins the game's record as ``Game.step`` adds it."""
    from .env_kernels import stepper_for

    g = model.game
    state, buildings, assistants = g.state, g.cards.buildings, g.cards.assistants
    tables = observation_tables(g.cards)
    step_observe = stepper_for(state, buildings, assistants, tables)  # compiled: no per-call type resolution

    def step(action: int, obs: np.ndarray, mask: np.ndarray) -> int:
        cur = step_observe(state, buildings, assistants, tables, action, obs, mask)
        if cur >= -1:
            g.actions.append(action)
        return cur

    return step


def _state(model: OhMyGoodsModel) -> np.ndarray:
    """The **privileged** global state (:func:`ohmygoods_env.spaces.global_state`): critics only."""
    from .spaces import global_state

    g = model.game
    return global_state(g.state[None], g.observe(0)[None])[0]


def _state_space(model: OhMyGoodsModel) -> Any:
    from .spaces import state_space

    return state_space(model.game.cards, model.game.rules)


def _render_picture(model: OhMyGoodsModel, mode: str) -> Any:
    """``"rgb_array"``: ``uint8[H, W, 3]`` (:func:`~ohmygoods_env.picture.render_image`, needs cairosvg);
    ``"svg"``: the SVG text (:func:`~ohmygoods_env.picture.render_svg`)."""
    from . import picture

    return picture.render_image(model.game) if mode == "rgb_array" else picture.render_svg(model.game)


def _deal_options(model: OhMyGoodsModel) -> dict[str, Any]:
    """Every reset deals with the card set of the env's first game (loading the tables again costs ~0.2 ms)."""
    return {"cards": model.game.cards}


ENV_HOOKS = EnvHooks(
    info=_seat_info,
    info_keys=INFO_KEYS,
    idle_info={"decision": -1, "score": 0, "leftover_coins": 0, "winner": 0},
    state=_state,
    state_space=_state_space,
    render_modes=("rgb_array", "svg"),
    render=_render_picture,
    render_fps=2,
    observe_with_mask=_observe_with_mask,
    stepper=_stepper,
    checks_actions=True,  # Game.step checks and raises IllegalActionError naming action, player and decision
    decision_name=_decision_name,
    wait_label="A_WAIT",
    deal_options=_deal_options,
)


OHMYGOODS = register_game(
    GameSpec(
        name="ohmygoods",
        title="Oh my Goods!",
        min_players=1,
        max_players=4,
        num_actions=L.N_ACTIONS,
        obs_size=_obs_size,
        new_game=_new_game,
        describe=_describe,
        render_text=_render_text,
        version=L.LAYOUT_VERSION,
        wait_action=L.A_WAIT,
        simultaneous=_simultaneous,  # phases I and II: every seat on its own line, padded with A_WAIT
        obs_bounds=_obs_bounds,
        reward_modes=REWARD_MODES,
        action_ranges=L.ACTION_RANGES,
        web="ohmygoods_env.apps.web_ohmygoods:OhMyGoodsWeb",  # its browser page (imported by the web shell only)
        agent_entry_points=("ohmygoods.agents",),  # the older group of this game's agents, still read
        tools="ohmygoods_env.game_tools:TOOLS",  # what the shared commands need (imported on use)
        env_hooks=ENV_HOOKS,  # its infos, state(), pictures, fused observe and engine errors in the PettingZoo envs
    )
)
register_agent(OHMYGOODS.name, "random", _random_agent, "uniformly random legal action (the engine's RNG words)")
