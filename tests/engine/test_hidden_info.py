"""Hidden information (DESIGN: observations; R3.2, R5.2): a player's observation must not change
when only information hidden from that player changes.

Pairs of states are built that differ only in hidden information — an opponent's hand or
set-aside card swapped with a deck card, the deck order, which cards lie face down as goods,
an opponent's undisclosed phase-I or phase-II choices, cards discarded face down for the
empty-deck refill — and the observations are compared byte for byte. Each test also checks
that the change *is* visible to someone who may see it, so that it cannot pass vacuously.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import MILL, SAWMILL, Picker, legal, step_all

from ohmygoods_env import core
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game
from ohmygoods_env.infostate import swap_cards
from ohmygoods_env.scenario import Scenario


def _swap(g: Game, a: int, b: int) -> None:
    swap_cards(g.state, a, b)
    assert g.check_invariants() == 0


def _obs(g: Game, p: int) -> bytes:
    return g.observe(p).tobytes()


def _cards_at(g: Game, code: int) -> list[int]:
    return np.flatnonzero(g.state[L.F_LOC : L.F_LOC + L.N_CARDS] == code).tolist()


def _random_states(n_players: int, rules: str, count: int, seed: int):
    """States reached by random legal play (at decisions of every kind)."""
    rng = np.random.default_rng(seed)
    g = Game(n_players, rules=rules, seed=seed, auto_forced=False)
    out = []
    while len(out) < count:
        if g.done:
            g = Game(n_players, rules=rules, seed=int(rng.integers(1 << 30)), auto_forced=False)
        acts = g.legal_actions()
        g.step(int(rng.choice(acts)))
        if rng.random() < 0.05:
            out.append(g.clone())
    return out


@pytest.mark.parametrize("n,rules", [(2, "omg2"), (3, "royal"), (4, "omg2")])
def test_opponent_hand_and_set_aside_cards_are_hidden(n, rules):
    """Swapping an opponent's hand or set-aside card with a deck card changes nothing for p."""
    rng = np.random.default_rng(1)
    checked = 0
    for g in _random_states(n, rules, 40, seed=n):
        deck = _cards_at(g, L.L_DECK)
        if not deck:
            continue
        for q in range(n):
            for code in (L.L_HAND + q, L.L_ASIDE + q):
                mine = _cards_at(g, code)
                if not mine:
                    continue
                h = g.clone()
                _swap(h, int(rng.choice(mine)), int(rng.choice(deck)))
                for p in range(n):
                    assert (_obs(g, p) == _obs(h, p)) == (p != q)  # the owner sees the change
                    checked += 1
    assert checked > 50


@pytest.mark.parametrize("n,rules", [(2, "royal"), (3, "omg2"), (4, "royal")])
def test_deck_order_and_goods_identities_are_hidden(n, rules):
    """R3.2/R1.3: deck order and the identity of face-down goods are hidden from everyone."""
    rng = np.random.default_rng(2)
    for g in _random_states(n, rules, 30, seed=10 + n):
        h = g.clone()
        k = int(h.state[L.F_DECK_N])
        h.state[L.F_DECK : L.F_DECK + k] = rng.permutation(h.state[L.F_DECK : L.F_DECK + k])
        # goods stay hidden, except hand cards shown when fed into a chain (R3.2, R7.7)
        goods = [c for c in range(94) if g.state[L.F_LOC + c] >= L.L_GOODS and not core.is_shown(g.state, c)]
        deck = _cards_at(h, L.L_DECK)
        if goods and deck:
            _swap(h, int(rng.choice(goods)), int(rng.choice(deck)))
        assert h.check_invariants() == 0
        for p in range(n):
            assert _obs(g, p) == _obs(h, p)


def _phase2(first_opponent_choices):
    """Player 1 decides first in phase II; returns the game at player 0's first decision."""
    pk = Picker()
    hand1 = pk.take("clay", 2)
    g = (
        Scenario(2, auto_forced=False)
        .first_player(1)
        .buildings(1, [SAWMILL, MILL])
        .goods(1, [4, 0, 1])
        .assistant(1, 1, display=0)
        .hand(1, hand1)
        .hand(0, pk.take("grain", 2))
        .market(row1=pk.row(suns=2, stone=2))
        .build("phase2")
    )
    assert g.current_player == 1 and g.decision == L.D_MOVE
    first_opponent_choices(g, hand1)
    assert g.current_player == 0 and g.phase == L.PH_P2
    return g


