"""The overlapped loop (``--overlap``): the next rollout is collected in a second thread while the update runs,
by a frozen copy of the network from before that update."""

from __future__ import annotations

import copy
import json
import math

import pytest
import torch
from ohmygoods_training import fast_ppo
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig, legal_index, legal_logits

pytestmark = pytest.mark.training

SMALL = {"players": 2, "num_envs": 8, "n_steps": 16, "minibatch": 64, "snapshot_every": 100, "seed": 0}
CONFIGS = {
    "ohmygoods": {**SMALL, "hidden": 16, "embed": 4, "league": "self:0.5,snapshot:0.3,random:0.1,greedy:0.1"},
    "artificium": {**SMALL, "game": "artificium", "hidden": 16, "league": "self:0.6,snapshot:0.3,random:0.1"},
}
KEYS = ("pg_loss", "v_loss", "entropy", "clip_frac", "samples")


def _losses(game: str, iters: int, overlap: bool) -> list[tuple[float, ...]]:
    ppo = FastPPO(PPOConfig(**CONFIGS[game]), overlap=overlap)
    try:
        return [tuple(info[k] for k in KEYS) for info in (ppo.iterate() for _ in range(iters))]
    finally:
        ppo.close()


def _logp(net: torch.nn.Module, batch: dict[str, torch.Tensor], players: int) -> torch.Tensor:
    """The log-probability of each sample's action under ``net`` (the rollout's computation, batched)."""
    with torch.no_grad():
        h = net.features(batch["obs"], seats=players)
        ids, valid = legal_index(batch["mask"])
        logp = torch.log_softmax(legal_logits(net.policy_logits(h, None), ids, valid), 1)
        pos = ((ids == batch["action"][:, None]) & valid).to(torch.int8).argmax(1)
        return logp.gather(1, pos[:, None]).squeeze(1)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_overlapped_loop_trains_with_finite_losses_and_is_deterministic(game):
    """Four iterations: every loss finite, samples in each; a second run with the same seed gives the same
    numbers (the collector draws from the rollout's own generators only). Its first iteration is the
    sequential loop's (rollout 0 by the initial network); the second differs: the sequential loop collects
    rollout 1 after the first update, the overlapped one during it."""
    got = _losses(game, 4, overlap=True)
    assert all(math.isfinite(v) for row in got for v in row[:4]) and all(row[4] > 0 for row in got)
    assert _losses(game, 4, overlap=True) == got
    seq = _losses(game, 2, overlap=False)
    assert got[0] == pytest.approx(seq[0], rel=1e-6)
    assert got[1] != pytest.approx(seq[1], rel=1e-6)


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_collector_plays_the_network_from_before_the_update_beside_it(game):
    """The rollout collected during an update stores the log-probabilities of the network before that update
    (its behaviour policy), not those of the updated one; and the rollout being updated on keeps its own
    observations while the next one is collected (two sets of buffers)."""
    cfg = PPOConfig(**CONFIGS[game])
    ppo = FastPPO(cfg, overlap=True)
    try:
        ppo.iterate()  # rollout 0 collected and updated on; rollout 1 collected beside that update
        before = copy.deepcopy(ppo.net)  # the network rollout 2 must be played by
        updating = ppo._pending[0]  # rollout 1: updated on in the next iteration while rollout 2 is collected
        stored_1 = updating["logp"].clone()
        ppo.iterate()
        after = ppo.net
        batch = ppo._pending[0]  # rollout 2, collected during that update
        lp_before, lp_after = _logp(before, batch, cfg.players), _logp(after, batch, cfg.players)
        assert torch.allclose(batch["logp"], lp_before, atol=1e-5)
        assert (batch["logp"] - lp_after).abs().max() > 1e-4  # the update moved the policy
        # rollout 1's observations were not overwritten by rollout 2's: its stored log-probabilities still
        # follow from them (under the network before the first update, which played it)
        assert updating["obs"].data_ptr() != batch["obs"].data_ptr()
        assert torch.equal(updating["logp"], stored_1)
    finally:
        ppo.close()


def test_the_first_iteration_plays_the_network_as_it_is_then():
    """A network changed after the loop was built (a warm start) is the one the first rollout plays."""
    cfg = PPOConfig(**CONFIGS["ohmygoods"])
    ppo = FastPPO(cfg, overlap=True)
    try:
        with torch.no_grad():
            for p in ppo.net.parameters():
                p.add_(0.05 * torch.randn_like(p))
        changed = copy.deepcopy(ppo.net)
        ppo.iterate()  # rollout 0 by the changed network, rollout 1 by it too (collected during update 0)
        batch = ppo._pending[0]
        assert torch.allclose(batch["logp"], _logp(changed, batch, cfg.players), atol=1e-5)
    finally:
        ppo.close()


def test_a_run_with_overlap_records_it(tmp_path):
    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "4", "--n-steps", "4", "--hidden", "8", "--embed", "2",
            "--total-steps", "40", "--eval-every", "40", "--eval-games", "2", "--eval-vs", "random",
            "--final-games", "0", "--device", "cpu", "--overlap", "--no-progress", "--out", str(out)]  # fmt: skip
    assert fast_ppo.main(argv) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["overlap"] is True and run["steps"] >= 40 and run["split_s"]["update"] > 0


def test_overlap_with_maskable_ppo_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys):
    """--overlap belongs to the one loop: refused with --algo maskable-ppo."""
    from ohmygoods_env.apps import train

    out = tmp_path / "run"
    code = train.main(["--algo", "maskable-ppo", "--total-steps", "100", "--overlap", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "drop --algo maskable-ppo" in err[0]
    assert not out.exists()


def test_the_overlapped_collector_on_the_copying_path_of_a_gpu_gives_the_same_numbers():
    """The copying path a GPU takes (device buffers each step's rows are copied into, two sets of them for the
    overlapped loop) runs on the CPU when a rollout is ``staged``: the same losses as the plain buffers."""
    plain = _losses("ohmygoods", 3, overlap=True)
    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), overlap=True)
    ppo.rollout.staged = True
    try:
        staged = [tuple(info[k] for k in KEYS) for info in (ppo.iterate() for _ in range(3))]
    finally:
        ppo.close()
    assert staged == plain


def test_the_collector_keeps_one_numba_thread_on_the_cpu():
    """On the CPU the update takes the cores: the collector thread's numba kernels run on one thread."""
    import numba

    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), overlap=True)
    try:
        assert ppo._collector.submit(numba.get_num_threads).result() == 1
        assert ppo._stream is None
    finally:
        ppo.close()


def test_the_bench_times_the_overlapped_loop_beside_the_sequential_one():
    from ohmygoods_training.bench_train import bench_fast, bench_selfplay, overlap_line

    small = {k: v for k, v in CONFIGS["ohmygoods"].items() if k not in ("players", "seed")}
    seq = bench_fast(2, iters=2, env_steps=5, **small)
    ovl = bench_fast(2, iters=2, env_steps=5, overlap=True, **small)
    assert ovl["overlap"] and ovl["end_to_end"] > 0 and ovl["rollout"] > 0 and ovl["update"] > 0
    assert ovl["split"]["update"] > 0 and ovl["split"]["forward"] > 0
    assert "overlapped:" in overlap_line(seq, ovl) and "x)" in overlap_line(seq, ovl)
    art = {k: v for k, v in CONFIGS["artificium"].items() if k not in ("players", "seed", "game")}
    r = bench_selfplay("artificium", 2, iters=2, env_steps=5, overlap=True, **art)
    assert r["overlap"] and r["end_to_end"] > 0
