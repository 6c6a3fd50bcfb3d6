"""The card and board tables (A1.1-A1.3, A1.5, A7.2) and the loader's errors: every malformed table
names what is wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ohmygoods_env.artificium.cards import (
    EF_FAIR,
    KIND_ACTION,
    KIND_BUILDING,
    N_CARDS,
    RESOURCES,
    T_COUNT,
    T_EFFECT,
    T_KIND,
    T_VP,
    ArtTableError,
    data_path,
    default_tables,
    load_tables,
)


def test_A1_1_108_cards_20_actions_88_buildings():
    """A1.1"""
    t = default_tables()
    counts = t.types[:, T_COUNT]
    assert int(counts.sum()) == N_CARDS == len(t.card_type)
    assert int(counts[t.types[:, T_KIND] == KIND_ACTION].sum()) == 20
    assert int(counts[t.types[:, T_KIND] == KIND_BUILDING].sum()) == 88


def test_A1_2_action_cards_give_no_points():
    """A1.2"""
    t = default_tables()
    actions = t.types[t.types[:, T_KIND] == KIND_ACTION]
    assert (actions[:, T_VP] == 0).all() and (actions[:, T_EFFECT] <= EF_FAIR).all()


def test_A1_3_A7_2_buildings_score_and_have_inputs_or_outputs():
    """A1.3, A7.2"""
    t = default_tables()
    b = t.types[t.types[:, T_KIND] == KIND_BUILDING]
    assert (b[:, T_VP] > 0).all()


def test_A1_5_the_board_has_a_buy_sell_and_tier_per_resource():
    """A1.5: every resource has buy > sell >= 1 and a tier."""
    t = default_tables()
    assert t.board.shape == (len(RESOURCES), 3)
    assert (t.board[:, 0] > t.board[:, 1]).all() and (t.board[:, 1] >= 1).all() and (t.board[:, 2] >= 1).all()


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    c, b = tmp_path / "cards.csv", tmp_path / "board.csv"
    shutil.copy(data_path("cards.csv"), c)
    shutil.copy(data_path("board.csv"), b)
    return c, b


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


CARD_CASES = [
    ("0,Scouting,Разведка,action,5,", "0,Scouting,Разведка,action,five,", "'count' = 'five'"),
    ("0,Scouting,Разведка,action,5,", "0,Scouting,Разведка,action,4,", "add up to 107"),
    ("4,Sawmill,Лесопилка,building,8,1,,wood:2", "4,Sawmill,Лесопилка,building,8,1,,gold:2", "'output' = 'gold:2'"),
    ("4,Sawmill,Лесопилка,building,8,1,,wood:2", "4,Sawmill,Лесопилка,building,8,1,,wood:x", "resource:amount"),
    ("coal+crystal,potion", "coal+crystal+wood,potion", "at most two resources"),
    ("3,Fair,Ярмарка,action", "3,Fair,Ярмарка,tool", "'kind' = 'tool'"),
    (",0,fair", ",0,produce", "'effect' = 'produce'"),
    ("5,Farm,", "6,Farm,", "'id' = '6'"),
    ("effect\n", "effekt\n", "missing column(s) ['effect']"),
    (",0,scouting\n", ",0,scouting,extra\n", "fields, the header has"),
]


@pytest.mark.parametrize(("old", "new", "words"), CARD_CASES)
def test_a_malformed_card_table_names_the_problem(tmp_path, old, new, words):
    c, b = _copy(tmp_path)
    _edit(c, old, new)
    with pytest.raises(ArtTableError) as exc:
        load_tables(c, b)
    assert words in str(exc.value) and "cards.csv" in str(exc.value)


BOARD_CASES = [
    ("wood,Дерево,2,1,1", "wood,Дерево,1,1,1", "'buy' = '1'"),
    ("wood,Дерево,2,1,1", "wood,Дерево,2,0,1", "'sell' = '0'"),
    ("wood,Дерево,2,1,1", "wood,Дерево,2,1,9", "'tier' = '9'"),
    ("wood,Дерево", "timber,Дерево", "'resource' = 'timber'"),
    ("10;55", "10;155", "'track_cells' = '10;155'"),
    ("10;55", "5;55", "not already given to 'wood' (cell 5)"),
    ("sword,Меч,8,5,4,45;90\n", "", "8 rows"),
]


@pytest.mark.parametrize(("old", "new", "words"), BOARD_CASES)
def test_a_malformed_board_table_names_the_problem(tmp_path, old, new, words):
    c, b = _copy(tmp_path)
    _edit(b, old, new)
    with pytest.raises(ArtTableError) as exc:
        load_tables(c, b)
    assert words in str(exc.value) and "board.csv" in str(exc.value)


def test_unreadable_tables_are_named(tmp_path):
    c, b = _copy(tmp_path)
    with pytest.raises(ArtTableError, match="cannot read"):
        load_tables(tmp_path / "missing.csv", b)
    b.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ArtTableError, match="UTF-8"):
        load_tables(c, b)


def test_a_user_board_replaces_the_reconstruction(tmp_path):
    c, b = _copy(tmp_path)
    _edit(b, "wood,Дерево,2,1,1", "wood,Дерево,4,3,1")
    t = load_tables(c, b)
    assert t.board[RESOURCES.index("wood")].tolist() == [4, 3, 1]