PHASE2_CHOICES = {
    "nothing": lambda g, h: step_all(g, L.A_MOVES_DONE, L.A_WORKER + 0, L.A_ASIDE_NONE),
    "sloppy+aside": lambda g, h: step_all(g, L.A_MOVES_DONE, L.A_WORKER + 2 * 2 + 1, L.A_ASIDE + h[1]),
    "move+pay": lambda g, h: step_all(g, L.A_MOVE + 1 * 9 + 2, L.A_PAY + 2, L.A_WORKER + 2 * 1, L.A_ASIDE + h[0]),
    "move+pay coal": lambda g, h: step_all(g, L.A_MOVE + 1 * 9 + 0, L.A_PAY, L.A_PAY, L.A_WORKER + 3, L.A_ASIDE_NONE),
}


def test_r5_2_undisclosed_phase2_choices_are_hidden():
    """R5.2: an opponent who already moved+paid, placed the worker and set a card aside in this
    phase II looks exactly as at the start of phase II to the player deciding after them."""
    games = {name: _phase2(f) for name, f in PHASE2_CHOICES.items()}
    obs0 = {name: _obs(g, 0) for name, g in games.items()}
    assert len(set(obs0.values())) == 1
    # the owner sees their own choices
    assert len({_obs(g, 1) for g in games.values()}) == len(games)
    # and player 0 still sees nothing after their own choices, until the reveal
    for g in games.values():
        step_all(g, L.A_WORKER)
    assert len({_obs(g, 0) for g in games.values()}) == 1
    for g in games.values():
        step_all(g, L.A_ASIDE_NONE)
        assert g.phase == L.PH_P4
    # after the reveal (phase IV) the choices are public
    assert len({_obs(g, 0) for g in games.values()}) == len(games)


def test_r4_1_phase1_choice_is_hidden_until_resolved():
    """R4.1/R5.2: the first player's keep-or-discard choice is invisible to the next player."""
    pk = Picker()
    sc = Scenario(3, auto_forced=False).first_player(2)
    for p, res in enumerate(("grain", "clay", "wool")):
        sc.hand(p, pk.take(res, 3))
    g = sc.build("phase1")
    assert g.current_player == 2
    keep, toss = g.clone(), g.clone()
    step_all(keep, L.A_KEEP)
    step_all(toss, L.A_DISCARD_HAND)
    assert keep.current_player == toss.current_player == 0
    assert _obs(keep, 0) == _obs(toss, 0) and _obs(keep, 1) == _obs(toss, 1)
    step_all(keep, L.A_KEEP)
    step_all(toss, L.A_KEEP)
    assert keep.current_player == toss.current_player == 1
    assert _obs(keep, 1) == _obs(toss, 1)
    step_all(keep, L.A_KEEP)
    step_all(toss, L.A_KEEP)
    # resolved: the discarded hand lies face up on the discard pile for everyone (R3.2)
    assert all(_obs(keep, p) != _obs(toss, p) for p in range(3))


def test_r3_1_refill_discards_are_face_down():
    """R3.1: cards discarded for the new deck are face down: other players see only counts."""
    pk = Picker()
    hand0 = pk.take("wood", 4)
    hand1 = pk.take("grain", 2)
    g = Scenario(2, auto_forced=False).hand(0, hand0).hand(1, hand1).goods(0, [88]).build("sunrise")
    assert g.decision == L.D_REFILL and g.current_player == 0
    a, b = g.clone(), g.clone()
    step_all(a, L.A_REFILL + hand0[0], L.A_REFILL + hand0[1])
    step_all(b, L.A_REFILL + hand0[2], L.A_REFILL + hand0[3])
    assert a.current_player == b.current_player == 1 and a.decision == L.D_REFILL
    assert _obs(a, 1) == _obs(b, 1)
    assert _obs(a, 0) != _obs(b, 0)


def test_observation_ignores_rng_and_step_counter():
    """Future chance (the RNG word) and bookkeeping are not part of any observation."""
    g = Game(3, seed=9)
    h = g.clone()
    h.state[L.F_RNG] ^= 0x5A5A5A
    h.state[L.F_STEPS] += 17
    for p in range(3):
        assert _obs(g, p) == _obs(h, p)
    assert legal(g) == legal(h)
