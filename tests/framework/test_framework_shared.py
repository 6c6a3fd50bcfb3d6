"""The pieces both games share through the framework: layout ranges, the deck shuffle, the CSV table reader."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as omg_layout
from ohmygoods_env.artificium import layout as art_layout
from ohmygoods_env.framework.files import read_csv_table
from ohmygoods_env.framework.registry import Ranges
from ohmygoods_env.framework.rng import rand_below_at, seed_word, shuffle_at


def test_ranges_declare_consecutive_ranges_and_close_with_the_size_and_table() -> None:
    r = Ranges()
    assert (r("pass"), r("play card", 10), r("scaled", 2, 0.5)) == (0, 1, 11)
    end, table = r.close()
    assert end == 13
    assert table == (("pass", 0, 1), ("play card", 1, 10), ("scaled", 11, 2, 0.5))
    with pytest.raises(ValueError, match="size must be an int >= 0"):
        r("bad", -1)


@pytest.mark.parametrize("layout", [omg_layout, art_layout])
def test_each_layout_table_tiles_its_range_without_gaps(layout) -> None:
    for end, table in ((layout.N_ACTIONS, layout.ACTION_RANGES), (layout.STATE_LEN, layout.STATE_FIELDS)):
        offsets = [0] + [off + n for _, off, n in table]
        assert [off for _, off, _ in table] == offsets[:-1]
        assert offsets[-1] == end


def _row_with_generator(seed: int) -> np.ndarray:
    g = np.zeros(40, np.int32)
    seed_word(g, 0, np.int64(seed))
    return g


def test_shuffle_at_permutes_only_its_slice_with_the_given_generator() -> None:
    g = _row_with_generator(7)
    g[10:30] = np.arange(20)
    g[30:] = -5
    before = g.copy()
    shuffle_at(g, 10, 20, g, 0)
    assert sorted(g[10:30]) == list(range(20)) and list(g[10:30]) != list(range(20))
    assert (g[2:10] == before[2:10]).all() and (g[30:] == before[30:]).all()
    # the same draws as a hand-written Fisher-Yates with the same generator, on a separate array
    h = before.copy()
    a = np.arange(20)
    for i in range(19, 0, -1):
        j = rand_below_at(h, 0, i + 1)
        a[i], a[j] = a[j], a[i]
    assert list(a) == list(g[10:30])
    assert (h[:2] == g[:2]).all()  # the generator advanced by the same n - 1 draws
    other = np.arange(20)
    k = before.copy()
    shuffle_at(other, 0, 20, k, 0)
    assert list(other) == list(a)


def test_read_csv_table_raises_the_callers_error_naming_the_file(tmp_path) -> None:
    class TableError(ValueError):
        pass

    ok = tmp_path / "ok.csv"
    ok.write_text("\ufeffid,name\n0,a\n1,b\n", encoding="utf-8")
    assert read_csv_table(ok, ("id", "name"), TableError) == [{"id": "0", "name": "a"}, {"id": "1", "name": "b"}]
    cases = [
        ("id,nome\n0,a\n", r"missing column\(s\) \['name'\]"),
        ("id,name\n0,a,extra\n", "line 2 has 3 fields, the header has 2"),
    ]
    for text, words in cases:
        bad = tmp_path / "bad.csv"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(TableError, match=words) as exc:
            read_csv_table(bad, ("id", "name"), TableError)
        assert "bad.csv" in str(exc.value)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,name\n0,caf\xe9\n".encode("latin-1"))
    with pytest.raises(TableError, match="latin.csv: not UTF-8 text"):
        read_csv_table(latin, ("id", "name"), TableError)
    with pytest.raises(TableError, match="cannot read the deck"):
        read_csv_table(tmp_path / "missing.csv", ("id",), TableError, "the deck")
