"""Scripted *Artificium* positions for tests and examples: :class:`Scenario`.

A scenario names card *types* (ids of ``data/cards.csv``) for hands, market, played cards,
discard pile and the top of the deck, sets coins, resources, score-track positions, the
round and the first player, and builds a :class:`~ohmygoods_env.artificium.engine.Game`
at the start of the card market (``at="market"``) or of the card play (``at="play"``).
The remaining cards form the deck below the named top cards, shuffled by the seed. Every
bad value raises :class:`ScenarioError` naming it; tokens must fit the 100 of A1.6.

>>> from ohmygoods_env.artificium.scenario import Scenario
>>> g = Scenario(2).hand(0, [4, 6]).hand(1, [5]).build(at="play")
>>> g.pending_players()
(0, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from . import core
from . import layout as L
from .cards import N_CARDS, N_RES, N_TYPES, RESOURCES
from .engine import Game


class ScenarioError(ValueError):
    """A scenario value is out of range or the named cards do not exist."""


def _int(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ScenarioError(f"{what} must be an int in [{lo}, {hi}], got {value!r}")
    return int(value)


class Scenario:
    """Builder of a scripted position (chainable setters, then :meth:`build`)."""

    def __init__(self, num_players: int, seed: int = 0) -> None:
        self.np = _int(num_players, "num_players", L.MIN_PLAYERS, L.MAX_PLAYERS)
        self.seed = seed
        self._places: list[tuple[int, list[int]]] = []  # (place code, types)
        self._top: list[int] = []
        self._coins = [L.START_COINS] * self.np
        self._vp = [0] * self.np
        self._res = [[0] * N_RES for _ in range(self.np)]
        self._first = 0
        self._round = 1

    def _p(self, p: object) -> int:
        return _int(p, "player", 0, self.np - 1)

    def _types(self, types: Sequence[int], what: str) -> list[int]:
        return [_int(t, f"{what} card type", 0, N_TYPES - 1) for t in types]

    def hand(self, player: int, types: Sequence[int]) -> Scenario:
        self._places.append((L.L_HAND + self._p(player), self._types(types, "hand")))
        return self

    def played(self, player: int, types: Sequence[int]) -> Scenario:
        """Cards already applied this round, face up in front of the player (A4.7)."""
        self._places.append((L.L_PLAYED + self._p(player), self._types(types, "played")))
        return self

    def market(self, types: Sequence[int]) -> Scenario:
        if len(types) > L.MARKET_SIZE:
            raise ScenarioError(f"the market holds at most {L.MARKET_SIZE} cards, got {len(types)}")
        self._places.append((L.L_MARKET, self._types(types, "market")))
        return self

    def discard(self, types: Sequence[int]) -> Scenario:
        self._places.append((L.L_DISCARD, self._types(types, "discard")))
        return self

    def deck_top(self, types: Sequence[int]) -> Scenario:
        """The next cards drawn, in drawing order."""
        self._top = self._types(types, "deck")
        return self

    def coins(self, player: int, n: int) -> Scenario:
        self._coins[self._p(player)] = _int(n, "coins", 0, L.TOKENS)
        return self

    def vp(self, player: int, n: int) -> Scenario:
        self._vp[self._p(player)] = _int(n, "vp", 0, 500)
        return self

    def resources(self, player: int, counts: Mapping[str, int]) -> Scenario:
        p = self._p(player)
        for name, n in counts.items():
            if name not in RESOURCES:
                raise ScenarioError(f"resource must be one of {list(RESOURCES)}, got {name!r}")
            self._res[p][RESOURCES.index(name)] = _int(n, f"{name} count", 0, L.TOKENS)
        return self

    def first_player(self, p: int) -> Scenario:
        self._first = self._p(p)
        return self

    def round(self, n: int) -> Scenario:
        self._round = _int(n, "round", 1, L.ROUNDS)
        return self

    # ------------------------------------------------------------------ building
    def _claim(self, g: Game) -> tuple[dict[int, int], list[int]]:
        free = {t: [c for c in range(N_CARDS) if g.tables.card_type[c] == t] for t in range(N_TYPES)}

        def take(t: int, where: str) -> int:
            if not free[t]:
                raise ScenarioError(f"no {g.tables.type_name(t)} card left for {where}")
            return free[t].pop(0)

        placed = {take(t, f"place {loc}"): loc for loc, types in self._places for t in types}
        top = [take(t, "the deck top") for t in self._top]
        return placed, top

    def _tokens(self, s: np.ndarray) -> None:
        total = sum(self._coins) + sum(map(sum, self._res))
        if total > L.TOKENS:
            raise ScenarioError(f"coins and resources use {total} tokens, more than the {L.TOKENS} of A1.6")
        s[L.F_BANK] = L.TOKENS - total
        for p in range(self.np):
            s[L.F_COINS + p] = self._coins[p]
            s[L.F_VP + p] = self._vp[p]
            s[L.F_RES + p * N_RES : L.F_RES + (p + 1) * N_RES] = self._res[p]

    def _lay_cards(self, g: Game, placed: dict[int, int], top: list[int]) -> None:
        s = g.state
        rest = [c for c in range(N_CARDS) if c not in placed and c not in top]
        for c, loc in placed.items():
            s[L.F_LOC + c] = loc
            s[L.F_KNOW + c] = 1 << (loc - L.L_HAND) if L.L_HAND <= loc < L.L_CHOSEN else 0
        s[L.F_DECK_N] = len(rest)
        s[L.F_DECK : L.F_DECK + len(rest)] = rest
        for c in rest:
            s[L.F_LOC + c] = L.L_DECK
            s[L.F_KNOW + c] = 0
        core._shuffle_deck(s)
        for c in reversed(top):
            s[L.F_DECK + s[L.F_DECK_N]] = c
            s[L.F_DECK_N] += 1
            s[L.F_LOC + c] = L.L_DECK
            s[L.F_KNOW + c] = 0

    def build(self, at: str = "play") -> Game:
        """The game at the start of the card market (``"market"``) or of the card play (``"play"``)."""
        if at not in ("market", "play"):
            raise ScenarioError(f"at must be 'market' or 'play', got {at!r}")
        if at == "play" and any(loc == L.L_MARKET for loc, _ in self._places):
            raise ScenarioError("a market belongs to at='market': the card play starts after the market is discarded")
        g = Game(self.np, self.seed)
        s = g.state
        placed, top = self._claim(g)
        self._lay_cards(g, placed, top)
        self._tokens(s)
        s[L.F_ROUND], s[L.F_FIRST] = self._round, self._first
        s[L.F_TURN] = s[L.F_CUR] = self._first
        s[L.F_DEC] = L.D_MARKET
        if at == "play":
            core._start_play_step(s)
        code = g.check_invariants()
        if code != 0:
            raise ScenarioError(f"the scenario is not a consistent position (check_invariants code {code})")
        return g
