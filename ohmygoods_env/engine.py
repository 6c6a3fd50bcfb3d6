"""Python front of the engine: one game (:class:`Game`) as a forward model.

A :class:`Game` owns one state row of the batch layout and calls the numba kernels of
:mod:`ohmygoods_env.core` — there is no second copy of the rules here. It adds what a
Python user needs: type and range checks with clear errors, a game record
(rules + seed + actions) that replays exactly, cheap cloning for search, scores and
rewards, and :meth:`Game.full_state_view` (a debugging view that shows hidden information;
never give it to an agent). It also owns the words for actions (:func:`describe`) and the
one illegal-action message (:func:`illegal_action_message`) that ``Game`` and ``BatchGames``
raise; :mod:`ohmygoods_env.actions` re-exports them. Seeds: a seed is an int in ``0 <= seed < 2**64``;
:func:`seed_bits` turns it into the 64 bits that ``core.seed_rng`` mixes into the game's RNG
state. A game started without a seed draws a fresh one from the system's entropy and keeps it
in :attr:`Game.seed` and its record.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from . import core
from . import layout as L
from .cards import A_COST, A_VP, B_RES, RESOURCES, CardSet, default_cards
from .framework import jit as _jit
from .framework.checks import check_seed, seed_or_fresh
from .framework.checks import seed_bits as seed_bits  # re-exported: engine.seed_bits
from .framework.game import GameOverError as GameOverError  # the one error of every game
from .framework.game import IllegalActionError as IllegalActionError  # the one error of every game
from .framework.game import StateRowMixin
from .framework.game import check_action as _check_action
from .rules import DEFAULT_SOLO_ROUNDS, RuleSet, make_rules

REWARD_MODES: tuple[str, ...] = ("win", "score", "margin")


def check_action(action: object) -> int:
    """Validate the type and range of an action id; return it as ``int``."""
    return _check_action(action, L.N_ACTIONS)


# ------------------------------------------------------------------ describing actions


def action_kind(action: int) -> tuple[str, int]:
    """(range name, index inside the range) of an action id."""
    for name, start, n in L.ACTION_RANGES:
        if start <= action < start + n:
            return name, action - start
    raise ValueError(f"action {action} is out of range: expected an int in [0, {L.N_ACTIONS - 1}]")


def _card(cards, c: int) -> str:
    return f"{cards.name(c)} [{RESOURCES[cards.buildings[c, B_RES]]}] (card {c})"


def describe(action: int, game: Game | None = None) -> str:
    """Human-readable meaning of ``action``; with a game, slots are named by their building.

    >>> describe(L.A_PRODUCE)
    'produce at slot 0'
    """
    name, i = action_kind(int(action))
    cards = game.cards if game is not None else default_cards()

    def slot(s: int) -> str:
        if game is not None and game.current_player >= 0:
            blds = game.buildings(game.current_player)
            if s < len(blds):
                return f"{cards.name(blds[s])} (slot {s})"
        return f"slot {s}"

    if name == "move assistant":
        return f"move assistant from {slot(i // L.MAX_SLOTS)} to {slot(i % L.MAX_SLOTS)} for 2 coins"
    if name == "place worker":
        return f"worker to {slot(i // 2)}, {'sloppy' if i % 2 else 'efficient'}"
    if name in ("set aside", "spend hand card", "chain with hand card", "discard for new deck"):
        verb = {
            "set aside": "set aside to build",
            "spend hand card": "spend for a missing resource",
            "chain with hand card": "feed the chain with",
            "discard for new deck": "discard into the new deck",
        }[name]
        return f"{verb}: {_card(cards, i)}"
    if name == "produce":
        return f"produce at {slot(i)}"
    if name == "open chain":
        return f"open the chain of {slot(i)} (final round)"
    if name == "pay":
        return f"pay with a good from {slot(i)}"
    if name == "place assistant":
        return f"place the assistant on {slot(i)}"
    if name == "hire":
        if game is not None:
            s = game.state
            card, side = int(s[L.F_A_CARD + i]), int(s[L.F_A_SIDE + i])
            a = cards.assistants[card, side]
            return f"hire assistant {card + 1}{'AB'[side]} (position {i}): cost {a[A_COST]}, {a[A_VP]} VP"
        return f"hire the assistant at position {i}"
    if name == "wait":
        return "wait (nothing to decide)"
    if name == "discard hand, keep one":
        return f"discard the hand but keep {_card(cards, i)}"
    return name


def illegal_action_message(action: int, decision: int, player: int, legal: list[int], game: Game | None = None) -> str:
    """The one message for an action the mask forbids (:class:`Game` and ``BatchGames`` alike)."""
    more = "..." if len(legal) > 20 else ""
    return (
        f"action {action} ({describe(action, game)}) is illegal for player {player} "
        f"in decision '{L.DECISION_NAMES[decision]}'; legal actions: {legal[:20]}{more}"
    )


#: card set -> ``core.seat_tables`` of its buildings (derived once per card set; the tables are read-only)
_TABLES: weakref.WeakKeyDictionary[CardSet, tuple[np.ndarray, np.ndarray, np.ndarray]] = weakref.WeakKeyDictionary()


def observation_tables(cards: CardSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the observation kernels (``core.observe_seat``, ``core.observe_seats``) read per card of ``cards``:
    ``core.seat_tables(cards.buildings)``, derived on first use and kept while the card set lives."""
    tables = _TABLES.get(cards)
    if tables is None:
        tables = _TABLES[cards] = core.seat_tables(cards.buildings)
    return tables


