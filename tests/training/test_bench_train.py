"""The training benchmark: both configurations give positive rates, the table names every measure."""

from __future__ import annotations

import pytest
from ohmygoods_training.bench_train import ROWS, bench_fast, table


@pytest.mark.training
def test_bench_fast_small_run_and_table():
    r = bench_fast(2, iters=1, env_steps=5, num_envs=8, n_steps=8, hidden=16, embed=4)
    for key, _ in ROWS:
        assert r[key] > 0
    assert r["samples"] > 0
    text = table({"a": r, "b": {**r, "end_to_end": 2 * r["end_to_end"]}})
    assert "| end to end (learner steps/s) |" in text
    assert "2.0x" in text  # the ratio column is b / a
    for _, label in ROWS:
        assert label in text


@pytest.mark.training
def test_training_rows_are_measured_by_the_one_timer(ticking_clocks):
    """On the bench timer's clocks, ticking one second per reading, every rate follows from the readings."""
    r = bench_fast(2, iters=2, env_steps=5, num_envs=8, n_steps=8, hidden=16, embed=4)
    assert r["env_only"] == 8.0  # 5 timed calls of 8 live games, one tick each
    assert r["rollout"] == r["update"] == r["samples"] / 2  # one tick per rollout and per update
    assert r["end_to_end"] == r["samples"] / 10  # an iteration spans 5 ticks
