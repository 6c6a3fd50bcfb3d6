"""``--device auto|cpu|cuda`` and ``--threads auto|N`` of both training loops, and the losses they keep.

No GPU is needed: the copying path a GPU takes (device buffers that each step's rows are copied into) runs
on the CPU when a rollout is ``staged``, and must give the same numbers as the plain path and as the loop
did before devices existed.
"""

from __future__ import annotations

import json

import pytest
import torch
from ohmygoods_training import fast_ppo
from ohmygoods_training.fast_ppo import FastPPO, InputError, PPOConfig, resolve_device, threads_arg, usable_cores

pytestmark = pytest.mark.training

#: ``FastPPO.iterate()`` twice with seed 0, measured with the loop as it was before devices and preallocated
#: buffers (commit 5ad5be4): policy loss, value loss, entropy, clipped share, samples of each iteration
OLD_LOSSES = {
    "plain": [
        (-0.0003736875150934793, 0.00017396163457306102, 1.0534164309501648, 0.0, 110),
        (-0.00023776332818670198, 0.00011560123311937787, 1.1278992295265198, 0.0, 109),
    ],
    "prior": [
        (-4.449736843525898e-05, 0.00555897899903357, 0.20743254572153091, 0.0, 113),
        (-4.5650656829820946e-05, 0.006709271110594273, 0.22400321811437607, 0.0, 110),
    ],
}
CONFIGS = {
    "plain": {"league": "self:0.5,snapshot:0.3,random:0.1,greedy:0.1"},
    "prior": {"prior": "heuristic", "shaping": 1, "league": "self:0.6,snapshot:0.2,heuristic:0.2"},
}


def _losses(name: str, staged: bool, sparse: int = 0) -> list[tuple[float, ...]]:
    cfg = PPOConfig(players=2, num_envs=8, n_steps=16, hidden=16, embed=4, minibatch=64, snapshot_every=100,
                    seed=0, sparse_forward=sparse, **CONFIGS[name])  # fmt: skip
    ppo = FastPPO(cfg, device="cpu")
    ppo.rollout.staged = staged
    out = []
    for _ in range(2):
        info = ppo.iterate()
        out.append(tuple(info[k] for k in ("pg_loss", "v_loss", "entropy", "clip_frac", "samples")))
    return out


