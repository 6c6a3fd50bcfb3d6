"""Hidden information (A9.2, A9.3): twin games that differ only in what a seat cannot see give that
seat identical observations and views; determinization keeps everything the seat has seen."""

from __future__ import annotations

import numpy as np
from art_helpers import TYPE, play, swap

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.infostate import hidden_cards
from ohmygoods_env.artificium.render import render_text
from ohmygoods_env.artificium.scenario import Scenario


def _twin(opp_hand: list[str]):
    s = Scenario(3).hand(0, [TYPE["Sawmill"], TYPE["Farm"]]).hand(1, [TYPE[n] for n in opp_hand])
    return s.hand(2, [TYPE["Fair"], TYPE["Farm"]]).build()


def test_A9_2_other_hands_are_not_in_the_observation_or_the_view():
    """A9.2: seat 0 and seat 2 see the same whatever seat 1 holds."""
    a, b = _twin(["Castle", "Castle"]), _twin(["Theft", "Mage tower"])
    for p in (0, 2):
        assert np.array_equal(a.observe(p), b.observe(p))
        assert render_text(a, p) == render_text(b, p)
    assert not np.array_equal(a.observe(1), b.observe(1))
    assert "Castle" not in render_text(a, 0) and "Castle" in render_text(a, 1)


def test_A9_2_a_face_down_choice_is_hidden_until_the_reveal():
    """A9.2, A4.1: seat 1's face-down card changes nothing for seats 0 and 2, masks included."""
    a, b = _twin(["Castle", "Theft"]), _twin(["Castle", "Theft"])
    a.step_player(1, play("Castle"))
    b.step_player(1, play("Theft"))
    for p in (0, 2):
        assert np.array_equal(a.observe(p), b.observe(p))
        assert np.array_equal(a.legal_mask(p), b.legal_mask(p))
        assert render_text(a, p) == render_text(b, p)
    assert render_text(a, None) == render_text(b, None)
    assert not np.array_equal(a.observe(1), b.observe(1))


def test_A9_2_the_deck_order_is_not_observed():
    """A9.2: permuting the deck changes no observation."""
    g = _twin(["Castle"])
    h = g.clone()
    n = int(h.state[L.F_DECK_N])
    h.state[L.F_DECK : L.F_DECK + n] = h.state[L.F_DECK : L.F_DECK + n][::-1]
    assert h.check_invariants() == 0
    for p in range(3):
        assert np.array_equal(g.observe(p), h.observe(p))


def test_A9_3_determinize_keeps_what_the_seat_has_seen():
    """A9.3: own hand, public places and known cards stay; hidden places keep their counts."""
    s = Scenario(3).market([TYPE["Castle"]] * 6).first_player(1)
    for p in range(3):
        s.hand(p, [TYPE["Farm"], TYPE["Sawmill"]])
    g = s.build(at="market")
    g.step(swap("Farm", "Castle"))  # seat 1 takes a Castle in view of all
    seen_castle = [c for c in g.hand(1) if g.tables.card_name(c) == "Castle"][0]
    obs = [g.observe(0).copy()]
    for seed in range(20):
        d = g.determinize(0, seed)
        assert d.check_invariants() == 0
        assert np.array_equal(d.observe(0), obs[0])
        assert d.hand(0) == g.hand(0) and seen_castle in d.hand(1)
        assert [len(d.hand(p)) for p in range(3)] == [len(g.hand(p)) for p in range(3)]
        assert d.cards_at(L.L_MARKET) == g.cards_at(L.L_MARKET)
    hands = {tuple(g.determinize(0, seed).hand(2)) for seed in range(20)}
    assert len(hands) > 1
    assert seen_castle not in hidden_cards(g.state, 0) and seen_castle not in hidden_cards(g.state, 2)


def test_A9_3_determinize_resamples_another_seat_s_face_down_card():
    """A9.3: the chosen card of seat 1 is not kept by a determinization for seat 0."""
    g = _twin(["Castle", "Theft"])
    g.step_player(1, play("Castle"))
    chosen = {
        g.determinize(0, seed).tables.card_name(int(g.determinize(0, seed).state[L.F_CHOSEN + 1])) for seed in range(30)
    }
    assert len(chosen) > 1
    d = g.determinize(1, 3)
    assert d.state[L.F_CHOSEN + 1] == g.state[L.F_CHOSEN + 1]  # a seat knows its own choice
    d.step_joint({p: d.legal_actions(p)[0] for p in d.pending_players()})
    assert d.check_invariants() == 0 and d.decision == L.D_RESOLVE


def test_A9_3_determinize_keeps_the_observation_throughout_random_games():
    """A9.3: at every step of random games, a determinization for the acting seat looks the same to it."""
    rng = np.random.default_rng(4)
    for seed in range(6):
        g = Game(2 + seed % 5, seed=seed)
        while not g.done:
            p = int(rng.choice(g.pending_players()))
            d = g.determinize(p, int(rng.integers(1 << 62)))
            assert d.check_invariants() == 0
            assert np.array_equal(d.observe(p), g.observe(p))
            assert np.array_equal(d.legal_mask(p), g.legal_mask(p))
            g.step_player(p, int(rng.choice(g.legal_actions(p))))
