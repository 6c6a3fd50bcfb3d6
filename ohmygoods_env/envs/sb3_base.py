"""SB3 ``VecEnv`` plumbing shared by the batched SB3 adapters (:mod:`.sb3`, :mod:`.seat_vec`).

:class:`BatchedVecEnv` is the per-env part of an SB3 ``VecEnv`` whose envs are rows of one
batch of games: ``get_attr`` / ``set_attr`` / ``env_method`` / ``env_is_wrapped`` without
per-env objects, and ``env_method("action_masks")`` as sb3-contrib's ``MaskablePPO`` calls it.
Importing this module needs stable-baselines3 (an optional extra).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

__all__ = ["BatchedVecEnv"]


class BatchedVecEnv(VecEnv):
    """The per-env plumbing of an SB3 ``VecEnv`` whose ``num_envs`` envs are rows of one batch.

    There are no per-env objects: ``get_attr``/``set_attr``/``env_method`` act on this object
    (a value once per requested env), ``env_method("action_masks")`` returns one mask per
    env (what sb3-contrib's ``MaskablePPO`` asks for), and no env is wrapped. Subclasses
    provide ``reset``, ``step_async``, ``step_wait``, ``seed`` and ``action_masks``.
    """

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release: the games are plain arrays."""

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        assert isinstance(indices, Iterable)
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of this VecEnv, once per env (the games have no per-env objects)."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Call a method of this VecEnv; ``action_masks`` returns one mask per env."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]
