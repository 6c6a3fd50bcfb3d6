"""A rule-based player that reads its information state (public + own information only).

The rules below are compiled (:mod:`ohmygoods_agents._heuristic_kernels`, where the tuned weights live):
a batch of rows is one call, about 8 µs a decision (96 µs in Python), and the moves are those the rules'
Python form chose, bit for bit (``tests/agents/test_heuristic_moves.py``).

Every decision (``layout.D_*``) has one documented rule; values are in coins, victory
points are converted at ``vp_coins`` coins per VP (5 in the final round, R8.3).

* **Card keep value** ``kv(v, c)`` of a hand card: the larger of its value as a resource
  (a base value, more when my buildings need that resource to produce or as a chain input,
  R7.1, R7.7) and its value as a building to build soon. In the final round (R8.2) a hand card
  is worth almost nothing after the round, so its value drops to a token amount.
* **Market odds** (R5.1, R6.1): in phase II the sunset row is unknown. It is sampled from the
  cards I have not seen (every card not in my hand, the discard pile, the market or on a
  building — their composition, not their order) by revealing until 2 half-suns appear.
* **Worker** (R5.4, R7.2): for every free production building and both modes, the expected
  value over the sampled sunset rows of producing there: goods x good value + profitable chain
  runs - hand cards spent (efficient needs everything covered, sloppy all but one; a
  production that would cost more than it brings is skipped, R7.6). The best pair is chosen.
* **Assistant moves** (R5.3): only when another building is worth > 2.5 coins more per
  round for the assistant (probability the market covers it alone x good value).
* **Set aside** (R5.5): the building with the best value (VP x ``vp_coins`` - cost + expected
  production, chain synergy with the goods I make, Market-Office and Extra-card effects;
  duplicates of a good I already make are worth less) among those I can afford with my goods
  plus the expected income of this round (``royal``: only with what I hold, since an unbuilt
  card is discarded, §9).
* **Produce** (R7.6): produce where goods + chain gains exceed the hand cards spent; lower chain
  tiers first (coal, lumber, flour ... before bread, tools, food), so chains can use them. In the
  final round (``omg2``) open every chain with a positive gain (R8.2).
* **Spend / chain inputs / empty-deck discards** (R7.1, R7.8, R3.1): the hand card with the lowest
  keep value. A chain runs while its gain (goods out - goods in - card) is positive (R7.7).
* **Build** (R7.10) whenever allowed; **pay** (R7.10, R7.12, R5.3) with the set of goods that
  overpays least (no change is given), then spares the goods my chains use as inputs, then uses
  few goods (a knapsack over the goods' values); the dearest good of that set is paid first.
* **Hire** (R7.12) the assistant with the best VP x ``vp_coins`` - cost + production value, if
  positive; **place** it where the market most often covers production alone.
* **Phase I** (R4.1): discard the whole hand when its mean keep value is clearly below the mean
  keep value of the unseen cards.
"""

from __future__ import annotations

import functools

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.cards import (
    B_GOOD,
    B_KIND,
    B_NEED0,
    B_NEED_ANY,
    B_RES,
    B_SUN,
    B_VALUE,
    KIND_PRODUCTION,
    N_GOODS,
    N_RES,
    CardSet,
    default_cards,
)

from ._heuristic_kernels import ROW_ERRORS, check_rows, decide_rows
from ._kernels import chain_tiers, sample_row_counts
from .base import Agent, require_info_state

_N_STATIC = 4000


@functools.lru_cache(maxsize=4)
def _static_tables(cards: CardSet) -> dict[str, np.ndarray]:
    """Per building: expected worker goods per round and P(market alone covers it).

    Computed once per card set from full markets (two rows to 2 half-suns each) revealed
    from the whole deck with a fixed generator, so the agent stays deterministic.
    """
    C = cards.buildings
    res = np.ascontiguousarray(C[: L.N_CARDS, B_RES].astype(np.int64))
    sun = np.ascontiguousarray(C[: L.N_CARDS, B_SUN].astype(np.int64))
    rows = np.zeros((_N_STATIC, N_RES), np.int64)
    sample_row_counts(res, sun, 4, _N_STATIC, np.array([0x1234567], np.int64), rows)
    n_b = C.shape[0]
    ease = np.zeros(n_b)  # expected goods with a worker and about one helpful hand card
    alone = np.zeros(n_b)  # P(the market alone covers all needs): assistant production
    total = rows.sum(1)
    for b in range(n_b):
        if C[b, B_KIND] != KIND_PRODUCTION:
            continue
        if C[b, B_NEED_ANY] > 0:
            miss = np.maximum(0, C[b, B_NEED_ANY] - total)
        else:
            need = C[b, B_NEED0 : B_NEED0 + N_RES]
            miss = np.maximum(0, need[None, :] - rows).sum(1)
        ease[b] = np.where(miss <= 1, 2.0, np.where(miss <= 2, 1.0, 0.0)).mean()
        alone[b] = (miss == 0).mean()
    return {"ease": ease, "alone": alone}


