"""Environment adapters over the engine (PettingZoo AEC, ...) and the environment id table.

PettingZoo has no global registry, so the id ``ohmygoods/oh_my_goods-v0`` is resolved here:
``make(ENV_ID, num_players=3)`` is ``env(num_players=3)``.
"""

from __future__ import annotations

from typing import Any

from .pettingzoo_env import env, raw_env

ENV_ID = "ohmygoods/oh_my_goods-v0"
_ENV_IDS = {ENV_ID: env}


def make(env_id: str, **kwargs: Any) -> Any:
    """Build the environment registered under ``env_id`` with the given keyword arguments."""
    if env_id not in _ENV_IDS:
        raise ValueError(f"unknown environment id {env_id!r}; known ids: {sorted(_ENV_IDS)}")
    return _ENV_IDS[env_id](**kwargs)


__all__ = ["ENV_ID", "env", "make", "raw_env"]

# ---------------------------------------------------------------- Gymnasium: single-agent and vector env
# ``gymnasium.make("ohmygoods/OhMyGoods-v1")`` and ``gymnasium.make_vec(..., num_envs=N)``; the SB3
# VecEnv lives in ``ohmygoods_env.envs.sb3`` (imported on demand: SB3 is an optional extra).
import gymnasium as _gym  # noqa: E402

from .gym_env import ENV_ID_GYM, LearnerGames, OhMyGoodsEnv, RandomOpponent  # noqa: E402
from .vector import OhMyGoodsVectorEnv  # noqa: E402

if ENV_ID_GYM not in _gym.registry:  # importing twice (or reloading) must not register twice
    _gym.register(
        id=ENV_ID_GYM,
        entry_point="ohmygoods_env.envs.gym_env:OhMyGoodsEnv",
        vector_entry_point="ohmygoods_env.envs.vector:OhMyGoodsVectorEnv",
    )

__all__ += ["ENV_ID_GYM", "LearnerGames", "OhMyGoodsEnv", "OhMyGoodsVectorEnv", "RandomOpponent"]
