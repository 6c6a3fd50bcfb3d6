"""One implementation per concept in training: the plain-torch path never imports stable-baselines3,
both loops read one league spec, both clone with one loop, and a network plays through one agent
class per kind whether it is live or loaded from a checkpoint."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ohmygoods_agents.checkpoint import load_policy  # noqa: E402
from ohmygoods_agents.policy_agents import MLPAgent, SlotNetAgent  # noqa: E402
from ohmygoods_agents.slotnet import SlotNet  # noqa: E402
from ohmygoods_training import imitation  # noqa: E402
from ohmygoods_training.fast_ppo import behaviour_clone, save_agent  # noqa: E402
from ohmygoods_training.league_spec import League, opponent_agent  # noqa: E402

from ohmygoods_env import Game  # noqa: E402
from ohmygoods_env.policy import info_state_of  # noqa: E402

FAST_PATH = (
    "import sys; "
    "import ohmygoods_training.fast_ppo as F, ohmygoods_training.stats, ohmygoods_training.imitation, "
    "ohmygoods_training.league_spec, ohmygoods_training.convert, ohmygoods_training.selfplay, ohmygoods_training.kits, "
    "ohmygoods_env.apps.train as T; "
    "F.build_parser(); F.League.parse(F.PPOConfig.league); "
    "print(sorted(m for m in sys.modules if m.split('.')[0] in ('stable_baselines3', 'sb3_contrib')))"
)


def test_the_plain_torch_path_imports_no_stable_baselines3() -> None:
    r = subprocess.run(
        [sys.executable, "-c", FAST_PATH], env=dict(os.environ), capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_both_loops_read_one_league_spec() -> None:
    sb3 = pytest.importorskip("sb3_contrib")
    assert sb3 is not None
    from ohmygoods_training.league import OpponentPool

    spec = "snapshot:1,heuristic:1,mcts8:2"
    lg = League.parse("self:4," + spec)
    assert lg.self_share == pytest.approx(0.5) and lg.weights == {"snapshot": 0.125, "heuristic": 0.125, "mcts8": 0.25}
    pool = OpponentPool(spec, seed=0)
    assert pool.kinds == ["snapshot", "heuristic", "mcts8"]
    assert pool.agents[pool.kind_agent["mcts8"]].sims == 8 and pool.kind_of(pool.kind_agent["mcts8"]) == "mcts8"
    # the same errors from both
    for bad in ("alphazero", "mcts", "heuristic:-1"):
        with pytest.raises(ValueError) as a:
            League.parse(bad)
        with pytest.raises(ValueError) as b:
            OpponentPool(bad)
        assert str(a.value) == str(b.value)
    # the one-learner-seat loop reads an old 'self' as 'snapshot', and says so
    with pytest.warns(DeprecationWarning, match="old spelling of 'snapshot'"):
        pool = OpponentPool("random,self", seed=0)
    assert pool.kinds == ["random", "snapshot"]


def test_a_bare_mcts_opponent_keeps_the_small_budget() -> None:
    assert opponent_agent("mcts", 0).sims == 50 and opponent_agent("mcts200", 0).sims == 200


def _teacher_data() -> dict[str, np.ndarray]:
    return imitation.collect(2, 2, "omg2", "greedy", "margin", 0.1, 0.99, eps=0.2, seed=1)


def test_both_loops_clone_with_one_loop(monkeypatch) -> None:
    calls: list[int] = []
    real = imitation.clone

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(imitation, "clone", spy)
    data = _teacher_data()
    torch.manual_seed(0)
    st = behaviour_clone(SlotNet(16, 4), data, epochs=2, minibatch=32, seed=1)
    assert calls == [1] and 0.0 <= st["accuracy"] <= 1.0 and st["epoch"] == 2
    sb3 = pytest.importorskip("sb3_contrib")
    from ohmygoods_training.league import LeagueVecEnv, OpponentPool

    env = LeagueVecEnv(2, OpponentPool("random", seed=0), seed=0)
    model = sb3.MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, policy_kwargs={"net_arch": [16]}, device="cpu")
    first = imitation.pretrain(model.policy, data, epochs=1, seed=0)
    later = imitation.pretrain(model.policy, data, epochs=3, seed=0)
    assert calls == [1, 1, 1] and later["loss_pi"] < first["loss_pi"]


def test_the_self_play_loop_of_any_game_clones_with_the_same_loop(monkeypatch) -> None:
    """Any other game's training kit (training/kits.py: the MLP) warm-starts through imitation.clone too."""
    from ohmygoods_training import kits

    from ohmygoods_env.artificium import layout as AL

    calls: list[int] = []
    real = imitation.clone
    monkeypatch.setattr(imitation, "clone", lambda *a, **k: calls.append(1) or real(*a, **k))
    data = kits.collect_teacher("artificium", "greedy", (2,), decisions=40, num_envs=2, seed=1)
    st = kits.behaviour_clone(kits.ActorCritic(AL.OBS_DIM, AL.N_ACTIONS, (16,)), data, epochs=1)
    assert calls == [1] and 0.0 <= st["accuracy"] <= 1.0


