"""Environment adapters over the engine and their ids (PettingZoo AEC and parallel, Gymnasium, SB3).

PettingZoo ids (PettingZoo >= 1.27 keeps its own registries, ``pettingzoo.aec_registry`` and
``pettingzoo.parallel_registry``; importing :mod:`ohmygoods_env` registers both envs there)::

    import ohmygoods_env, pettingzoo
    aec = pettingzoo.make("aec", "ohmygoods/oh_my_goods-v2", num_players=3)
    par = pettingzoo.make("parallel", "ohmygoods/oh_my_goods-v2", num_players=3)

``make(ENV_ID, **kwargs)`` here builds the AEC env on any PettingZoo version, and
``make(ENV_ID, parallel=True, ...)`` the parallel one. The version in the id is
``layout.LAYOUT_VERSION``: it goes up whenever the action or observation layout changes,
and older ids fail with a message that names the current one.

Modules: each adapter is a thin file over the engine and imports no other adapter
(``tests/envs/test_adapter_imports.py``); the PettingZoo AEC and parallel envs are the
framework's (:class:`~ohmygoods_env.framework.envs.aec.GameAECEnv`,
:class:`~ohmygoods_env.framework.envs.parallel.GameParallelEnv` over the spec ``"ohmygoods"`` and
its env hooks), :mod:`.pettingzoo_env` and :mod:`.parallel` only spell the game's arguments:

=====================  ============================================================================
adapters               :mod:`.pettingzoo_env` (AEC), :mod:`.parallel`, :mod:`.gym_env`, :mod:`.vector`,
                       :mod:`.sb3`, :mod:`.seat_vec`, :mod:`.batched`
shared                 :mod:`.common` (action ids, spaces, infos, global state, rendering, the
                       PettingZoo envs' common part), :mod:`.learner` (:class:`LearnerConfig`,
                       :class:`LearnerGames`: the single-learner core of the Gymnasium, vector and SB3
                       envs and the training league), :mod:`.sb3_base` (SB3 ``VecEnv`` plumbing),
                       :mod:`.simultaneous` (the spec's simultaneous phases, which the parallel
                       env plays)
built on adapters      :mod:`.benchmarl_task` (a BenchMARL task over the parallel env)
=====================  ============================================================================

Options have one spelling in every env: ``num_players``, ``rules``, ``reward``, ``cards``,
``illegal`` / ``penalty``, rule options (``max_rounds``, ...).
"""

from __future__ import annotations

from typing import Any

from .. import game_spec as _game_spec  # noqa: F401  (registers "ohmygoods" in the framework's game registry)
from .. import layout as _L
from ..framework.checks import check_flag
from .parallel import OhMyGoodsParallelEnv, parallel_env
from .pettingzoo_env import env, raw_env

ENV_ID = f"ohmygoods/oh_my_goods-v{_L.LAYOUT_VERSION}"
_ENV_IDS = {ENV_ID: (env, parallel_env)}
#: ids of earlier layouts, which fail naming the current id
RETIRED_IDS = tuple(f"ohmygoods/oh_my_goods-v{v}" for v in range(_L.LAYOUT_VERSION))


def make(env_id: str, parallel: bool = False, **kwargs: Any) -> Any:
    """Build the environment registered under ``env_id`` (the AEC env, or with ``parallel=True`` the parallel one)."""
    if env_id in RETIRED_IDS:
        raise ValueError(
            f"{env_id!r} is an earlier action/observation layout and is no longer provided; use {ENV_ID!r}"
        )
    if env_id not in _ENV_IDS:
        raise ValueError(f"unknown environment id {env_id!r}; known ids: {sorted(_ENV_IDS)}")
    return _ENV_IDS[env_id][check_flag(parallel, "parallel")](**kwargs)


def _register_pettingzoo() -> bool:
    """Register the AEC and parallel envs in PettingZoo's registries; False where PettingZoo has none."""
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return False
    if not hasattr(pettingzoo, "register"):  # PettingZoo < 1.27: only ``make`` above
        return False
    if ENV_ID not in pettingzoo.aec_registry:  # importing twice (or reloading) must not warn
        pettingzoo.register("aec", ENV_ID, entry_point="ohmygoods_env.envs.pettingzoo_env:env")
    if ENV_ID not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", ENV_ID, entry_point="ohmygoods_env.envs.parallel:parallel_env")
    return True


PETTINGZOO_REGISTERED = _register_pettingzoo()

__all__ = [
    "ENV_ID",
    "PETTINGZOO_REGISTERED",
    "RETIRED_IDS",
    "OhMyGoodsParallelEnv",
    "env",
    "make",
    "parallel_env",
    "raw_env",
]

# ---------------------------------------------------------------- Gymnasium: single-agent and vector env
# ``gymnasium.make("ohmygoods/OhMyGoods-v2")`` and ``gymnasium.make_vec(..., num_envs=N)``; the SB3
# VecEnv lives in ``ohmygoods_env.envs.sb3`` (imported on demand: SB3 is an optional extra).
import gymnasium as _gym  # noqa: E402

from .gym_env import ENV_ID_GYM, OhMyGoodsEnv, RandomOpponent  # noqa: E402
from .learner import LearnerConfig, LearnerGames  # noqa: E402
from .vector import OhMyGoodsVectorEnv  # noqa: E402

if ENV_ID_GYM not in _gym.registry:  # importing twice (or reloading) must not register twice
    _gym.register(
        id=ENV_ID_GYM,
        entry_point="ohmygoods_env.envs.gym_env:OhMyGoodsEnv",
        vector_entry_point="ohmygoods_env.envs.vector:OhMyGoodsVectorEnv",
    )

__all__ += ["ENV_ID_GYM", "LearnerConfig", "LearnerGames", "OhMyGoodsEnv", "OhMyGoodsVectorEnv", "RandomOpponent"]
