"""*Oh my Goods!* on the framework's game interface: :class:`OhMyGoodsModel` and the spec ``"ohmygoods"``.

:class:`OhMyGoodsModel` adapts :class:`~ohmygoods_env.engine.Game` to
:class:`~ohmygoods_env.framework.game.ForwardModel` without changing it: the same action
ids, observation layout (``layout.LAYOUT_VERSION``), rewards and records; ``model.game`` is
the engine game itself. Importing this module registers :data:`OHMYGOODS` (importing
:mod:`ohmygoods_env` does).

Simultaneous choices: the engine asks the simultaneous choices of phases I and II (R4.1,
R5.2-R5.5) one seat at a time, each seat taking several decisions in a row, so through this
interface ``pending_players()`` is always the one seat the engine asks,
``(current_player,)``. The generic front ends therefore play *Oh my Goods!* one seat per
step (observations still hide every undisclosed choice). Its own parallel env,
:mod:`ohmygoods_env.envs.parallel`, is the one where every seat of a simultaneous phase acts
in the same step.

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

from typing import Any

import numpy as np

from . import engine
from . import layout as L
from .engine import REWARD_MODES, Game, GameRecord
from .framework.agents import register_agent
from .framework.game import GameSpec, JointStepMixin, check_player, register_game
from .infostate import determinize as _determinize
from .infostate import redact

__all__ = ["OHMYGOODS", "OhMyGoodsModel"]


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

    @classmethod
    def new(cls, num_players: int = 2, seed: int | None = None, **options: Any) -> OhMyGoodsModel:
        """A new deal: ``Game(num_players, seed=seed, **options)`` (``rules="omg2"`` or ``"royal"``, variants)."""
        return cls(Game(num_players, seed=seed, **options))

    @property
    def current_player(self) -> int:
        return self.game.current_player

    @property
    def done(self) -> bool:
        return self.game.done

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
    )
)
register_agent(OHMYGOODS.name, "random", _random_agent, "uniformly random legal action (the engine's RNG words)")
