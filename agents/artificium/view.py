"""What an *Artificium* seat sees, decoded from its observation, and the card economics the agents share.

:class:`SeatView` reads only the seat's observation vector (``layout.md``: values are
``value / scale``, decoded back to counts): the pending decision, round, the seat's own hand,
face-down card and the market, and every seat's public board (score, coins, resources, hand
size, revealed and played cards). The observation holds no other seat's hand or face-down
card and no deck order (A9.2), so an agent built on it cannot read hidden information.

:class:`Economy` holds the card and board tables (A1.3, A1.5, A7.2) and values applying a
building in coins, with 4 coins to a victory point (the final sale, A8.2): its victory points,
plus the sell value of its output, minus what its inputs cost (the sell value of an input the
seat owns, the buy price of one it must buy, A4.6) and its coin cost (A7.3, A7.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import (
    B_BUY,
    B_SELL,
    B_TIER,
    EF_FAIR,
    EF_KNIGHT,
    EF_MAGE,
    EF_PRODUCE,
    EF_RECONSTRUCTION,
    EF_SCOUTING,
    EF_THEFT,
    KIND_BUILDING,
    N_RES,
    N_TYPES,
    T_COIN,
    T_COUNT,
    T_EFFECT,
    T_IN0,
    T_IN1,
    T_KIND,
    T_OUT,
    T_OUT_N,
    T_VP,
    ArtTables,
    default_tables,
)

__all__ = ["VP_COINS", "Economy", "SeatView"]

#: coins per victory point in the final scoring (A8.2)
VP_COINS = L.VP_PER_COINS


def _count(x: np.ndarray, scale: float) -> np.ndarray:
    return np.rint(np.asarray(x, np.float64) * scale).astype(np.int64)


@dataclass(frozen=True)
class SeatView:
    """One seat's observation, decoded; seat arrays are relative (index 0 is me, then clockwise)."""

    decision: int
    num_players: int
    round: int
    hand: np.ndarray  # int64[N_TYPES], my hand per type
    chosen: int  # type of my face-down card, -1 none
    market: np.ndarray  # int64[N_TYPES]
    resolving: int  # relative seat whose card resolves, -1 none
    mage_left: int
    vp: np.ndarray  # int64[P], score-track position per relative seat
    coins: np.ndarray  # int64[P]
    res: np.ndarray  # int64[P, N_RES]
    hand_size: np.ndarray  # int64[P]
    swaps: np.ndarray  # int64[P], market swaps this round
    out: np.ndarray  # bool[P], out of the card play
    revealed: np.ndarray  # int64[P], revealed card type, -1 none
    played: np.ndarray  # int64[P, N_TYPES], applied this round

    @classmethod
    def read(cls, observation: np.ndarray) -> SeatView:
        """Decode ``observation`` (``float32[OBS_DIM]``, :mod:`ohmygoods_env.artificium.layout`)."""
        o = np.asarray(observation)
        if o.shape != (L.OBS_DIM,):
            raise ValueError(f"an Artificium observation has shape ({L.OBS_DIM},), got {o.shape}")
        n = int(np.argmax(o[L.O_NP : L.O_NP + L.MAX_PLAYERS - 1])) + 2
        seats = o[L.O_PLAYERS : L.O_PLAYERS + n * L.PLAYER_FEATURES].reshape(n, L.PLAYER_FEATURES)
        rev = seats[:, L.PF_REVEALED : L.PF_REVEALED + N_TYPES]
        chosen = o[L.O_CHOSEN : L.O_CHOSEN + N_TYPES]
        resolving = o[L.O_RESOLVING : L.O_RESOLVING + L.MAX_PLAYERS]
        return cls(
            decision=int(np.argmax(o[L.O_DEC : L.O_DEC + L.N_DECISIONS])),
            num_players=n,
            round=int(_count(o[L.O_ROUND], L.ROUNDS)),
            hand=_count(o[L.O_HAND : L.O_HAND + N_TYPES], L.SC_HAND_ME),
            chosen=int(np.argmax(chosen)) if chosen.max() > 0.5 else -1,
            market=_count(o[L.O_MARKET : L.O_MARKET + N_TYPES], L.SC_MARKET),
            resolving=int(np.argmax(resolving)) if resolving.max() > 0.5 else -1,
            mage_left=int(_count(o[L.O_MAGE_LEFT], L.MAGE_DISCARD)),
            vp=_count(seats[:, L.PF_VP], L.SC_VP),
            coins=_count(seats[:, L.PF_COINS], L.SC_COINS),
            res=_count(seats[:, L.PF_RES : L.PF_RES + N_RES], L.SC_RES),
            hand_size=_count(seats[:, L.PF_HAND], L.SC_HAND),
            swaps=_count(seats[:, L.PF_SWAPS], L.SC_SWAPS),
            out=seats[:, L.PF_OUT] > 0.5,
            revealed=np.where(rev.max(axis=1) > 0.5, np.argmax(rev, axis=1), -1),
            played=_count(seats[:, L.PF_PLAYED : L.PF_PLAYED + N_TYPES], L.SC_PLAYED),
        )


