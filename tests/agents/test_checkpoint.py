"""Policy checkpoints: the safe format, the SB3 exporter, layout conversion, and tampered files.

A checkpoint must never run code when it is loaded: SB3 zips (which unpickle their
``":serialized:"`` entries) load only with an explicit opt-in, through every path.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ohmygoods_agents import make_agent
from ohmygoods_agents.checkpoint import (
    CheckpointError,
    MLPAgent,
    PolicyAgent,
    UntrustedCheckpointError,
    current_layout,
    load_policy,
    read_checkpoint,
    save_checkpoint,
    shipped_checkpoints,
)

from ohmygoods_env import Game
from ohmygoods_env import layout as L

sb3_contrib = pytest.importorskip("sb3_contrib")
from ohmygoods_training.convert import convert_checkpoint, export_sb3, verify_conversion  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# the previous shipped 2-player agent (MaskablePPO MLP, trained on layout v0 and converted to v1):
# the conversion tests use it, as its weights went through a real layout change
MLP_2P = ROOT / "tests" / "agents" / "data" / "ppo_2p_mlp.json"


def _positions(n_games: int = 4, seed: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for g in range(n_games):
        game = Game(2, seed=seed + g)
        while not game.done:
            p = game.current_player
            out.append((game.observe(p), game.legal_mask()))
            game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    return out


# ------------------------------------------------------------------ export and load


def test_exported_policy_acts_like_maskableppo(sb3_zip, tmp_path) -> None:
    model = sb3_contrib.MaskablePPO.load(sb3_zip, device="cpu")
    out = export_sb3(sb3_zip, tmp_path / "tiny.json", name="tiny")
    agent = load_policy(out)
    desc = json.loads(out.read_text())
    assert desc["network"] == {
        "kind": "mlp",
        "sizes": [L.OBS_DIM, 32, 16, L.N_ACTIONS],
        "activation": "tanh",
        "output": "action logits",
    }
    assert desc["layout"] == current_layout() and desc["weights"] == "tiny.safetensors"
    pos = _positions()
    obs = np.stack([o for o, _ in pos])
    masks = np.stack([m for _, m in pos])
    want = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]
    got = agent.act_batch(obs, masks)
    import torch

    with torch.no_grad():
        ot = model.policy.obs_to_tensor(obs)[0]
        logp = model.policy.get_distribution(ot, action_masks=masks.astype(bool)).distribution.logits.numpy()
    rows = np.arange(len(pos))
    # the same action, up to float32 ties between the near-equal logits of an untrained network
    assert len(pos) > 300 and np.allclose(logp[rows, got], logp[rows, want], rtol=0, atol=1e-6)
    assert (got == want).mean() > 0.99
    assert all(masks[i, a] for i, a in enumerate(got))
    assert agent.act(obs[0], masks[0]) == want[0]


def test_sampling_is_seeded_and_legal(tmp_path, sb3_zip) -> None:
    out = export_sb3(sb3_zip, tmp_path / "tiny.json")
    pos = _positions(2)
    obs, masks = np.stack([o for o, _ in pos]), np.stack([m for _, m in pos])
    a = load_policy(out, deterministic=False, seed=5).act_batch(obs, masks)
    b = load_policy(out, deterministic=False, seed=5).act_batch(obs, masks)
    assert np.array_equal(a, b) and all(masks[i, x] for i, x in enumerate(a))


def test_snapshot_of_a_live_policy_matches_predict(sb3_zip) -> None:
    model = sb3_contrib.MaskablePPO.load(sb3_zip, device="cpu")
    snap = MLPAgent.from_sb3_policy(model.policy)
    obs, mask = _positions(1)[5]
    assert snap.act(obs, mask) == int(model.predict(obs, action_masks=mask.astype(bool), deterministic=True)[0])


def test_shipped_agent_by_short_name_from_any_directory(tmp_path) -> None:
    assert "ppo" in shipped_checkpoints()
    code = (
        "import numpy as np; from ohmygoods_agents import make_agent; from ohmygoods_env import Game; "
        "from ohmygoods_agents import info_state_of; a = make_agent('ppo'); g = Game(2, seed=1); m = g.legal_mask(); "
        "x = a.act(g.observe(0), m, info_state_of(g.state, 0)); "
        "print(a.name, type(a).__name__, int(m[x]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ppo", "SlotNetAgent", "1"]


def test_shipped_checkpoint_is_safe_format_in_package_data() -> None:
    folder = ROOT / "agents" / "checkpoints"
    assert not list(folder.glob("*.zip")) and not list(folder.glob("*.pt*"))
    for short, players in (("ppo", 2), ("ppo-long", 2), ("ppo-3p", 3), ("ppo-4p", 4)):
        tensors, desc = read_checkpoint(shipped_checkpoints()[short])
        assert desc["players"] == players and desc["layout"] == current_layout()
        assert desc["network"]["kind"] == "slotnet" and desc["network"]["prior"] == "heuristic"
        assert "prior_gain" in tensors
    tensors, desc = read_checkpoint(MLP_2P)
    assert tensors["layers.0.weight"].shape == (256, L.OBS_DIM)


# ------------------------------------------------------------------ tampered SB3 zip


def test_tampered_zip_runs_code_only_with_the_opt_in(sb3_zip, make_tampered_zip, tmp_path) -> None:
    from ohmygoods_training import evaluate, train_ppo

    from ohmygoods_env.apps.tournament import main as tournament_main

    marker = tmp_path / "marker"
    bad = make_tampered_zip(sb3_zip, tmp_path / "bad.zip", marker)
    for spec in (f"sb3:{bad}", f"ppo:{bad}", f"sb3:{bad.with_suffix('')}"):
        with pytest.raises(UntrustedCheckpointError, match="can run any code"):
            make_agent(spec)
    with pytest.raises(UntrustedCheckpointError):
        load_policy(bad)
    with pytest.raises(UntrustedCheckpointError):
        read_checkpoint(bad)
    # tournament spec strings: refused before any game
    with pytest.raises(SystemExit) as exc:
        tournament_main(["--agents", f"sb3:{bad},random", "--games", "1", "--out", str(tmp_path / "t")])
    assert exc.value.code == 2
    # league resume and evaluation
    with pytest.raises(SystemExit) as exc:
        train_ppo.parse_args(["--resume", str(bad)])
    assert exc.value.code == 2
    assert evaluate.main([str(bad), "--games", "1"]) == 2
    assert not marker.exists()
    # the same file with the opt-in: the payload runs (so the refusals above were what saved us)
    agent = make_agent(f"sb3:{bad}", trust_pickle=True)
    assert marker.exists() and isinstance(agent, PolicyAgent)


# ------------------------------------------------------------------ tampered safe files


def test_tampered_safe_files_give_clear_errors(sb3_zip, tmp_path) -> None:
    out = export_sb3(sb3_zip, tmp_path / "p.json")
    weights = out.with_suffix(".safetensors")
    good_json, good_weights = out.read_text(), weights.read_bytes()

    out.write_text("{not json")
    with pytest.raises(CheckpointError, match="p.json.*not a policy checkpoint description"):
        load_policy(out)
    out.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(CheckpointError, match="format='ohmygoods-policy'"):
        load_policy(out)
    d = json.loads(good_json)
    d["weights"] = "../elsewhere.safetensors"
    out.write_text(json.dumps(d))
    with pytest.raises(CheckpointError, match="file name NAME.safetensors in the same folder"):
        load_policy(out)
    d = json.loads(good_json)
    d["network"]["sizes"] = [L.OBS_DIM, 64, L.N_ACTIONS]
    out.write_text(json.dumps(d))
    with pytest.raises(CheckpointError, match="layer sizes"):
        load_policy(out)
    out.write_text(good_json)

    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    weights.write_bytes(pickle.dumps(Payload()))
    with pytest.raises(CheckpointError, match="p.safetensors.*not a safetensors weights file"):
        load_policy(out)
    assert not marker.exists()

    # right format, wrong shapes
    from safetensors.numpy import load_file, save_file

    weights.write_bytes(good_weights)
    t = load_file(str(weights))
    t["layers.1.weight"] = np.zeros((16, 5), np.float32)
    save_file(t, str(weights))
    with pytest.raises(CheckpointError, match="layers.1 takes 5 inputs"):
        load_policy(out)
    weights.write_bytes(good_weights)
    assert load_policy(out).act(*_positions(1)[0]) >= 0


# ------------------------------------------------------------------ conversion between layouts


def _drop(layout: dict, obs_block: str, action_range: str) -> tuple[dict, np.ndarray, np.ndarray]:
    """``layout`` without one observation block and one action range; the kept columns / rows."""

    def cut(blocks, name):
        kept, out, off = [], [], 0
        for n, o, k in blocks:
            if n == name:
                continue
            out.append([n, off, k])
            kept.extend(range(o, o + k))
            off += k
        return out, np.asarray(kept), off

    obs, obs_kept, obs_dim = cut(layout["obs_blocks"], obs_block)
    acts, act_kept, n_act = cut(layout["action_ranges"], action_range)
    small = {
        **layout,
        "version": "older",
        "obs_blocks": obs,
        "obs_dim": obs_dim,
        "action_ranges": acts,
        "n_actions": n_act,
    }
    return small, obs_kept, act_kept


def test_convert_maps_by_name_and_acts_like_the_original(tmp_path) -> None:
    tensors, desc = read_checkpoint(MLP_2P)
    cur = current_layout()
    office = next(n for n, _, _ in cur["obs_blocks"] if "Market-Office" in n)
    older, obs_kept, act_kept = _drop(cur, office, "discard for new deck")
    small = dict(tensors)
    small["layers.0.weight"] = tensors["layers.0.weight"][:, obs_kept]
    small["layers.2.weight"] = tensors["layers.2.weight"][act_kept]
    small["layers.2.bias"] = tensors["layers.2.bias"][act_kept]
    src = save_checkpoint(tmp_path / "older.json", small, "tanh", older, name="older")
    with pytest.raises(CheckpointError, match="ohmygoods_training.export convert"):
        load_policy(src)
    out, notes = convert_checkpoint(src, tmp_path / "new.json")
    assert any("new" in n and "Market-Office" in n for n in notes)
    assert any("new" in n and "discard for new deck" in n for n in notes)
    new, _ = read_checkpoint(out)
    # new columns are zero, copied columns sit at their new offsets, new actions can never win
    missing = np.setdiff1d(np.arange(L.OBS_DIM), obs_kept)
    assert not new["layers.0.weight"][:, missing].any()
    assert np.array_equal(new["layers.0.weight"][:, obs_kept], small["layers.0.weight"])
    gone = np.setdiff1d(np.arange(L.N_ACTIONS), act_kept)
    assert (new["layers.2.bias"][gone] < -1e8).all()
    check = verify_conversion(src, out, positions=300)
    assert check["positions"] == 300 and check["agree"] == 300
    assert load_policy(out).act(*_positions(1)[0]) >= 0


def test_convert_command_round_trip(tmp_path) -> None:
    from ohmygoods_training.export import main

    src = MLP_2P
    assert main(["convert", str(src), str(tmp_path / "c.json"), "--positions", "50"]) == 0
    a, _ = read_checkpoint(src)
    b, _ = read_checkpoint(tmp_path / "c.json")
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_shrunk_block_is_refused(tmp_path) -> None:
    tensors, _ = read_checkpoint(MLP_2P)
    cur = current_layout()
    bigger = json.loads(json.dumps(cur))
    bigger["obs_blocks"][-1][2] += 1
    bigger["obs_dim"] += 1
    t = dict(tensors)
    t["layers.0.weight"] = np.concatenate([tensors["layers.0.weight"], np.zeros((256, 1), np.float32)], axis=1)
    src = save_checkpoint(tmp_path / "b.json", t, "tanh", bigger)
    with pytest.raises(CheckpointError, match="shrank"):
        convert_checkpoint(src, tmp_path / "c.json")


def test_shipped_policy_acts_like_the_original_zip_on_v0_positions() -> None:
    """300 positions recorded with the v0 engine and the original MaskablePPO zip, mapped to
    this layout by block name: the converted policy (the previous shipped ``ppo``) chooses the same actions."""
    from ohmygoods_training.convert import column_map as _column_map

    data = np.load(ROOT / "tests" / "agents" / "data" / "ppo_2p_v0_positions.npz")
    v0 = json.loads((ROOT / "tests" / "agents" / "data" / "ppo_2p_v0_positions.json").read_text())["layout"]
    cur = current_layout()
    obs_idx, _, _ = _column_map(v0["obs_blocks"], cur["obs_blocks"])
    act_idx, _, _ = _column_map(v0["action_ranges"], cur["action_ranges"], {})
    n = len(data["actions"])
    obs = np.zeros((n, cur["obs_dim"]), np.float32)
    obs[:, obs_idx >= 0] = data["obs"][:, obs_idx[obs_idx >= 0]]
    masks = np.zeros((n, cur["n_actions"]), np.int8)
    masks[:, act_idx >= 0] = data["masks"][:, act_idx[act_idx >= 0]]
    want = np.array([int(np.flatnonzero(act_idx == a)[0]) for a in data["actions"]])
    got = load_policy(MLP_2P).act_batch(obs, masks)
    assert n == 300 and np.array_equal(got, want)


# ------------------------------------------------------------------ layout v1 -> v2 (R10.4: rounds left)

V1_POSITIONS = ROOT / "tests" / "agents" / "data" / "ppo_v1_positions"
SHIPPED = {"ppo": 2, "ppo-3p": 3, "ppo-4p": 4, "ppo-solo": 1}


def test_shipped_checkpoints_carry_layout_2() -> None:
    found = shipped_checkpoints()
    assert {*SHIPPED, "ppo-long"} <= set(found)
    for name in (*SHIPPED, "ppo-long"):  # ppo-long was trained on layout v2 from the converted ppo
        tensors, desc = read_checkpoint(found[name])
        assert desc["layout"]["version"] == f"v{L.LAYOUT_VERSION}" == "v2", name
        assert desc["layout"] == current_layout(), name
        assert desc["network"]["kind"] == "slotnet" and desc["conversions"][-1]["to"] == "v2", name
        assert load_policy(found[name]).layout["obs_dim"] == L.OBS_DIM


def _state_of_v1(row: np.ndarray) -> np.ndarray:
    """A state row of the v1 engine (555 words) in this engine's row: the words appended since
    (the phase-II escrow's paid-from buildings, the assistants' phase-II snapshot) get what the v1
    engine's information state amounted to: no paid-from building recorded, the snapshot equal to
    the assistants' current places."""
    out = np.zeros(L.STATE_LEN, np.int32)
    out[: len(row)] = row
    n = L.MAX_PLAYERS * L.MAX_SLOTS
    out[L.F_SNAP_ASLOT : L.F_SNAP_ASLOT + n] = out[L.F_ASLOT : L.F_ASLOT + n]
    return out


