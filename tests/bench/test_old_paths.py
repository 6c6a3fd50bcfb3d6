"""The multi-agent benchmark's old import path still works, with a DeprecationWarning naming the new one."""

from __future__ import annotations

import importlib
import sys

import pytest

from ohmygoods_env.bench import marl


def test_envs_bench_marl_warns_and_reexports_the_bench_package(monkeypatch) -> None:
    monkeypatch.delitem(sys.modules, "ohmygoods_env.envs.bench_marl", raising=False)
    with pytest.warns(DeprecationWarning, match="moved to ohmygoods_env.bench.marl"):
        old = importlib.import_module("ohmygoods_env.envs.bench_marl")
    for name in old.__all__:
        assert getattr(old, name) is getattr(marl, name)


def test_the_multi_agent_rows_keep_their_shape() -> None:
    table = marl.rows(4, 2, 0.01)
    assert [r["name"] for r in table] == [
        "BatchGames.step + observe()",
        "BatchEnv (Pgx style)",
        "SeatVecEnv (SuperSuit convention, 4 x 2 rows)",
    ]
    assert all(r["batch"] == 4 and r["decisions_per_s"] > 0 and r["calls_per_s"] > 0 for r in table)
    assert table[0]["share"] == 1.0
