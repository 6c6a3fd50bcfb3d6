"""The simultaneous phases of the parallel env: every seat with a pending choice acts in the same step.

The rules have all players choose at the same time in phase I (keep or discard the hand,
R4.1) and phase II (move assistants and pay for them, place the worker, set a card aside,
R5.2-R5.5). The engine asks those choices one seat at a time; this module turns them back
into simultaneous ones: the spec declares them (``GameSpec.simultaneous``, :func:`simultaneous_choice`,
a :class:`SimultaneousPhase`) and the framework's parallel env
(:class:`~ohmygoods_env.framework.envs.parallel.GameParallelEnv`, which
:class:`~ohmygoods_env.envs.parallel.OhMyGoodsParallelEnv` is) plays them:

* When the game reaches phase I or phase II with a decision pending, a
  :class:`SimultaneousPhase` starts. Every seat still to choose in it gets a
  :class:`SeatLine`: a copy of the state row at the start of that seat's own turn, on which
  its own decisions are played one per parallel step (forced ones applied as the engine
  does), no further than the end of its turn (:func:`~ohmygoods_env.core.advance_turn`).
  No seat's line sees another's choices: in these phases they do not interact (each seat
  moves its own assistants, pays with its own goods, places its own worker, sets aside its
  own card), and a seat's observation hides the others' choices anyway (R5.2).
* The phase lasts a **fixed number of steps**, known from public information at its start:
  1 in phase I (one keep/discard decision per seat with cards); in phase II the largest
  bound over the seats, ``3 m + 1 + 2`` for a seat that can make ``m`` assistant moves
  (``m`` = min(assistants on its buildings, coins // 2); each move is one decision and at
  most two payments, plus "moves done") and 2 without (worker, set-aside). A seat that has
  finished waits (mask ``{A_WAIT}``) until the phase's steps are over, so nobody can count
  anybody's decisions.
* When the steps are over, the seats' decisions are applied to the real game in the
  engine's turn order, each checked against the mask its seat saw; the game then goes on
  (reveal, sunset, ...), exactly as the sequential engine would with the same choices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core
from .. import layout as L
from ..engine import Game, observation_tables

__all__ = ["PhaseChoice", "SeatLine", "SimultaneousPhase", "simultaneous_choice"]


class SeatLine:
    """One seat's own decisions in a simultaneous phase, played on a copy of the state row."""

    def __init__(self, game: Game, seat: int, turn: int) -> None:
        self.seat, self.turn = seat, turn
        self._C, self._AS = game.cards.buildings, game.cards.assistants
        self._tables = observation_tables(game.cards)
        self.row = game.state.copy()
        if self.row[L.F_TURN] != turn:  # a later seat's turn starts as the engine starts it
            self.row[L.F_TURN] = turn
            if self.row[L.F_PH] == L.PH_P2:
                self.row[L.F_SUB] = L.SUB_MOVE
                self.row[L.F_MOVED] = 0
        self.chosen: list[int] = []  # the decisions the seat made (forced ones are the engine's)
        self.masks: list[np.ndarray] = []  # the mask of each, to check them on the real game
        self._mask = np.zeros(L.N_ACTIONS, np.int8)
        self.open = bool(core.advance_turn(self.row, self._C, self._AS, turn))
        self._settle()

    def mask(self) -> np.ndarray:
        """The seat's legal mask now (all zero once its turn is over)."""
        return self._mask.copy()

    def step(self, action: int) -> None:
        """Play the seat's (legal, checked by the caller) ``action`` and its forced follow-ups."""
        self.chosen.append(action)
        self.masks.append(self._mask.copy())
        self._apply(action)
        self._settle()

    def observe(self, obs: np.ndarray) -> None:
        """The seat's observation now: its own choices so far, the others as the rules show them."""
        core.observe_seat(self.row, self._C, self._AS, self._tables, self.seat, obs)

    def _apply(self, action: int) -> None:
        core.apply_decision(self.row, self._C, self._AS, action)
        self.open = bool(core.advance_turn(self.row, self._C, self._AS, self.turn))

    def _settle(self) -> None:
        """Apply forced decisions (as ``Game.step`` does when ``auto_forced``) and compute the mask."""
        while self.open:
            n = core.legal_mask(self.row, self._C, self._AS, self._mask)
            if n != 1 or self.row[L.F_AUTO] != 1:
                return
            self._apply(int(np.flatnonzero(self._mask)[0]))
        self._mask[:] = 0
        self.row[L.F_CUR] = -1  # the turn is over: nothing pending for this seat


