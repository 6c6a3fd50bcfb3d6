"""Shared helpers for the rule tests: card lookup by resource/half-sun and small drivers."""

from __future__ import annotations

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.cards import B_RES, B_SUN, RESOURCES, default_cards
from ohmygoods_env.engine import Game

CARDS = default_cards()
C = CARDS.buildings
RES = {name: i for i, name in enumerate(RESOURCES)}

# building ids used throughout the tests (rows of deck.csv)
SAWMILL = 0  # wool:3 clay:1 -> lumber (2), chain hand:wood
IRON_SMELTER = 5  # stone:1 clay:3 -> iron (3), chain hand:stone + good:coal
COOPERAGE = 11  # stone:2 clay:3 -> barrels (5), chain good:lumber
TOOL_MAKER = 15  # grain:3 clay:3 -> tools (6), chain good:coal + good:iron
GLASSMAKER_12 = 19  # any:12 -> glass (4)
GLASSMAKER_11 = 21  # any:11 -> glass (4)
MILL = 26  # grain:3 wool:1 -> flour (2), chain hand:grain
BAKERY = 33  # stone:2 clay:3 -> bread (4), chain good:flour + good:coal
SHOEMAKER = 37  # grain:2 wool:4 -> shoes (8), chain good:leather
WEAVING_MILL = 44  # wool:3 clay:1 -> cloth (3), chain hand:wool
TAILOR_7 = 52  # cost 7, stone:2 wool:3 -> shirts
BRICK = 60  # stone:3 clay:1 -> brick (2), chain hand:clay + good:coal
CATTLE_RANCH = 69  # wool:2 clay:2 -> cattle (3), chain hand:grain
TANNERY = 74  # grain:3 wool:2 -> leather (6), chain good:cattle
OFFICE_WOOD = 77
OFFICE_WOOL = 79
OFFICE_STONE = 82
OFFICE_CLAY = 85
OFFICE_GRAIN = 88
OFFICE_GRAIN_2 = 89
EXTRA_CARD = 91
EXTRA_CARD_2 = 92
# Charburner indices (building id 94 + index): 0 stone:2, 1 grain:2, 2 clay:2, 3 wool:2 (+ wood:1 each)
CB_STONE, CB_GRAIN, CB_CLAY, CB_WOOL = 0, 1, 2, 3
#: buildings named above (and their next copies): the Picker never hands them out
NAMED = {
    SAWMILL,
    SAWMILL + 1,
    IRON_SMELTER,
    COOPERAGE,
    TOOL_MAKER,
    GLASSMAKER_12,
    GLASSMAKER_11,
    MILL,
    MILL + 1,
    BAKERY,
    SHOEMAKER,
    WEAVING_MILL,
    TAILOR_7,
    BRICK,
    CATTLE_RANCH,
    TANNERY,
    OFFICE_WOOD,
    OFFICE_WOOL,
    OFFICE_STONE,
    OFFICE_CLAY,
    OFFICE_GRAIN,
    OFFICE_GRAIN_2,
    EXTRA_CARD,
    EXTRA_CARD_2,
}


class Picker:
    """Hands out deck cards by resource and half-sun, never the same card twice."""

    def __init__(self, *reserved: int) -> None:
        self.used: set[int] = set(reserved) | NAMED

    def reserve(self, *cards: int) -> None:
        self.used.update(cards)

    def take(self, res: str, n: int = 1, sun: bool | None = None) -> list[int]:
        out: list[int] = []
        if n == 0:
            return out
        for c in range(94):
            if c in self.used or C[c, B_RES] != RES[res]:
                continue
            if sun is not None and bool(C[c, B_SUN]) != sun:
                continue
            out.append(c)
            self.used.add(c)
            if len(out) == n:
                return out
        raise AssertionError(f"not enough {res} cards (sun={sun})")

    def one(self, res: str, sun: bool | None = None) -> int:
        return self.take(res, 1, sun)[0]

    def row(self, suns: int = 0, **counts: int) -> list[int]:
        """A market row with the given resource counts; the first ``suns`` cards show a half-sun."""
        out = []
        for res, n in counts.items():
            for _ in range(n):
                want_sun = len(out) < suns
                out.append(self.one(res, sun=want_sun))
        return out


def loc(g: Game, card: int) -> int:
    return int(g.state[L.F_LOC + card])


def where(g: Game, cards) -> list[int]:
    return [loc(g, c) for c in cards]


def goods_on(g: Game, p: int, slot: int) -> int:
    return int(g.state[L.F_GOODS + p * L.MAX_SLOTS + slot])


def staff(g: Game, p: int, slot: int) -> int:
    return int(g.state[L.F_STAFF + p * L.MAX_SLOTS + slot])


def discard_pile(g: Game) -> set[int]:
    return set(np.flatnonzero(g.state[L.F_LOC : L.F_LOC + L.N_CARDS] == L.L_DISCARD).tolist())


def deck_order(g: Game) -> list[int]:
    """Deck cards, the next card drawn first."""
    n = int(g.state[L.F_DECK_N])
    return [int(c) for c in g.state[L.F_DECK : L.F_DECK + n][::-1]]


def legal(g: Game) -> set[int]:
    return set(g.legal_actions())


def step_all(g: Game, *actions: int) -> None:
    for a in actions:
        g.step(a)
        assert g.check_invariants() == 0


PASSIVE_ORDER = (
    L.A_KEEP,
    L.A_MOVES_DONE,
    L.A_ASIDE_NONE,
    L.A_PRODUCTION_DONE,
    L.A_CHAIN_STOP,
    L.A_NO_BUILD,
    L.A_NO_HIRE,
)


def passive_action(g: Game) -> int:
    """A do-nothing choice where one exists, else the lowest legal action."""
    acts = legal(g)
    for a in PASSIVE_ORDER:
        if a in acts:
            return a
    return min(acts)


def play_passively(g: Game, until=None, max_steps: int = 100_000) -> None:
    """Play do-nothing moves until ``until(g)`` holds or the game ends."""
    for _ in range(max_steps):
        if g.done or (until is not None and until(g)):
            return
        g.step(passive_action(g))
        assert g.check_invariants() == 0
    raise AssertionError("game did not reach the target")
