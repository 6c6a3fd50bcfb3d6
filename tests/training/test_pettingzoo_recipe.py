"""PettingZoo's SB3 action-masking recipe (BaseWrapper + gymnasium.Env, ActionMasker, MaskablePPO) works as is."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from ohmygoods_training.pettingzoo_recipe import SB3ActionMaskWrapper, eval_action_mask, mask_fn, train_action_mask  # noqa: E402

import ohmygoods_env  # noqa: E402

pytestmark = pytest.mark.training


def test_wrapper_is_a_gymnasium_env_with_masks():
    env = SB3ActionMaskWrapper(ohmygoods_env.env())
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    mask = mask_fn(env)
    assert mask.shape == (env.action_space.n,) and mask.any()


def test_recipe_trains_and_evaluates():
    model = train_action_mask(ohmygoods_env.env, steps=2048, seed=0)
    assert model.num_timesteps >= 2048
    res = eval_action_mask(ohmygoods_env.env, model, num_games=3)
    assert sum(res["wins"].values()) + res["ties"] == 3
    assert 0.0 <= res["model_win_rate"] <= 1.0
