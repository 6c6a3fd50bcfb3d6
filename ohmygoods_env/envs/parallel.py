"""*Oh my Goods!* as a PettingZoo ``ParallelEnv``: the framework's
:class:`~ohmygoods_env.framework.envs.parallel.GameParallelEnv` with the game's argument spelling.

:class:`OhMyGoodsParallelEnv` is ``GameParallelEnv("ohmygoods", ...)``: no step, observe or
reset logic of its own. The simultaneous phases are the spec's declaration
(``GameSpec.simultaneous``, :mod:`.simultaneous`), its infos, ``state()``, pictures and error
wording the spec's env hooks (:data:`ohmygoods_env.game_spec.ENV_HOOKS`), so
``framework.envs.parallel_env("ohmygoods")`` behaves the same way.

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
* Infos: numbers only, same keys for every agent (``common.INFO_KEYS``); in a simultaneous
  phase an acting seat's ``decision`` is the one on its own line.
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

from .. import layout as L
from ..cards import CardSet
from ..framework.envs.parallel import GameParallelEnv
from ..game_spec import OHMYGOODS
from ..rules import RuleSet
from .common import EngineGameMixin

__all__ = ["OhMyGoodsParallelEnv", "parallel_env"]


class OhMyGoodsParallelEnv(EngineGameMixin, GameParallelEnv):
    """Oh my Goods! as a PettingZoo ``ParallelEnv``: ``GameParallelEnv("ohmygoods")`` (see the module docstring)."""

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
        super().__init__(
            OHMYGOODS,
            num_players,
            reward,
            render_mode,
            illegal,
            penalty,
            simultaneous,
            rules=rules,
            auto_forced=auto_forced,
            cards=cards,
            **rule_options,
        )


def parallel_env(**kwargs: Any) -> OhMyGoodsParallelEnv:
    """The parallel env (no wrappers: it checks its own input; see the module docstring)."""
    return OhMyGoodsParallelEnv(**kwargs)
