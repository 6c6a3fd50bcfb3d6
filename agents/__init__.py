"""Baseline agents for Oh my Goods! and the registry that builds them by name.

===================  ==========================================================================
name                 agent
===================  ==========================================================================
``random``           uniformly random legal action (:class:`agents.random_agent.RandomAgent`)
``greedy``           the light greedy policy MCTS uses in its rollouts (:mod:`agents.greedy`)
``heuristic``        documented rule-based player (:class:`agents.heuristic.HeuristicAgent`)
``mcts``             determinized information-set MCTS (:class:`agents.mcts.MCTSAgent`)
``ppo:PATH``         a trained sb3-contrib ``MaskablePPO`` zip (:func:`agents.sb3_policy.load_policy`)
===================  ==========================================================================

All agents follow the protocol of :class:`agents.base.Agent`:
``act(observation, mask, info_state=None) -> int``.
"""

from __future__ import annotations

from .base import Agent, info_state_of

AGENT_NAMES: tuple[str, ...] = ("random", "greedy", "heuristic", "mcts", "ppo:PATH")


def make_agent(name: str, seed: int | None = None, **kwargs) -> Agent:
    """Build an agent by registry name (see the module table); ``kwargs`` go to its constructor.

    >>> make_agent("random", seed=1).name
    'random'
    """
    if not isinstance(name, str):
        raise TypeError(f"agent name must be a str, got {name!r}")
    if name == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed=seed, **kwargs)
    if name == "greedy":
        from .greedy import GreedyAgent

        return GreedyAgent(seed=seed, **kwargs)
    if name == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed=seed, **kwargs)
    if name == "mcts":
        from .mcts import MCTSAgent

        return MCTSAgent(seed=seed, **kwargs)
    if name.startswith("ppo:"):
        from .sb3_policy import load_policy

        return load_policy(name[4:], **kwargs)
    raise ValueError(f"unknown agent {name!r}: expected one of {list(AGENT_NAMES)}")


__all__ = ["AGENT_NAMES", "Agent", "info_state_of", "make_agent"]