def _positions(n: int, players: int = 2) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    g, rng, out = Game(players, seed=11), np.random.default_rng(0), []
    while len(out) < n:
        if g.done:
            g = Game(players, seed=int(rng.integers(1 << 30)))
        p, m = g.current_player, g.legal_mask()
        out.append((g.observe(p), m, info_state_of(g.state, p)))
        g.step(int(rng.choice(np.flatnonzero(m))))
    return out


@pytest.mark.parametrize("prior", [None, "heuristic"])
def test_a_live_slotnet_and_its_checkpoint_play_through_one_class(tmp_path, prior) -> None:
    torch.manual_seed(3)
    net = SlotNet(16, 4, prior=prior).eval()
    path = save_agent(net, tmp_path / "net")
    loaded = load_policy(path)
    live = SlotNetAgent(net)
    assert type(loaded) is SlotNetAgent and loaded.needs_info_state == (prior is not None)
    pos = _positions(40)
    obs, masks, infos = (np.stack(x) for x in zip(*pos, strict=True))
    assert np.array_equal(live.act_batch(obs, masks, infos), loaded.act_batch(obs, masks, infos))
    assert loaded.network["kind"] == "slotnet" and set(loaded.tensors()) == set(net.state_dict())


def test_an_mlp_checkpoint_plays_as_its_numpy_forward(tmp_path) -> None:
    from ohmygoods_agents.checkpoint import save_checkpoint

    from ohmygoods_env import layout as L

    rng = np.random.default_rng(0)
    t = {
        "layers.0.weight": rng.normal(size=(8, L.OBS_DIM)).astype(np.float32),
        "layers.0.bias": rng.normal(size=8).astype(np.float32),
        "layers.1.weight": rng.normal(size=(L.N_ACTIONS, 8)).astype(np.float32),
        "layers.1.bias": rng.normal(size=L.N_ACTIONS).astype(np.float32),
    }
    agent = load_policy(save_checkpoint(tmp_path / "mlp.json", t, "tanh"))
    assert type(agent) is MLPAgent and agent.network["sizes"] == [L.OBS_DIM, 8, L.N_ACTIONS]
    for obs, mask, _ in _positions(20):
        logits = (
            np.tanh(obs @ t["layers.0.weight"].T + t["layers.0.bias"]) @ t["layers.1.weight"].T + t["layers.1.bias"]
        )
        assert agent.act(obs, mask) == int(np.flatnonzero(mask)[np.argmax(logits[mask != 0])])


def test_moved_checkpoint_tools_say_where_they_went() -> None:
    with pytest.raises(ImportError, match=r"from ohmygoods_training.convert import export_sb3"):
        from ohmygoods_agents.checkpoint import export_sb3  # noqa: F401
    from ohmygoods_agents import checkpoint
    from ohmygoods_training import convert

    for name in ("convert_checkpoint", "verify_conversion", "read_sb3_zip", "BLOCK_PIECES"):
        with pytest.raises(ImportError, match="moved to the training tools"):
            getattr(checkpoint, name)
        assert hasattr(convert, name)