def test_converted_multiplayer_networks_choose_as_the_v1_networks_did() -> None:
    """240 positions (80 per shipped 2-4 player network) recorded with the v1 engine and the v1
    checkpoints: the converted networks, reading this engine's observation of the same state
    (rounds left included), choose the same action. (``ppo-solo`` was converted the same way,
    then fine-tuned for the 12-round solo of R10.4.)"""
    from ohmygoods_env.policy import info_state_of
    from ohmygoods_env.rules import RuleSet

    data = np.load(V1_POSITIONS.with_suffix(".npz"))
    assert json.loads(V1_POSITIONS.with_suffix(".json").read_text())["layout"]["version"] == "v1"
    checked = 0
    for name, n in SHIPPED.items():
        if n == 1:
            continue
        rows = np.flatnonzero(data["agents"] == name)
        assert len(rows) == 80
        for i in rows:
            g = Game.from_state(_state_of_v1(data["states"][i]), RuleSet(num_players=n))
            p = int(data["players"][i])
            obs = g.observe(p)
            assert obs[L.O_ROUNDS_LEFT] > 0  # the new feature is present, and ignored
            if g.state[L.F_PH] == L.PH_P2:
                # the heuristic prior samples phase II's sunset row from a word hashed from the
                # bytes of the information state, which has grown by two fields since v1 (the
                # escrow's paid-from buildings, the assistants' snapshot): other samples. Conversion
                # there is checked with one information state for both networks
                # (test_slotnet_of_an_earlier_layout_converts_and_acts_alike, below).
                continue
            agent = make_agent(name, seed=0)  # one per position: a choice never depends on the ones before
            assert agent.act(obs, g.legal_mask(), info_state_of(g.state, p)) == data["actions"][i], (name, i)
            checked += 1
    assert checked >= 120, checked  # at least half of the 240 positions are outside phase II