@dataclass
class GameRecord:
    """Everything needed to replay a game exactly: rules, seed and the actions taken."""

    rules: RuleSet
    seed: int
    actions: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        r = self.rules
        return {
            "num_players": r.num_players,
            "rules": r.edition,
            "auto_forced": r.auto_forced,
            "max_rounds": r.max_rounds,
            "keep_one": r.keep_one,
            "two_for_one": r.two_for_one,
            "solo_rounds": r.solo_rounds,
            "seed": self.seed,
            "actions": list(self.actions),
        }

    @classmethod
    def from_dict(cls, d: dict) -> GameRecord:
        """The record of :meth:`to_dict` (records without the variant keys play without variants,
        without ``solo_rounds`` with the default)."""
        variants = {k: d.get(k, False) for k in ("keep_one", "two_for_one")}
        rules = RuleSet(
            d["num_players"],
            d["rules"],
            d["auto_forced"],
            d["max_rounds"],
            solo_rounds=d.get("solo_rounds", DEFAULT_SOLO_ROUNDS),
            **variants,
        )
        return cls(rules, int(d["seed"]), [int(a) for a in d["actions"]])


#: The kernels a first :class:`Game` runs (deal, mask, step, observation and its card tables): their cache
#: decides the compile notice.
ENTRY_KERNELS = (core.init_game, core.legal_mask, core.step_checked, core.observe_seat, core.seat_tables)