@pytest.mark.parametrize("name", sorted(OLD_LOSSES))
@pytest.mark.parametrize("staged", [False, True], ids=["cpu-buffers", "device-copy-path"])
def test_two_iterations_give_the_losses_of_the_loop_before_devices(name, staged):
    """Buffers reused across rollouts, inference mode, host sampling and (staged) the GPU's copying path
    change no number: the same samples, the same losses as the old loop, iteration by iteration (the dense
    forward, ``--sparse-forward 0``, as the old loop's)."""
    got = _losses(name, staged)
    for new, old in zip(got, OLD_LOSSES[name], strict=True):
        assert new[4] == old[4]
        assert new[:4] == pytest.approx(old[:4], rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("name", sorted(OLD_LOSSES))
def test_the_sparse_forward_gives_the_same_losses_up_to_its_rounding(name):
    """The default rollout reads the network's sparse form (``SparseForward``): the same samples as the dense
    forward here (a draw flips only where two perturbed logits tie within rounding), log-probabilities and
    values within float rounding, so the losses agree to about 1e-7."""
    got = _losses(name, staged=False, sparse=1)
    for new, old in zip(got, OLD_LOSSES[name], strict=True):
        assert new[4] == old[4]
        assert new[:4] == pytest.approx(old[:4], rel=1e-3, abs=1e-7)


def test_auto_is_cuda_exactly_when_torch_sees_cuda(monkeypatch):
    here = resolve_device("auto")
    assert here.type == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == torch.device("cuda")


def test_auto_resolves_to_cpu_on_a_machine_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert resolve_device("auto") == torch.device("cpu")
    ppo = FastPPO(PPOConfig(num_envs=2, n_steps=2, hidden=8, embed=2), device="auto")
    assert ppo.device.type == "cpu" and not ppo.rollout.staged
    assert all(p.device.type == "cpu" for p in ppo.net.parameters())


def test_cuda_without_cuda_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(InputError, match="--device cuda: .*no CUDA device"):
        resolve_device("cuda")
    with pytest.raises(InputError, match="--device tpu: expected one of auto, cpu, cuda"):
        resolve_device("tpu")


@pytest.mark.parametrize("loop", ["ohmygoods", "artificium"])
def test_train_with_device_cuda_and_no_cuda_exits_2_with_one_line_and_writes_nothing(
    loop, monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "run"
    if loop == "ohmygoods":
        from ohmygoods_env.apps import train

        code = train.main(["--players", "2", "--total-steps", "100", "--device", "cuda", "--out", str(out)])
    else:
        from ohmygoods_env.apps import game_train

        argv = ["--players", "2", "--total-steps", "100", "--device", "cuda", "--out", str(out)]
        code = game_train.main(argv, game="artificium")  # ohmygoods train --game artificium: the same loop
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "--device cuda" in err[0] and "no CUDA device" in err[0]
    assert not out.exists()


def test_threads_auto_is_every_usable_core_and_a_count_is_at_least_one():
    assert threads_arg("auto") == usable_cores() >= 1
    assert threads_arg("3") == 3
    for bad in ("0", "-2", "many"):
        with pytest.raises(Exception, match="expected auto or an integer >= 1"):
            threads_arg(bad)
    args = fast_ppo.parse_args(["--threads", "auto", "--device", "cpu"])
    assert args.threads == usable_cores() and args.device == "cpu"
    with pytest.raises(SystemExit):
        fast_ppo.parse_args(["--threads", "0"])
    assert fast_ppo.parse_args(["--game", "artificium", "--threads", "auto"]).threads == usable_cores()


def test_a_run_records_its_device_and_threads_and_saves_host_tensors(tmp_path):
    """The checkpoint is the same format whatever the device: ``save_agent`` writes host tensors, and the
    run says where it ran and where its time went."""
    out = tmp_path / "run"
    argv = ["--players", "2", "--num-envs", "4", "--n-steps", "4", "--hidden", "8", "--embed", "2",
            "--total-steps", "20", "--eval-every", "20", "--eval-games", "2", "--eval-vs", "random",
            "--final-games", "0", "--device", "auto", "--threads", "1", "--no-progress", "--out", str(out)]  # fmt: skip
    assert fast_ppo.main(argv) == 0
    run = json.loads((out / "run.json").read_text())
    assert run["device"] == str(resolve_device("auto")) and run["threads"] == 1
    assert set(run["split_s"]) == set(fast_ppo.PARTS) and all(v >= 0 for v in run["split_s"].values())
    assert run["split_s"]["forward"] > 0 and run["split_s"]["update"] > 0
    net = fast_ppo.load_net(out / "final")
    assert all(p.device.type == "cpu" for p in net.parameters())


def test_artificium_staged_path_gives_the_same_losses():
    """The one loop on Artificium (an MLP, two player counts): the copying path of a GPU, run on the CPU,
    changes no number."""

    def run(staged: bool) -> list[dict[str, float]]:
        cfg = PPOConfig(game="artificium", players=(2, 3), num_envs=6, n_steps=12, hidden=16, minibatch=64, seed=0,
                        league="self:0.5,snapshot:0.3,random:0.2", snapshot_every=100)  # fmt: skip
        ppo = FastPPO(cfg, device="cpu")
        ppo.rollout.staged = staged
        return [ppo.iterate() for _ in range(2)]

    plain, staged = run(False), run(True)
    for a, b in zip(plain, staged, strict=True):
        assert a["samples"] == b["samples"] > 0
        for k in ("pg_loss", "v_loss", "entropy", "clip_frac"):
            assert a[k] == pytest.approx(b[k], rel=1e-6, abs=1e-9)


def test_the_plan_says_where_the_run_goes(capsys):
    from ohmygoods_env.apps import train

    assert train.main(["--players", "2", "--minutes", "1", "--plan", "--device", "cpu", "--threads", "2"]) == 0
    err = capsys.readouterr().err
    assert "runs on: device cpu, 2 torch and numba thread(s)" in err
    from ohmygoods_env import openmp_wait

    assert f"idle OpenMP threads: {openmp_wait()}" in err  # more than one thread: how they wait
    assert "the network's sparse form where it runs on the CPU in float32 (--sparse-forward)" in err
    assert train.main(["--players", "2", "--minutes", "1", "--plan", "--device", "cpu", "--threads", "1"]) == 0
    assert "idle OpenMP threads" not in capsys.readouterr().err  # one thread runs no parallel region
    from ohmygoods_env.apps import cli

    for game in (["--game", "artificium"], []):
        assert cli.main(["train", *game, "--players", "2", "--minutes", "1", "--plan", "--sparse-forward", "0"]) == 0
        assert "the network's dense forward (--sparse-forward 0)" in capsys.readouterr().err


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_slot_encoder_skips_the_empty_seats_of_fewer_players_with_the_same_features(players):
    """The loop passes ``seats=players`` to ``SlotNet.features``: seats beyond the player count hold no
    building in any observation, so leaving them out of the slot encoder changes no feature (up to the
    float rounding of a matrix product of another height)."""
    import numpy as np
    from ohmygoods_agents.slotnet import SLOT_END, SlotNet

    from ohmygoods_env import layout as L
    from ohmygoods_env.batch import BatchGames, make_rng, random_actions

    g, rng = BatchGames(32, players, "omg2", 3), make_rng(32, 3)
    obs = []
    for _ in range(60):
        obs.append(g.observe())
        g.step(random_actions(g.masks(copy=False), rng))
        g.reset()
    x = torch.from_numpy(np.concatenate(obs))
    slots = x[:, L.O_SLOTS : SLOT_END].reshape(-1, L.MAX_PLAYERS, L.MAX_SLOTS, L.SLOT_FEATURES)
    assert not slots[:, players:, :, L.SF_PRESENT].any()  # the premise: no building beyond the players
    assert slots[:, :players, :, L.SF_PRESENT].any()
    torch.manual_seed(0)
    net = SlotNet(32, 8)
    with torch.no_grad():
        fast, full = net.features(x, seats=players), net.features(x)
    assert fast.shape == full.shape
    assert torch.allclose(fast, full, rtol=1e-6, atol=1e-6)


def test_the_rollouts_host_legal_index_is_torchs():
    """The rollouts index each row's legal actions on the host (no torch ``nonzero``, no device sync):
    the same ids in the same order and the same padding as :func:`legal_index`, finished rows included."""
    import numpy as np
    from ohmygoods_training.fast_ppo import legal_index, legal_index_host

    rng = np.random.default_rng(5)
    for density in (0.002, 0.02, 0.3):
        masks = rng.random((64, 624)) < density
        masks[3] = False  # a finished game's row: nothing legal
        ids, valid = legal_index(torch.from_numpy(masks))
        hid, hvalid = legal_index_host(masks)
        assert torch.equal(ids, torch.from_numpy(hid)) and torch.equal(valid, torch.from_numpy(hvalid))
        assert not hvalid[3].any()


def test_the_sparse_update_moves_the_network_as_the_dense_update():
    """One update on the same rollout, the same minibatches: with the network's sparse form (the default) and
    with its dense forward, the same losses and parameters up to float rounding."""
    cfg = PPOConfig(players=2, num_envs=24, n_steps=8, minibatch=64, seed=3, league="self:0.8,random:0.2")
    dense = FastPPO(PPOConfig(**{**cfg.__dict__, "sparse_forward": 0}))
    sparse = FastPPO(cfg)
    sparse.net.load_state_dict(dense.net.state_dict())
    batch = {k: v.clone() for k, v in dense.rollout.collect(cfg.n_steps).items()}
    torch.manual_seed(0)
    want = dense.update(batch)
    torch.manual_seed(0)
    got = sparse.update(batch)
    assert got == pytest.approx(want, rel=1e-4, abs=1e-7)
    for (name, a), b in zip(sparse.net.named_parameters(), dense.net.parameters(), strict=True):
        assert torch.allclose(a, b, rtol=0, atol=1e-5), name


def test_recipes_read_the_dense_forward_unless_told():
    """The shipped agents' runs read the dense forward (before ``--sparse-forward``): their recipes replay it (both
    games), and a user's override wins."""
    from ohmygoods_training import recipe as R

    for name in ("ppo", "artificium-ppo"):
        for argv in R.stage_argvs(R.load(name), "runs/x"):
            assert R.option(argv, "--sparse-forward") == "0"
        for argv in R.stage_argvs(R.load(name), "runs/x", overrides={"--sparse-forward": "1"}):
            assert R.option(argv, "--sparse-forward") == "1"
