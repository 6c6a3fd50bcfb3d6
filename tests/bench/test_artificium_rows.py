"""The Artificium rows of ``ohmygoods bench``: one per player count, measured by the bench's one timer."""

from __future__ import annotations

import dataclasses

from ohmygoods_env.bench import suite
from ohmygoods_env.bench.artificium import PLAYERS, artificium_rows
from ohmygoods_env.framework import game as G


def test_one_row_per_player_count_with_whole_games_counted() -> None:
    rows = artificium_rows(0.0)
    assert [r.name for r in rows] == [f"artificium engine, random, {n}p" for n in PLAYERS]
    for r in rows:
        assert r.decisions > 0 and r.games > 0
        assert r.agent_steps == r.decisions  # every Artificium decision is asked
        # a random game of n players takes dozens of decisions: more decisions than games
        assert r.decisions > 20 * r.games


def test_the_suite_measures_artificium_next_to_oh_my_goods(monkeypatch) -> None:
    """Artificium's rows come from its tools (``GameTools.bench_rows``), after Oh my Goods!'s engine rows."""
    tools = G.game_tools("artificium")
    assert tools.bench_rows is not None
    monkeypatch.setitem(G._TOOLS, "artificium", dataclasses.replace(tools, bench_rows=lambda seconds: ["artificium"]))
    for name in ("bench_batch", "bench_vecenv", "bench_game", "bench_gym", "bench_aec"):
        monkeypatch.setattr(suite.engine, name, lambda *a, _n=name, **k: _n)
    monkeypatch.setattr(suite.marl, "table_rows", lambda *a, **k: [])
    monkeypatch.setattr(suite.forward, "forward_rows", lambda *a, **k: ["forward"])
    rows = suite.suite((1,), 0.0, with_anchors=False)
    assert rows[-2:] == ["artificium", "forward"] and rows.index("bench_aec") < rows.index("artificium")
