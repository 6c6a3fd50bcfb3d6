"""training/rllib_selfplay.py: a tiny local RLlib self-play run (skips without ray[rllib])."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as L

pytest.importorskip("ray.rllib", reason="ray[rllib] not installed: pip install -e '.[marl]'")

from ohmygoods_training.rllib_selfplay import SelfPlayEnv, build_config, main  # noqa: E402


def test_selfplay_env_speaks_rllibs_masking_layout() -> None:
    env = SelfPlayEnv({"num_players": 3})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(5000):
        for o in obs.values():
            assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
            assert env.observation_spaces["player_0"].contains(o)
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, _ = env.step(actions)
        if terms["__all__"]:
            break
    assert terms["__all__"] and sum(rewards.values()) in (-1.0, 1.0, 0.0)
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [L.A_WAIT] for o in obs.values())


def _module(model_config: dict):
    """The shared policy's module of :func:`build_config` for 2 players, built here (no Ray runtime)."""
    from ohmygoods_training.rllib_selfplay import SlotNetRLModule
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = SelfPlayEnv({"num_players": 2})
    spec = RLModuleSpec(
        module_class=SlotNetRLModule,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config=model_config,
    )
    return env, spec.build()


def test_the_rllib_module_is_the_loops_network_from_its_checkpoint(tmp_path) -> None:
    """``--init``: the module holds the loop's SlotNet with the checkpoint's weights, and gives its masked
    logits (illegal actions at NEG) and its values on the env's observations."""
    import torch
    from ohmygoods_agents.slotnet import NEG, SlotNet
    from ohmygoods_training.fast_ppo import save_agent
    from ray.rllib.core.columns import Columns

    torch.manual_seed(5)
    net = SlotNet(hidden=32, embed=8).eval()
    path = save_agent(net, tmp_path / "start", players=2)
    env, module = _module({"hidden": 999, "embed": 999, "init": str(path)})  # the checkpoint's widths win
    assert type(module.net) is SlotNet and module.net.hidden == 32
    obs, _ = env.reset(seed=4)
    o = {k: torch.as_tensor(np.stack([obs[a][k] for a in sorted(obs)])) for k in ("observations", "action_mask")}
    with torch.no_grad():
        out = module.forward_exploration({Columns.OBS: o})
        logits, value = net(o["observations"], o["action_mask"] > 0.5)
        values = module.compute_values({Columns.OBS: o})
    assert torch.equal(out[Columns.ACTION_DIST_INPUTS], logits)
    assert torch.equal(values, value)
    legal = o["action_mask"] > 0.5
    assert (out[Columns.ACTION_DIST_INPUTS][~legal] == NEG).all() and (logits[legal] > NEG).all()


def test_init_refuses_a_network_with_a_prior_in_one_line() -> None:
    """The shipped ``ppo`` adds the heuristic's choice, which reads the information state: RLlib's env gives
    observations only, so ``--init`` with it fails before any Ray worker starts, and says what to use."""
    from ohmygoods_agents.checkpoint import shipped_checkpoints

    with pytest.raises(ValueError, match=r"heuristic agent's choice.*--prior none"):
        build_config(2, init=str(shipped_checkpoints()["ppo"]))
    with pytest.raises(ValueError, match="--network slotnet"):
        build_config(2, network="mlp", init="anything.json")
    with pytest.raises(ValueError, match="unknown network 'cnn'"):
        build_config(2, network="cnn")


def test_the_command_refuses_before_ray_starts(tmp_path, capsys) -> None:
    """Bad options: status 2 and one line, before any Ray runtime (``--out`` needs the loop's network)."""
    with pytest.raises(SystemExit) as exc:
        main(["--network", "mlp", "--out", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out writes the loop's checkpoint format" in err[0]
    with pytest.raises(SystemExit) as exc:
        main(["--init", str(tmp_path / "missing.json")])
    assert exc.value.code == 2 and "missing.json" in capsys.readouterr().err


@pytest.mark.training
def test_tiny_local_selfplay_run_writes_an_agent_of_the_loops_format(tmp_path) -> None:
    """One iteration on a local Ray with the loop's SlotNet; ``--out`` writes ``final.json``, which
    ``make_agent("ppo:...")`` loads like a checkpoint of ``ohmygoods train`` and plays whole legal games."""
    from ohmygoods_agents import make_agent

    from ohmygoods_env.matches import play_game

    out = main(["--iterations", "1", "--env-runners", "1", "--train-batch", "200", "--hidden", "32",
                "--out", str(tmp_path)])  # fmt: skip
    assert len(out) == 1 and out[0]["env_steps"] >= 200 and out[0]["env_steps_per_s"] > 0
    agent = make_agent(f"ppo:{tmp_path / 'final.json'}", seed=0)
    game, scores, _ = play_game([agent, make_agent("random", seed=1)], 2, "omg2", seed=11)
    assert game.done and len(scores) == 2
    import json

    card = json.loads((tmp_path / "final.json").read_text())["card"]
    assert card["trained_by"] == "ohmygoods_training.rllib_selfplay" and card["env_steps"] >= 200


@pytest.mark.training
def test_rllibs_own_mlp_still_trains() -> None:
    out = main(["--iterations", "1", "--env-runners", "1", "--train-batch", "200", "--hidden", "32",
                "--network", "mlp"])  # fmt: skip
    assert len(out) == 1 and out[0]["env_steps"] >= 200
