"""What happened: every seat's revealed choices and production results, as one viewer may read them.

A :class:`Chronicle` follows a game move by move and writes, for one viewer (a seat, or
``None`` for the spectator), a readable summary line per seat at two moments:

* **the reveal** (sunset, R5.2/R6): each seat's phase-II choices: assistant moves and what
  they cost, where the worker went and in which mode, whether a card was set aside (its name
  only for its owner and the spectator: it stays face down until built, R5.5);
* **the end of each seat's production turn** (R7): goods made per building, chains run
  (what went in, what came out), hand cards spent, what was built and how it was paid,
  what was not built (named only where the card becomes public: royal discards it, §9),
  the assistant hired and where it went.

Nothing is written before it is revealed, so two games that differ only in cards hidden from
the viewer give the same lines up to the reveal (tested). The chronicle replays the moves on
a shadow copy of the game whose forced moves are not applied automatically, so each single
decision (forced ones included) is seen on its own; the shadow is checked against the game
after every move.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import layout as L
from .cards import A_VP, B_GOOD, B_RES, B_VALUE, GOODS, RESOURCES

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["Chronicle", "Note"]


@dataclass(frozen=True)
class Note:
    """One summary line: ``kind`` is ``"reveal"`` or ``"production"``, ``player`` the seat it is about."""

    kind: str
    player: int
    text: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "player": self.player, "text": self.text}


@dataclass
class _Turn:
    """One seat's facts, gathered until they are written."""

    moves: list[tuple[int, int]] = field(default_factory=list)  # assistant moves (from, to)
    paid_move: int = 0  # coins paid for assistant moves
    worker: tuple[int, int] | None = None  # (slot, mode)
    aside: int | None = -1  # -1: not chosen yet, None: nothing set aside, else the card
    made: dict[int, int] = field(default_factory=dict)  # slot -> goods made by production
    chained: dict[int, int] = field(default_factory=dict)  # slot -> goods made by chains
    fed: dict[tuple[int, int], int] = field(default_factory=dict)  # (chain slot, slot) -> goods fed into it
    spent: list[int] = field(default_factory=list)  # hand cards spent for production
    chain_cards: list[tuple[int, int]] = field(default_factory=list)  # (chain slot, hand card) fed into it
    paid: dict[int, int] = field(default_factory=dict)  # slot -> goods paid (building or hiring)
    built: int | None = None
    not_built: int | None = -1  # -1: no such choice; None: a hidden card; else the card
    hired: str | None = None
    placed: int | None = None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Chronicle:
    """Summary lines of what happened in ``game`` as ``viewer`` may read them (see the module).

    Call :meth:`step` with each action instead of ``game.step``; it applies the action and
    returns the :class:`Note` objects the move produced (often none). ``names`` label the
    seats (``"you"`` for the viewer is the caller's choice).
    """

    def __init__(self, game: Game, viewer: int | None = None, names: list[str] | None = None) -> None:
        self.viewer = viewer
        self.names = list(names) if names is not None else [f"player {p}" for p in range(game.num_players)]
        self.notes: list[Note] = []
        self.sync(game)

    def sync(self, game: Game) -> None:
        """Follow ``game`` from its present state (after an undo, say); facts gathered so far are dropped."""
        from .engine import Game as _Game

        state = game.state.copy()
        state[L.F_AUTO] = 0
        rules = dataclasses.replace(game.rules, auto_forced=False)
        self.shadow = _Game.from_state(state, rules, game.cards, seed=game.seed)
        self.turns = [_Turn() for _ in range(game.num_players)]
        self.p4_seen: set[int] = set()  # seats with phase-IV facts not yet written
        self.p4_done: set[int] = set()  # seats whose phase-IV line is written
        self.in_p4 = int(game.state[L.F_PH]) == L.PH_P4  # phase IV under way (perhaps paused by R3.1)

    def clone(self) -> Chronicle:
        out = object.__new__(Chronicle)
        out.viewer, out.names, out.notes = self.viewer, list(self.names), list(self.notes)
        out.shadow = self.shadow.clone()
        out.turns = [dataclasses.replace(t, moves=list(t.moves), made=dict(t.made), chained=dict(t.chained),
                                         fed=dict(t.fed), spent=list(t.spent), chain_cards=list(t.chain_cards),
                                         paid=dict(t.paid)) for t in self.turns]  # fmt: skip
        out.p4_seen, out.p4_done, out.in_p4 = set(self.p4_seen), set(self.p4_done), self.in_p4
        return out

    # ------------------------------------------------------------------ following the game
    def step(self, game: Game, action: int) -> list[Note]:
        """Apply ``action`` to ``game`` and return the notes it produced."""
        game.step(action)
        return self.follow(game, int(action))

    def follow(self, game: Game, action: int) -> list[Note]:
        """The notes of ``action``, already applied to ``game`` (the shadow catches up)."""
        out = self._atomic(action)
        for _ in range(10_000):
            if np.array_equal(self._core(self.shadow.state), self._core(game.state)):
                break
            legal = self.shadow.legal_actions()
            if len(legal) != 1:  # cannot happen while the engine is deterministic; follow the game anyway
                self.sync(game)
                break
            out += self._atomic(legal[0])
        self.notes += out
        return out

    @staticmethod
    def _core(state: np.ndarray) -> np.ndarray:
        s = state.copy()
        s[L.F_AUTO] = 0
        return s

    def _atomic(self, a: int) -> list[Note]:
        g = self.shadow
        s0 = g.state.copy()
        p, dec, ph = g.current_player, g.decision, int(s0[L.F_PH])
        if ph == L.PH_P2:
            self._phase2(p, dec, a, s0)
        elif ph == L.PH_P4:
            self._phase4_choice(p, a, s0)
        g.step(a)
        s1 = g.state
        out: list[Note] = []
        if ph == L.PH_P2 and int(s1[L.F_PH]) != L.PH_P2:
            out += self._reveal(s0)
        if int(s1[L.F_PH]) == L.PH_P4 or ph == L.PH_P4:
            self._goods(s0, s1, p if ph == L.PH_P4 else -1, dec, a)
        if self.in_p4 or int(s1[L.F_PH]) == L.PH_P4:
            out += self._turn_ends(s1)
        return out

    # ------------------------------------------------------------------ phase II (hidden until the reveal)
    def _phase2(self, p: int, dec: int, a: int, s: np.ndarray) -> None:
        t = self.turns[p]
        if L.A_MOVE <= a < L.A_MOVES_DONE:
            t.moves.append(divmod(a - L.A_MOVE, L.MAX_SLOTS))
        elif dec == L.D_PAY and L.A_PAY <= a < L.A_HIRE:
            t.paid_move += self._value(s, p, a - L.A_PAY)
        elif L.A_WORKER <= a < L.A_ASIDE:
            t.worker = divmod(a - L.A_WORKER, 2)
        elif L.A_ASIDE <= a < L.A_ASIDE_NONE:
            t.aside = a - L.A_ASIDE
        elif a == L.A_ASIDE_NONE:
            t.aside = None

    def _reveal(self, s: np.ndarray) -> list[Note]:
        notes = []
        for p in range(self.shadow.num_players):
            t = self.turns[p]
            parts = [f"moved an assistant from {self._slot(s, p, fr)} to {self._slot(s, p, to)}" for fr, to in t.moves]
            if t.paid_move:
                parts.append(f"paid {_plural(t.paid_move, 'coin')} in goods for the moves")
            if t.worker is not None:
                slot, mode = t.worker
                parts.append(f"worker to {self._slot(s, p, slot)}, {'sloppy' if mode else 'efficient'}")
            else:
                parts.append("no worker placed")
            if t.aside is None or t.aside == -1:
                parts.append("set no card aside")
            elif self._sees(p):
                parts.append(f"set {self.shadow.cards.name(t.aside)} aside to build")
            else:
                parts.append("set a card aside to build (face down)")
            notes.append(Note("reveal", p, f"{self._who(p)}: {'; '.join(parts)}"))
            self.turns[p] = _Turn()
        self.p4_seen, self.p4_done = set(), set()
        return notes

    # ------------------------------------------------------------------ phase IV (public)
    def _phase4_choice(self, p: int, a: int, s: np.ndarray) -> None:
        t = self.turns[p]
        self.p4_seen.add(p)
        if L.A_SPEND <= a < L.A_CHAIN_HAND:
            t.spent.append(a - L.A_SPEND)
        elif L.A_CHAIN_HAND <= a < L.A_CHAIN_GOODS:
            t.chain_cards.append((int(s[L.F_CHAIN_SLOT]), a - L.A_CHAIN_HAND))
        elif a == L.A_NO_BUILD:
            card = int(s[L.F_ASIDE + p])
            public = self._sees(p) or bool(s[L.F_ROYAL])  # royal: the card goes to the face-up discard pile
            t.not_built = card if public else None
        elif L.A_HIRE <= a < L.A_NO_HIRE:
            k = a - L.A_HIRE
            card, side = int(s[L.F_A_CARD + k]), int(s[L.F_A_SIDE + k])
            vp = int(self.shadow.cards.assistants[card, side][A_VP])
            t.hired = f"{card + 1}{'AB'[side]} ({vp} VP)"
        elif L.A_PLACE <= a < L.A_REFILL:
            t.placed = a - L.A_PLACE

    def _goods(self, s0: np.ndarray, s1: np.ndarray, mover: int, dec: int, a: int) -> None:
        """Goods made, fed into chains and paid, from the change of every seat's goods counts."""
        chain_slot = int(s0[L.F_CHAIN_SLOT]) if dec == L.D_CHAIN else -1
        for q in range(self.shadow.num_players):
            t = self.turns[q]
            base = q * L.MAX_SLOTS
            nb0, nb1 = int(s0[L.F_NB + q]), int(s1[L.F_NB + q])
            for slot in range(min(nb0, nb1)):
                delta = int(s1[L.F_GOODS + base + slot]) - int(s0[L.F_GOODS + base + slot])
                if delta > 0:
                    self.p4_seen.add(q)
                    book = t.chained if q == mover and slot == chain_slot else t.made
                    book[slot] = book.get(slot, 0) + delta
                elif delta < 0 and q == mover and dec == L.D_PAY:
                    t.paid[slot] = t.paid.get(slot, 0) - delta
                elif delta < 0 and q == mover:
                    key = (chain_slot, slot)
                    t.fed[key] = t.fed.get(key, 0) - delta
            if nb1 > nb0:
                t.built = int(s1[L.F_BLD + base + nb0])

    def _turn_ends(self, s1: np.ndarray) -> list[Note]:
        """Lines for the seats whose production turn is over (every seat left when phase IV ends).

        The empty-deck rule (R3.1) may interrupt phase IV: the seats discarding then are not taking turns.
        """
        ph = int(s1[L.F_PH])
        if ph == L.PH_REFILL:
            return []
        self.in_p4 = ph == L.PH_P4
        if not self.in_p4:  # the phase ended: every seat gets its line, those with nothing to do too
            ended = [p for p in range(self.shadow.num_players) if p not in self.p4_done]
        else:
            ended = sorted(p for p in self.p4_seen if p != int(s1[L.F_CUR]))
        notes = []
        for p in ended:
            notes.append(Note("production", p, f"{self._who(p)}: {self._production_text(s1, p)}"))
            self.turns[p] = _Turn()
            self.p4_seen.discard(p)
            self.p4_done.add(p)
        return notes

    def _production_text(self, s: np.ndarray, p: int) -> str:
        t = self.turns[p]
        names = self.shadow.cards.name
        parts = [f"made {self._goods_text(s, p, slot, n)}" for slot, n in sorted(t.made.items())]
        if t.spent:
            parts.append("spent from hand: " + ", ".join(f"{names(c)} as {self._res(c)}" for c in t.spent))
        for slot, n in sorted(t.chained.items()):
            inputs = [f"{names(c)} as {self._res(c)} from hand" for cs, c in t.chain_cards if cs == slot]
            inputs += [f"{self._goods_text(s, p, fs, k)}" for (cs, fs), k in sorted(t.fed.items()) if cs == slot]
            parts.append(f"chain: {' + '.join(inputs) or 'inputs'} -> {self._goods_text(s, p, slot, n)}")
        if t.built is not None:
            paid = sum(k * self._value(s, p, slot) for slot, k in t.paid.items() if slot < int(s[L.F_NB + p]))
            spent = ", ".join(self._goods_text(s, p, slot, k) for slot, k in sorted(t.paid.items()))
            parts.append(
                f"built {names(t.built)}, paying {_plural(paid, 'coin')} ({spent})"
                if spent
                else f"built {names(t.built)}"
            )
        elif t.not_built is None:
            parts.append("did not build the card set aside (it stays hidden)")
        elif t.not_built >= 0:
            parts.append(f"did not build {names(t.not_built)}")
        if t.hired is not None:
            where = f", placed on {self._slot(s, p, t.placed)}" if t.placed is not None else ""
            paid = "" if t.built is not None else self._paid_text(s, p, t)
            parts.append(f"hired assistant {t.hired}{paid}{where}")
        return "; ".join(parts) or "made nothing, built nothing"

    def _paid_text(self, s: np.ndarray, p: int, t: _Turn) -> str:
        if not t.paid:
            return ""
        coins = sum(k * self._value(s, p, slot) for slot, k in t.paid.items())
        return f" for {_plural(coins, 'coin')} in goods"

    # ------------------------------------------------------------------ words
    def _sees(self, p: int) -> bool:
        return self.viewer is None or self.viewer == p

    def _who(self, p: int) -> str:
        name = self.names[p]
        if name == "you" or name.startswith("player "):
            return name
        return f"player {p} ({name})"

    def _slot(self, s: np.ndarray, p: int, slot: int) -> str:
        if 0 <= slot < int(s[L.F_NB + p]):
            return f"{self.shadow.cards.name(int(s[L.F_BLD + p * L.MAX_SLOTS + slot]))} (slot {slot})"
        return f"slot {slot}"

    def _value(self, s: np.ndarray, p: int, slot: int) -> int:
        if not 0 <= slot < int(s[L.F_NB + p]):
            return 0
        return int(self.shadow.cards.buildings[int(s[L.F_BLD + p * L.MAX_SLOTS + slot]), B_VALUE])

    def _goods_text(self, s: np.ndarray, p: int, slot: int, n: int) -> str:
        if not 0 <= slot < int(s[L.F_NB + p]):
            return _plural(n, "good")
        b = int(s[L.F_BLD + p * L.MAX_SLOTS + slot])
        good = GOODS[int(self.shadow.cards.buildings[b, B_GOOD])]
        return f"{n} {good} at {self.shadow.cards.name(b)}"

    def _res(self, c: int) -> str:
        return RESOURCES[int(self.shadow.cards.buildings[c, B_RES])]
