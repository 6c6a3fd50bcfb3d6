"""Scenario builder: set up an exact game state for tests, puzzles and analysis.

A :class:`Scenario` describes where the cards are — hands, buildings, goods, market rows,
set-aside cards, discard pile, the top of the deck — plus staff, assistants, first player,
round and end-game flags. :meth:`Scenario.build` turns it into a :class:`~ohmygoods_env.engine.Game`
positioned at a chosen point of the round, after checking that the description is
consistent. Every one of the 94 deck cards ends up in exactly one place: cards the scenario
does not name fill the goods (face down, identities irrelevant) and then the deck (or the
discard pile), in an order drawn from ``seed``.

>>> from ohmygoods_env.scenario import Scenario
>>> game = (
...     Scenario(num_players=2, auto_forced=False)
...     .buildings(0, [60], charburner=1)  # slot 0: Charburner 1, slot 1: Brick Manufacture
...     .goods(0, [2, 0])  # 2 coal on the Charburner
...     .hand(0, [61, 62, 63])  # three clay cards
...     .worker(0, 1, "efficient")  # Brick Manufacture needs stone:3 clay:1
...     .market(row1=[78, 80, 81], row2=[64])  # 3 stone, then 1 clay
...     .build(at="phase4", player=0)
... )
>>> game.decision_name, game.legal_actions()  # covered by the market alone: must produce (R7.6)
('produce', [198])
>>> game.step(198)
>>> game.goods(0), game.decision_name  # 2 bricks; the chain (clay from hand + coal) may run
([2, 2], 'run chain')

Start points (``at``):

=============  ============================================================================
``phase1``     start of a round (R3): phase I decisions (R4.1) follow. The market is empty.
``sunrise``    start of phase II: the engine reveals market row 1 from the deck (R5.1).
``phase2``     phase II decisions (R5.2) with market row 1 exactly as given.
``sunset``     phase III: row 1 as given, the engine reveals row 2 from the deck (R6.1).
``phase4``     phase IV (R7) at ``player``'s turn (default: the first player), both market
               rows exactly as given; players before ``player`` in turn order are done.
``build``      phase IV of ``player`` after production: the build / hire step (R7.10-R7.12).
=============  ============================================================================

A market row given with fewer than 2 half-suns counts as cut short (as after an empty-deck
refill, R3.1): the engine reveals nothing more into it. Use :meth:`Scenario.deck_top` to fix
the cards the engine draws next (reveals, phase I draws, goods).

With ``auto_forced=True`` (the default, as for :class:`Game`) decisions with a single legal
action are applied after reaching the start point, exactly as in normal play; pass
``auto_forced=False`` to stop at every decision.

A built game starts from the scenario, not from a seed: its :meth:`Game.record` does not
replay it. Use :meth:`Game.clone` to branch from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from . import core
from . import layout as L
from .cards import B_GOOD, B_KIND, B_RES, B_SUN, KIND_PRODUCTION, N_CHARBURNERS, N_DECK, N_RES, CardSet, default_cards
from .engine import Game, seed_bits
from .rules import make_rules

__all__ = ["START_POINTS", "Scenario", "ScenarioError"]

START_POINTS: tuple[str, ...] = ("phase1", "sunrise", "phase2", "sunset", "phase4", "build")
_MODES = {"efficient": L.STAFF_EFFICIENT, "sloppy": L.STAFF_SLOPPY}


class ScenarioError(ValueError):
    """The scenario is inconsistent (a card used twice, a slot that does not exist, ...)."""


def _as_card(value: object, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ScenarioError(f"{what}: card ids must be ints in 0..{N_DECK - 1}, got {value!r}")
    c = int(value)
    if not 0 <= c < N_DECK:
        raise ScenarioError(f"{what}: card id {c} is out of range; expected 0..{N_DECK - 1}")
    return c


def _as_int(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ScenarioError(f"{what} must be an int in {lo}..{hi}, got {value!r}")
    v = int(value)
    if not lo <= v <= hi:
        raise ScenarioError(f"{what} must be in {lo}..{hi}, got {v}")
    return v


def _cards(values: Iterable[object], what: str) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ScenarioError(f"{what}: expected a list of card ids, got {values!r}")
    return [_as_card(v, what) for v in values]


class Scenario:
    """A chainable description of an exact game state; :meth:`build` makes the game.

    Defaults: each player owns a Charburner (players without an explicit one get the lowest
    unused indices, so player ``p`` gets Charburner ``p`` unless told otherwise) and nothing else,
    no goods, an empty hand, no staff; assistant cards ``0 .. 2n-1`` are on display with
    side A up (R2.2 count); player 0 is the first player; round 0; no end trigger. Every
    setter returns the scenario, so calls chain.

    Card ids are deck card ids ``0..93`` (rows of ``deck.csv``); Charburners are chosen by
    index ``0..3`` and appear as building ids ``94..97`` in slot 0 (R2.1).
    """

    def __init__(
        self,
        num_players: int = 2,
        rules: str = "omg2",
        seed: int = 0,
        auto_forced: bool = True,
        max_rounds: int = 60,
        cards: CardSet | None = None,
        **variants: bool,
    ) -> None:
        self.rules = make_rules(num_players, rules, auto_forced=auto_forced, max_rounds=max_rounds, **variants)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ScenarioError(f"seed must be an int, got {seed!r}")
        self.seed = int(seed)
        self.cards = cards if cards is not None else default_cards()
        n = self.rules.num_players
        self._charburner: list[int | None] = [None] * n
        self._buildings: list[list[int]] = [[] for _ in range(n)]
        self._goods: list[dict[int, int]] = [{} for _ in range(n)]
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._aside: list[int | None] = [None] * n
        self._workers: list[tuple[int, int] | None] = [None] * n
        self._assistants: list[dict[int, int]] = [{} for _ in range(n)]  # slot -> display index
        self._display: list[tuple[int, int]] = [(k, 0) for k in range(2 * n)]
        self._rows: list[list[int]] = [[], []]
        self._discard: list[int] = []
        self._deck_top: list[int] = []
        self._rest_to = "deck"
        self._first = 0
        self._round = 0
        self._triggered = False
        self._final = False

    # ------------------------------------------------------------------ setters
    @property
    def num_players(self) -> int:
        return self.rules.num_players

    def _player(self, p: object) -> int:
        return _as_int(p, "player", 0, self.num_players - 1)

    def charburner(self, player: int, index: int) -> Scenario:
        """Give ``player`` Charburner ``index`` (0..3; building id ``94 + index``) in slot 0."""
        p = self._player(player)
        self._charburner[p] = _as_int(index, "charburner index", 0, N_CHARBURNERS - 1)
        return self

    def buildings(self, player: int, cards: Sequence[int], charburner: int | None = None) -> Scenario:
        """Set ``player``'s buildings after the Charburner: slot 1, 2, ... in this order."""
        p = self._player(player)
        self._buildings[p] = _cards(cards, f"buildings of player {p}")
        if len(self._buildings[p]) + 1 > L.MAX_SLOTS:
            raise ScenarioError(
                f"player {p} would own {len(self._buildings[p]) + 1} buildings; at most {L.MAX_SLOTS} fit (R8.1)"
            )
        if charburner is not None:
            self.charburner(p, charburner)
        return self

    def goods(self, player: int, counts: Sequence[int] | Mapping[int, int]) -> Scenario:
        """Goods per slot: a list (slot 0 first) or ``{slot: count}``; cards come from the pool."""
        p = self._player(player)
        items = counts.items() if isinstance(counts, Mapping) else enumerate(counts)
        out: dict[int, int] = {}
        for slot, k in items:
            s = _as_int(slot, f"goods of player {p}: slot", 0, L.MAX_SLOTS - 1)
            out[s] = _as_int(k, f"goods of player {p}, slot {s}: count", 0, N_DECK)
        self._goods[p] = out
        return self

    def hand(self, player: int, cards: Sequence[int]) -> Scenario:
        """Set ``player``'s hand (card ids)."""
        p = self._player(player)
        self._hands[p] = _cards(cards, f"hand of player {p}")
        return self

    def set_aside(self, player: int, card: int | None) -> Scenario:
        """The card ``player`` set aside in phase II to build (R5.5); ``None`` for none."""
        p = self._player(player)
        self._aside[p] = None if card is None else _as_card(card, f"set-aside card of player {p}")
        return self

    def worker(self, player: int, slot: int | None, mode: str = "efficient") -> Scenario:
        """Place ``player``'s worker on ``slot`` in ``mode`` ``efficient`` or ``sloppy`` (R5.4)."""
        p = self._player(player)
        if slot is None:
            self._workers[p] = None
            return self
        if mode not in _MODES:
            raise ScenarioError(f"worker mode must be one of {list(_MODES)}, got {mode!r}")
        self._workers[p] = (_as_int(slot, f"worker slot of player {p}", 0, L.MAX_SLOTS - 1), _MODES[mode])
        return self

    def assistant(self, player: int, slot: int, display: int) -> Scenario:
        """``player`` owns the assistant at display position ``display``, standing on ``slot``."""
        p = self._player(player)
        s = _as_int(slot, f"assistant slot of player {p}", 0, L.MAX_SLOTS - 1)
        k = _as_int(display, "assistant display position", 0, L.N_ASSIST - 1)
        self._assistants[p][s] = k
        return self

    def display(self, assistants: Sequence[tuple[int, int | str]]) -> Scenario:
        """The assistant cards in play, by display position: ``[(card 0..7, side 'A'|'B'), ...]``.

        The rules show 4/6/8 of them for 2/3/4 players (R2.2); any number 0..8 is accepted.
        """
        out = []
        for item in assistants:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise ScenarioError(f"display entries must be (card, side) pairs, got {item!r}")
            card = _as_int(item[0], "assistant card", 0, L.N_ASSIST - 1)
            side = item[1]
            if side in ("A", "B"):
                side = "AB".index(side)
            side = _as_int(side, "assistant side ('A'/'B' or 0/1)", 0, 1)
            out.append((card, side))
        if len(out) > L.N_ASSIST:
            raise ScenarioError(f"at most {L.N_ASSIST} assistant cards exist, got {len(out)}")
        cards = [c for c, _ in out]
        if len(set(cards)) != len(cards):
            raise ScenarioError(f"assistant card used twice on display: {cards}")
        self._display = out
        return self

    def market(self, row1: Sequence[int] = (), row2: Sequence[int] = ()) -> Scenario:
        """The market rows' cards (R5.1, R6.1); only their resources and half-suns matter."""
        self._rows = [_cards(row1, "market row 1"), _cards(row2, "market row 2")]
        return self

    def discard(self, cards: Sequence[int]) -> Scenario:
        """Cards on the (public) discard pile (R3.2)."""
        self._discard = _cards(cards, "discard pile")
        return self

    def deck_top(self, cards: Sequence[int]) -> Scenario:
        """Cards the engine draws next, first drawn first; the rest of the deck lies below."""
        self._deck_top = _cards(cards, "deck top")
        return self

    def rest_to(self, where: str) -> Scenario:
        """Where unnamed cards go after the goods: ``"deck"`` (default) or ``"discard"``.

        With ``"discard"`` the deck holds exactly the :meth:`deck_top` cards, which is how
        an empty deck (R3.1 reshuffle) is set up.
        """
        if where not in ("deck", "discard"):
            raise ScenarioError(f"rest_to must be 'deck' or 'discard', got {where!r}")
        self._rest_to = where
        return self

    def first_player(self, player: int) -> Scenario:
        """The active (first) player of the round (R2.4, R3)."""
        self._first = self._player(player)
        return self

    def round(self, number: int, final: bool = False, triggered: bool | None = None) -> Scenario:
        """Round counter (0-based) and end-game flags: ``final`` is the extra round of R8.1.

        ``triggered`` defaults to ``final``; it is also set automatically when a player owns
        8 or more buildings (R8.1).
        """
        self._round = _as_int(number, "round", 0, 10_000)
        self._final = bool(final)
        self._triggered = bool(final) if triggered is None else bool(triggered)
        if self._final and not self._triggered:
            raise ScenarioError("a final round (R8.1) requires the end to be triggered")
        return self

    # ------------------------------------------------------------------ building
    def _check_phase(self, at: str, player: int) -> None:
        n = self.num_players
        rows_given = [bool(r) for r in self._rows]
        if at in ("phase1", "sunrise"):
            if any(rows_given):
                raise ScenarioError(f"at {at!r} the market is empty (it is discarded after phase IV, R3)")
        elif at in ("phase2", "sunset") and rows_given[1]:
            raise ScenarioError(f"at {at!r} market row 2 is not revealed yet (R6.1)")
        if at in ("phase1", "sunrise", "phase2"):
            for p in range(n):
                if self._workers[p] is not None:
                    raise ScenarioError(f"at {at!r} player {p}'s worker is not placed yet (placed in phase II, R5.4)")
                if self._aside[p] is not None:
                    raise ScenarioError(f"at {at!r} player {p} has no set-aside card yet (set aside in phase II, R5.5)")
        if at in ("phase4", "build"):
            for t in range((player - self._first) % n):
                q = (self._first + t) % n
                if self._workers[q] is not None:
                    raise ScenarioError(f"player {q} already had their phase-IV turn; their worker has left (R7.9)")
                if self._aside[q] is not None:
                    raise ScenarioError(f"player {q} already had their phase-IV turn; no set-aside card remains")
            if at == "build" and self._workers[player] is not None:
                raise ScenarioError(f"at 'build' player {player}'s worker has left after production (R7.9)")

    def _check_staff(self, p: int, blds: list[int]) -> None:
        C = self.cards.buildings
        used: dict[int, str] = {}
        places = []
        if self._workers[p] is not None:
            places.append((self._workers[p][0], "the worker"))
        places += [(s, f"assistant {k}") for s, k in self._assistants[p].items()]
        for s, who in places:
            if s >= len(blds):
                raise ScenarioError(f"player {p}: {who} on slot {s}, but the player has {len(blds)} buildings")
            if C[blds[s], B_KIND] != KIND_PRODUCTION:
                raise ScenarioError(
                    f"player {p}: {who} on slot {s} ({self.cards.name(blds[s])}), not a production building (R5.4)"
                )
            if s in used:
                raise ScenarioError(f"player {p}: slot {s} has {used[s]} and {who}; one person per building (R7.14)")
            used[s] = who

    def _claim_cards(self) -> set[int]:
        """Check that no card is named twice (hands, set-aside cards, buildings, market, piles).

        Returns the cards the scenario names.
        """
        owner: dict[int, str] = {}

        def claim(card: int, where: str) -> None:
            if card in owner:
                raise ScenarioError(f"card {card} ({self.cards.name(card)}) is used twice: {owner[card]} and {where}")
            owner[card] = where

        for p in range(self.num_players):
            for c in self._hands[p]:
                claim(c, f"hand of player {p}")
            if self._aside[p] is not None:
                claim(self._aside[p], f"set-aside card of player {p}")
            for s, c in enumerate(self._buildings[p]):
                claim(c, f"building of player {p} (slot {s + 1})")
        for r, row in enumerate(self._rows):
            for c in row:
                claim(c, f"market row {r + 1}")
        for c in self._discard:
            claim(c, "discard pile")
        for c in self._deck_top:
            claim(c, "deck top")
        return set(owner)

    def _charburners(self) -> list[int]:
        """Each player's Charburner index (R2.1): the chosen ones, the others in order of the free ones."""
        chosen = [c for c in self._charburner if c is not None]
        if len(set(chosen)) != len(chosen):
            raise ScenarioError(f"Charburners must differ between players (R2.1), got indices {self._charburner}")
        free = iter(i for i in range(N_CHARBURNERS) if i not in chosen)
        return [c if c is not None else next(free) for c in self._charburner]

    def _assistant_owners(self) -> list[int]:
        """The owner of each display position (-1: in the display); each assistant owned at most once."""
        display = self._display
        owners = [-1] * len(display)
        for p in range(self.num_players):
            for k in self._assistants[p].values():
                if k >= len(display):
                    raise ScenarioError(
                        f"player {p}: assistant at display position {k}, but only {len(display)} are in play"
                    )
                if owners[k] != -1:
                    raise ScenarioError(f"assistant at display position {k} is owned twice")
                owners[k] = p
        return owners

    def _check_buildings(self, blds: list[list[int]]) -> int:
        """Check staff and goods against each player's buildings ``blds``; returns the goods in play."""
        C = self.cards.buildings
        goods_total = 0
        for p in range(self.num_players):
            self._check_staff(p, blds[p])
            for s, k in self._goods[p].items():
                if s >= len(blds[p]):
                    raise ScenarioError(f"player {p}: goods on slot {s}, but the player has {len(blds[p])} buildings")
                if k > 0 and C[blds[p][s], B_GOOD] < 0:
                    raise ScenarioError(
                        f"player {p}: goods on slot {s} ({self.cards.name(blds[p][s])}), which produces none (R1.4)"
                    )
                goods_total += k
        return goods_total

    def _split_pool(self, named: set[int], goods_total: int) -> tuple[list[int], list[int]]:
        """The cards the scenario does not name, in an order drawn from ``seed``: (goods cards, the rest)."""
        rng = np.random.default_rng(self.seed)
        pool = [c for c in rng.permutation(N_DECK).tolist() if c not in named]
        if goods_total > len(pool):
            raise ScenarioError(
                f"the scenario needs {goods_total} goods cards but only {len(pool)} cards are not placed otherwise"
            )
        return pool[:goods_total], pool[goods_total:]

    def _new_row(self) -> np.ndarray:
        """An empty state row with the rules, the seed and no card placed yet."""
        g = np.zeros(L.STATE_LEN, np.int32)
        r = self.rules
        g[L.F_NP] = self.num_players
        g[L.F_ROYAL] = int(r.royal)
        g[L.F_VARIANTS] = r.edition_bits >> 1
        g[L.F_AUTO] = int(r.auto_forced)
        g[L.F_MAXR] = r.round_limit
        core.seed_rng(g, seed_bits(self.seed))
        g[L.F_BLD : L.F_BLD + L.MAX_PLAYERS * L.MAX_SLOTS] = -1
        g[L.F_ASLOT : L.F_ASLOT + L.MAX_PLAYERS * L.MAX_SLOTS] = -1
        g[L.F_ASIDE : L.F_ASIDE + L.MAX_PLAYERS] = -1
        g[L.F_LOC : L.F_LOC + L.N_CARDS] = -1
        return g

    def _lay_players(self, g: np.ndarray, loc: np.ndarray, blds: list[list[int]], goods_cards: list[int]) -> None:
        """Buildings, hands, set-aside cards, staff and goods of every player."""
        for p in range(self.num_players):
            base = p * L.MAX_SLOTS
            g[L.F_NB + p] = len(blds[p])
            for s, b in enumerate(blds[p]):
                g[L.F_BLD + base + s] = b
                if b < N_DECK:
                    loc[b] = L.L_BUILT + p
            for c in self._hands[p]:
                loc[c] = L.L_HAND + p
            if self._aside[p] is not None:
                loc[self._aside[p]] = L.L_ASIDE + p
                g[L.F_ASIDE + p] = self._aside[p]
            if self._workers[p] is not None:
                s, mode = self._workers[p]
                g[L.F_STAFF + base + s] = mode
            for s, k in self._assistants[p].items():
                g[L.F_STAFF + base + s] = L.STAFF_ASSISTANT
                g[L.F_ASLOT + base + s] = k
        it = iter(goods_cards)
        for p in range(self.num_players):
            base = p * L.MAX_SLOTS
            for s, k in sorted(self._goods[p].items()):
                for _ in range(k):
                    loc[next(it)] = L.L_GOODS + base + s
                g[L.F_GOODS + base + s] = k

    def _lay_cards(self, g: np.ndarray, loc: np.ndarray, rest: list[int]) -> None:
        """The market rows (at most 2 half-suns each, R5.1), the discard pile and the deck."""
        C = self.cards.buildings
        for row, cards in enumerate(self._rows):
            for c in cards:
                loc[c] = L.L_ROW1 + row
                g[L.F_MKT + row * N_RES + C[c, B_RES]] += 1
                g[L.F_SUNS + row] += int(C[c, B_SUN])
            if g[L.F_SUNS + row] > 2:
                raise ScenarioError(
                    f"market row {row + 1} shows {g[L.F_SUNS + row]} half-suns; reveals stop at the second (R5.1)"
                )
        for c in self._discard:
            loc[c] = L.L_DISCARD
        deck = list(rest) if self._rest_to == "deck" else []
        if self._rest_to == "discard":
            for c in rest:
                loc[c] = L.L_DISCARD
        deck += self._deck_top[::-1]  # top card last
        for i, c in enumerate(deck):
            g[L.F_DECK + i] = c
            loc[c] = L.L_DECK
        g[L.F_DECK_N] = len(deck)

    def _lay_table(self, g: np.ndarray, owners: list[int], blds: list[list[int]]) -> None:
        """The assistants' display, first player, round, end-game flags and starting hand sizes."""
        display = self._display
        for k in range(L.N_ASSIST):
            if k < len(display):
                g[L.F_A_CARD + k], g[L.F_A_SIDE + k] = display[k]
                g[L.F_A_OWNER + k] = owners[k]
            else:
                g[L.F_A_OWNER + k] = -2
        g[L.F_FIRST] = self._first
        g[L.F_ROUND] = self._round
        triggered = self._triggered or any(len(b) >= 8 for b in blds)
        g[L.F_TRIGGER] = int(triggered)
        g[L.F_FINAL] = int(self._final)
        for p in range(self.num_players):
            g[L.F_HAND0 + p] = len(self._hands[p])
        g[L.F_CUR] = -1

    def _set_start(self, g: np.ndarray, at: str, player: int) -> None:
        """Position the row at start point ``at``; a row short of 2 half-suns counts as cut (R3.1)."""
        if at == "phase1":
            g[L.F_PH] = L.PH_ROUND_START
        elif at in ("sunrise", "phase2"):
            if at == "phase2" and g[L.F_SUNS] < 2:
                g[L.F_ROW_CUT] = 1
            g[L.F_PH] = L.PH_SUNRISE
        elif at == "sunset":
            if g[L.F_SUNS] < 2:
                g[L.F_ROW_CUT] = 1
            g[L.F_PH] = L.PH_SUNSET
        else:
            for row in range(2):
                if g[L.F_SUNS + row] < 2:
                    g[L.F_ROW_CUT + row] = 1
            g[L.F_PH] = L.PH_P4
            g[L.F_TURN] = (player - self._first) % self.num_players
            g[L.F_SUB] = L.SUB_BUILD if at == "build" else L.SUB_PROD

    def build(self, at: str = "phase4", player: int | None = None) -> Game:
        """Check the scenario, lay out the state and return a :class:`Game` at ``at``.

        Raises :class:`ScenarioError` naming the first inconsistency found.
        """
        if at not in START_POINTS:
            raise ScenarioError(f"unknown start point {at!r}; expected one of {list(START_POINTS)}")
        n = self.num_players
        if player is None:
            player = self._first
        player = self._player(player)
        if at not in ("phase4", "build") and player != self._first:
            raise ScenarioError(f"at {at!r} the first player acts first; use first_player({player}) instead")
        self._check_phase(at, player)
        named = self._claim_cards()
        cbs = self._charburners()
        owners = self._assistant_owners()
        blds = [[core.CHARBURNER_BASE + cbs[p]] + self._buildings[p] for p in range(n)]
        goods_cards, rest = self._split_pool(named, self._check_buildings(blds))

        g = self._new_row()
        loc = g[L.F_LOC : L.F_LOC + L.N_CARDS]
        self._lay_players(g, loc, blds, goods_cards)
        self._lay_cards(g, loc, rest)
        assert (loc >= 0).all()
        self._lay_table(g, owners, blds)
        self._set_start(g, at, player)

        C = self.cards.buildings
        code = core.check_invariants(g, C)
        if code != 0:  # pragma: no cover - the checks above should make this impossible
            raise ScenarioError(f"internal error: the laid-out state fails check_invariants with code {code}")
        game = Game(n, self.rules, seed=self.seed, cards=self.cards)
        game.state[:] = g
        core.advance(game.state, C, self.cards.assistants)
        if self.rules.auto_forced:
            core.apply_forced(game.state, C, self.cards.assistants)
        return game