class Economy:
    """The tables as the agents read them, and the value of applying a building (module docstring)."""

    def __init__(self, tables: ArtTables | None = None) -> None:
        self.tables = tables if tables is not None else default_tables()
        t, b = self.tables.types, self.tables.board
        self.vp = t[:, T_VP].astype(np.int64)
        self.kind = t[:, T_KIND].astype(np.int64)
        self.count = t[:, T_COUNT].astype(np.int64)
        self.effect = t[:, T_EFFECT].astype(np.int64)
        self.out = t[:, T_OUT].astype(np.int64)
        self.out_n = t[:, T_OUT_N].astype(np.int64)
        self.coin = t[:, T_COIN].astype(np.int64)
        self.inputs: list[tuple[int, ...]] = [tuple(int(r) for r in (row[T_IN0], row[T_IN1]) if r >= 0) for row in t]
        self.buy = b[:, B_BUY].astype(np.int64)
        self.sell = b[:, B_SELL].astype(np.int64)
        self.tier = b[:, B_TIER].astype(np.int64)
        self.building = self.kind == KIND_BUILDING
        self.level = self._levels()
        self.type_of_effect = {
            e: int(np.flatnonzero(self.effect == e)[0]) if (self.effect == e).any() else -1
            for e in (EF_SCOUTING, EF_THEFT, EF_RECONSTRUCTION, EF_FAIR, EF_PRODUCE, EF_MAGE, EF_KNIGHT)
        }

    def _levels(self) -> np.ndarray:
        """Chain depth of each type (A7.1): 0 for a building without inputs, 1 + the deepest producer of
        an input otherwise; action cards get -1."""
        level = np.where(self.building, 0, -1).astype(np.int64)
        for _ in range(N_TYPES):
            for t in range(N_TYPES):
                if not self.building[t] or not self.inputs[t]:
                    continue
                deepest = 0
                for r in self.inputs[t]:
                    makers = [u for u in range(N_TYPES) if self.building[u] and self.out_n[u] > 0 and self.out[u] == r]
                    deepest = max(deepest, 1 + max((int(level[u]) for u in makers), default=0))
                level[t] = deepest
        return level

    def output_value(self, t: int) -> int:
        """Sell value of what building ``t`` puts on the board (A7.1), in coins."""
        return int(self.out_n[t] * self.sell[self.out[t]]) if self.out_n[t] > 0 else 0

    def missing(self, t: int, res: np.ndarray) -> list[int]:
        """Inputs of building ``t`` that ``res`` lacks (each input is one resource, A7.2)."""
        need = np.zeros(N_RES, np.int64)
        for r in self.inputs[t]:
            need[r] += 1
        return [r for r in range(N_RES) for _ in range(max(0, int(need[r] - res[r])))]

    def cost_to_apply(self, t: int, res: np.ndarray) -> int:
        """Coins needed to apply building ``t`` now: the buy price of each missing input plus its coin cost."""
        return int(sum(int(self.buy[r]) for r in self.missing(t, res)) + self.coin[t])

    def gain(self, t: int, res: np.ndarray) -> int:
        """Value in coins of applying building ``t`` with ``res`` (module docstring; missing inputs bought)."""
        lacking = self.missing(t, res)
        used = list(self.inputs[t])
        for r in lacking:
            used.remove(r)
        spent = sum(int(self.sell[r]) for r in used) + sum(int(self.buy[r]) for r in lacking)
        return int(VP_COINS * self.vp[t] + self.output_value(t) - spent - self.coin[t])

    def liquid(self, res: np.ndarray, coins: int, keep: tuple[int, ...] = ()) -> int:
        """Coins plus the sell value of every resource except one of each resource in ``keep`` (A4.6)."""
        spare = np.array(res, np.int64)
        for r in keep:
            if spare[r] > 0:
                spare[r] -= 1
        return int(coins + int((spare * self.sell).sum()))

    def standalone(self, t: int) -> int:
        """Value of a card on its own, every input bought (what keeping it for later is worth)."""
        if self.building[t]:
            return self.gain(t, np.zeros(N_RES, np.int64))
        return 0
