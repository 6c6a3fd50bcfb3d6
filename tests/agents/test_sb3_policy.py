"""Loading a trained MaskablePPO zip as an agent (skipped when sb3-contrib is not installed)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agents import info_state_of, make_agent
from ohmygoods_env import Game
from ohmygoods_env import layout as L

sb3_contrib = pytest.importorskip("sb3_contrib")


class _Spaces(gym.Env):
    """Only the spaces of the game, to build an untrained policy of the right shape."""

    observation_space = gym.spaces.Box(0.0, 10.0, (L.OBS_DIM,), np.float32)
    action_space = gym.spaces.Discrete(L.N_ACTIONS)

    def reset(self, *, seed=None, options=None):
        return np.zeros(L.OBS_DIM, np.float32), {}

    def step(self, action):
        return np.zeros(L.OBS_DIM, np.float32), 0.0, True, False, {}

    def action_masks(self):
        return np.ones(L.N_ACTIONS, bool)


def test_load_policy_plays_legal_moves(tmp_path) -> None:
    model = sb3_contrib.MaskablePPO("MlpPolicy", _Spaces(), n_steps=8, batch_size=8, seed=0, device="cpu")
    path = tmp_path / "tiny_policy.zip"
    model.save(path)
    agent = make_agent(f"ppo:{path}")
    assert agent.name == "ppo:tiny_policy" and not agent.needs_info_state
    opponent = make_agent("random", seed=1)
    g = Game(2, seed=3)
    steps = 0
    while not g.done and steps < 400:
        p = g.current_player
        mask = g.legal_mask()
        who = agent if p == 0 else opponent
        a = who.act(g.observe(p), mask, info_state_of(g.state, p))
        assert mask[a] == 1
        g.step(a)
        steps += 1
    obs = np.stack([g.observe(0), g.observe(1)]) if not g.done else None
    if obs is not None:
        acts = agent.act_batch(obs, np.stack([g.legal_mask()] * 2))
        assert acts.shape == (2,)
    # the path without .zip works too (SB3's own convention)
    assert make_agent(f"ppo:{tmp_path / 'tiny_policy'}").name == "ppo:tiny_policy"
