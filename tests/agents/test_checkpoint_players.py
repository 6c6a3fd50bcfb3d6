"""A checkpoint's player count lives at the top of its JSON (``players``), where every reader finds it:
:func:`~ohmygoods_agents.checkpoint.checkpoint_players` reads it (checked like every other field),
older checkpoints give their card's ``config.players``, and ``ohmygoods evaluate`` plays an agent
at its own count only (docs/evaluation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from ohmygoods_agents import evaluation as E
from ohmygoods_agents.checkpoint import CheckpointError, checkpoint_players, read_checkpoint, save_checkpoint

from ohmygoods_env import layout as L


def _mlp(path: Path, **fields) -> Path:
    rng = np.random.default_rng(0)
    tensors = {
        "layers.0.weight": rng.normal(size=(8, L.OBS_DIM)).astype(np.float32),
        "layers.0.bias": np.zeros(8, np.float32),
        "layers.1.weight": rng.normal(size=(L.N_ACTIONS, 8)).astype(np.float32),
        "layers.1.bias": np.zeros(L.N_ACTIONS, np.float32),
    }
    return save_checkpoint(path, tensors, "tanh", **fields)


def test_the_shipped_checkpoints_keep_their_counts():
    assert E.agent_player_counts("ppo") == (2,)
    assert E.agent_player_counts("ppo-3p") == (3,)
    assert E.agent_player_counts("ppo-4p") == (4,)
    assert E.agent_player_counts("ppo-solo") == (1,)
    art = Path(E.__file__).parent / "checkpoints" / "artificium" / "ppo.json"
    assert checkpoint_players(art) is None  # one network for 2-6 players: every count of its game
    assert E.agent_player_counts(f"ppo:{art}", "artificium") == E.player_counts("artificium")


def test_players_is_written_at_the_top_and_read_back(tmp_path):
    path = _mlp(tmp_path / "two.json", players=2, card={"note": "x"})
    assert json.loads(path.read_text())["players"] == 2
    assert checkpoint_players(path) == 2 and read_checkpoint(path)[1]["players"] == 2
    assert E.agent_player_counts(f"ppo:{path}") == (2,)
    none = _mlp(tmp_path / "any.json", players=None)
    assert "players" not in json.loads(none.read_text()) and checkpoint_players(none) is None
    assert E.agent_player_counts(f"ppo:{none}") == E.player_counts()


def test_an_older_train_checkpoint_gives_its_cards_count(tmp_path):
    """``ohmygoods train`` wrote the count into the card only; such a file is read as before, with its count."""
    path = _mlp(tmp_path / "old.json", card={"config": {"players": 3, "rules": "omg2"}})
    assert "players" not in json.loads(path.read_text())
    assert checkpoint_players(path) == 3
    assert E.agent_player_counts(f"ppo:{path}") == (3,)


@pytest.mark.parametrize("value", ["2", 0, 17, -1, 2.0, True, None, [2], 10**30])
def test_a_bad_players_field_is_a_checkpoint_error(tmp_path, value):
    path = _mlp(tmp_path / "bad.json")
    desc = json.loads(path.read_text())
    desc["players"] = value
    path.write_text(json.dumps(desc))
    with pytest.raises(CheckpointError, match=r"players must be an int in 1\.\.16 \(or absent\)"):
        read_checkpoint(path)
    with pytest.raises(CheckpointError, match="players must be an int"):
        checkpoint_players(path)
    if value is not None:  # None is "not recorded" for the writer
        tensors = read_checkpoint(_mlp(tmp_path / "ok.json"))[0]
        with pytest.raises(CheckpointError, match="players must be an int"):
            save_checkpoint(tmp_path / "again.json", tensors, "tanh", players=value)
        assert not (tmp_path / "again.json").exists() and not (tmp_path / "again.safetensors").exists()


def test_a_description_that_is_a_folder_is_a_checkpoint_error(tmp_path):
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(CheckpointError, match="cannot read the checkpoint description"):
        checkpoint_players(tmp_path / "dir.json")
