"""Env ids of a game in PettingZoo's registries (aec and parallel, PettingZoo >= 1.27) and in Gymnasium's.

A game's package calls :func:`register_env_ids` once when imported; registering an id again
(a second import, a reload) is a no-op, so it never warns.
"""

from __future__ import annotations

import gymnasium

__all__ = ["register_env_ids"]


def register_env_ids(
    env_id: str,
    aec: str,
    parallel: str,
    gym_id: str | None = None,
    gym: str | None = None,
) -> bool:
    """Register ``env_id`` (entry points ``"module:callable"``) for PettingZoo and ``gym_id`` for Gymnasium.

    Returns False where PettingZoo has no registry (before 1.27); the Gymnasium id is
    registered either way.
    """
    if gym_id is not None and gym is not None and gym_id not in gymnasium.registry:
        gymnasium.register(id=gym_id, entry_point=gym)
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return False
    if not hasattr(pettingzoo, "register"):
        return False
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=aec)
    if env_id not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", env_id, entry_point=parallel)
    return True
