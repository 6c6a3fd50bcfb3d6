"""Trained sb3-contrib ``MaskablePPO`` policies as agents.

``load_policy(path)`` loads a saved zip and returns an :class:`SB3PolicyAgent` that plays
``model.predict(observation, action_masks=mask, deterministic=True)``. Stable-Baselines3 and
torch are imported only here, when a policy is loaded, so the core install works without them
(``pip install -e ".[train]"`` brings them). Loaded models are cached per path and process.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ohmygoods_env import layout as L

from .base import Agent


@functools.lru_cache(maxsize=8)
def _load_model(path: str, device: str):
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("loading a trained policy needs sb3-contrib and torch: pip install -e '.[train]'") from exc
    return MaskablePPO.load(path, device=device)


class SB3PolicyAgent(Agent):
    """Plays a ``MaskablePPO`` policy deterministically (the action with the highest probability)."""

    def __init__(self, model, name: str = "ppo", deterministic: bool = True) -> None:
        self.model = model
        self.name = name
        self.deterministic = bool(deterministic)
        shape = getattr(getattr(model, "observation_space", None), "shape", None)
        if shape is not None and tuple(shape) != (L.OBS_DIM,):
            raise ValueError(f"the policy expects observations of shape {tuple(shape)}, the game gives ({L.OBS_DIM},)")

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        m = np.asarray(mask).astype(bool)
        if not m.any():
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        action, _ = self.model.predict(
            np.asarray(observation, np.float32), action_masks=m, deterministic=self.deterministic
        )
        a = int(np.asarray(action).reshape(-1)[0])
        if not m[a]:  # a masked policy never does this; keep the protocol's guarantee anyway
            raise RuntimeError(f"the policy chose illegal action {a}")
        return a

    def act_batch(self, observations, masks, info_states=None) -> np.ndarray:
        m = np.asarray(masks).astype(bool)
        actions, _ = self.model.predict(
            np.asarray(observations, np.float32), action_masks=m, deterministic=self.deterministic
        )
        return np.asarray(actions, np.int64).reshape(-1)


def load_policy(path: str | Path, seed: int | None = None, device: str = "cpu", deterministic: bool = True) -> Agent:
    """Load a ``MaskablePPO`` zip as an agent (``seed`` is accepted for the registry and unused:
    a deterministic policy has no randomness)."""
    p = Path(path)
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.exists():
        raise FileNotFoundError(f"no trained policy at {str(path)!r}")
    import torch

    torch.set_num_threads(1)  # small batched forwards: extra threads only contend on few cores
    model = _load_model(str(p.resolve()), device)
    return SB3PolicyAgent(model, name=f"ppo:{p.stem}", deterministic=deterministic)
