"""The views of an *Artificium* position: the text view and the SVG picture (A9.2, A1.3, A7.2).

Card faces carry the facts of the card table (read from the tables, not written here); a seat's
view never draws another seat's hand or face-down card, the spectator's view draws no hand and
no face-down card; twins that differ only in hidden cards draw the same bytes.
"""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest
from art_helpers import TYPE, play

from ohmygoods_env.artificium import layout as L
from ohmygoods_env.artificium.cards import RESOURCES, T_COIN, T_IN0, T_IN1, T_OUT, T_OUT_N, T_VP
from ohmygoods_env.artificium.engine import Game
from ohmygoods_env.artificium.picture import card_facts, card_text, render_svg, svg_size, table_facts
from ohmygoods_env.artificium.render import render_text
from ohmygoods_env.artificium.scenario import Scenario


def _cards_of_seat(svg: str, seat: int) -> list[int]:
    """The card types drawn as faces inside seat ``seat``'s panel."""
    part = svg.split(f'<g class="seat" data-seat="{seat}">', 1)[1].split('<g class="seat"', 1)[0]
    return [int(t) for t in re.findall(r'<g class="card" data-type="(\d+)"', part)]


def _random_game(players: int, seed: int, moves: int) -> Game:
    g = Game(players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if g.done:
            break
        p = g.pending_players()[0]
        g.step_player(p, int(rng.choice(g.legal_actions(p))))
    return g


def test_A1_3_card_facts_are_the_card_table_row() -> None:
    """A1.3, A7.2: name, VP, inputs, coin and output of every type, as the table holds them."""
    g = Game(2, seed=0)
    t = g.tables
    for facts in table_facts(t):
        row = t.types[facts["type"]]
        assert facts["name"] == t.type_name(facts["type"]) and facts["vp"] == int(row[T_VP])
        assert facts["needs"] == [RESOURCES[int(r)] for r in (row[T_IN0], row[T_IN1]) if r >= 0]
        assert facts["coins"] == int(row[T_COIN])
        assert (facts["makes"] is None) == (facts["kind"] == "action" or facts["effect"] in ("mage", "knight"))
        if facts["makes"]:
            assert facts["makes"] == [RESOURCES[int(row[T_OUT])], int(row[T_OUT_N])]
            assert f"{facts['makes'][0]} x{facts['makes'][1]}" in facts["text"]
        else:
            assert facts["does"] and facts["does"] in facts["text"]
        assert card_text(facts) == facts["text"] and facts["name"] in facts["text"]
    with pytest.raises(ValueError, match="card_type"):
        card_facts(t, 16)


def test_A9_2_a_seat_sees_its_hand_as_faces_and_others_as_backs() -> None:
    """A9.2: the own hand is drawn face up with the table's facts; other hands are counted backs."""
    g = _random_game(3, 4, 12)
    svg = render_svg(g, 0)
    assert svg.startswith("<svg") and f'width="{svg_size(3)[0]}"' in svg
    own = _cards_of_seat(svg, 0)
    expected = sorted(int(g.tables.card_type[c]) for c in g.hand(0) + g.cards_at(L.L_CHOSEN))
    assert sorted(own) == sorted(t for t in expected if t in own) and len(own) >= len(g.hand(0))
    for c in g.hand(0):
        facts = card_facts(g.tables, int(g.tables.card_type[c]))
        group = svg.split(f'<g class="card" data-type="{facts["type"]}">', 1)[1].split("</g>", 1)[0]
        assert unescape(group.split("<title>", 1)[1].split("</title>", 1)[0]) == facts["text"]
        assert f"{facts['vp']} VP" in group
    for p in (1, 2):  # no face of another hand or face-down card: only revealed and played cards
        public = [int(g.tables.card_type[c]) for c in g.cards_at(L.L_REVEALED + p) + g.cards_at(L.L_PLAYED + p)]
        assert sorted(_cards_of_seat(svg, p)) == sorted(public)
        assert f"{len(g.hand(p))} cards" in svg
    spectator = render_svg(g, None)
    for p in range(3):
        public = [int(g.tables.card_type[c]) for c in g.cards_at(L.L_REVEALED + p) + g.cards_at(L.L_PLAYED + p)]
        assert sorted(_cards_of_seat(spectator, p)) == sorted(public)


def test_A9_2_twins_differing_in_hidden_cards_draw_the_same_picture() -> None:
    """A9.2, A4.1: another seat's hand and face-down card change neither its picture nor its text."""

    def twin(hand: list[str], chosen: str):
        s = Scenario(3).hand(0, [TYPE["Sawmill"], TYPE["Farm"]]).hand(1, [TYPE[n] for n in hand])
        g = s.hand(2, [TYPE["Fair"], TYPE["Farm"]]).build()
        g.step_player(1, play(chosen))
        return g

    a, b = twin(["Castle", "Theft"], "Castle"), twin(["Castle", "Theft"], "Theft")
    c = twin(["Mage tower", "Fair"], "Fair")
    for p in (0, 2, None):
        assert render_svg(a, p) == render_svg(b, p) == render_svg(c, p)
        assert render_text(a, p) == render_text(b, p) == render_text(c, p)
    assert render_svg(a, 1) != render_svg(b, 1)  # control: the seat itself sees the difference
    assert "a card (chosen)" in render_text(a, 0) and "chosen" in render_svg(a, 0)


def test_determinized_twins_draw_the_same_picture_along_a_game() -> None:
    """A9.2, A9.3: a world re-dealt for the viewer draws that viewer the same bytes, at every step."""
    checked = 0
    for seed in range(3):
        g = Game(3, seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done:
            me = int(rng.integers(3))
            twin = g.determinize(me, seed=int(rng.integers(1 << 30)))
            assert render_svg(twin, me) == render_svg(g, me) and render_text(twin, me) == render_text(g, me)
            checked += twin.full_state_view()["players"] != g.full_state_view()["players"]
            for _ in range(int(rng.integers(1, 12))):
                if g.done:
                    break
                p = g.pending_players()[0]
                g.step_player(p, int(rng.choice(g.legal_actions(p))))
    assert checked > 10  # control: the worlds really differed in hidden cards


def test_the_text_view_names_the_facts_of_a_position() -> None:
    """Round and phase, first player, deck and discard sizes, each seat's coins, score, resources and hand size."""
    g = _random_game(4, 2, 30)
    text = render_text(g, 2)
    assert f"round {g.round} of 4, {g.decision_name}" in text and f"first player: seat {g.first_player}" in text
    assert f"deck {int(g.state[L.F_DECK_N])} cards, discard {len(g.cards_at(L.L_DISCARD))}" in text
    for p in range(4):
        assert f"Seat {p}" in text and f"score {g.vp(p)}, {g.coins(p)} coins" in text
        assert f"hand ({len(g.hand(p))} cards)" in text
    with pytest.raises(ValueError, match="player"):
        render_text(g, 4)
    with pytest.raises(TypeError, match="artificium Game"):
        render_svg("not a game")