class HeuristicAgent(Agent):
    """The documented rule-based player (see module docstring)."""

    name = "heuristic"
    needs_info_state = True
    needs_observation = False  # act reads the mask and the information state only

    def __init__(
        self,
        seed: int | None = None,
        cards: CardSet | None = None,
        n_samples: int = 96,
        vp_coins: float = 4.0,
        card_base: float = 0.7,
        demand_scale: float = 0.5,
    ) -> None:
        self.cards = cards if cards is not None else default_cards()
        self.seed = 0 if seed is None else int(seed)
        self.n_samples = int(n_samples)
        self.vp_coins_mid = float(vp_coins)
        self.card_base = float(card_base)
        self.demand_scale = float(demand_scale)
        self.tier = chain_tiers(self.cards.buildings)
        tables = _static_tables(self.cards)
        self.ease, self.alone = tables["ease"], tables["alone"]
        C = self.cards.buildings
        self.good_value = np.zeros(N_GOODS)  # each good's value (what a chain input costs)
        for b in range(C.shape[0]):
            if C[b, B_GOOD] >= 0:
                self.good_value[C[b, B_GOOD]] = C[b, B_VALUE]
        params = np.array([self.n_samples, self.card_base, self.demand_scale, self.vp_coins_mid], np.float64)
        #: the kernel's tables: the card table, the assistants, good values, worker ease, assistant odds,
        #: chain tiers, the agent's parameters and each card's resource
        self._tables = (
            np.ascontiguousarray(C, np.int64), np.ascontiguousarray(self.cards.assistants, np.int64),
            self.good_value, np.ascontiguousarray(self.ease, np.float64), np.ascontiguousarray(self.alone, np.float64),
            np.ascontiguousarray(self.tier, np.int64), params, np.ascontiguousarray(C[:, B_RES], np.int64),
        )  # fmt: skip

    @property
    def seed_word(self) -> int:
        """The agent's part of each tie-break word (``_heuristic_kernels.tie_word``: a row's CRC-32 plus this,
        modulo 2**32)."""
        return (self.seed * 0x9E3779B1) & 0xFFFFFFFF

    # ------------------------------------------------------------------ entry points
    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        info = require_info_state(self.name, info_state)
        m = np.asarray(mask)
        if m.shape != (L.N_ACTIONS,):
            raise ValueError(f"mask must have shape ({L.N_ACTIONS},), got {m.shape}")
        legal = np.flatnonzero(m)
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        if legal.size == 1:
            return int(legal[0])
        return int(self._decide(np.ascontiguousarray(info)[None, :], m.reshape(1, -1))[0])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, info_states: np.ndarray | None = None
    ) -> np.ndarray:
        """One move per row, in one call of the compiled rules (the same moves as :meth:`act` row by row)."""
        m = np.asarray(masks)
        if info_states is None:
            require_info_state(self.name, None)
        infos = np.asarray(info_states)
        if infos.ndim != 2 or infos.shape[1] != L.STATE_LEN or m.ndim != 2 or m.shape != (infos.shape[0], L.N_ACTIONS):
            raise ValueError(
                f"info_states must have shape (N, {L.STATE_LEN}) and masks (N, {L.N_ACTIONS}), got "
                f"{infos.shape} and {m.shape}"
            )
        if m.shape[0] and not m.any(axis=1).all():
            raise ValueError("no legal action: a mask is all zero (is the game over?)")
        return self._decide(np.ascontiguousarray(infos, np.int32), m)

    def _decide(self, infos: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.ascontiguousarray(masks, np.bool_)
        row, code = check_rows(infos, masks, self._tables[0].shape[0], self._tables[1].shape[0])
        if row >= 0:
            raise ValueError(f"information state row {row} is not one of this game: {ROW_ERRORS[code]}")
        out = np.empty(infos.shape[0], np.int64)
        decide_rows(infos, masks, self.seed_word, *self._tables, out)
        return out


__all__ = ["HeuristicAgent"]