class Game(StateRowMixin):
    """One game of Oh my Goods!: the forward model used by envs, agents and tests.

    ``seed`` (an int in ``0 <= seed < 2**64``) fixes the deal; without one the game draws a
    fresh seed (so two unseeded games differ) and keeps it in :attr:`seed` and :meth:`record`.

    >>> g = Game(num_players=2, seed=7)
    >>> while not g.done:
    ...     g.step(int(np.flatnonzero(g.legal_mask())[0]))
    """

    def __init__(
        self,
        num_players: int = 2,
        rules: str | RuleSet = "omg2",
        seed: int | None = None,
        cards: CardSet | None = None,
        **rule_options,
    ) -> None:
        self.rules = make_rules(num_players, rules, **rule_options)
        self.cards = cards if cards is not None else default_cards()
        #: the seed of the deal: the one given, or one drawn from fresh entropy (``seed=None``)
        self.seed = seed_or_fresh(seed)
        word = seed_bits(self.seed)
        self.state = np.zeros(L.STATE_LEN, np.int32)
        self.actions: list[int] = []
        r = self.rules
        _jit.first_use("Oh my Goods!", "ohmygoods_env.engine.Game", ENTRY_KERNELS)
        core.init_game(
            self.state,
            self.cards.buildings,
            self.cards.assistants,
            word,
            r.num_players,
            r.edition_bits,
            int(r.auto_forced),
            r.round_limit,
        )
        self._mask = np.zeros(L.N_ACTIONS, np.int8)

    # ------------------------------------------------------------------ queries
    # current_player, decision, decision_name, done, round: read off the row (StateRowMixin)
    _layout = L

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def phase(self) -> int:
        return int(self.state[L.F_PH])

    def legal_mask(self) -> np.ndarray:
        """int8[N_ACTIONS]: 1 for each legal action of the current player (all 0 at the end)."""
        mask = np.zeros(L.N_ACTIONS, np.int8)
        core.legal_mask(self.state, self.cards.buildings, self.cards.assistants, mask)
        return mask

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_mask())]

    def observe(self, player: int) -> np.ndarray:
        """float32[OBS_DIM] observation from ``player``'s seat (no hidden information)."""
        p = self._check_player(player)
        out = np.empty(L.OBS_DIM, np.float32)
        C = self.cards
        core.observe_seat(self.state, C.buildings, C.assistants, observation_tables(C), p, out)
        return out

    def scores(self) -> list[tuple[int, int]]:
        """(score, leftover coins) per player by R8.3 (valid at any time, final at the end)."""
        return [
            tuple(int(x) for x in core.score_player(self.state, self.cards.buildings, self.cards.assistants, p))
            for p in range(self.num_players)
        ]

    def winners(self) -> list[int]:
        out = np.zeros(L.MAX_PLAYERS, np.int64)
        core.winners(self.state, self.cards.buildings, self.cards.assistants, out)
        return [p for p in range(self.num_players) if out[p]]

    def rewards(self, mode: str = "win") -> np.ndarray:
        """Final rewards per player (zeros while the game runs): ``win``, ``score`` or ``margin``.

        Solo (R10.3) is a score attack: every mode gives the score.
        """
        if mode not in REWARD_MODES:
            raise ValueError(f"reward mode must be one of {list(REWARD_MODES)}, got {mode!r}")
        out = np.zeros(L.MAX_PLAYERS, np.float64)
        if self.done:
            core.final_rewards(self.state, self.cards.buildings, self.cards.assistants, REWARD_MODES.index(mode), out)
        return out[: self.num_players].astype(np.float32)

    def hand(self, player: int) -> list[int]:
        """Card ids in ``player``'s hand (hidden information: for the owner, tests and debugging)."""
        p = self._check_player(player)
        return [int(c) for c in np.flatnonzero(self.state[L.F_LOC : L.F_LOC + L.N_CARDS] == L.L_HAND + p)]

    def buildings(self, player: int) -> list[int]:
        p = self._check_player(player)
        nb = int(self.state[L.F_NB + p])
        return [int(b) for b in self.state[L.F_BLD + p * L.MAX_SLOTS : L.F_BLD + p * L.MAX_SLOTS + nb]]

    def goods(self, player: int) -> list[int]:
        p = self._check_player(player)
        nb = int(self.state[L.F_NB + p])
        return [int(k) for k in self.state[L.F_GOODS + p * L.MAX_SLOTS : L.F_GOODS + p * L.MAX_SLOTS + nb]]

    def coins(self, player: int) -> int:
        return int(core.coins(self.state, self.cards.buildings, self._check_player(player)))

    def market(self) -> np.ndarray:
        """int[2, 5]: market cards per row and resource."""
        return self.state[L.F_MKT : L.F_MKT + 10].reshape(2, 5).copy()

    def check_invariants(self) -> int:
        return int(core.check_invariants(self.state, self.cards.buildings))

    # ------------------------------------------------------------------ acting
    def step(self, action: int) -> None:
        """Apply ``action`` for the current player.

        Raises :class:`TypeError` / :class:`ValueError` for a wrong type or out-of-range id,
        :class:`IllegalActionError` for an action the mask forbids and :class:`GameOverError`
        after the end; in each case the state is unchanged.
        """
        # a plain in-range int skips the type checks (the common case of a stepping loop)
        a = action if type(action) is int and 0 <= action < L.N_ACTIONS else check_action(action)
        state, cards = self.state, self.cards
        if state[L.F_DEC] == L.D_OVER:
            raise GameOverError(f"the game is over; no action (got {a}) can be applied")
        code = core.step_checked(state, cards.buildings, cards.assistants, a)
        if code != 0:
            raise IllegalActionError(
                illegal_action_message(a, self.decision, self.current_player, self.legal_actions(), self)
            )
        self.actions.append(a)

    # ------------------------------------------------------------------ forward model
    def clone(self) -> Game:
        """An independent copy (state and record); cheap: one array copy."""
        g = object.__new__(Game)
        g.rules, g.cards, g.seed = self.rules, self.cards, self.seed
        g.state = self.state.copy()
        g.actions = list(self.actions)
        g._mask = np.zeros(L.N_ACTIONS, np.int8)
        return g

    @classmethod
    def from_state(cls, state: np.ndarray, rules: RuleSet, cards: CardSet | None = None, seed: int = 0) -> Game:
        """A game that continues from a copy of ``state`` (a state row, e.g. ``BatchGames.state[i]``).

        ``rules`` must match the row (player count, edition, forced-move flag); the row must
        pass ``check_invariants``. The new game's action record starts empty, so
        :meth:`record` replays from the position, not from the deal.
        """
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        s = cls._state_row(state)
        facts = (int(s[L.F_NP]), bool(s[L.F_ROYAL]), bool(s[L.F_AUTO]), int(s[L.F_VARIANTS]))
        want = (rules.num_players, rules.royal, bool(rules.auto_forced), rules.edition_bits >> 1)
        if facts != want:
            raise ValueError(f"state (players, royal, auto_forced, variants) = {facts} does not match the rules {want}")
        g = object.__new__(cls)
        g.rules, g.cards, g.seed = rules, cards if cards is not None else default_cards(), check_seed(seed)
        g.state = s.astype(np.int32, copy=True)
        g.actions = []
        g._mask = np.zeros(L.N_ACTIONS, np.int8)
        g._check_consistent()
        return g

    def restore(self, other: Game) -> None:
        """Undo by copy: make this game equal to ``other`` (a clone taken earlier)."""
        self.state[:] = other.state
        self.actions = list(other.actions)

    def record(self) -> GameRecord:
        return GameRecord(self.rules, self.seed, list(self.actions))

    @classmethod
    def replay(cls, record: GameRecord, cards: CardSet | None = None) -> Game:
        """Rebuild a game from its record; raises if an action is illegal on the way."""
        g = cls(record.rules.num_players, record.rules, seed=record.seed, cards=cards)
        for a in record.actions:
            g.step(a)
        return g

    def full_state_view(self) -> dict:
        """Everything, hidden information included — for debugging, tests and oracle research."""
        s = self.state
        loc = s[L.F_LOC : L.F_LOC + L.N_CARDS]
        return {
            "phase": L.PHASE_NAMES[self.phase],
            "decision": self.decision_name,
            "current_player": self.current_player,
            "first_player": int(s[L.F_FIRST]),
            "round": self.round,
            "final_round": bool(s[L.F_FINAL]),
            "deck_order_top_last": [int(c) for c in s[L.F_DECK : L.F_DECK + s[L.F_DECK_N]]],
            "discard": [int(c) for c in np.flatnonzero(loc == L.L_DISCARD)],
            "market_rows": [
                [int(c) for c in np.flatnonzero(loc == L.L_ROW1)],
                [int(c) for c in np.flatnonzero(loc == L.L_ROW2)],
            ],
            "players": [
                {
                    "hand": self.hand(p),
                    "set_aside": int(s[L.F_ASIDE + p]),
                    "buildings": self.buildings(p),
                    "goods": self.goods(p),
                    "staff": [
                        int(x) for x in s[L.F_STAFF + p * L.MAX_SLOTS : L.F_STAFF + p * L.MAX_SLOTS + s[L.F_NB + p]]
                    ],
                    "coins": self.coins(p),
                    "score": self.scores()[p],
                }
                for p in range(self.num_players)
            ],
            "assistants": [
                {"card": int(s[L.F_A_CARD + k]), "side": "AB"[s[L.F_A_SIDE + k]], "owner": int(s[L.F_A_OWNER + k])}
                for k in range(L.N_ASSIST)
                if s[L.F_A_OWNER + k] != -2
            ],
        }

    # ------------------------------------------------------------------ helpers
    def _check_player(self, player: object) -> int:
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
            raise TypeError(f"player must be an int in [0, {self.num_players - 1}], got {player!r}")
        p = int(player)
        if not 0 <= p < self.num_players:
            raise ValueError(f"player {p} is out of range: expected 0..{self.num_players - 1}")
        return p
