"""A rule-based *Artificium* player: plan the hand along the production chains, trade to complete buildings.

It reads only the seat's observation and mask (:class:`~.view.SeatView`), so it never sees
another seat's hand, a face-down card or the deck (A9.2). Values are in coins, 4 coins to a
victory point (the final sale, A8.2); applying a building is worth its points, plus its output
at the sell price, minus its inputs (owned: their sell value; missing: the buy price) and its
coin cost (:meth:`~.view.Economy.gain`, A4.6, A7.1-A7.4).

* **Hand plan** (:meth:`HeuristicAgent.plan`). The hand is played in chain order: buildings by
  depth (Sawmill and Farm first, whose wood and wheat feed the converters, then the mines, the
  Laboratory and Armoury, last the Mage tower and Castle, A7.2), Scouting and Theft before them,
  Reconstruction and Fair after (Fair pays 2 coins per card applied before it, A6.4). A building
  is applied when its value is positive and its missing inputs can be bought with the coins held
  plus the resources it does not need, sold (A4.6, A9.6); its output stays for the next card.
  The Mage tower adds the worth of two more cards (draw 5, discard 3, A7.3), the Castle 4 points
  taken from the leader, shared among the opponents (A7.4). Cards left over keep half their
  stand-alone value before round 4 (they stay in hand, A2.3) when the coins and resources left
  after the plan could pay for them, and nothing in round 4 (A8.1).
* **Market** (A3.2-A3.4): the swap that most improves the plan value (a paid swap spends 2 coins
  before the plan and costs their worth, A3.3), or a redraw when sampled hands from the unseen
  cards (composition only: every card not in my hand or the market) are worth clearly more than
  the hand, else pass.
* **Choose** (A4.1): the first card of the plan; when no card can be applied, the card worth
  least, to be dropped.
* **Resolve** (A4.4-A4.6): for a building worth applying, sell spare resources until the
  missing inputs are affordable, buy them one by one, apply. An action card is applied whenever
  it can be (A9.6). A card that cannot be applied is discarded (staying in, A4.5), or taken back
  when the rest of the hand can apply nothing and the card is worth keeping for a later round.
* **Targets**: Scouting the largest hand (A6.1), Theft the dearest resource I can pay for
  (tier I 1 coin, tier II 2, A6.2), Reconstruction the played building worth most again
  (A6.3, A9.7), the Knight the opponent with the most points (A7.4, A9.4), Mage discards the
  cards worth least (A7.3).
* **Round end** (A5.2): discard hand cards worth less than a random draw (the hand is refilled
  to 5, A2.3), sell nothing, done.

Ties are broken by the lowest action id; the seed drives only the sampled hands of the redraw
rule, so the same seed gives the same game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import (
    EF_FAIR,
    EF_KNIGHT,
    EF_MAGE,
    EF_RECONSTRUCTION,
    EF_SCOUTING,
    EF_THEFT,
    N_RES,
    N_TYPES,
    ArtTables,
)
from ohmygoods_env.framework.checks import check_seed

from .view import VP_COINS, Economy, SeatView

__all__ = ["HeuristicAgent"]


class HeuristicAgent:
    """The documented plan of the module docstring; ``samples`` hands estimate a redraw (A3.4)."""

    name = "heuristic"
    needs_info_state = False
    needs_observation = True

    def __init__(
        self, seed: int | None = None, tables: ArtTables | None = None, samples: int = 16, keep: float = 0.5
    ) -> None:
        self.economy = e = Economy(tables)
        self.samples = int(samples)
        self.keep = float(keep)
        self.seed(seed)
        built = e.building & (e.count > 0)
        weights = e.count[built] / e.count[built].sum()
        #: mean stand-alone value of a building card, weighted by the card counts (A1.1)
        self.mean_building = float((np.array([e.standalone(t) for t in np.flatnonzero(built)]) * weights).sum())
        #: stand-alone worth of the action cards (A6): a Scouting takes a card, a Fair pays for ~3 cards
        self.action_worth = {
            EF_SCOUTING: self.mean_building / 2,
            EF_THEFT: 1.0,
            EF_RECONSTRUCTION: self.mean_building / 3,
            EF_FAIR: 2.0 * 3,
        }

    def seed(self, seed: int | None = None) -> None:
        """Restart the generator of the sampled hands (``None`` is seed 0)."""
        self._rng = np.random.default_rng(check_seed(0 if seed is None else seed))

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return self.act(observation, mask, info_state)

    # ------------------------------------------------------------------ values
    def worth(self, t: int, v: SeatView) -> float:
        """Stand-alone worth of holding card type ``t`` (its value with my resources, inputs bought)."""
        e = self.economy
        if e.building[t]:
            return float(e.gain(t, v.res[0]) + self._bonus(t, v))
        return float(self.action_worth.get(int(e.effect[t]), 0.0))

    def _bonus(self, t: int, v: SeatView) -> float:
        e = self.economy
        if e.effect[t] == EF_MAGE:  # A7.3: 5 drawn, 3 discarded: two more cards
            return 2 * self.mean_building / 2
        if e.effect[t] == EF_KNIGHT:  # A7.4: 4 points off the leader, worth to me shared among opponents
            return L.KNIGHT_STEPS * VP_COINS / max(1, v.num_players - 1)
        return 0.0

    def _order_key(self, t: int) -> tuple[int, int]:
        e = self.economy
        if e.building[t]:
            return (int(e.level[t]) + 1, -int(e.vp[t]))
        eff = int(e.effect[t])
        return {EF_SCOUTING: (0, 0), EF_THEFT: (0, 1), EF_RECONSTRUCTION: (90, 0), EF_FAIR: (99, 0)}.get(eff, (50, 0))

    def plan(self, hand: np.ndarray, v: SeatView, spent: int = 0) -> tuple[float, list[int]]:
        """Value of playing ``hand`` (counts per type) this round in chain order, and the cards applied, in order;
        ``spent`` coins are paid first (a paid market swap, A3.3)."""
        e = self.economy
        res = v.res[0].copy()
        coins = int(v.coins[0]) - spent
        applied = int(v.played[0].sum())
        done: list[int] = [t for t in range(N_TYPES) if v.played[0, t] > 0 and e.building[t]]
        cards = sorted((t for t in range(N_TYPES) for _ in range(int(hand[t]))), key=self._order_key)
        total, order, left = 0.0, [], []
        others_res = v.res[1:]
        for t in cards:
            value = -1.0
            if e.building[t]:
                if e.cost_to_apply(t, res) <= e.liquid(res, coins, e.inputs[t]):
                    value = e.gain(t, res) + self._bonus(t, v)
                    if value > 0:
                        coins, res = self._pay(t, res, coins)
                        done.append(t)
            else:
                eff = int(e.effect[t])
                if eff == EF_FAIR:
                    value = 2.0 * applied  # A6.4
                elif eff == EF_THEFT:
                    value = max(
                        (
                            float(e.buy[r] - e.tier[r])
                            for r in range(N_RES)
                            if e.tier[r] <= L.THEFT_MAX_TIER and coins >= e.tier[r] and others_res[:, r].any()
                        ),
                        default=-1.0,
                    )
                    if value > 0:
                        coins -= 1
                elif eff == EF_SCOUTING:
                    value = self.action_worth[EF_SCOUTING] if v.hand_size[1:].any() else -1.0
                elif eff == EF_RECONSTRUCTION:
                    value = max(
                        (
                            float(e.gain(u, res))
                            for u in done
                            if e.cost_to_apply(u, res) <= e.liquid(res, coins, e.inputs[u])
                        ),
                        default=-1.0,
                    )
            if value > 0:
                total += value
                order.append(t)
                applied += 1
            else:
                left.append(t)
        if v.round < L.ROUNDS:  # a card kept for a later round counts when what is left could pay for it
            total += self.keep * sum(
                max(0.0, self.worth(t, v))
                for t in left
                if not e.building[t] or e.cost_to_apply(t, res) <= e.liquid(res, coins, e.inputs[t])
            )
        return total, order

    def _pay(self, t: int, res: np.ndarray, coins: int) -> tuple[int, np.ndarray]:
        """Coins and resources after applying building ``t``: spare resources sold if coins run short (A4.6)."""
        e = self.economy
        res = res.copy()
        for r in e.missing(t, res):
            coins -= int(e.buy[r])
            res[r] += 1
        coins -= int(e.coin[t])
        for r in e.inputs[t]:
            res[r] -= 1
        while coins < 0 and res.any():
            r = int(np.argmax(np.where(res > 0, e.sell, -1)))
            res[r] -= 1
            coins += int(e.sell[r])
        if e.out_n[t] > 0:
            res[e.out[t]] += e.out_n[t]
        return coins, res

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        m = np.asarray(mask)
        legal = np.flatnonzero(m)
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over, or is it not this seat's turn?)")
        v = SeatView.read(observation)
        rule = {
            L.D_MARKET: self._market,
            L.D_CHOOSE: self._choose,
            L.D_RESOLVE: self._resolve,
            L.D_SCOUT: self._scout,
            L.D_THEFT: self._theft,
            L.D_RECON: self._recon,
            L.D_KNIGHT: self._knight,
            L.D_MAGE: self._mage,
            L.D_ROUND_END: self._round_end,
        }.get(v.decision)
        a = rule(v, m) if rule is not None else None
        return int(a) if a is not None and m[a] else int(legal[0])

    def _market(self, v: SeatView, m: np.ndarray) -> int:
        base, _ = self.plan(v.hand, v)
        best, best_value = L.A_MARKET_PASS, base + 0.5  # a swap must gain something clear
        paid = L.SWAP_COST if v.swaps[0] > 0 else 0  # A3.3
        for a in np.flatnonzero(m[L.A_SWAP : L.A_SWAP + N_TYPES * N_TYPES]):
            give, take = divmod(int(a), N_TYPES)
            hand = v.hand.copy()
            hand[give] -= 1
            hand[take] += 1
            value = self.plan(hand, v, paid)[0] - paid
            if value > best_value:
                best, best_value = L.A_SWAP + int(a), value
        if m[L.A_REDRAW] and self.samples > 0:
            redraw = self._redraw_value(v)
            if redraw > max(best_value, base + 3.0):
                best = L.A_REDRAW
        return best

    def _redraw_value(self, v: SeatView) -> float:
        """Mean plan value of 5 cards drawn from the unseen cards (A3.4; composition only, never the order)."""
        e = self.economy
        unseen = np.maximum(0, e.count - v.hand - v.market - v.played.sum(axis=0))
        pool = np.repeat(np.arange(N_TYPES), unseen)
        if pool.size < L.HAND_TARGET:
            return -np.inf
        values = []
        for _ in range(self.samples):
            hand = np.bincount(self._rng.choice(pool, L.HAND_TARGET, replace=False), minlength=N_TYPES)
            values.append(self.plan(hand, v)[0])
        return float(np.mean(values))

    def _choose(self, v: SeatView, m: np.ndarray) -> int | None:
        _, order = self.plan(v.hand, v)
        for t in order:
            if m[L.A_PLAY + t]:
                return L.A_PLAY + t
        held = [t for t in range(N_TYPES) if m[L.A_PLAY + t]]
        return L.A_PLAY + min(held, key=lambda t: (self.worth(t, v), t)) if held else None

    def _resolve(self, v: SeatView, m: np.ndarray) -> int | None:
        e = self.economy
        t = int(v.revealed[0])
        if t < 0:
            return None
        res, coins = v.res[0], int(v.coins[0])
        if e.building[t]:
            cost = e.cost_to_apply(t, res)
            if cost <= e.liquid(res, coins, e.inputs[t]) and e.gain(t, res) + self._bonus(t, v) > 0:
                if m[L.A_APPLY]:
                    return L.A_APPLY
                if coins < cost:
                    r = self._spare_to_sell(t, v, m)
                    if r is not None:
                        return L.A_SELL + r
                for r in e.missing(t, res):
                    if m[L.A_BUY + r]:
                        return L.A_BUY + r
        elif m[L.A_APPLY]:
            return L.A_APPLY  # A9.6: an action card is applied whenever it can be
        rest, _ = self.plan(v.hand, v)
        if v.round < L.ROUNDS and m[L.A_TAKE_BACK] and not self.plan(v.hand, v)[1]:
            if self.worth(t, v) > self.mean_building / 2 or not v.hand.any():
                return L.A_TAKE_BACK  # A4.5: keep the card for a later round
        return L.A_DISCARD_CARD if m[L.A_DISCARD_CARD] else L.A_TAKE_BACK

    def _spare_to_sell(self, t: int, v: SeatView, m: np.ndarray) -> int | None:
        """A resource to sell for building ``t``: not its own input, not one the hand needs, dearest first."""
        e = self.economy
        spare = v.res[0].copy()
        for r in e.inputs[t]:
            spare[r] -= 1
        wanted = {r for u in range(N_TYPES) if v.hand[u] and e.building[u] for r in e.inputs[u]}
        ok = [r for r in range(N_RES) if spare[r] > 0 and m[L.A_SELL + r]]
        if not ok:
            return None
        return max(ok, key=lambda r: (r not in wanted, int(e.sell[r]), -r))

    def _scout(self, v: SeatView, m: np.ndarray) -> int | None:
        offs = [k for k in range(1, v.num_players) if m[L.A_SCOUT + k - 1]]
        return L.A_SCOUT + max(offs, key=lambda k: (int(v.hand_size[k]), int(v.vp[k]), -k)) - 1 if offs else None

    def _theft(self, v: SeatView, m: np.ndarray) -> int | None:
        e = self.economy
        wanted = {r for u in range(N_TYPES) if v.hand[u] and e.building[u] for r in e.inputs[u]}
        legal = [int(a) for a in np.flatnonzero(m[L.A_THEFT : L.A_THEFT + (L.MAX_PLAYERS - 1) * N_RES])]

        def key(a: int) -> tuple:
            k, r = divmod(a, N_RES)
            return (float(e.buy[r] - e.tier[r]) + (e.buy[r] if r in wanted else 0), int(v.vp[k + 1]), -a)

        return L.A_THEFT + max(legal, key=key) if legal else None

    def _recon(self, v: SeatView, m: np.ndarray) -> int | None:
        legal = [t for t in range(N_TYPES) if m[L.A_RECON + t]]
        return L.A_RECON + max(legal, key=lambda t: (self.worth(t, v), -t)) if legal else None

    def _knight(self, v: SeatView, m: np.ndarray) -> int | None:
        others = [k for k in range(1, v.num_players) if m[L.A_KNIGHT + k]]
        return L.A_KNIGHT + max(others, key=lambda k: (int(v.vp[k]), -k)) if others else None

    def _mage(self, v: SeatView, m: np.ndarray) -> int | None:
        legal = [t for t in range(N_TYPES) if m[L.A_MAGE_DISCARD + t]]
        return L.A_MAGE_DISCARD + min(legal, key=lambda t: (self.worth(t, v), t)) if legal else None

    def _round_end(self, v: SeatView, m: np.ndarray) -> int:
        legal = [t for t in range(N_TYPES) if m[L.A_END_DISCARD + t]]
        if legal:
            t = min(legal, key=lambda u: (self.worth(u, v), u))
            if self.worth(t, v) < self.mean_building * 0.75:  # a fresh draw is worth more (A2.3)
                return L.A_END_DISCARD + t
        return L.A_END_DONE
