"""Shared helpers of the Artificium tests: names of card types, resources and actions read from the tables."""

from __future__ import annotations

import numpy as np

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import B_BUY, B_SELL, B_TIER, RESOURCES, T_VP, default_tables
from ohmygoods_env.artificium.engine import Game

TABLES = default_tables()
TYPE = {name: t for t, name in enumerate(TABLES.names)}
RES = {name: r for r, name in enumerate(RESOURCES)}


def vp_of(name: str) -> int:
    return int(TABLES.types[TYPE[name], T_VP])


def buy(res: str) -> int:
    return int(TABLES.board[RES[res], B_BUY])


def sell(res: str) -> int:
    return int(TABLES.board[RES[res], B_SELL])


def tier(res: str) -> int:
    return int(TABLES.board[RES[res], B_TIER])


def play(name: str) -> int:
    return L.A_PLAY + TYPE[name]


def swap(give: str, take: str) -> int:
    return L.A_SWAP + TYPE[give] * 16 + TYPE[take]


def choose(g: Game, picks: dict[int, str]) -> None:
    """Every pending seat lays the named card face down (A4.1)."""
    g.step_joint({p: play(name) for p, name in picks.items()})


def types_at(g: Game, loc: int) -> list[str]:
    return sorted(TABLES.card_name(c) for c in g.cards_at(loc))


def hand_names(g: Game, p: int) -> list[str]:
    return types_at(g, L.L_HAND + p)


def state_copy(g: Game) -> np.ndarray:
    return g.state.copy()
