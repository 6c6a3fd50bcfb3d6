"""Information states (redact) carry no hidden information; determinized worlds are consistent."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import Game, core
from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.infostate import _REDACT_ROWS, determinize, hidden_cards, redact, redact_rows, swap_cards
from ohmygoods_env.policy import info_states_of


def _info(g: Game, me: int) -> np.ndarray:
    out = np.zeros_like(g.state)
    redact(g.state, me, out)
    return out


def _games_at_random_points(n_games: int, seed: int):
    rng = np.random.default_rng(seed)
    for np_ in (2, 3, 4):
        for rules in ("omg2", "royal"):
            for i in range(n_games):
                g = Game(np_, rules, seed=1000 * np_ + i)
                stop = int(rng.integers(0, 300))
                for _ in range(stop):
                    if g.done:
                        break
                    g.step(int(rng.choice(g.legal_actions())))
                if not g.done:
                    yield g, rng


def _swap_cards(g: Game, a: int, b: int) -> None:
    swap_cards(g.state, a, b)


def test_redaction_ignores_opponent_hands_goods_and_deck_order():
    checked = 0
    for g, rng in _games_at_random_points(6, 1):
        me = g.current_player
        loc = g.state[L.F_LOC : L.F_LOC + L.N_CARDS]
        hidden = [
            c
            for c in range(L.N_CARDS)
            if loc[c] in (L.L_DECK, L.L_LIMBO)
            # goods, on a building or paid into the phase-II escrow: hidden unless shown in a chain (R3.2, R7.7)
            or ((loc[c] >= L.L_GOODS or loc[c] == L.L_ESCROW) and not core.is_shown(g.state, c))
            or (L.L_HAND <= loc[c] < L.L_HAND + L.MAX_PLAYERS and loc[c] != L.L_HAND + me)
            or (L.L_ASIDE <= loc[c] < L.L_ASIDE + L.MAX_PLAYERS and loc[c] != L.L_ASIDE + me)
        ]
        assert hidden == hidden_cards(g.state, me)  # the library's list agrees with this independent one
        if len(hidden) < 2:
            continue
        h = g.clone()
        for _ in range(5):
            a, b = rng.choice(hidden, 2, replace=False)
            _swap_cards(h, int(a), int(b))
        h.state[L.F_RNG] ^= 0x5A5A5A5
        assert h.check_invariants() == 0
        assert not np.array_equal(g.state, h.state)
        assert np.array_equal(_info(g, me), _info(h, me))
        checked += 1
    assert checked > 30


def test_redaction_changes_when_public_or_own_information_changes():
    g = Game(2, seed=5)
    me = g.current_player
    hand = g.hand(me)
    deck_card = int(g.state[L.F_DECK])
    h = g.clone()
    _swap_cards(h, hand[0], deck_card)  # my own hand is not hidden from me
    assert not np.array_equal(_info(g, me), _info(h, me))


def _play_to_phase2_second_decider(seed: int):
    g = Game(3, seed=seed)
    while not (g.phase == L.PH_P2 and g.state[L.F_TURN] == 1):
        g.step(g.legal_actions()[0])
    return g


@pytest.mark.parametrize("seed", range(4))
def test_redaction_hides_earlier_phase2_choices(seed):
    # the first decider of phase II chose differently in two games; the second decider's
    # information state must not tell them apart (R5.2)
    base = Game(3, seed=seed)
    while not (base.phase == L.PH_P2 and base.state[L.F_TURN] == 0 and base.decision == L.D_WORKER):
        base.step(base.legal_actions()[0])
    first = base.current_player
    variants = []
    for pick in (0, -1):
        g = base.clone()
        g.step(g.legal_actions()[pick])  # worker slot 0 efficient vs last slot sloppy
        while g.current_player == first:
            acts = g.legal_actions()
            g.step(acts[pick] if g.decision == L.D_ASIDE else acts[0])
        variants.append(g)
    me = variants[0].current_player
    assert variants[1].current_player == me
    assert not np.array_equal(variants[0].state, variants[1].state)
    assert np.array_equal(_info(variants[0], me), _info(variants[1], me))
    assert np.array_equal(variants[0].observe(me), variants[1].observe(me))


def test_determinized_worlds_are_consistent_and_look_the_same_to_me():
    n = 0
    for g, rng in _games_at_random_points(3, 2):
        me = g.current_player
        info = _info(g, me)
        worlds = set()
        for _ in range(3):
            d = np.zeros_like(g.state)
            determinize(info, g.cards.buildings, me, int(rng.integers(1, 1 << 31)), d)
            w = g.clone()
            w.state[:] = d
            assert w.check_invariants() == 0
            assert np.array_equal(w.observe(me), g.observe(me))
            assert np.array_equal(w.legal_mask(), g.legal_mask())
            worlds.add(d.tobytes())
            # the sampled world plays on to the end
            while not w.done:
                w.step(int(rng.choice(w.legal_actions())))
        n += 1
        assert len(worlds) >= 2 or g.state[L.F_DECK_N] <= 1
    assert n > 10


def test_swap_cards_rejects_bad_ids_and_changes_nothing():
    g = Game(2, seed=3)
    before = g.state.copy()
    for bad in (-1, L.N_CARDS):
        with pytest.raises(ValueError, match=r"card id .* expected 0\.\.93"):
            swap_cards(g.state, 0, bad)
    assert np.array_equal(before, g.state)
    assert hidden_cards(g.state, 0) != hidden_cards(g.state, 1)  # each seat's own hand is not hidden


def _phase2_move_twins(max_pairs: int):
    """Pairs of games that differ only in the first phase-II decider's undisclosed choices:
    one moved an assistant (and paid 2 coins, R5.3), the other did not. Yields (g, h, me) with
    ``me`` the next decider."""
    made = 0
    for seed in range(400):
        g = Game(2 + seed % 3, "omg2" if seed % 2 else "royal", seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done and g.round < 12:
            if g.decision == L.D_MOVE and g.state[L.F_TURN] + 1 < g.num_players:
                moves = [a for a in g.legal_actions() if L.A_MOVE <= a < L.A_MOVES_DONE]
                if moves:
                    break
            g.step(int(rng.choice(g.legal_actions())))
        else:
            continue
        first = g.current_player
        h = g.clone()
        g.step(L.A_MOVES_DONE)
        h.step(moves[0])
        for x in (g, h):  # finish the first decider's turn with the same policy
            while x.current_player == first and not x.done:
                acts = x.legal_actions()
                x.step(L.A_MOVES_DONE if L.A_MOVES_DONE in acts else acts[0])
        if g.done or h.done or g.current_player != h.current_player or g.phase != L.PH_P2:
            continue
        assert h.state[L.F_STEPS] != g.state[L.F_STEPS]  # the counter saw the hidden choice
        yield g, h, g.current_player
        made += 1
        if made >= max_pairs:
            return


def _swap_twins(max_pairs: int):
    made = 0
    for g, rng in _games_at_random_points(4, 7):
        me = g.current_player
        hidden = hidden_cards(g.state, me)
        if len(hidden) < 4 or len(g.legal_actions()) < 2:
            continue
        h = g.clone()
        for _ in range(4):
            a, b = rng.choice(hidden, 2, replace=False)
            swap_cards(h.state, int(a), int(b))
        h.state[L.F_RNG : L.F_RNG + 2] ^= 0x3C3C3C3
        yield g, h, me
        made += 1
        if made >= max_pairs:
            return


def test_r5_2_assistant_moves_and_payments_are_not_in_the_information_state():
    """#9.4: the decision counter and the payment purpose no longer reveal an opponent's moves."""
    n = 0
    for g, h, me in _phase2_move_twins(8):
        assert np.array_equal(_info(g, me), _info(h, me))
        assert np.array_equal(g.observe(me), h.observe(me))
        n += 1
    assert n >= 4


