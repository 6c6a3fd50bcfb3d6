"""training/rllib_selfplay.py: a tiny local RLlib self-play run (skips without ray[rllib])."""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as L

pytest.importorskip("ray.rllib", reason="ray[rllib] not installed: pip install -e '.[marl]'")

from ohmygoods_training.rllib_selfplay import SelfPlayEnv, main  # noqa: E402


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


@pytest.mark.training
def test_tiny_local_selfplay_run() -> None:
    out = main(["--iterations", "1", "--env-runners", "1", "--train-batch", "200", "--hidden", "32"])
    assert len(out) == 1 and out[0]["env_steps"] >= 200 and out[0]["env_steps_per_s"] > 0
