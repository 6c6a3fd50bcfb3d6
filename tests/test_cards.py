"""Card tables (R1.1, R1.2): the shipped data, malformed tables and a user-supplied assistant table."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.cards import (
    A_COST,
    A_REQ0,
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
    GOODS,
    KIND_EXTRA,
    KIND_OFFICE,
    KIND_PRODUCTION,
    RESOURCES,
    CardTableError,
    _data_path,
    default_cards,
    load_cards,
)
from ohmygoods_env.scenario import Scenario

DECK = _data_path("deck.csv")
CHARBURNERS = _data_path("charburners.csv")
ASSISTANTS = _data_path("assistants.csv")


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def _write(tmp_path: Path, name: str, header: list[str], rows: list[dict[str, str]]) -> Path:
    out = tmp_path / name
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return out


def _deck_with(tmp_path: Path, row: int, **changes: str) -> Path:
    header, rows = _rows(DECK)
    rows[row].update(changes)
    return _write(tmp_path, "deck.csv", header, rows)


# ---------------------------------------------------------------- shipped tables


def test_r1_1_shipped_tables_have_all_components():
    """R1.1: 94 deck cards, 4 Charburners, 8 assistant cards with sides A and B (+4 workers = 110)."""
    cards = default_cards()
    assert cards.buildings.shape[0] == 94 + 4
    assert cards.assistants.shape[:2] == (8, 2)
    assert len(cards.names) == 98 and cards.names[94:] == ("Charburner",) * 4
    assert 94 + 4 + 4 + 8 == 110
    assert (cards.assistants[:, :, A_COST] > 0).all() and (cards.assistants[:, :, A_VP] > 0).all()


def test_r1_2_deck_composition_26_wood_17_others_43_half_suns():
    """R1.2: the resource on each card's edge: 26 wood, 17 each of the others; 43 half-suns."""
    b = default_cards().buildings[:94]
    counts = {res: int((b[:, B_RES] == k).sum()) for k, res in enumerate(RESOURCES)}
    assert counts == {"grain": 17, "wood": 26, "clay": 17, "wool": 17, "stone": 17}
    assert int(b[:, B_SUN].sum()) == 43


def test_r1_4_building_kinds():
    """R1.4: production buildings (incl. 4 Glassmakers with any-N), Market Offices, Extra-card."""
    b = default_cards().buildings
    kinds = b[:94, B_KIND]
    assert int((kinds == KIND_OFFICE).sum()) == 14 and int((kinds == KIND_EXTRA).sum()) == 3
    glass = np.flatnonzero(b[:, B_NEED_ANY] > 0)
    assert glass.tolist() == [19, 20, 21, 22] and sorted(b[glass, B_NEED_ANY].tolist()) == [11, 11, 12, 12]
    assert (b[glass, B_CH_HAND] == -1).all() and (b[glass, B_CH_G1] == -1).all()  # no chain
    prod = kinds == KIND_PRODUCTION
    assert (b[:94][prod, B_GOOD] >= 0).all() and (b[:94][~prod, B_GOOD] == -1).all()
    assert (b[:94][kinds == KIND_OFFICE, B_OFFICE] >= 0).all()
    # Charburners: 2 of one resource + 1 wood -> coal (1 coin), chain: wood from hand
    cb = b[94:]
    assert (cb[:, B_NEED0 + RESOURCES.index("wood")] == 1).all()
    assert (cb[:, B_GOOD] == GOODS.index("coal")).all() and (cb[:, B_VALUE] == 1).all()
    assert (cb[:, B_CH_HAND] == RESOURCES.index("wood")).all()
    assert (cb[:, B_VP] == 0).all()  # assumption: no source gives a Charburner's VP


def test_shipped_examples_from_the_rulebook():
    """The cards the rulebook examples use carry the values the examples need."""
    b = default_cards().buildings
    brick = 60
    assert b[brick, B_CH_HAND] == RESOURCES.index("clay") and b[brick, B_CH_G1] == GOODS.index("coal")
    assert b[5, B_VALUE] == 3 and b[26, B_VALUE] == 2  # iron 3, flour 2 (R7.10)
    assert b[37, B_CH_G1] == GOODS.index("leather") and b[37, B_CH_G2] == -1  # shoes from leather
    assert b[52, B_COST] == 7


# ---------------------------------------------------------------- malformed tables


