"""A rule-based player that reads its information state (public + own information only).

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
import zlib
from typing import Any

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.cards import (
    A_COST,
    A_VP,
    B_CH_G1,
    B_CH_G2,
    B_CH_HAND,
    B_COST,
    B_GOOD,
    B_KIND,
    B_NEED0,
    B_NEED_ANY,
    B_OFFICE,
    B_RES,
    B_SUN,
    B_VALUE,
    B_VP,
    KIND_EXTRA,
    KIND_OFFICE,
    KIND_PRODUCTION,
    N_GOODS,
    N_RES,
    CardSet,
    default_cards,
)

from ._kernels import chain_tiers, sample_row_counts
from .base import Agent, require_info_state

_N_STATIC = 4000

# ---------------------------------------------------------------- tuned weights (coins unless noted)
#: VP worth in coins in the final round (a VP is all that is left to gain)
FINAL_VP_COINS = 5.0
#: typical market supply of one resource, and of the most common one (wood: 26 of 94 cards, R1.2)
MARKET_SUPPLY, MARKET_SUPPLY_WOOD = 1.6, 2.4
#: demand of a resource: share of the good's value per building that needs "any" / that is short
DEMAND_ANY, DEMAND_SHORT, DEMAND_SHORT_CAP, DEMAND_SHORT_SLACK = 0.15, 0.35, 2.0, 0.5
#: demand of a resource as the hand-card input of one of my chains: share of the chain's gain
DEMAND_CHAIN = 0.6
#: keep value of a hand card in the final round: a floor plus a small share of its demand
FINAL_CARD_BASE, FINAL_DEMAND = 0.1, 0.01
#: hands larger than this are worth less per card (by HAND_CROWDING each), never below CARD_FLOOR
HAND_COMFORT, HAND_CROWDING, CARD_FLOOR = 4, 0.12, 0.3
#: expected coins per round, and rounds counted, when judging whether a building is reachable
INCOME_PER_ROUND, REACH_ROUNDS = 4.0, 2.0
#: share of a top building's value kept in its card: reachable / not yet reachable
KEEP_REACHABLE, KEEP_UNREACHABLE = 0.5, 0.25
#: rounds left: per building still to build before the end (R9.1: 8 buildings end the game)
ROUNDS_PER_BUILDING, END_BUILDINGS = 1.4, 8
#: most rounds a building's income is counted for
HORIZON = 8.0
#: weights of a building's yearly value: worker goods, goods chain, hand-card chain, office, extra
W_WORKER, W_GOODS_CHAIN, W_HAND_CHAIN, W_OFFICE, W_EXTRA = 0.25, 0.35, 0.15, 0.3, 0.5
#: a second building of a good I already make is worth this share
REPEAT_GOOD = 0.35
#: chain runs counted at most; a cost that stands for "no card to spend"
MAX_CHAIN_RUNS, NO_CARD = 6, 99.0
#: discard the hand (phase I) when the unseen cards are worth this much more per card
DISCARD_MARGIN = 0.4
#: move an assistant only for at least this gain
MOVE_GAIN = 2.5
#: share of the expected income counted towards a building's cost: Royal Goods / Oh my Goods!
BUDGET_INCOME_ROYAL, BUDGET_INCOME = 0.3, 0.8
#: tie-breaks: worker on the dearer good, then efficient; paying: the dearer good first
TIE_GOOD_VALUE, TIE_SLOPPY, TIE_PAY = 0.01, 0.001, 0.001


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


#: per acting seat: which card locations (``layout.L_*``) that seat has seen (its hand and set-aside card,
#: the discard pile, both market rows, every building); every other location holds cards unseen by it
_SEEN = np.zeros((L.MAX_PLAYERS, L.N_LOC), np.bool_)
for _me in range(L.MAX_PLAYERS):
    _SEEN[_me, [L.L_HAND + _me, L.L_ASIDE + _me, L.L_DISCARD, L.L_ROW1, L.L_ROW2]] = True
    _SEEN[_me, L.L_BUILT : L.L_GOODS] = True


class _View:
    """What the acting player knows, decoded from its information state row (``Cl``: the card table as
    lists of ints, :attr:`HeuristicAgent.Cl`)."""

    def __init__(self, info: np.ndarray, cards: CardSet, Cl: list[list[int]]) -> None:
        C = cards.buildings
        self.g = info
        self.C = C
        self.AS = cards.assistants
        self.me = me = int(info[L.F_CUR])
        self.np_ = int(info[L.F_NP])
        self.royal = bool(info[L.F_ROYAL])
        self.final = bool(info[L.F_FINAL])
        loc = info[L.F_LOC : L.F_LOC + L.N_CARDS]
        self.loc = loc
        self.hand = hand = np.flatnonzero(loc == L.L_HAND + me).tolist()
        hres = [0] * N_RES
        for c in hand:
            hres[Cl[c][B_RES]] += 1
        self.hres = np.array(hres, np.int64)
        self.aside = int(info[L.F_ASIDE + me])
        base = me * L.MAX_SLOTS
        self.nb = nb = int(info[L.F_NB + me])
        self.blds = blds = info[L.F_BLD + base : L.F_BLD + base + nb].tolist()
        self.goods = goods = info[L.F_GOODS + base : L.F_GOODS + base + nb].tolist()
        self.staff = info[L.F_STAFF + base : L.F_STAFF + base + nb].tolist()
        self.coins = sum(k * Cl[b][B_VALUE] for b, k in zip(blds, goods, strict=True))
        self.market = info[L.F_MKT : L.F_MKT + 2 * N_RES].reshape(2, N_RES).astype(np.int64)
        office = [0] * N_RES
        # goods I make (for chain synergy), and goods on my buildings per type
        makes, have = [0] * N_GOODS, [0] * N_GOODS
        for b, k in zip(blds, goods, strict=True):
            row = Cl[b]
            if row[B_OFFICE] >= 0:
                office[row[B_OFFICE]] += 1
            if row[B_GOOD] >= 0:
                makes[row[B_GOOD]] += 1
                have[row[B_GOOD]] += k
        self.office = np.array(office, np.int64)
        self.makes = np.array(makes, np.int64)
        self.have_goods = np.array(have, np.int64)
        most = int(info[L.F_NB : L.F_NB + self.np_].max())
        if self.final:
            self.rounds_left = 0.0
        elif info[L.F_TRIGGER]:
            self.rounds_left = 1.0
        else:
            self.rounds_left = 1.0 + ROUNDS_PER_BUILDING * max(0, END_BUILDINGS - most)
        # cards I have not seen: deck, other hands, goods, escrow, set-aside cards of others
        self.unseen = np.flatnonzero(~_SEEN[me][loc])

        # per-decision caches and the tie-break word: set by HeuristicAgent.act, never on the agent
        self.vpc = 0.0
        self.kv_cache: dict[int, float] = {}
        self.bv_cache: dict[int, float] = {}
        self.prod_cache: dict[int, tuple[Any, ...]] = {}
        self.prod_markets: np.ndarray | None = None
        self.demand_cache: dict[int, float] = {}
        self.res_cost: np.ndarray | None = None
        self.top: tuple[int, ...] | None = None
        self.word = np.ones(1, np.int64)

    def n_assistants(self) -> int:
        return int((self.g[L.F_A_OWNER : L.F_A_OWNER + L.N_ASSIST] == self.me).sum())


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
        # the card table as plain ints for scalar lookups (numpy scalar indexing is several times slower)
        self.Cl: list[list[int]] = self.cards.buildings.tolist()
        self.res = self.cards.buildings[:, B_RES].astype(np.int64)  # each card's resource
        tables = _static_tables(self.cards)
        self.ease, self.alone = tables["ease"], tables["alone"]
        C = self.cards.buildings
        # which buildings use a good as chain input (for payment preferences)
        self.good_value = np.zeros(N_GOODS)
        for b in range(C.shape[0]):
            if C[b, B_GOOD] >= 0:
                self.good_value[C[b, B_GOOD]] = C[b, B_VALUE]

    # ------------------------------------------------------------------ entry point
    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        info = require_info_state(self.name, info_state)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        if legal.size == 1:
            return int(legal[0])
        dec = int(info[L.F_DEC])
        if dec == L.D_BUILD:  # R7.10: build whenever allowed (nothing else to read, no view decoded)
            a = L.A_BUILD if mask[L.A_BUILD] else L.A_NO_BUILD
        else:
            v = _View(info, self.cards, self.Cl)  # everything this decision computes lives on v, not on the agent
            v.vpc = FINAL_VP_COINS if v.final else self.vp_coins_mid
            # tie-breaks from public information only: the information state is identical for
            # positions that differ only in hidden information (infostate.redact)
            word = (self.seed * 0x9E3779B1 + zlib.crc32(np.ascontiguousarray(info).tobytes())) & 0xFFFFFFFF
            v.word = np.array([word or 1], np.int64)
            a = self._decide(dec, v, mask, legal)
        if not (0 <= a < L.N_ACTIONS and mask[a]):  # defensive: never return an illegal action
            a = int(legal[0])
        return int(a)

    def _decide(self, dec: int, v: _View, mask: np.ndarray, legal: np.ndarray) -> int:
        if dec == L.D_PHASE1:
            return self._phase1(v)
        if dec == L.D_MOVE:
            return self._move(v, mask)
        if dec == L.D_WORKER:
            return self._worker(v, mask)[0]
        if dec == L.D_ASIDE:
            return self._set_aside(v)
        if dec == L.D_PRODUCE:
            return self._produce(v, mask)
        if dec == L.D_SPEND:
            return L.A_SPEND + self._cheapest(v, legal - L.A_SPEND)
        if dec == L.D_CHAIN:
            return self._chain(v, mask, legal)
        if dec == L.D_BUILD:
            return L.A_BUILD if mask[L.A_BUILD] else L.A_NO_BUILD
        if dec == L.D_PAY:
            return self._pay(v, mask)
        if dec == L.D_HIRE:
            return self._hire(v, mask)
        if dec == L.D_PLACE:
            return self._place(v, mask)
        if dec == L.D_REFILL:
            return L.A_REFILL + self._cheapest(v, legal - L.A_REFILL)
        return int(legal[0])

    # ------------------------------------------------------------------ values
    def _resource_demand(self, v: _View, r: int) -> float:
        """Coins a card of resource r is worth to my production and chains."""
        got = v.demand_cache.get(r)
        if got is not None:
            return got
        C = self.Cl
        val = 0.0
        for b in v.blds:
            if C[b][B_KIND] != KIND_PRODUCTION:
                continue
            need = C[b][B_NEED_ANY] if C[b][B_NEED_ANY] > 0 else C[b][B_NEED0 + r]
            if need > 0:
                avail = MARKET_SUPPLY if r != 1 else MARKET_SUPPLY_WOOD  # R5.1, R6.1
                if C[b][B_NEED_ANY] > 0:
                    val += DEMAND_ANY * C[b][B_VALUE]
                elif need > avail:
                    val += DEMAND_SHORT * C[b][B_VALUE] * min(DEMAND_SHORT_CAP, need - avail + DEMAND_SHORT_SLACK)
            if C[b][B_CH_HAND] == r:
                val += max(0.0, self._chain_gain(v, b, card_cost=0.0)) * DEMAND_CHAIN
        v.demand_cache[r] = val
        return val

    @property
    def C(self) -> np.ndarray:
        return self.cards.buildings

    def kv(self, v: _View, c: int) -> float:
        """Keep value of hand card c (coins): as a resource, or as one of my next buildings."""
        got = v.kv_cache.get(c)
        if got is not None:
            return got
        val = self._resource_keep(v, self.Cl[c][B_RES])
        if not v.final and c in self._top_builds(v):
            bv = self.build_value(v, c)
            reach = v.coins + INCOME_PER_ROUND * min(v.rounds_left, REACH_ROUNDS)
            val = max(val, (KEEP_REACHABLE if self.Cl[c][B_COST] <= reach else KEEP_UNREACHABLE) * bv)
        v.kv_cache[c] = val
        return val

    def _resource_keep(self, v: _View, r: int) -> float:
        """:meth:`kv` of a card of resource ``r`` that is not in my hand (so not one of my next buildings)."""
        if v.final:
            return FINAL_CARD_BASE + FINAL_DEMAND * self._resource_demand(v, r)
        h = len(v.hand)
        crowd = HAND_CROWDING * (h - HAND_COMFORT)
        base = self.card_base if h <= HAND_COMFORT else max(CARD_FLOOR, self.card_base - crowd)
        return base + self.demand_scale * self._resource_demand(v, r)

    def _top_builds(self, v: _View) -> tuple[int, ...]:
        """The two hand cards I would most like to build (kept rather than spent)."""
        if v.top is None:
            ranked = sorted(v.hand, key=lambda c: -self.build_value(v, c))
            v.top = tuple(ranked[:2])
        return v.top

    def _cheapest(self, v: _View, cards: np.ndarray) -> int:
        return int(min(cards, key=lambda c: (self.kv(v, int(c)), int(c))))

    def _chain_gain(self, v: _View, b: int, card_cost: float) -> float:
        """Gain of running building b's chain once (goods out - goods in - card), coins."""
        C = self.Cl
        if C[b][B_CH_HAND] < 0 and C[b][B_CH_G1] < 0:
            return 0.0
        n_out = (1 if C[b][B_CH_HAND] >= 0 else 0) + (1 if C[b][B_CH_G1] >= 0 else 0) + (1 if C[b][B_CH_G2] >= 0 else 0)
        gain = n_out * C[b][B_VALUE]
        for col in (B_CH_G1, B_CH_G2):
            if C[b][col] >= 0:
                gain -= self.good_value[C[b][col]]
        if C[b][B_CH_HAND] >= 0:
            gain -= card_cost
        return float(gain)

    def _chain_value(self, v: _View, s: int, hres: np.ndarray, goods_extra: int = 0) -> float:
        """Total gain of the profitable chain runs of my slot s with the hand ``hres``."""
        C = self.Cl
        b = v.blds[s]
        if C[b][B_CH_HAND] < 0 and C[b][B_CH_G1] < 0:
            return 0.0
        runs = 99
        if C[b][B_CH_HAND] >= 0:
            runs = int(hres[C[b][B_CH_HAND]])
        g1, g2 = C[b][B_CH_G1], C[b][B_CH_G2]
        for gd in (g1, g2):
            if gd >= 0:
                have = int(v.have_goods[gd])
                if C[b][B_GOOD] == gd:
                    have = 0
                runs = min(runs, have // (2 if (g1 == g2 and gd >= 0) else 1))
        runs = min(runs, MAX_CHAIN_RUNS)
        cost = 0.0
        if C[b][B_CH_HAND] >= 0:
            r = C[b][B_CH_HAND]
            costs = sorted(self.kv(v, c) for c in v.hand if C[c][B_RES] == r)
            total = 0.0
            for i in range(runs):
                gain = self._chain_gain(v, b, costs[i] if i < len(costs) else NO_CARD)
                if gain <= 0:
                    break
                total += gain
            return total
        return max(0.0, self._chain_gain(v, b, cost)) * runs

    def build_value(self, v: _View, c: int) -> float:
        """Value (coins) of adding building card c to my buildings now (computed once per decision)."""
        got = v.bv_cache.get(c)
        if got is None:
            got = v.bv_cache[c] = self._build_value(v, c)
        return got

    def _build_value(self, v: _View, c: int) -> float:
        C = self.Cl
        val = C[c][B_VP] * v.vpc - C[c][B_COST]
        rl = v.rounds_left
        if rl <= 0:
            return val
        horizon = min(rl, HORIZON)
        kind = C[c][B_KIND]
        if kind == KIND_PRODUCTION:
            gd = C[c][B_GOOD]
            novelty = REPEAT_GOOD if v.makes[gd] > 0 else 1.0
            val += W_WORKER * self.ease[c] * C[c][B_VALUE] * horizon * novelty
            if C[c][B_CH_G1] >= 0:
                inputs_made = all(C[c][col] < 0 or v.makes[C[c][col]] > 0 for col in (B_CH_G1, B_CH_G2))
                if inputs_made:
                    val += W_GOODS_CHAIN * self._chain_gain(v, c, self.card_base) * horizon * novelty
            elif C[c][B_CH_HAND] >= 0:
                val += W_HAND_CHAIN * max(0.0, self._chain_gain(v, c, self.card_base)) * horizon * novelty
        elif kind == KIND_OFFICE:
            r = C[c][B_OFFICE]
            users = sum(1 for b in v.blds if C[b][B_KIND] == KIND_PRODUCTION and C[b][B_NEED0 + r] > 0)
            val += W_OFFICE * users * horizon
        elif kind == KIND_EXTRA:
            val += W_EXTRA * self.card_base * horizon
        return float(val)

    # ------------------------------------------------------------------ market odds
    def _sunset_samples(self, v: _View) -> np.ndarray:
        """Sampled full markets [n, N_RES]: row 1 as seen + a sunset row from the unseen cards."""
        C = self.C
        if v.g[L.F_PH] != L.PH_P2 or v.unseen.size == 0:
            return (v.market.sum(0) + v.office)[None, :]
        pool = v.unseen
        res = np.ascontiguousarray(C[pool, B_RES].astype(np.int64))
        sun = np.ascontiguousarray(C[pool, B_SUN].astype(np.int64))
        out = np.zeros((self.n_samples, N_RES), np.int64)
        sample_row_counts(res, sun, 2, self.n_samples, v.word, out)
        return out + v.market[0][None, :] + v.office[None, :]

    def _production_ev(self, v: _View, s: int, markets: np.ndarray, mode: int) -> float:
        """Expected value of producing at my slot s with staff ``mode`` over the sampled markets.

        mode 0 efficient worker, 1 sloppy worker, 2 assistant.
        """
        miss, unc, spent_cost, gv, chain = self._production_terms(v, s, markets)
        goods = 2.0 if mode == 0 else 1.0
        allow = 1 if mode == 1 else 0
        if mode == 1:
            # the allowance skips the dearest card that would otherwise be spent
            frac = np.maximum(0, miss - 1) / np.maximum(1, miss)
            spent_cost = np.where((unc == 0) & (miss > 0), spent_cost * frac, spent_cost)
        ok = unc <= allow
        val = goods * gv + chain - spent_cost
        return float(np.where(ok, np.maximum(val, 0.0), 0.0).mean())

    def _production_terms(self, v: _View, s: int, markets: np.ndarray) -> tuple[Any, ...]:
        """What producing at slot s lacks over the sampled ``markets`` (one decision samples them once):
        ``(missing cards, cards the hand cannot cover, cost of the hand cards spent, good value, chain
        value)``, the same for every staff mode, so computed once per slot and decision."""
        if v.prod_markets is not markets:  # terms of other sampled markets are not these
            v.prod_cache, v.prod_markets = {}, markets
        got = v.prod_cache.get(s)
        if got is not None:
            return got
        Cl = self.Cl
        b = v.blds[s]
        gv = float(Cl[b][B_VALUE])
        hres = v.hres
        res_cost = v.res_cost
        if res_cost is None:  # the cheapest hand card per resource: the same for every slot and mode
            cheapest: list[float | None] = [None] * N_RES
            for c in v.hand:
                r, k = Cl[c][B_RES], self.kv(v, c)
                cheapest[r] = k if cheapest[r] is None else min(cheapest[r], k)
            res_cost = v.res_cost = np.array([NO_CARD if k is None else k for k in cheapest])
        if Cl[b][B_NEED_ANY] > 0:
            miss = np.maximum(0, Cl[b][B_NEED_ANY] - markets.sum(1))
            unc = np.maximum(0, miss - hres.sum())
            spent_cost = np.minimum(miss, hres.sum()) * min(res_cost.min(), NO_CARD)
        else:
            need = self.C[b, B_NEED0 : B_NEED0 + N_RES]
            missr = np.maximum(0, need[None, :] - markets)
            unc = np.maximum(0, missr - hres[None, :]).sum(1)
            cover = np.minimum(missr, hres[None, :])
            spent_cost = (cover * np.where(hres > 0, res_cost, 0.0)[None, :]).sum(1)
            miss = missr.sum(1)
        got = v.prod_cache[s] = (miss, unc, spent_cost, gv, self._chain_value(v, s, hres))
        return got

    # ------------------------------------------------------------------ decisions
    def _phase1(self, v: _View) -> int:
        if not v.hand or v.unseen.size == 0:
            return L.A_KEEP
        mine = np.mean([self.kv(v, c) for c in v.hand])
        # an unseen card is in no hand of mine, so its keep value is that of its resource (kv): one per resource
        by_res = np.array([self._resource_keep(v, r) for r in range(N_RES)])
        pool = np.mean(by_res[self.res[v.unseen]])
        return L.A_DISCARD_HAND if mine < pool - DISCARD_MARGIN else L.A_KEEP

    def _move(self, v: _View, mask: np.ndarray) -> int:
        markets = self._sunset_samples(v)
        best, best_a = MOVE_GAIN, L.A_MOVES_DONE
        for a in np.flatnonzero(mask[L.A_MOVE : L.A_MOVES_DONE]):
            fr, to = divmod(int(a), L.MAX_SLOTS)
            gain = self._production_ev(v, to, markets, 2) - self._production_ev(v, fr, markets, 2)
            if gain > best:
                best, best_a = gain, L.A_MOVE + int(a)
        return best_a

    def _worker(self, v: _View, mask: np.ndarray) -> tuple[int, float]:
        markets = self._sunset_samples(v)
        best, best_a = -1.0, -1
        for i in np.flatnonzero(mask[L.A_WORKER : L.A_ASIDE]):
            s, mode = divmod(int(i), 2)
            ev = self._production_ev(v, s, markets, mode)
            # ties: prefer the more valuable good, then efficient
            key = ev + TIE_GOOD_VALUE * self.C[v.blds[s], B_VALUE] - TIE_SLOPPY * mode
            if key > best:
                best, best_a = key, L.A_WORKER + int(i)
        return best_a, best

    def _expected_income(self, v: _View) -> float:
        markets = self._sunset_samples(v)
        inc = 0.0
        for s, st in enumerate(v.staff):
            if st == L.STAFF_EFFICIENT:
                inc += self._production_ev(v, s, markets, 0)
            elif st == L.STAFF_SLOPPY:
                inc += self._production_ev(v, s, markets, 1)
            elif st == L.STAFF_ASSISTANT:
                inc += self._production_ev(v, s, markets, 2)
        return inc

    def _set_aside(self, v: _View) -> int:
        C = self.C
        if v.nb >= L.MAX_SLOTS:
            return L.A_ASIDE_NONE
        income = self._expected_income(v)
        budget = v.coins + (BUDGET_INCOME_ROYAL if v.royal else BUDGET_INCOME) * income
        best, best_c = -1e9, -1
        for c in v.hand:
            if C[c, B_COST] > budget:
                continue
            val = self.build_value(v, c)
            if val > best:
                best, best_c = val, c
        if best_c < 0:
            return L.A_ASIDE_NONE
        if v.royal and best <= 0 and not v.final:
            return L.A_ASIDE_NONE
        return L.A_ASIDE + best_c

    def _produce_value(self, v: _View, s: int) -> float:
        """Value of producing now at my slot s (market known, R7.1, R7.2)."""
        C = self.C
        b = v.blds[s]
        st = v.staff[s]
        market = v.market.sum(0) + v.office
        costs = {r: sorted(self.kv(v, c) for c in v.hand if C[c, B_RES] == r) for r in range(N_RES)}
        spend: list[float] = []
        if C[b, B_NEED_ANY] > 0:
            m = max(0, int(C[b, B_NEED_ANY] - market.sum()))
            spend = sorted(x for r in range(N_RES) for x in costs[r])[:m]
        else:
            for r in range(N_RES):
                m = max(0, int(C[b, B_NEED0 + r] - market[r]))
                spend += costs[r][:m]
        spend.sort()
        if st == L.STAFF_SLOPPY and spend:
            spend = spend[:-1]
        goods = 2 if st == L.STAFF_EFFICIENT else 1
        hres = v.hres.copy()
        return goods * float(C[b, B_VALUE]) + self._chain_value(v, s, hres) - sum(spend)

    def _produce(self, v: _View, mask: np.ndarray) -> int:
        C = self.C
        options = []
        for s in np.flatnonzero(mask[L.A_PRODUCE : L.A_PRODUCE + L.MAX_SLOTS]):
            s = int(s)
            val = self._produce_value(v, s)
            if val > 0 or not mask[L.A_PRODUCTION_DONE]:
                options.append((self.tier[C[v.blds[s], B_GOOD]], -val, L.A_PRODUCE + s))
        if options:
            return min(options)[2]
        chains = []
        for s in np.flatnonzero(mask[L.A_CHAIN_OPEN : L.A_CHAIN_OPEN + L.MAX_SLOTS]):
            s = int(s)
            val = self._chain_value(v, s, v.hres)
            if val > 0:
                chains.append((self.tier[C[v.blds[s], B_GOOD]], -val, L.A_CHAIN_OPEN + s))
        if chains:
            return min(chains)[2]
        if mask[L.A_PRODUCTION_DONE]:
            return L.A_PRODUCTION_DONE
        return int(np.flatnonzero(mask)[0])

    def _chain(self, v: _View, mask: np.ndarray, legal: np.ndarray) -> int:
        b = v.blds[int(v.g[L.F_CHAIN_SLOT])]
        can_stop = bool(mask[L.A_CHAIN_STOP])
        if mask[L.A_CHAIN_GOODS]:
            if self._chain_gain(v, b, 0.0) > 0 or not can_stop:
                return L.A_CHAIN_GOODS
            return L.A_CHAIN_STOP
        cards = legal[legal < L.A_CHAIN_GOODS] - L.A_CHAIN_HAND
        if cards.size == 0:
            return L.A_CHAIN_STOP
        c = self._cheapest(v, cards)
        if self._chain_gain(v, b, self.kv(v, c)) > 0 or not can_stop:
            return L.A_CHAIN_HAND + c
        return L.A_CHAIN_STOP

    def _pay(self, v: _View, mask: np.ndarray) -> int:
        """Pay one good from the set of goods that covers the bill with the least overpayment."""
        C = self.C
        due = int(v.g[L.F_PAY_DUE])
        chain_inputs = np.zeros(N_GOODS)
        for b in v.blds:
            for col in (B_CH_G1, B_CH_G2):
                if C[b, col] >= 0:
                    chain_inputs[C[b, col]] += 1
        items = []  # (value, keep penalty, slot)
        for s in np.flatnonzero(mask[L.A_PAY : L.A_PAY + L.MAX_SLOTS]):
            s = int(s)
            b = v.blds[s]
            val = int(C[b, B_VALUE])
            pen = 1.0 if chain_inputs[C[b, B_GOOD]] > 0 and not v.final else 0.0
            items += [(val, pen, s)] * min(v.goods[s], max(1, due))
        # knapsack over reachable sums: best[sum] = (chain-input penalty, goods used, slots)
        best: dict[int, tuple[float, int, tuple[int, ...]]] = {0: (0.0, 0, ())}
        for val, pen, s in items:
            for tot, (p, n, used) in list(best.items()):
                if tot >= due:
                    continue
                nt = tot + val
                cand = (p + pen - TIE_PAY * val, n + 1, used + (s,))
                if nt not in best or cand[:2] < best[nt][:2]:
                    best[nt] = cand
        paid = sorted(t for t in best if t >= due)
        if not paid:
            return L.A_PAY + int(np.flatnonzero(mask[L.A_PAY : L.A_PAY + L.MAX_SLOTS])[0])
        used = best[paid[0]][2]
        # pay the most valuable good of the chosen set first
        s = max(used, key=lambda x: (C[v.blds[x], B_VALUE], -x))
        return L.A_PAY + s

    def _assistant_ev(self, v: _View, s: int) -> float:
        b = v.blds[s]
        return float(self.alone[b] * self.C[b, B_VALUE])

    def _hire(self, v: _View, mask: np.ndarray) -> int:
        AS = self.cards.assistants
        free = [s for s in range(v.nb) if self.C[v.blds[s], B_KIND] == KIND_PRODUCTION and v.staff[s] == L.STAFF_NONE]
        prod = max((self._assistant_ev(v, s) for s in free), default=0.0) * min(v.rounds_left, HORIZON)
        best, best_a = 0.0, L.A_NO_HIRE
        for k in np.flatnonzero(mask[L.A_HIRE : L.A_NO_HIRE]):
            card, side = int(v.g[L.F_A_CARD + k]), int(v.g[L.F_A_SIDE + k])
            a = AS[card, side]
            val = a[A_VP] * v.vpc - a[A_COST] + prod
            if val > best:
                best, best_a = val, L.A_HIRE + int(k)
        return best_a

    def _place(self, v: _View, mask: np.ndarray) -> int:
        slots = [int(s) for s in np.flatnonzero(mask[L.A_PLACE : L.A_PLACE + L.MAX_SLOTS])]
        return L.A_PLACE + max(slots, key=lambda s: (self._assistant_ev(v, s), -s))


__all__ = ["HeuristicAgent"]
