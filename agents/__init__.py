"""Baseline and trained agents for Oh my Goods!, registered by name.

===================  ==========================================================================
spec                 agent
===================  ==========================================================================
``random``           uniformly random legal action (:class:`ohmygoods_env.policy.RandomAgent`)
``greedy``           the light greedy policy MCTS uses in its rollouts (:mod:`ohmygoods_agents.greedy`)
``heuristic``        documented rule-based player (:class:`ohmygoods_agents.heuristic.HeuristicAgent`)
``mcts``             determinized information-set MCTS (:class:`ohmygoods_agents.mcts.MCTSAgent`)
``ismcts``           the framework's IS-MCTS, as for every game (``ismcts:N``: ``N`` iterations;
                     :mod:`ohmygoods_agents.ismcts`)
``ppo``              the shipped 2-player policy (package data, safe format; see below)
``ppo:PATH``         a policy checkpoint ``PATH`` (``NAME.json`` + ``NAME.safetensors``,
                     :func:`ohmygoods_agents.checkpoint.load_policy`); runs no code when loaded
``exec:COMMAND``     an external program in any language, over JSON lines on stdin/stdout
                     (:mod:`ohmygoods_agents.external`)
``sb3:PATH``         a Stable-Baselines3 ``MaskablePPO`` zip: **only** with
                     ``trust_pickle=True``, because loading such a zip unpickles code
===================  ==========================================================================

Shipped agents (``agents/checkpoints/*.json`` with a ``name``) register under that short name
(``ppo``; ``ppo-long``, ``ppo-solo``, ``ppo-3p``, ``ppo-4p``) and load from any working directory.

Every agent follows the protocol of :class:`ohmygoods_env.policy.Agent`:
``act(observation, mask, info_state=None) -> int``. :func:`make_agent` is the framework's one
agent registry for the game ``"ohmygoods"`` (:mod:`ohmygoods_env.policy` fills the game in); the
names above reach it through the entry points ``ohmygoods.NAME`` of the group
``ohmygoods.game_agents`` (``pyproject.toml``) and are also registered when this package is imported.
"""

from __future__ import annotations

from ohmygoods_env.policy import Agent, agent_names, info_state_of, make_agent, register_agent

from . import artificium as _artificium  # noqa: F401  (registers Artificium's greedy and heuristic)
from . import ismcts as _ismcts  # noqa: F401  (registers ismcts for every game)
from . import registry as _registry

_registry.register_all()

AGENT_NAMES: tuple[str, ...] = (
    "random",
    "greedy",
    "heuristic",
    "mcts",
    "ismcts",
    "ppo",
    "ppo:PATH",
    "exec:COMMAND",
    "sb3:PATH",
)

__all__ = ["AGENT_NAMES", "Agent", "agent_names", "info_state_of", "make_agent", "register_agent"]