@pytest.mark.parametrize("kind", ["swap", "phase2"])
def test_every_agent_acts_identically_on_hidden_information_twins(kind):
    """#9.4: random, greedy, heuristic and MCTS choose the same action on positions that differ
    only in hidden cards, the RNG state, or an opponent's undisclosed phase-II choices."""
    from ohmygoods_agents import info_state_of, make_agent

    twins = list(_swap_twins(10) if kind == "swap" else _phase2_move_twins(8))
    assert len(twins) >= 4
    for g, h, me in twins:
        assert not np.array_equal(g.state, h.state)
        for name, opts in (("random", {}), ("greedy", {}), ("heuristic", {}), ("mcts", {"sims": 30})):
            acts = [
                make_agent(name, seed=3, **opts).act(x.observe(me), x.legal_mask(), info_state_of(x.state, me))
                for x in (g, h)
            ]
            assert acts[0] == acts[1], (name, kind)


def test_redact_rows_gives_each_rows_information_state_on_one_thread_or_many():
    """``redact_rows`` (``policy.info_states_of``): the acting seat's information state of each named game, as
    ``redact`` gives it row by row, from the serial and the parallel twin alike; rows as numpy reads them."""
    g, rng = BatchGames(300, 3, "omg2", seed=4), make_rng(300, 4)
    for _ in range(40):
        g.step(random_actions(g.masks(copy=False), rng))
        g.reset()
    rows = np.concatenate([np.random.default_rng(0).permutation(300), [-1, -300, 5, 5]])
    want = np.array([_info_row(g.state[i]) for i in rows])
    got = redact_rows(g.state, rows)
    assert got.dtype == np.int32 and np.array_equal(got, want)
    assert np.array_equal(info_states_of(g.state, rows), want)
    idx = np.arange(300)[rows]
    for kernel in (_REDACT_ROWS.twin.serial, _REDACT_ROWS.twin.parallel):
        out = np.zeros_like(want)
        kernel(g.state, idx, out)
        assert np.array_equal(out, want)
    assert redact_rows(g.state, np.zeros(0, np.int64)).shape == (0, L.STATE_LEN)
    keep = g.state.copy()
    with pytest.raises(IndexError, match="out of bounds"):
        redact_rows(g.state, np.array([0, 300]))
    assert np.array_equal(g.state, keep)


def _info_row(state_row: np.ndarray) -> np.ndarray:
    out = np.zeros_like(state_row)
    redact(state_row, int(state_row[L.F_CUR]), out)
    return out
