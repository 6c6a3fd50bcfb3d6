"""Mixed precision in the one loop (``--precision``): the network's forwards and update in bfloat16 under
autocast, weights, optimizer and loss in float32; float32 leaves the loop as it was."""

from __future__ import annotations

import json
import math
import threading

import pytest
import torch
from ohmygoods_training import fast_ppo
from ohmygoods_training.fast_ppo import (
    FastPPO,
    InputError,
    PPOConfig,
    bucket,
    legal_index,
    legal_logits,
    resolve_precision,
)

pytestmark = pytest.mark.training

SMALL = {"players": 2, "num_envs": 8, "n_steps": 16, "minibatch": 64, "snapshot_every": 100, "seed": 0}
CONFIGS = {
    "ohmygoods": {**SMALL, "hidden": 16, "embed": 4, "prior": "heuristic", "league": "self:0.7,snapshot:0.3"},
    "artificium": {**SMALL, "game": "artificium", "hidden": 16, "league": "self:0.6,snapshot:0.3,random:0.1"},
}
CPU = torch.device("cpu")


def test_precision_names_resolve_and_a_wrong_one_names_the_choices():
    assert resolve_precision("float32", CPU) is torch.float32
    assert resolve_precision("bfloat16", CPU) is torch.bfloat16
    assert resolve_precision(torch.bfloat16, CPU) is torch.bfloat16
    auto = resolve_precision("auto", CPU)
    assert auto is (torch.bfloat16 if fast_ppo.native_bfloat16(CPU) else torch.float32)
    with pytest.raises(InputError, match=r"--precision half: expected one of auto, float32, bfloat16"):
        resolve_precision("half", CPU)


def test_auto_follows_the_hardware_check(monkeypatch):
    monkeypatch.setattr(fast_ppo, "native_bfloat16", lambda device: False)
    assert resolve_precision("auto", CPU) is torch.float32
    monkeypatch.setattr(fast_ppo, "native_bfloat16", lambda device: True)
    assert resolve_precision("auto", CPU) is torch.bfloat16


def test_buckets_hold_every_count_with_little_padding():
    """Every count fits its bucket, a bucket wastes at most an eighth (or one 64-row bucket), and the counts of
    a rollout or a minibatch fall into few buckets (oneDNN prepares its bfloat16 kernels once per shape)."""
    for n in range(1, 20_000):
        b = bucket(n)
        assert b >= n and b % 64 == 0
        assert b - n < max(64, n / 8 + 1)
    assert len({bucket(n) for n in range(3_000, 4_500)}) <= 8
    assert len({bucket(n) for n in range(1, 257)}) == 4


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_bfloat16_trains_with_float32_weights_and_finite_losses(game):
    """Three iterations in bfloat16: finite losses, weights and Adam's state still float32, and the same
    numbers again for the same seed."""

    def run() -> list[tuple[float, ...]]:
        ppo = FastPPO(PPOConfig(**CONFIGS[game]), precision="bfloat16")
        assert ppo.dtype is torch.bfloat16 and ppo.rollout.dtype is torch.bfloat16
        rows = [tuple(info[k] for k in ("pg_loss", "v_loss", "entropy", "samples")) for info in
                (ppo.iterate() for _ in range(3))]  # fmt: skip
        assert all(p.dtype == torch.float32 for p in ppo.net.parameters())
        assert all(v.dtype == torch.float32 for s in ppo.opt.state.values() for v in s.values() if v.dim())
        return rows

    got = run()
    assert all(math.isfinite(v) for row in got for v in row)
    assert run() == got


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_behaviour_log_probabilities_are_the_bfloat16_networks(game):
    """A bfloat16 rollout stores the log-probabilities of the network it ran: close to the float32 network's
    (bfloat16 keeps 8 bits of mantissa), and not identical to them (the products really ran in bfloat16);
    a float32 rollout stores the float32 network's exactly."""
    cfg = PPOConfig(**CONFIGS[game])
    players = cfg.players

    def logp_float32(ppo: FastPPO, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        net = ppo.net
        with torch.no_grad():
            h = net.features(batch["obs"], seats=players)
            pa = batch["prior"] if net.prior is not None else None
            ids, valid = legal_index(batch["mask"])
            logp = torch.log_softmax(legal_logits(net.policy_logits(h, pa), ids, valid), 1)
            pos = ((ids == batch["action"][:, None]) & valid).to(torch.int8).argmax(1)
            return logp.gather(1, pos[:, None]).squeeze(1)

    for precision in ("float32", "bfloat16"):
        ppo = FastPPO(cfg, precision=precision)
        ppo.iterate()  # a trained network, not the near-uniform start
        batch = ppo.rollout.collect(cfg.n_steps)
        diff = (batch["logp"] - logp_float32(ppo, batch)).abs()
        if precision == "float32":
            assert float(diff.max()) < 1e-5
        else:
            assert 0 < float(diff.max()) < 0.1 and float(diff.mean()) < 0.02


def test_the_overlapped_collector_runs_its_forwards_in_bfloat16():
    """Autocast is per thread: the collector thread of the overlapped loop enters its own, so its forwards
    run in bfloat16 as the update's do."""
    ppo = FastPPO(PPOConfig(**CONFIGS["ohmygoods"]), overlap=True, precision="bfloat16")
    seen: list[tuple[str, bool]] = []
    for net in (ppo.net, ppo.behaviour):
        inner = net.features

        def spy(x, seats=None, _inner=inner):
            seen.append((threading.current_thread().name, torch.is_autocast_enabled("cpu")))
            return _inner(x, seats=seats)

        net.features = spy
    try:
        for _ in range(3):
            ppo.iterate()
    finally:
        ppo.close()
    threads = {name for name, _ in seen}
    assert any(name.startswith("collector") for name in threads) and "MainThread" in threads
    assert all(on for _, on in seen)


def test_the_cli_takes_precision_and_the_run_records_it(tmp_path):
    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "8", "--n-steps", "8", "--minibatch", "64", "--hidden", "16",
            "--embed", "4", "--total-steps", "200", "--eval-every", "100000", "--eval-games", "4",
            "--final-games", "0", "--no-progress", "--precision", "bfloat16", "--out", str(out)]  # fmt: skip
    assert fast_ppo.main(argv) == 0
    assert json.loads((out / "run.json").read_text())["precision"] == "bfloat16"
    with pytest.raises(SystemExit) as exc:
        fast_ppo.parse_args(["--precision", "half"])
    assert exc.value.code == 2


def test_recipes_compute_in_float32_unless_told():
    """The shipped agents' runs computed in float32 (before ``--precision``): their recipes say so."""
    from ohmygoods_training import recipe as R

    recipe = R.load("ppo")
    for argv in R.stage_argvs(recipe, "runs/x"):
        assert R.option(argv, "--precision") == "float32"
    for argv in R.stage_argvs(recipe, "runs/x", overrides={"--precision": "bfloat16"}):
        assert R.option(argv, "--precision") == "bfloat16"
