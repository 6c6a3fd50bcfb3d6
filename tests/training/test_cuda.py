"""The one loop on a CUDA GPU (skipped where torch sees none): the same samples as on the CPU, the overlapped
loop with the collector on its own stream and every numba thread, and the benchmark's rows.

On a machine without CUDA the GPU's copying path still runs (``staged`` rollouts, tests/training/test_device.py
and test_overlap.py); these tests run where a GPU is, e.g. ``python -m pytest tests/training/test_cuda.py``.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig, legal_index, legal_logits

pytestmark = [
    pytest.mark.training,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch sees none here)"),
]

SMALL = {"players": 2, "num_envs": 8, "n_steps": 16, "minibatch": 64, "snapshot_every": 100, "seed": 0,
         "hidden": 16, "embed": 4, "league": "self:0.5,snapshot:0.3,random:0.1,greedy:0.1"}  # fmt: skip
KEYS = ("pg_loss", "v_loss", "entropy", "clip_frac", "samples")


def _run(device: str, iters: int, **kw) -> tuple[list[tuple[float, ...]], FastPPO]:
    ppo = FastPPO(PPOConfig(**SMALL), device=device, **kw)
    try:
        return [tuple(info[k] for k in KEYS) for info in (ppo.iterate() for _ in range(iters))], ppo
    finally:
        ppo.close()


def test_the_gpu_rollout_collects_the_cpus_samples():
    """Actions are sampled on the host with the rollout's generator: the GPU's first rollout has the CPU's
    samples (counts and actions) and its losses agree to float32 rounding."""
    cpu, a = _run("cpu", 1)
    gpu, b = _run("cuda", 1)
    assert gpu[0][4] == cpu[0][4]
    assert gpu[0][:4] == pytest.approx(cpu[0][:4], rel=1e-3, abs=1e-6)
    assert next(b.net.parameters()).device.type == "cuda"


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_overlapped_loop_on_the_gpu_trains_with_finite_losses(precision):
    got, ppo = _run("cuda", 4, overlap=True, precision=precision)
    assert all(math.isfinite(v) for row in got for v in row[:4]) and all(row[4] > 0 for row in got)
    assert ppo._stream is not None


def test_the_gpu_collector_plays_the_network_from_before_the_update_and_keeps_every_numba_thread():
    import numba

    ppo = FastPPO(PPOConfig(**SMALL), device="cuda", overlap=True)
    try:
        assert ppo._collector.submit(numba.get_num_threads).result() == numba.get_num_threads()
        ppo.iterate()
        before = copy.deepcopy(ppo.net)
        ppo.iterate()
        batch = ppo._pending[0]  # collected on the collector's stream during the second update
        with torch.no_grad():
            h = before.features(batch["obs"], seats=2)
            ids, valid = legal_index(batch["mask"])
            logp = torch.log_softmax(legal_logits(before.policy_logits(h, None), ids, valid), 1)
            pos = ((ids == batch["action"][:, None]) & valid).to(torch.int8).argmax(1)
            lp = logp.gather(1, pos[:, None]).squeeze(1)
        assert batch["obs"].device.type == "cuda"
        assert torch.allclose(batch["logp"], lp, atol=1e-4)
    finally:
        ppo.close()


def test_the_benchmark_times_the_gpu_loop():
    from ohmygoods_training.bench_train import bench_fast, bench_selfplay

    small = {k: v for k, v in SMALL.items() if k not in ("players", "seed")}
    for overlap in (False, True):
        r = bench_fast(2, iters=2, env_steps=5, device="cuda", overlap=overlap, **small)
        assert r["device"].startswith("cuda") and r["end_to_end"] > 0 and r["split"]["forward"] > 0
    art = {k: v for k, v in small.items() if k != "embed"}
    r = bench_selfplay("artificium", 2, iters=2, env_steps=5, device="cuda", overlap=True, **art)
    assert r["end_to_end"] > 0


def test_league_snapshots_of_a_gpu_run_answer_their_seats_on_the_gpu():
    """A snapshot of a GPU run stays on the GPU (its seats' batch copied there, the logits back): it plays
    the seats the league gives it, the same actions as its copy on the host would sample."""
    ppo = FastPPO(PPOConfig(**SMALL), device="cuda")
    try:
        ppo.rollout.add_snapshot()
        _, policy = ppo.rollout.opponents[ppo.rollout.snapshots[-1]]
        assert next(policy.agent.net.parameters()).device.type == "cuda"
        g = ppo.rollout.games
        rows = np.arange(g.num_games)
        obs, masks = g.observe(rows=rows), g.masks(copy=False)[rows]
        on_gpu = policy.agent.logits(obs, masks)
        host = copy.deepcopy(policy.agent)
        host.net = host.net.to("cpu")
        assert on_gpu.device.type == "cpu"
        assert torch.allclose(on_gpu, host.logits(obs, masks), atol=1e-4)
        ppo.iterate()  # the snapshot's seats answered during a rollout
    finally:
        ppo.close()
