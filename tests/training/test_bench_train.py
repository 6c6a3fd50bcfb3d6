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
