"""Card facts (:mod:`ohmygoods_env.cardfacts`): every card id of the deck and the Charburners,
each fact checked against the shipped CSV tables read here independently of the loader."""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.cardfacts import card_facts, card_text, seat_card_facts
from ohmygoods_env.cards import N_BUILDING_CARDS, N_DECK
from ohmygoods_env.engine import Game
from ohmygoods_env.rules import EDITIONS


def _rows() -> list[dict[str, str]]:
    """The deck's rows, then the Charburners' (ids 94..97), as the CSV files hold them."""
    data = resources.files("ohmygoods_env") / "data"
    with (data / "deck.csv").open(encoding="utf-8-sig") as fh:
        deck = list(csv.DictReader(fh))
    with (data / "charburners.csv").open(encoding="utf-8-sig") as fh:
        charburners = list(csv.DictReader(fh))
    return deck + [{**r, "kind": "production", "colour": "charburner"} for r in charburners]


def _pairs(text: str) -> dict[str, int]:
    return {k: int(v) for k, _, v in (p.partition(":") for p in text.split(";") if p)}


@pytest.mark.parametrize("rules", EDITIONS)
def test_every_card_fact_matches_the_card_table(rules) -> None:
    cards = Game(2, rules, seed=0).cards
    rows = _rows()
    assert len(rows) == N_BUILDING_CARDS
    for c, row in enumerate(rows):
        f = card_facts(cards, c)
        deck = c < N_DECK
        assert (f["card"], f["name"], f["kind"], f["colour"]) == (c, row["name"], row["kind"], row["colour"])
        assert f["vp"] == int(row["vp"])
        assert f["cost"] == (int(row["cost"]) if deck else None)
        assert f["resource"] == (row["resource"] if deck else None)
        assert f["half_sun"] == (deck and row["half_sun"] == "1")
        assert f["office"] == (row.get("office_resource") or None)
        needs = _pairs(row.get("needs", ""))
        p = f["production"]
        if row["kind"] != "production":
            assert p is None and f["good"] is None and f["value"] is None and f["chain"] is None
        else:
            total = needs.get("any") or sum(needs.values())
            assert p["needs_any"] == needs.get("any", 0)
            assert p["needs"] == {k: v for k, v in needs.items() if k != "any"}
            assert p["efficient"] == {"resources": total, "goods": 2}  # R7.2
            assert p["sloppy"] == {"resources": total - 1, "goods": 1}
            assert (f["good"], f["value"]) == (row["good"], int(row["good_value"]))
            inputs = [part.partition(":") for part in row["chain"].split("+") if part]
            if not inputs:
                assert f["chain"] is None
            else:
                ch = f["chain"]
                assert ch["hand"] == next((n for src, _, n in inputs if src == "hand"), None)
                assert ch["goods"] == [n for src, _, n in inputs if src == "good"]
                assert (ch["output"], ch["makes"]) == (row["good"], 2 if len(inputs) == 2 else 1)  # R7.8
        text = card_text(cards, c)
        assert text == f["text"] and row["name"] in text and f"{row['vp']} VP" in text
        for word in [f["good"], f["resource"], f["office"], *(f["production"] or {}).get("needs", {})]:
            assert word is None or word in text


def test_a_card_id_outside_the_table_is_refused() -> None:
    cards = Game(2, seed=0).cards
    with pytest.raises(ValueError, match="card must be a card id in 0..97, got 98"):
        card_facts(cards, N_BUILDING_CARDS)
    with pytest.raises(TypeError, match="card must be an int"):
        card_facts(cards, "3")
    assert card_facts(cards, np.int64(5)) == card_facts(cards, 5)


def test_a_seat_gets_the_facts_of_its_own_cards_and_the_buildings_only() -> None:
    g = Game(3, seed=4)
    rng = np.random.default_rng(4)
    while g.phase != L.PH_P4 or int(g.state[L.F_ASIDE + 0]) < 0:  # play until seat 0 has set a card aside
        g.step(int(rng.choice(g.legal_actions())))
        if g.done:
            pytest.skip("no set-aside card in this deal")
    facts = seat_card_facts(g, 0)
    assert [f["card"] for f in facts["hand"]] == g.hand(0)
    assert facts["aside"]["card"] == int(g.state[L.F_ASIDE + 0])
    assert [[f["card"] for f in b] for b in facts["buildings"]] == [g.buildings(p) for p in range(3)]
    named = {f["card"] for f in facts["hand"]} | {facts["aside"]["card"]}
    assert not named & (set(g.hand(1)) | set(g.hand(2)))  # no opponent's hand card
