"""The random baseline: :class:`ohmygoods_env.policy.RandomAgent`, re-exported for the agents package."""

from __future__ import annotations

from ohmygoods_env.policy import RandomAgent

__all__ = ["RandomAgent"]
