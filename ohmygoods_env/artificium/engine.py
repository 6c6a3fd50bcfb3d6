"""Python front of the *Artificium* engine: one game (:class:`Game`) as a forward model.

A :class:`Game` owns one state row and calls the kernels of
:mod:`ohmygoods_env.artificium.core`; there is no second copy of the rules here. It
implements the framework's ``ForwardModel`` interface: ``pending_players`` (every choosing
seat during the simultaneous card choice, A4.1), ``legal_mask(player)``, ``step`` (the
current player), ``step_joint`` (every pending seat at once, all checked first),
``observe``, ``clone``, ``rewards``, ``scores``, ``winners``, ``determinize``,
``record`` / ``replay``, and 64-bit seeds. Every decision is asked, none is applied
automatically (A9.10). Every bad input raises a clear error and leaves
the state unchanged (:class:`IllegalActionError`, :class:`GameOverError`, ``TypeError``,
``ValueError``). It also owns the words for actions (:func:`describe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..framework import jit as _jit
from ..framework.checks import check_int as _check_int
from ..framework.checks import check_seed, seed_or_fresh
from ..framework.checks import seed_bits as seed_bits  # re-exported
from ..framework.game import GameOverError as GameOverError  # the one error of every game
from ..framework.game import IllegalActionError as IllegalActionError  # the one error of every game
from ..framework.game import StateRowMixin
from . import core
from . import layout as L
from .cards import B_SELL, RESOURCES, T_COUNT, ArtTables, default_tables
from .infostate import determinize as _determinize

REWARD_MODES: tuple[str, ...] = ("win", "score", "margin")
_ERRORS = {core.ERR_ILLEGAL: "illegal", core.ERR_PLAYER: "not asked now"}


def check_action(action: object) -> int:
    """The type and range of an action id; returns it as an int."""
    return _check_int(action, "action", 0, L.N_ACTIONS - 1)


def _range_of(action: int) -> tuple[str, int]:
    for name, off, n in L.ACTION_RANGES:
        if off <= action < off + n:
            return name, action - off
    raise ValueError(f"action {action} is out of range")


def describe(action: int, game: Game | None = None) -> str:
    """Words for an action id (card types by name from ``game``'s tables or the bundled ones)."""
    a = check_action(action)
    tables = game.tables if game is not None else default_tables()
    name, k = _range_of(a)
    t = tables.type_name
    if name == "market swap":
        return f"swap {t(k // 16)} for market {t(k % 16)}"
    if name in ("buy", "sell"):
        return f"{name} {RESOURCES[k]}"
    if name in ("choose card", "Reconstruction card", "Mage discard", "round-end discard"):
        return f"{name}: {t(k)}"
    if name == "Scouting target":
        return f"Scouting on the seat {k + 1} to the left"
    if name == "Theft target x resource":
        return f"Theft of {RESOURCES[k % 9]} from the seat {k // 9 + 1} to the left"
    if name == "Knight target":
        return "Knight on myself" if k == 0 else f"Knight on the seat {k} to the left"
    return name


def obs_bounds(tables: ArtTables | None = None) -> tuple[np.ndarray, np.ndarray]:
    """float32 ``(low, high)`` of every observation entry, for a ``Box`` space.

    Every entry is >= 0. Counts of cards are bounded by the card table; scores, coins,
    resources and the step count have no fixed bound (``inf``).
    """
    t = tables if tables is not None else default_tables()
    counts = t.types[:, T_COUNT].astype(np.float32)
    high = np.ones(L.OBS_DIM, np.float32)
    high[L.O_HAND : L.O_HAND + 16] = counts / L.SC_HAND_ME
    high[L.O_MARKET : L.O_MARKET + 16] = np.minimum(counts, L.MARKET_SIZE) / L.SC_MARKET
    high[L.O_STEP] = np.inf
    for j in range(L.MAX_PLAYERS):
        base = L.O_PLAYERS + j * L.PLAYER_FEATURES
        high[base + L.PF_VP : base + L.PF_RES + 9] = np.inf
        high[base + L.PF_HAND] = 108 / L.SC_HAND
        high[base + L.PF_SWAPS] = np.inf
        high[base + L.PF_PLAYED : base + L.PF_PLAYED + 16] = counts / L.SC_PLAYED
    return np.zeros(L.OBS_DIM, np.float32), high


@dataclass
class GameRecord:
    """Everything needed to replay a game: players, seed, and the (seat, action) pairs in order."""

    num_players: int
    seed: int
    moves: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"game": "artificium", "num_players": self.num_players, "seed": self.seed, "moves": self.moves}

    @classmethod
    def from_dict(cls, d: dict) -> GameRecord:
        if not isinstance(d, dict) or d.get("game") != "artificium":
            raise ValueError("not an Artificium game record: expected a dict with game='artificium'")
        moves = [(int(p), int(a)) for p, a in d.get("moves", [])]
        return cls(int(d["num_players"]), check_seed(d["seed"]), moves)


