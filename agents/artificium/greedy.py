"""A greedy *Artificium* player: the legal action with the best immediate gain, from the seat's observation.

Each legal action gets the change it makes at once to the seat's final score estimate (victory
points plus coins and resources at their sell value, 4 coins to a point, A8.2), in coins
(:class:`~.view.Economy`):

* **apply** a revealed building (A4.4, A7.1): its gain; a revealed action card: 0 (A6);
* **buy** (A4.6) an input of the revealed building: the building's gain when every missing input
  can be bought with the coins held (buying is then the first step of applying it); any
  other buy loses ``buy - sell`` coins; **sell**, **discard**, **take back**, **done**: 0;
* **choose a card** (A4.1): the gain of applying that card with the seat's resources and coins
  (0 for an action card or a building it cannot pay for);
* **market swap** (A3.2, A3.3): the taken card's choose value minus the given card's, minus the
  2 coins of a paid swap; pass and redraw (A3.4): 0;
* **Theft** (A6.2): the stolen resource's sell value minus its price; **Reconstruction** (A6.3):
  the gain of applying the returned card again; **Knight** (A7.4): 4 points off the target, a
  loss when the target is the seat itself; Scouting (A6.1), Mage discards (A7.3): 0 (the Mage
  discards the card of the lowest choose value first).

Ties go first to the action that ends the decision (apply, discard, done, pass before trades),
then are broken by the agent's own generator: the same seed gives the same game. It reads only
the observation and the mask (never an information set), so it cannot see hidden cards (A9.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import N_RES, N_TYPES, ArtTables
from ohmygoods_env.framework.checks import check_seed

from .view import VP_COINS, Economy, SeatView

__all__ = ["GreedyAgent"]

#: small preference that orders equal gains: ending the decision beats trading (no endless sell loops)
_PREFER = {L.A_APPLY: 3, L.A_DISCARD_CARD: 2, L.A_END_DONE: 2, L.A_MARKET_PASS: 2, L.A_TAKE_BACK: 1}


class GreedyAgent:
    """Best immediate gain per legal action (module docstring); ties broken by a seeded generator."""

    name = "greedy"
    needs_info_state = False
    needs_observation = True

    def __init__(self, seed: int | None = None, tables: ArtTables | None = None) -> None:
        self.economy = Economy(tables)
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart the tie-break generator (``None`` is seed 0: greedy play is reproducible by default)."""
        self._rng = np.random.default_rng(check_seed(0 if seed is None else seed))

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return self.act(observation, mask, info_state)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over, or is it not this seat's turn?)")
        v = SeatView.read(observation)
        values = np.array([self.value(v, int(a)) for a in legal], np.float64)
        prefer = np.array([_PREFER.get(int(a), 0) for a in legal], np.float64)
        key = values * 10.0 + prefer
        best = legal[key >= key.max() - 1e-9]
        return int(best[self._rng.integers(best.size)] if best.size > 1 else best[0])

    # ------------------------------------------------------------------ values (coins)
    def choose_value(self, v: SeatView, t: int) -> float:
        """Gain of applying card type ``t`` now with my resources and coins (0 if it cannot pay, A9.6)."""
        e = self.economy
        if not e.building[t]:
            return 0.0
        if e.cost_to_apply(t, v.res[0]) > e.liquid(v.res[0], int(v.coins[0]), e.inputs[t]):
            return 0.0
        return float(max(0, e.gain(t, v.res[0])))

    def value(self, v: SeatView, a: int) -> float:
        """Immediate gain of action ``a`` for the seat of ``v``, in coins (module docstring)."""
        e = self.economy
        me_res, me_coins = v.res[0], int(v.coins[0])
        card = int(v.revealed[0])
        if a == L.A_APPLY:
            return float(e.gain(card, me_res)) if card >= 0 and e.building[card] else 0.0
        if L.A_BUY <= a < L.A_BUY + N_RES:
            r = a - L.A_BUY
            if card >= 0 and e.building[card] and r in e.missing(card, me_res):
                if e.cost_to_apply(card, me_res) <= me_coins:
                    return float(e.gain(card, me_res))
            return float(e.sell[r] - e.buy[r])
        if L.A_PLAY <= a < L.A_PLAY + N_TYPES:
            return self.choose_value(v, a - L.A_PLAY)
        if L.A_SWAP <= a < L.A_SWAP + N_TYPES * N_TYPES:
            give, take = divmod(a - L.A_SWAP, N_TYPES)
            paid = L.SWAP_COST if v.swaps[0] > 0 else 0  # A3.3: the first swap is free
            return self.choose_value(v, take) - self.choose_value(v, give) - paid
        if L.A_THEFT <= a < L.A_THEFT + (L.MAX_PLAYERS - 1) * N_RES:
            r = (a - L.A_THEFT) % N_RES
            return float(e.sell[r] - e.tier[r])  # A6.2: tier I costs 1 coin, tier II 2
        if L.A_RECON <= a < L.A_RECON + N_TYPES:
            return self.choose_value(v, a - L.A_RECON)
        if L.A_KNIGHT <= a < L.A_KNIGHT + L.MAX_PLAYERS:
            off = a - L.A_KNIGHT
            steps = min(L.KNIGHT_STEPS, int(v.vp[off]))  # A9.4: a marker never goes below 0
            return float(-steps * VP_COINS if off == 0 else steps * VP_COINS / max(1, v.num_players - 1))
        if L.A_MAGE_DISCARD <= a < L.A_MAGE_DISCARD + N_TYPES:
            return -self.choose_value(v, a - L.A_MAGE_DISCARD)
        return 0.0
