"""Baseline agents of *Artificium*, registered for the game in :mod:`ohmygoods_env.framework.agents`.

==============  ==============================================================================
spec            agent
==============  ==============================================================================
``greedy``      best immediate gain per legal action (:class:`.greedy.GreedyAgent`)
``heuristic``   a plan along the production chains (:class:`.heuristic.HeuristicAgent`)
``ppo``         the shipped self-play policy network, 2-6 players (:mod:`.policy`; ``ppo:PATH``
                another checkpoint; needs torch, docs/artificium/training.md)
``exec:CMD``    an external program over JSON lines (:mod:`ohmygoods_agents.external`), only
                with ``allow_exec=True`` as for *Oh my Goods!* (``ohmygoods evaluate`` and
                ``ohmygoods tournament`` allow the programs named on their command line)
==============  ==============================================================================

``random`` and ``ismcts`` serve every game (:mod:`ohmygoods_env.framework.agents`,
:mod:`ohmygoods_agents.ismcts`). Importing this package (importing :mod:`ohmygoods_agents`
does) registers the four names for ``"artificium"``; a fresh interpreter that imported neither
finds them through the entry points ``artificium.greedy``, ``artificium.heuristic``,
``artificium.ppo`` and ``artificium.exec`` of the group ``ohmygoods.game_agents``
(``pyproject.toml``). The three agents read only the seat's observation and mask (A9.2), an
external program too, see ``docs/artificium/agents.md``.
"""

from __future__ import annotations

from typing import Any

from ohmygoods_env.framework.agents import register_agent

from ..registry import exec_agent as _exec_agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .policy import ppo

__all__ = ["GAME", "GreedyAgent", "HeuristicAgent", "exec_agent", "greedy", "heuristic", "ppo"]

GAME = "artificium"


def _no_arg(name: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"the Artificium {name} agent takes no argument, got {name}:{arg}")


def greedy(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> GreedyAgent:
    """Factory of ``greedy`` for ``make_agent("artificium", "greedy")``."""
    _no_arg("greedy", arg)
    return GreedyAgent(seed=seed, **kwargs)


def heuristic(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> HeuristicAgent:
    """Factory of ``heuristic`` for ``make_agent("artificium", "heuristic")``."""
    _no_arg("heuristic", arg)
    return HeuristicAgent(seed=seed, **kwargs)


def exec_agent(arg: str | None = None, *, seed: int | None = None, allow_exec: bool = False, **kwargs: Any) -> Any:
    """Factory of ``exec:COMMAND`` for ``make_agent("artificium", "exec:...", allow_exec=True)``: refused
    without ``allow_exec=True`` (:func:`ohmygoods_agents.registry.exec_agent`)."""
    return _exec_agent(arg, seed=seed, allow_exec=allow_exec, game=GAME, **kwargs)


register_agent(GAME, "greedy", greedy, "best immediate gain per legal action")
register_agent(GAME, "heuristic", heuristic, "a plan along the production chains")
register_agent(GAME, "ppo", ppo, "the shipped self-play policy network (ppo:PATH: a checkpoint)")
register_agent(GAME, "exec", exec_agent, "exec:COMMAND, an external program over JSON lines (stdin/stdout)")