#: The kernels a first :class:`Game` runs (deal, mask, step, observation): their cache decides the compile notice.
ENTRY_KERNELS = (core.init_game, core.legal_mask, core.step_checked, core.observe)


class Game(StateRowMixin):
    """One game of *Artificium* for 2-6 players over the compiled engine.

    :attr:`current_player` is the seat asked now: during the card choice (A4.1) the first
    unchosen seat from the first player; -1 at the end.
    """

    _layout = L

    def __init__(self, num_players: int = 2, seed: int | None = None, tables: ArtTables | None = None) -> None:
        self._np = _check_int(num_players, "num_players", L.MIN_PLAYERS, L.MAX_PLAYERS)
        self.tables = tables if tables is not None else default_tables()
        self.seed = seed_or_fresh(seed)
        self.state = np.zeros(L.STATE_LEN, np.int32)
        self.moves: list[tuple[int, int]] = []
        _jit.first_use("Artificium", "ohmygoods_env.artificium.engine.Game", ENTRY_KERNELS)
        core.init_game(self.state, *self._t(), seed_bits(self.seed), self._np)

    def _t(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        t = self.tables
        return t.types, t.board, t.track, t.card_type

    # ------------------------------------------------------------------ facts
    num_actions: int = L.N_ACTIONS
    obs_size: int = L.OBS_DIM

    @property
    def num_players(self) -> int:
        return self._np

    @property
    def first_player(self) -> int:
        return int(self.state[L.F_FIRST])

    def pending_players(self) -> tuple[int, ...]:
        """Seats the game waits for now: all choosing seats in A4.1, else the current one; () at the end."""
        return tuple(p for p in range(self._np) if core.is_pending(self.state, p))

    # ------------------------------------------------------------------ queries
    def legal_mask(self, player: int | None = None) -> np.ndarray:
        """int8[num_actions]: the legal actions of ``player`` (default the current player); zeros if not asked."""
        p = self.current_player if player is None else self._check_player(player)
        mask = np.zeros(L.N_ACTIONS, np.int8)
        if p >= 0:
            core.legal_mask(self.state, *self._t(), p, mask)
        return mask

    def legal_actions(self, player: int | None = None) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask(player))]

    def observe(self, player: int) -> np.ndarray:
        """float32[obs_size]: seat ``player``'s view only (A9.2)."""
        out = np.zeros(L.OBS_DIM, np.float32)
        core.observe(self.state, *self._t(), self._check_player(player), out)
        return out

    def hand(self, player: int) -> list[int]:
        """Card ids in ``player``'s hand (hidden information: for its owner, tests and debugging)."""
        p = self._check_player(player)
        return [int(c) for c in np.flatnonzero(self._locs() == L.L_HAND + p)]

    def hand_types(self, player: int) -> list[int]:
        return sorted(int(self.tables.card_type[c]) for c in self.hand(player))

    def cards_at(self, loc: int) -> list[int]:
        return [int(c) for c in np.flatnonzero(self._locs() == loc)]

    def coins(self, player: int) -> int:
        return int(self.state[L.F_COINS + self._check_player(player)])

    def vp(self, player: int) -> int:
        """Score-track position (A5.3)."""
        return int(self.state[L.F_VP + self._check_player(player)])

    def resources(self, player: int) -> list[int]:
        p = self._check_player(player)
        return [int(x) for x in self.state[L.F_RES + p * 9 : L.F_RES + p * 9 + 9]]

    def bank(self) -> int:
        return int(self.state[L.F_BANK])

    def check_invariants(self) -> int:
        """0 when consistent, else the code of :func:`core.check_invariants` (A9.8)."""
        return int(core.check_invariants(self.state, *self._t()))

    def _locs(self) -> np.ndarray:
        return self.state[L.F_LOC : L.F_LOC + 108]

    # ------------------------------------------------------------------ scores (A8)
    def scores(self) -> list[int]:
        """Final score per seat by A8.2 (valid at any time, final at the end)."""
        return [int(core.final_score(self.state, self.tables.board, p)) for p in range(self._np)]

    def winners(self) -> list[int]:
        """Seats with the best score (A8.3: ties share)."""
        out = np.zeros(L.MAX_PLAYERS, np.int64)
        core.winners(self.state, self.tables.board, out)
        return [p for p in range(self._np) if out[p]]

    def rewards(self, mode: str = "win") -> np.ndarray:
        """float32[num_players], zeros while the game runs: ``win`` (+1 winners, -1 others, 0 if all tie),
        ``score`` or ``margin`` (my score minus the best other score)."""
        if mode not in REWARD_MODES:
            raise ValueError(f"reward mode must be one of {list(REWARD_MODES)}, got {mode!r}")
        out = np.zeros(self._np, np.float32)
        if not self.done:
            return out
        s = self.scores()
        if mode == "score":
            return np.asarray(s, np.float32)
        if mode == "margin":
            return np.asarray(
                [s[p] - max(s[q] for q in range(self._np) if q != p) for p in range(self._np)], np.float32
            )
        w = self.winners()
        if len(w) == self._np:
            return out
        return np.asarray([1.0 if p in w else -1.0 for p in range(self._np)], np.float32)

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        """Apply ``action`` for the current player (see :meth:`step_player`)."""
        a = check_action(action)
        if self.done:
            raise GameOverError(f"the game is over; no action (got {a}) can be applied")
        self._apply(self.current_player, a)

    def step_player(self, player: int, action: int) -> None:
        """Apply ``action`` for ``player``, who must be pending (any choosing seat during A4.1)."""
        p = self._check_player(player)
        a = check_action(action)
        if self.done:
            raise GameOverError(f"the game is over; no action (got {a}) can be applied")
        self._apply(p, a)

    def step_joint(self, actions: Mapping[int, int]) -> None:
        """Every pending seat's action at once, all checked before any is applied (A4.1)."""
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a mapping seat -> action, got {type(actions).__name__}")
        if self.done:
            raise GameOverError("the game is over; no actions can be applied")
        pending = self.pending_players()
        checked = {self._check_player(p): check_action(a) for p, a in actions.items()}
        if set(checked) != set(pending):
            raise ValueError(f"step_joint needs exactly the pending seats {list(pending)}, got {sorted(checked)}")
        for p, a in checked.items():
            if not self.legal_mask(p)[a]:
                raise IllegalActionError(self._illegal_message(p, a))
        for p in pending:
            self._apply(p, checked[p])

    def _apply(self, p: int, a: int) -> None:
        code = core.step_checked(self.state, *self._t(), p, a)
        if code != 0:
            raise IllegalActionError(self._illegal_message(p, a))
        self.moves.append((p, a))

    def _illegal_message(self, p: int, a: int) -> str:
        if not core.is_pending(self.state, p):
            return (
                f"seat {p} is not asked now (decision {self.decision_name!r}, pending seats "
                f"{list(self.pending_players())}); action {a} ({describe(a, self)}) refused"
            )
        legal = self.legal_actions(p)
        return (
            f"action {a} ({describe(a, self)}) is not legal for seat {p} at decision {self.decision_name!r}; "
            f"legal: {legal[:12]}{' ...' if len(legal) > 12 else ''}"
        )

    # ------------------------------------------------------------------ forward model
    def clone(self) -> Game:
        """An independent copy (state and record)."""
        g = object.__new__(Game)
        g._np, g.tables, g.seed = self._np, self.tables, self.seed
        g.state = self.state.copy()
        g.moves = list(self.moves)
        return g

    @classmethod
    def from_state(cls, state: np.ndarray, seed: int = 0, tables: ArtTables | None = None) -> Game:
        """A game that continues from a copy of ``state`` (e.g. ``ArtBatch.state[i]``); its record starts empty.

        The row must pass :meth:`check_invariants`; ``seed`` is only kept as the game's label.
        """
        s = cls._state_row(state)
        g = object.__new__(cls)
        g._np = _check_int(int(s[L.F_NP]), "state num_players", L.MIN_PLAYERS, L.MAX_PLAYERS)
        g.tables = tables if tables is not None else default_tables()
        g.seed, g.state, g.moves = check_seed(seed), s.astype(np.int32, copy=True), []
        g._check_consistent()
        return g

    def determinize(self, player: int, seed: int) -> Game:
        """A copy consistent with everything ``player`` has seen, hidden cards re-dealt (A9.3)."""
        p = self._check_player(player)
        g = self.clone()
        _determinize(g.state, p, seed_bits(seed))
        g.moves = []
        return g

    def record(self) -> GameRecord:
        return GameRecord(self._np, self.seed, list(self.moves))

    @classmethod
    def replay(cls, record: GameRecord, tables: ArtTables | None = None) -> Game:
        """Rebuild a game from its record; raises if a move is illegal on the way."""
        if not isinstance(record, GameRecord):
            raise TypeError(f"record must be a GameRecord, got {type(record).__name__}")
        g = cls(record.num_players, record.seed, tables)
        for p, a in record.moves:
            g.step_player(p, a)
        return g

    def full_state_view(self) -> dict:
        """Everything, hidden information included: for debugging and tests, never for an agent."""
        s = self.state
        return {
            "round": self.round,
            "decision": self.decision_name,
            "pending": list(self.pending_players()),
            "first_player": self.first_player,
            "deck_top_last": [int(c) for c in s[L.F_DECK : L.F_DECK + s[L.F_DECK_N]]],
            "market": self.cards_at(L.L_MARKET),
            "bank": self.bank(),
            "players": [
                {
                    "hand": self.hand(p),
                    "chosen": int(s[L.F_CHOSEN + p]),
                    "played": self.cards_at(L.L_PLAYED + p),
                    "coins": self.coins(p),
                    "vp": self.vp(p),
                    "resources": self.resources(p),
                }
                for p in range(self._np)
            ],
        }

    def sale_value(self, player: int) -> int:
        """Coins the seat's resources fetch at the board's sell prices."""
        return sum(n * int(self.tables.board[r, B_SELL]) for r, n in enumerate(self.resources(player)))

    def _check_player(self, player: object) -> int:
        return _check_int(player, "player", 0, self._np - 1)