@pytest.mark.parametrize(
    "row,changes,field,expected",
    [
        (5, {"resource": "iron"}, "resource", "one of ['grain', 'wood', 'clay', 'wool', 'stone']"),
        (7, {"cost": "-3"}, "cost", "an integer in [1, 40]"),
        (8, {"cost": "0"}, "cost", "an integer in [1, 40]"),
        (9, {"cost": "seven"}, "cost", "an integer"),
        (10, {"good": "gold"}, "good", "one of ['coal'"),
        (11, {"chain": "hand:iron"}, "chain", "'hand:RESOURCE'"),
        (12, {"chain": "good:gold"}, "chain", "'hand:RESOURCE'"),
        (13, {"chain": "hand:wood+hand:clay"}, "chain", "one at most"),
        (14, {"chain": "good:coal+good:iron+good:glass"}, "chain", "at most two inputs"),
        (15, {"needs": "grain:x"}, "needs", "integer counts"),
        (16, {"needs": "grain:0"}, "needs", "counts between 1 and 20"),
        (17, {"needs": "gold:2"}, "needs", "resource names"),
        (18, {"needs": ""}, "needs", "'resource:count;...'"),
        (19, {"needs": "any:12;wood:1"}, "needs", "either 'any:N' alone"),
        (20, {"half_sun": "2"}, "half_sun", "an integer in [0, 1]"),
        (21, {"kind": "palace"}, "kind", "one of ['production', 'market_office', 'extra_card']"),
        (22, {"id": "99"}, "id", "an integer in [0, 93]"),
        (23, {"id": "24"}, "id", "23 (ids are 0..93 in order)"),
        (24, {"name": ""}, "name", "a non-empty text"),
        (77, {"office_resource": "gold"}, "office_resource", "one of"),
        (78, {"good": "coal"}, "good", "empty for a market_office card"),
        (26, {"office_resource": "wood"}, "office_resource", "empty for a production building"),
        (30, {"good_value": "0"}, "good_value", "an integer in [1, 20]"),
    ],
)
def test_malformed_deck_names_row_and_field(tmp_path, row, changes, field, expected):
    path = _deck_with(tmp_path, row, **changes)
    with pytest.raises(CardTableError) as info:
        load_cards(deck=path)
    msg = str(info.value)
    assert "deck.csv" in msg and f"row {row + 1} " in msg and f"field {field!r}" in msg, msg
    assert expected in msg, msg


def test_missing_column(tmp_path):
    header, rows = _rows(DECK)
    header.remove("chain")
    path = _write(tmp_path, "deck.csv", header, rows)
    with pytest.raises(CardTableError, match=r"missing column\(s\) \['chain'\]"):
        load_cards(deck=path)


@pytest.mark.parametrize("n", [93, 95, 0])
def test_wrong_row_count(tmp_path, n):
    header, rows = _rows(DECK)
    rows = (rows + [dict(rows[0], id="94")])[:n]
    path = _write(tmp_path, "deck.csv", header, rows)
    with pytest.raises(CardTableError, match=rf"{n} rows; expected 94 deck cards \(R1\.1\)"):
        load_cards(deck=path)


def test_strict_composition_check(tmp_path):
    """R1.2: strict loading checks 26/17 and 43 half-suns; strict=False accepts other decks."""
    path = _deck_with(tmp_path, 0, resource="grain")
    with pytest.raises(CardTableError, match=r"resource counts .*expected .*\(R1\.2\)"):
        load_cards(deck=path)
    cards = load_cards(deck=path, strict=False)
    assert cards.buildings[0, B_RES] == RESOURCES.index("grain")
    path = _deck_with(tmp_path, 0, half_sun="1")
    with pytest.raises(CardTableError, match=r"44 half-suns; expected 43"):
        load_cards(deck=path)


def test_unreadable_table(tmp_path):
    with pytest.raises(CardTableError, match="cannot read card table"):
        load_cards(deck=tmp_path / "nope.csv")


def test_malformed_charburners(tmp_path):
    header, rows = _rows(CHARBURNERS)
    rows[2]["good"] = "diamonds"
    path = _write(tmp_path, "cb.csv", header, rows)
    with pytest.raises(CardTableError, match=r"cb\.csv: row 3 \(id='2'\), field 'good' = 'diamonds'"):
        load_cards(charburners=path)


