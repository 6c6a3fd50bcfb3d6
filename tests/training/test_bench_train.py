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


def _check_split(r):
    """The time split of one iteration: every part measured, none negative, the parts inside the iteration."""
    from ohmygoods_training.fast_ppo import PARTS

    for sp in (r["split"], r["split_cpu"]):
        assert set(sp) == {*PARTS, "other", "total"}
        assert all(sp[k] >= 0 for k in PARTS) and sp["total"] > 0
        assert sp["forward"] > 0 and sp["update"] > 0
        measured = sum(sp[k] for k in PARTS)
        # the parts are sections inside the iteration: their sum is at most the iteration's time
        assert measured <= sp["total"] * 1.001 + 1e-4
        assert sp["other"] == pytest.approx(sp["total"] - measured)
    # in CPU time (a busy machine's preemptions do not count), the unattributed rest (league draws, rewards,
    # GAE, the timer's own reads) is a small share: the parts hold where the iteration's time goes
    cpu = r["split_cpu"]
    assert cpu["other"] <= 0.35 * cpu["total"] + 2e-3
    assert r["device"] == "cpu" and r["threads"] >= 1


@pytest.mark.training
def test_bench_train_says_where_the_time_goes_for_both_loops(capsys):
    from ohmygoods_training.bench_train import bench_selfplay, split_table

    tiny = {"num_envs": 8, "n_steps": 8, "hidden": 16, "embed": 4, "league": "self:0.6,random:0.4"}
    fast = bench_fast(2, iters=2, env_steps=3, **tiny)
    _check_split(fast)
    assert fast["split"]["opponents"] > 0  # the random seats
    art = bench_selfplay("artificium", 2, iters=2, env_steps=3, num_envs=8, n_steps=8, hidden=16)
    _check_split(art)
    assert art["split"]["prior"] == 0.0  # the framework loop has no prior
    goof = bench_selfplay("goofspiel", 3, iters=2, env_steps=3, num_envs=8, n_steps=8, hidden=16)
    _check_split(goof)  # every game that trains gets the same rows (Goofspiel: forward models in ModelBatch)
    for name, r in (("fast", fast), ("art", art)):
        text = split_table(name, r)
        for part in ("env", "copy", "forward", "prior", "opponents", "update", "other"):
            assert f"| {part} | " in text
        assert "device cpu" in text
    rows = table({"fast": fast})
    assert "| device | cpu |" in rows and f"| torch threads | {fast['threads']} |" in rows
    from ohmygoods_env import openmp_wait

    assert f"| idle OpenMP threads | {openmp_wait()} |" in rows  # how the numbers' threads waited


@pytest.mark.training
def test_bench_train_refuses_cuda_without_cuda_in_one_line(monkeypatch, capsys):
    import torch
    from ohmygoods_training.bench_train import main

    from ohmygoods_env.apps.bench import main as bench_main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["--device", "cuda", "--skip-shipped"]) == 2
    assert bench_main(["--train", "--device", "cuda", "--game", "artificium"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("--device cuda" in line and "no CUDA device" in line for line in err)


@pytest.mark.training
def test_openmp_wait_runs_each_wait_in_its_own_process(capsys):
    """``--openmp-wait passive,spin``: the same rows once per wait, each in a fresh process (libgomp reads how
    idle threads wait when it loads), side by side; each column's last row says how its threads waited."""
    from ohmygoods_training.bench_train import main

    from ohmygoods_env import SPIN_SETTING

    tiny = ["--skip-shipped", "--iters", "1", "--env-steps", "2", "--num-envs", "8", "--n-steps", "4",
            "--minibatch", "16", "--threads", "2"]  # fmt: skip
    assert main([*tiny, "--openmp-wait", "passive,spin", "--json"]) == 0
    import json

    results = json.loads(capsys.readouterr().out)
    assert list(results) == ["new default (fast_ppo) [passive]", "new default (fast_ppo) [spin]"]
    assert [r["openmp_wait"] for r in results.values()] == ["OMP_WAIT_POLICY=PASSIVE", SPIN_SETTING]
    assert all(r["end_to_end"] > 0 and r["samples"] > 0 for r in results.values())


def test_openmp_wait_refuses_an_unknown_wait_in_one_line(capsys):
    from ohmygoods_training.bench_train import main

    with pytest.raises(SystemExit) as exc:
        main(["--openmp-wait", "passive,busy"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "expected a comma-separated list of passive, spin, got 'passive,busy'" in err[-1]


@pytest.mark.parametrize(
    "spelled",
    [["--openmp-wait", "passive,spin"], ["--openmp-wait=passive,spin"], ["--op", "passive,spin"], ["--openmp=spin"]],
)
def test_openmp_wait_children_never_see_the_option(monkeypatch, spelled):
    """Each child run gets the command without ``--openmp-wait`` (and without ``--json``, which the parent adds),
    however it was spelled, a prefix argparse accepts included: a child that saw it would start children of
    its own, without end."""
    from ohmygoods_training import bench_train

    seen = []

    def record(argv, waits):
        seen.append((argv, waits))
        raise RuntimeError("recorded")

    monkeypatch.setattr(bench_train, "_compare_waits", record)
    assert bench_train.main(["--skip-shipped", "--iters", "3", *spelled, "--js", "--overlap"]) == 1
    ((argv, waits),) = seen
    assert argv == ["--skip-shipped", "--iters", "3", "--overlap"] and waits[-1] == "spin"
