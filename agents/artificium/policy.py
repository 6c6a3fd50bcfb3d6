"""*Artificium*'s trained policy: the layout its checkpoints record and the shipped self-play network.

* :func:`checkpoint_layout` — *Artificium*'s observation/action layout as a checkpoint of
  :mod:`ohmygoods_agents.checkpoint` records it (from ``ohmygoods_env.artificium.layout``:
  ``OBS_TABLE``, ``ACTION_RANGES``); a checkpoint made for another layout is refused.
* :func:`load_policy` — an :class:`~ohmygoods_agents.policy_agents.MLPAgent` from a safe
  checkpoint (JSON + safetensors, no pickle) on that layout.
* ``make_agent("artificium", "ppo")`` — the shipped self-play policy,
  ``agents/checkpoints/artificium/ppo.json``, one network for 2-6 players (the observation
  is the same size for every count, absent seats zero; docs/artificium/layout.md); made by
  :mod:`ohmygoods_training.selfplay` with the command in its ``card`` (docs/artificium/training.md).
  ``ppo:PATH`` loads another checkpoint. The agent reads only the acting seat's observation
  and legal mask (A9.2: never another seat's hand or face-down card, nor the deck).

:mod:`ohmygoods_agents.artificium` registers :func:`ppo` as ``ppo`` for the game (entry point
``artificium.ppo`` of ``ohmygoods.game_agents``). Playing needs torch and safetensors (the
``play`` extra); nothing here imports torch until an agent is built.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["checkpoint_layout", "load_policy", "ppo", "shipped_path"]


def checkpoint_layout() -> dict[str, Any]:
    """*Artificium*'s observation/action layout, as a checkpoint records it."""
    from ohmygoods_env.artificium import layout as AL

    return {
        "version": f"artificium-v{int(AL.LAYOUT_VERSION)}",
        "obs_dim": int(AL.OBS_DIM),
        "obs_blocks": [[str(n), int(o), int(k)] for n, o, k, _ in AL.OBS_TABLE],
        "n_actions": int(AL.N_ACTIONS),
        "action_ranges": [[str(n), int(o), int(k)] for n, o, k in AL.ACTION_RANGES],
    }


def shipped_path() -> Path:
    """The shipped policy's checkpoint description (package data)."""
    return Path(str(resources.files("ohmygoods_agents") / "checkpoints" / "artificium" / "ppo.json"))


def load_policy(path: str | Path, *, seed: int | None = None, deterministic: bool = True, name: str | None = None):
    """The policy agent of an *Artificium* checkpoint ``path`` (``NAME.json`` beside ``NAME.safetensors``)."""
    from ..policy_agents import require_play

    require_play("the artificium ppo agent")
    from ..checkpoint import load_policy as _load

    return _load(path, seed=seed, deterministic=deterministic, name=name, layout=checkpoint_layout())


def ppo(arg: str | None = None, *, seed: int | None = None, deterministic: bool = True, **kwargs: Any) -> Any:
    """``ppo``: the shipped self-play policy; ``ppo:PATH``: an *Artificium* checkpoint file."""
    if kwargs:
        raise TypeError(f"the artificium ppo agent takes seed and deterministic only, got {sorted(kwargs)}")
    if arg is None:
        return load_policy(shipped_path(), seed=seed, deterministic=deterministic, name="ppo")
    return load_policy(arg, seed=seed, deterministic=deterministic)