@pytest.mark.parametrize(
    "row,changes,pattern",
    [
        (3, {"side": "C"}, r"row 4 .*field 'side' = 'C': expected one of \['A', 'B'\]"),
        (4, {"requires_buildings": "charburner;gold"}, r"row 5 .*field 'requires_buildings'"),
        (5, {"cost": "-1"}, r"row 6 .*field 'cost' = '-1'"),
        (1, {"side": "A"}, r"row 2 .*field 'side' = 'A': expected each \(card, side\) pair once"),
        (6, {"card": "9"}, r"row 7 .*field 'card' = '9': expected an integer in \[1, 8\]"),
    ],
)
def test_malformed_assistants(tmp_path, row, changes, pattern):
    header, rows = _rows(ASSISTANTS)
    rows[row].update(changes)
    path = _write(tmp_path, "assistants.csv", header, rows)
    with pytest.raises(CardTableError, match=pattern):
        load_cards(assistants=path)


# ---------------------------------------------------------------- user-supplied assistants


def test_user_assistant_table_is_accepted_and_used(tmp_path):
    """A user-supplied assistant table replaces the reconstructed one, in the engine too."""
    header, rows = _rows(ASSISTANTS)
    for r in rows:
        r.update(cost="0", vp="9", requires_buildings="charburner", source="user table")
    path = _write(tmp_path, "assistants.csv", header, rows)
    cards = load_cards(assistants=path)
    assert (cards.assistants[:, :, A_COST] == 0).all() and (cards.assistants[:, :, A_VP] == 9).all()
    assert (cards.assistants[:, :, A_REQ0 + 5] == 1).all() and cards.assistant_sources[0] == "user table"
    g = Scenario(2, auto_forced=False, cards=cards).build("build", player=0)  # 0 coins, Charburner only
    assert g.decision == L.D_HIRE and set(g.legal_actions()) == {L.A_HIRE + k for k in range(4)} | {L.A_NO_HIRE}
    g.step(L.A_HIRE + 2)  # cost 0: no payment, straight to placement (forced choice shown)
    assert g.decision == L.D_PLACE
    g.step(L.A_PLACE + 0)
    assert g.scores()[0] == (9, 0)
    shipped = Scenario(2, auto_forced=False).build("build", player=0)
    assert shipped.decision != L.D_HIRE  # the shipped table's assistants cost coins


# ---------------------------------------------------------------- file encoding, CSV shape, cache


def test_non_utf8_file_names_the_file(tmp_path):
    path = tmp_path / "deck.csv"
    path.write_bytes(DECK.read_text(encoding="utf-8").replace("Bakery", "B\u00e4ckerei").encode("latin-1"))
    with pytest.raises(CardTableError, match=r"deck\.csv: not UTF-8 text \(byte \d+"):
        load_cards(deck=path)


def test_oversized_field_names_the_file(tmp_path):
    header, rows = _rows(DECK)
    rows[3]["name"] = "x" * (129 * 1024)
    path = _write(tmp_path, "deck.csv", header, rows)
    with pytest.raises(CardTableError, match=r"deck\.csv: malformed CSV \(.*field larger than field limit"):
        load_cards(deck=path)


def test_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "deck.csv"
    path.write_bytes(b"\xef\xbb\xbf" + DECK.read_bytes())
    cards = load_cards(deck=path)
    np.testing.assert_array_equal(cards.buildings, load_cards().buildings)


def test_extra_fields_in_a_row_are_an_error(tmp_path):
    lines = DECK.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5].rstrip("\r\n") + ",surplus\n"
    path = tmp_path / "deck.csv"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CardTableError, match=r"deck\.csv: line 6 has \d+ fields, the header has \d+"):
        load_cards(deck=path)


def test_cache_sees_edits_and_working_directory(tmp_path, monkeypatch):
    """R1.2 values read back after an edit in place, and a relative path under another working
    directory reads that directory's file."""
    import os
    import time

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    _deck_with(a, 0, vp="1")
    _deck_with(b, 0, vp="2")
    monkeypatch.chdir(a)
    first = load_cards(deck="deck.csv")
    assert first.buildings[0, B_VP] == 1
    monkeypatch.chdir(b)
    assert load_cards(deck="deck.csv").buildings[0, B_VP] == 2
    monkeypatch.chdir(a)
    assert load_cards(deck="deck.csv") is first  # unchanged file: the cached tables
    _deck_with(a, 0, vp="3")  # same size as before: only the modification time tells
    st = (a / "deck.csv").stat()
    os.utime(a / "deck.csv", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    time.sleep(0.01)
    assert load_cards(deck="deck.csv").buildings[0, B_VP] == 3
