"""Single-agent Gymnasium env: the learner plays one seat, opponent agents play the others.

A thin adapter over one game of :class:`~ohmygoods_env.envs.learner.LearnerGames`; what it
plays is one :class:`~ohmygoods_env.envs.learner.LearnerConfig` (``env.config``), made from
its arguments: ``OhMyGoodsEnv(num_players=3, opponents="heuristic", reward="margin")``,
``OhMyGoodsEnv(config=LearnerConfig(...))``. Opponents (names, specs, agent objects,
``None`` for random play) are described in :mod:`.learner`. ``reward_mode=`` is the
deprecated spelling of ``reward=`` (a ``DeprecationWarning``).

Spaces and episode
------------------
=====================  =======================================================================
observation            ``Box(0, obs_high(), (OBS_DIM,), float32)`` from the learner's seat
                       (:mod:`ohmygoods_env.layout`, ``OBS_BLOCKS``)
action                 ``Discrete(N_ACTIONS)`` (:mod:`ohmygoods_env.actions`)
``action_masks()``     ``bool[N_ACTIONS]`` legal actions now (for sb3-contrib ``MaskablePPO``)
``info``               ``action_mask`` (int8), ``seat``, ``episode`` (games started since the
                       last seeded reset, from 0: an id that reveals nothing of the deal); at the end
                       ``rewards`` (every seat's final reward) and ``illegal_action``
reward                 the learner's final reward when the game ends (``reward``), else 0
illegal action         ``illegal="penalty"`` (default for the env adapters): the game ends,
                       the offender gets ``penalty`` (-1), the others ``-penalty / (P - 1)``;
                       ``illegal="raise"``: ``IllegalActionError``, nothing changes
not an action          ``step("3")``, ``step(None)``, ``step(2**70)``: ``TypeError`` /
                       ``ValueError`` naming the expected int range, nothing changes
=====================  =======================================================================

The penalty default lets unmasked learners (and ``gymnasium.utils.env_checker.check_env``,
which steps with unmasked samples of the action space) run; masked learners never see it.
Opponents with a ``seed(int)`` method are reseeded on ``reset(seed=...)``.

Each :meth:`OhMyGoodsEnv.reset` draws a game seed from the env's ``np_random`` (or takes
``options["game_seed"]``; seeds are ints in ``0 <= seed < 2**64``); ``np_random`` of a
never-seeded env starts from fresh entropy (Gymnasium's contract). The learner's seat is
``learner_seat`` or, with ``"random"``, a seat derived from the game seed. The built-in
random opponent draws from an RNG started from the game seed too, so a game depends only on
its seed and the learner's actions. The game seed is never returned: it would rebuild the
hidden hands and the deck order.

The env pickles and deep-copies (opponents included); a copy plays on exactly like the
original.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from .. import layout as L
from ..framework.checks import check_seed, offset_seed, optional_seed
from ..policy import RandomAgent
from .common import action_id, action_ids, action_space, check_render_mode, obs_high, observation_space
from .learner import LearnerConfig, LearnerGames, LearnerViews

ENV_ID_GYM = f"ohmygoods/OhMyGoods-v{L.LAYOUT_VERSION}"
#: earlier ids of this env (their layouts are gone); making one fails with a message naming ENV_ID_GYM
OLD_ENV_IDS_GYM: tuple[str, ...] = tuple(f"ohmygoods/OhMyGoods-v{v}" for v in range(L.LAYOUT_VERSION))

#: the random opponent is the one random agent of :mod:`ohmygoods_env.policy` (kept as a name here)
RandomOpponent = RandomAgent


# ===================================================================== the env


class OhMyGoodsEnv(LearnerViews, gym.Env):
    """Oh my Goods! for one learner against opponent policies (see the module docstring).

    ``args`` / ``config`` / ``options`` make its :class:`~.learner.LearnerConfig`
    (:meth:`~.learner.LearnerConfig.of`: ``num_players``, ``rules``, ``opponents``,
    ``learner_seat``, ``reward``, ``illegal``, ``penalty``, ``max_steps``, ``cards`` in this
    order or by name, and rule options such as ``max_rounds``).

    >>> env = OhMyGoodsEnv(num_players=2)
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "svg"], "render_fps": 4}

    def __init__(
        self, *args: Any, config: LearnerConfig | None = None, render_mode: str | None = None, **options: Any
    ) -> None:
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        #: what the game plays (:class:`~.learner.LearnerConfig`, from ``args``, ``config`` and ``options``)
        self.config = LearnerConfig.of(*args, config=config, **options)
        self._lg = LearnerGames(1, self.config)
        self.observation_space = self._lg.observation_space()
        self.action_space = action_space()
        self._row = np.zeros(1, np.int64)
        self._needs_reset = True
        self._episode = -1  # reset() makes it 0 for the first game

    @property
    def seat(self) -> int:
        """The learner's seat in the current game."""
        return int(self._lg.seat[0])

    @property
    def opponents(self) -> list[Any]:
        return self._lg.opponents

    def action_masks(self) -> np.ndarray:
        """bool[N_ACTIONS]: the learner's legal actions now."""
        return self._lg.games.masks(copy=False)[0].astype(np.bool_)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=optional_seed(seed))
        if options and "game_seed" in options:
            game_seed = check_seed(options["game_seed"], 'options["game_seed"]')
        else:
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
        if seed is not None:
            unique = {id(o): o for o in self._lg.opponents}
            for k, o in enumerate(unique.values()):
                if not isinstance(o, RandomAgent) and callable(getattr(o, "seed", None)):
                    o.seed(offset_seed(seed, 1 + k))
        self._lg.reset(self._row, seeds=[game_seed])
        self._episode = 0 if seed is not None else self._episode + 1
        self._needs_reset = False
        return self._lg.observe()[0], self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (the game is over or not started)")
        a = action_id(action)
        r, te, tr = self._lg.step(np.array([a], np.int64))
        terminated, truncated = bool(te[0]), bool(tr[0])
        self._needs_reset = terminated or truncated
        info = self._info()
        if terminated:
            info["rewards"] = self._lg.final_rewards(self._row)[0].copy()
            info["illegal_action"] = bool(self._lg.games.penalised[0])
        return self._lg.observe()[0], float(r[0]), terminated, truncated, info

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._lg.games.masks()[0],
            "seat": self.seat,
            "episode": self._episode,
        }

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: one status line; ``"rgb_array"``: the learner's seat view as ``uint8[H, W, 3]``
        (:func:`~ohmygoods_env.picture.render_image`, needs cairosvg; opponents' hands hidden); ``"svg"``:
        the same view as SVG text (:func:`~ohmygoods_env.picture.render_svg`)."""
        if self.render_mode == "rgb_array":
            from ..picture import render_image

            return render_image(self._lg.games.game(0), viewer=self.seat)
        if self.render_mode == "svg":
            from ..picture import render_svg

            return render_svg(self._lg.games.game(0), viewer=self.seat)
        if self.render_mode != "ansi":
            return None
        s = self._lg.games.state[0]
        if int(s[L.F_DEC]) == L.D_OVER:
            return self._ansi_game_over(int(s[L.F_ROUND]))
        dec = L.DECISION_NAMES[int(s[L.F_DEC])]
        return (
            f"round {int(s[L.F_ROUND])}, {L.PHASE_NAMES[int(s[L.F_PH])]}: "
            f"player {int(s[L.F_CUR])} to decide '{dec}' (learner is seat {self.seat})"
        )

    def _ansi_game_over(self, round_: int) -> str:
        """The ansi line of a finished game: every seat's score (R8.3) and the winners."""
        game = self._lg.games.game(0)
        scores = ", ".join(f"seat {p} {score} ({coins} coins)" for p, (score, coins) in enumerate(game.scores()))
        won = " and ".join(f"seat {p}" for p in game.winners())
        return f"round {round_}, game over: {scores}; won by {won} (learner is seat {self.seat})"


__all__: Sequence[str] = (
    "ENV_ID_GYM",
    "OLD_ENV_IDS_GYM",
    "LearnerConfig",
    "LearnerGames",
    "OhMyGoodsEnv",
    "RandomOpponent",
    "action_id",
    "action_ids",
    "action_space",
    "obs_high",
    "observation_space",
)
