"""The agent protocol, re-exported for the agents package from :mod:`ohmygoods_env.policy`.

:class:`Agent`, :func:`info_state_of` and :func:`require_info_state` live in
:mod:`ohmygoods_env.policy` (below the envs in the layers, so envs and agents share one
concept); this module only names them for ``from ohmygoods_agents.base import ...``.
"""

from __future__ import annotations

from ohmygoods_env.policy import Agent, info_state_of, require_info_state

__all__ = ["Agent", "info_state_of", "require_info_state"]