@pytest.mark.parametrize("prior", [None, "heuristic"])
def test_slotnet_of_an_earlier_layout_converts_and_acts_alike(tmp_path, prior) -> None:
    """A slotnet with random weights on layout v1 (no rounds-left block): refused by the loader,
    converted by name (the new column is zero, every other weight kept), and then it chooses as
    the original on positions of 1-4 player games."""
    import torch
    from ohmygoods_agents.slotnet import SlotNet

    v1 = json.loads(V1_POSITIONS.with_suffix(".json").read_text())["layout"]
    torch.manual_seed(5)
    net = SlotNet(24, 6, prior, layout=v1)
    with torch.no_grad():
        for t in net.parameters():
            t.normal_(0.0, 0.5)
    tensors = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    src = save_checkpoint(tmp_path / "v1.json", tensors, "relu", v1, net.description(), name="v1net")
    with pytest.raises(CheckpointError, match="ohmygoods_training.export convert"):
        load_policy(src)
    out, notes = convert_checkpoint(src, tmp_path / "v2.json")
    assert notes == [f"observation new: {L.OBS_BLOCKS[3][0]!r} (1)"]
    new, desc = read_checkpoint(out)
    assert desc["layout"]["version"] == "v2" and desc["network"] == net.description()
    w_old, w_new = tensors["trunk.0.weight"], new["trunk.0.weight"]
    col = L.O_ROUNDS_LEFT  # before the slot block: its index in the trunk input is its observation index
    assert w_new.shape[1] == w_old.shape[1] + 1 and not w_new[:, col].any()
    assert np.array_equal(np.delete(w_new, col, axis=1), w_old)
    assert all(np.array_equal(new[k], tensors[k]) for k in tensors if k != "trunk.0.weight")
    for n in (1, 2, 3, 4):
        check = verify_conversion(src, out, positions=40, seed=n, players=n)
        assert check == {"positions": 40, "agree": 40, "skipped": 0}, n