def _move_bound(game: Game, seat: int) -> int:
    """Most phase-II decisions ``seat`` can take, from what everybody sees at the phase start."""
    s = game.state
    base = seat * L.MAX_SLOTS
    staffed = int(np.count_nonzero(s[L.F_STAFF + base : L.F_STAFF + base + int(s[L.F_NB + seat])] == L.STAFF_ASSISTANT))
    moves = min(staffed, game.coins(seat) // 2)
    return (3 * moves + 1 if moves > 0 else 0) + 2


class SimultaneousPhase:
    """Phase I or phase II as the framework's :class:`~ohmygoods_env.framework.game.SimultaneousChoice`
    over an ``OhMyGoodsModel``: the seat lines, the fixed step count, the final application."""

    def __init__(self, model: Any) -> None:
        self.model = model
        game = model.game
        s = game.state
        n, first, start = game.num_players, int(s[L.F_FIRST]), int(s[L.F_TURN])
        #: the phase (``layout.PH_P1_ASK`` or ``PH_P2``)
        self.phase = int(s[L.F_PH])
        order = [(first + t) % n for t in range(start, n)]
        if self.phase == L.PH_P1_ASK:  # a seat with no cards is not asked (R4.1)
            order = [q for q in order if core.hand_count(s, q) > 0]
        self.order = order
        self.lines = {q: SeatLine(game, q, (q - first) % n) for q in order}
        self.steps_left = 1 if self.phase == L.PH_P1_ASK else max(_move_bound(game, q) for q in order)

    @staticmethod
    def begins(game: Game) -> bool:
        """Is ``game`` stopped at a decision of a simultaneous phase (R4.1, R5.2)?"""
        return not game.done and int(game.state[L.F_PH]) in (L.PH_P1_ASK, L.PH_P2)

    def acting(self) -> list[int]:
        """Seats with a decision in this step, in turn order."""
        return [q for q in self.order if self.lines[q].open]

    def legal_mask(self, player: int) -> np.ndarray:
        """``player``'s mask on its own line (zeros once it has finished, or for a seat not in the phase)."""
        line = self.lines.get(player)
        return line.mask() if line is not None else np.zeros(L.N_ACTIONS, np.int8)

    def observe(self, player: int) -> np.ndarray:
        """``player``'s view on its own line; a seat not in the phase sees the game as at the phase's start."""
        line = self.lines.get(player)
        if line is None:
            return self.model.observe(player)
        obs = np.empty(L.OBS_DIM, np.float32)
        line.observe(obs)
        return obs

    def decision(self, player: int) -> int:
        """The decision (``layout.D_*``) on ``player``'s own line (the env hooks' infos and error words)."""
        return int(self.lines[player].row[L.F_DEC])

    def step(self, actions: dict[int, int]) -> None:
        """One parallel step: every acting seat's (checked, legal) action."""
        for q, a in actions.items():
            self.lines[q].step(a)
        self.steps_left -= 1
        if self.steps_left == 0 and self.acting():
            raise RuntimeError(f"seats {self.acting()} still decide after the phase's fixed number of steps")

    @property
    def over(self) -> bool:
        return self.steps_left == 0

    def apply_to(self, model: Any) -> None:
        """Play every seat's decisions on the model's game in the engine's turn order."""
        game = model.game
        for q in self.order:
            line = self.lines[q]
            for action, mask in zip(line.chosen, line.masks, strict=True):
                if game.current_player != q or not np.array_equal(game.legal_mask(), mask):
                    raise RuntimeError(
                        f"player {q}'s simultaneous decision {action} does not apply as chosen: the seats' "
                        "choices interacted"
                    )
                game.step(action)


#: the older name of :class:`SimultaneousPhase` (it was an adapter over it)
PhaseChoice = SimultaneousPhase


def simultaneous_choice(model: Any) -> SimultaneousPhase | None:
    """The spec's ``simultaneous`` declaration: phase I or II when ``model`` stands at one of their
    decisions (R4.1, R5.2), else ``None``."""
    return SimultaneousPhase(model) if SimultaneousPhase.begins(model.game) else None
