"""The pipelined rollout (``--pipeline``): each player count's games in two tables, one table's network forward
in a second thread (the forward thread) while the league's seats and the engine step the other."""

from __future__ import annotations

import json
import math
import threading

import numpy as np
import pytest
import torch
from ohmygoods_training import fast_ppo
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig

pytestmark = pytest.mark.training

SMALL = {"players": 2, "num_envs": 9, "n_steps": 12, "minibatch": 64, "snapshot_every": 60, "seed": 3}
CONFIGS = {
    "ohmygoods": {
        **SMALL,
        "hidden": 16,
        "embed": 4,
        "prior": "heuristic",
        "shaping": 1,
        "league": "self:0.5,snapshot:0.3,random:0.1,greedy:0.1",
    },  # fmt: skip
    "artificium": {**SMALL, "game": "artificium", "hidden": 16, "league": "self:0.6,snapshot:0.3,random:0.1"},
}


def _rollouts(game: str, threaded: bool, precision: str = "float32", rounds: int = 3) -> list[dict]:
    """``rounds`` rollouts (a snapshot taken before the second) of a pipelined loop; ``threaded`` False runs
    the same two tables one after the other in this thread."""
    ppo = FastPPO(PPOConfig(**CONFIGS[game]), pipeline=True, precision=precision)
    if not threaded:
        ppo.rollout._forward_pool = lambda: None
    out = []
    try:
        for r in range(rounds):
            if r == 1:
                ppo.rollout.add_snapshot()
            b = ppo.rollout.collect(ppo.cfg.n_steps)
            out.append({k: v.clone() for k, v in b.items()})
    finally:
        ppo.close()
    return out


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_forward_thread_changes_nothing_but_where_the_forward_runs(game):
    """Launching a table's forward in the forward thread and stepping the other table meanwhile gives, sample for
    sample, the rollout of the same two tables played one after the other: every random draw (the sampler,
    the league's seats, the snapshot seats) comes in the same order."""
    threaded, inline = _rollouts(game, True), _rollouts(game, False)
    for a, b in zip(threaded, inline, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), key


def test_two_tables_per_count_with_their_own_deals():
    """Nine games per count: tables of 5 and 4, the second dealt from its own seed; samples name their game slot
    across both tables (``where``)."""
    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), pipeline=True)
    try:
        r = ppo.rollout
        assert [t.N for t in r.tables] == [5, 4] and [t.P for t in r.tables] == [2, 2]
        assert not np.array_equal(r.tables[0].engine.observe()[:4], r.tables[1].engine.observe())
        b = r.collect(ppo.cfg.n_steps)
        slots = set(b["where"][:, 0].tolist())
        assert slots <= set(range(9)) and any(s >= 5 for s in slots) and any(s < 5 for s in slots)
    finally:
        ppo.close()


def test_the_forward_runs_in_the_forward_thread():
    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), pipeline=True)
    seen: list[str] = []
    inner = ppo.rollout._act

    def spy(*args, **kwargs):
        seen.append(threading.current_thread().name)
        return inner(*args, **kwargs)

    ppo.rollout._act = spy
    try:
        ppo.rollout.collect(4)
    finally:
        ppo.close()
    assert len(seen) == 2 * 4  # two tables, four steps (the bootstrap values run in this thread, not here)
    assert all(name.startswith("forward") for name in seen)
    assert ppo.rollout._pool is None  # closed


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_pipelined_training_is_deterministic_with_finite_losses(game):
    def losses() -> list[tuple[float, ...]]:
        ppo = FastPPO(PPOConfig(**CONFIGS[game]), pipeline=True, precision="bfloat16")
        try:
            return [tuple(info[k] for k in ("pg_loss", "v_loss", "entropy", "samples")) for info in
                    (ppo.iterate() for _ in range(3))]  # fmt: skip
        finally:
            ppo.close()

    got = losses()
    assert all(math.isfinite(v) for row in got for v in row) and all(row[3] > 0 for row in got)
    assert losses() == got


def test_pipeline_with_overlap_and_the_gpu_copy_path():
    """The overlapped collector drives a pipelined rollout, and the copying path of a GPU (run on the CPU)
    keeps the same samples as the direct one."""
    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), pipeline=True, overlap=True)
    try:
        infos = [ppo.iterate() for _ in range(3)]
    finally:
        ppo.close()
    assert all(math.isfinite(i["pg_loss"]) for i in infos)
    direct, staged = (FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), pipeline=True) for _ in range(2))
    staged.rollout.staged = True
    try:
        a, b = direct.rollout.collect(8), staged.rollout.collect(8)
        for key in ("obs", "mask", "action", "logp", "adv", "ret"):
            assert torch.equal(a[key], b[key]), key
    finally:
        direct.close()
        staged.close()


def test_one_game_cannot_be_pipelined():
    with pytest.raises(ValueError, match="expected num_games >= 2, got 1"):
        FastPPO(PPOConfig(**{**CONFIGS["ohmygoods"], "num_envs": 1}), pipeline=True)


def test_the_cli_takes_pipeline_and_the_run_records_it(tmp_path):
    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "8", "--n-steps", "8", "--minibatch", "64", "--hidden", "16",
            "--embed", "4", "--total-steps", "200", "--eval-every", "100000", "--eval-games", "4",
            "--final-games", "0", "--no-progress", "--pipeline", "--out", str(out)]  # fmt: skip
    assert fast_ppo.main(argv) == 0
    assert json.loads((out / "run.json").read_text())["pipeline"] is True
    assert not [t for t in threading.enumerate() if t.name.startswith("forward")]
