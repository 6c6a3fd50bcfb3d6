"""The MARL stacks users bring run our PettingZoo envs unchanged: a short masked rollout each.

Each test skips, naming what to install, where its stack is missing (``pip install -e ".[marl]"``).
Every action is drawn from the mask the stack hands over; the envs raise on an illegal one,
so a rollout that finishes proves the masks arrive intact.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.envs.parallel import parallel_env
from ohmygoods_env.envs.pettingzoo_env import STATE_DIM
from ohmygoods_env.envs.pettingzoo_env import env as aec_env

MISSING = "not installed: pip install -e '.[marl]'"


@pytest.mark.parametrize("kind", ["parallel", "aec"])
def test_torchrl_pettingzoo_wrapper_masked_rollout(kind: str) -> None:
    pytest.importorskip("torchrl", reason=f"torchrl {MISSING}")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    e = parallel_env(num_players=3) if kind == "parallel" else aec_env(num_players=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = PettingZooWrapper(e, return_state=True, use_mask=True, categorical_actions=True, seed=0)
    td = w.reset()
    assert td["state"].shape[-1] == STATE_DIM  # the privileged state for a centralised critic
    gen = torch.Generator().manual_seed(0)
    steps = 0
    while steps < 2000:
        for group in w.group_map:
            mask = td[group, "action_mask"]
            td[group, "action"] = torch.multinomial(mask.float(), 1, generator=gen).squeeze(-1)
        td = w.step(td)["next"]
        steps += 1
        if td["done"].all():
            break
    assert td["done"].all() and e.unwrapped.game.done
    group = next(iter(w.group_map))
    assert (td[group, "info", "decision"] == L.D_OVER).all()  # numeric infos reach the tensordict


def test_tianshou_pettingzoo_env_masked_rollout() -> None:
    pytest.importorskip("tianshou", reason=f"tianshou {MISSING}")
    from tianshou.env import PettingZooEnv

    e = PettingZooEnv(aec_env(num_players=3))
    obs, _ = e.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(5000):
        obs, rewards, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        if term or trunc:
            break
    assert term and len(rewards) == 3 and set(rewards) <= {-1.0, 0.0, 1.0}
    assert (1.0 in rewards) or not any(rewards)  # someone won, or all tied


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_rllib_pettingzoo_env_masked_rollout(kind: str) -> None:
    pytest.importorskip("ray.rllib", reason=f"ray[rllib] {MISSING}")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv

    if kind == "parallel":
        w = ParallelPettingZooEnv(parallel_env(num_players=3))
    else:
        w = PettingZooEnv(aec_env(num_players=3))
    obs, _ = w.reset(seed=3)
    rng = np.random.default_rng(0)
    waits = 0
    for _ in range(5000):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        waits += sum(a == L.A_WAIT for a in actions.values())
        obs, rewards, term, trunc, _ = w.step(actions)
        if term["__all__"] or trunc["__all__"]:
            break
    assert term["__all__"] and len(rewards) == 3 and sum(rewards.values()) in (-1.0, 1.0, 0.0)
    assert (waits > 0) == (kind == "parallel")  # only the parallel env asks waiting seats
