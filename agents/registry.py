"""Factories of *Oh my Goods!*'s agents for the framework's one agent registry
(:mod:`ohmygoods_env.framework.agents`, game ``"ohmygoods"``; :mod:`ohmygoods_env.policy` is the
same registry with the game filled in).

Each factory is ``factory(arg, *, seed, **kwargs) -> Agent``; ``arg`` is the part after
``NAME:`` in a spec (``None`` without one). ``pyproject.toml`` names them in the entry point
group ``ohmygoods.game_agents`` as ``ohmygoods.NAME``, and :func:`register_all` registers them
(plus every shipped checkpoint by its short name) when ``ohmygoods_agents`` is imported.
"""

from __future__ import annotations

from typing import Any

from ohmygoods_env.policy import register_agent


def _no_arg(name: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"the {name} agent takes no argument, got {name}:{arg}")


def greedy(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    _no_arg("greedy", arg)
    from .greedy import GreedyAgent

    return GreedyAgent(seed=seed, **kwargs)


def heuristic(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    _no_arg("heuristic", arg)
    from .heuristic import HeuristicAgent

    return HeuristicAgent(seed=seed, **kwargs)


def mcts(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    """``mcts``: determinized IS-MCTS; ``mcts:SPEC``: the same search with the policy network
    ``SPEC`` (``ppo``, ``ppo-3p``, ``ppo:PATH``, ...) biasing the root (see :mod:`ohmygoods_agents.mcts`)."""
    from .mcts import MCTSAgent

    if arg is None:
        return MCTSAgent(seed=seed, **kwargs)
    from ohmygoods_env.policy import make_agent

    return MCTSAgent(seed=seed, policy=make_agent(arg, seed=seed), **kwargs)


def gumbel(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    """``gumbel``: the shipped 2-player network with the Gumbel root of IS-MCTS; ``gumbel:N`` ``N``
    simulations, ``gumbel:N:SPEC`` another network (see :mod:`ohmygoods_agents.gumbel`)."""
    from .gumbel import gumbel as factory

    return factory(arg, seed=seed, **kwargs)


def ismcts(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    """``ismcts`` (200 iterations), ``ismcts:N``, ``ismcts:gumbel[:N]``: the framework's IS-MCTS
    (:mod:`ohmygoods_agents.ismcts`), reading this game's redacted state rows as information sets."""
    from .gumbel import RowISMCTSAgent
    from .ismcts import ismcts as factory

    agent = factory(arg, seed=seed, **kwargs)  # the generic factory parses ARG and checks the options
    agent.__class__ = RowISMCTSAgent  # the same search; only act() also accepts a redacted state row
    return agent


def shipped(short_name: str, *, seed: int | None = None, **kwargs: Any) -> Any:
    """The shipped agent ``short_name`` (``ppo``, ``ppo-3p``, ...) from the package data."""
    from .checkpoint import load_policy, shipped_checkpoints

    known = shipped_checkpoints()
    if short_name not in known:
        raise ValueError(f"no shipped agent {short_name!r}: shipped are {sorted(known)}")
    return load_policy(known[short_name], seed=seed, name=short_name, **kwargs)


def ppo(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
    """``ppo``: the shipped 2-player policy; ``ppo:PATH``: a safe checkpoint file."""
    if arg is None:
        return shipped("ppo", seed=seed, **kwargs)
    from .checkpoint import load_policy

    return load_policy(arg, seed=seed, **kwargs)


def sb3(arg: str | None = None, *, seed: int | None = None, trust_pickle: bool = False, **kwargs: Any) -> Any:
    """``sb3:PATH``: a MaskablePPO zip, loaded only with ``trust_pickle=True`` (it unpickles code)."""
    from .checkpoint import UntrustedCheckpointError, load_policy, untrusted_zip_message

    if arg is None:
        raise ValueError("the sb3 agent needs a path: sb3:PATH")
    if trust_pickle is not True:
        raise UntrustedCheckpointError(untrusted_zip_message(arg))
    from pathlib import Path

    p = Path(arg)
    return load_policy(p if p.suffix == ".zip" else p.with_suffix(".zip"), seed=seed, trust_pickle=True, **kwargs)


def exec_agent(arg: str | None = None, *, seed: int | None = None, allow_exec: bool = False, **kwargs: Any) -> Any:
    """``exec:COMMAND``: an external program speaking JSON lines (:mod:`ohmygoods_agents.external`).

    It runs a program on this machine, so it is refused unless ``allow_exec=True``: an agent
    name that arrives from elsewhere (a request to ``ohmygoods serve``, a config file) never
    starts a program. ``ohmygoods evaluate`` and ``ohmygoods tournament`` opt in for the
    agents named on their command line.
    """
    if arg is None:
        raise ValueError("the exec agent needs a command: exec:COMMAND, e.g. 'exec:python3 my_agent.py'")
    if allow_exec is not True:
        raise ValueError(
            f"exec:{arg} would run a program on this machine: make_agent(..., allow_exec=True) allows it "
            "(ohmygoods evaluate and ohmygoods tournament do for the agents on their command line)"
        )
    from .external import ExternalAgent

    return ExternalAgent(arg, seed=seed, **kwargs)


def _shipped_factory(short_name: str):
    def factory(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> Any:
        _no_arg(short_name, arg)
        return shipped(short_name, seed=seed, **kwargs)

    return factory


#: the shipped agents other than ``ppo`` as entry point targets (``pyproject.toml``); every shipped
#: checkpoint also registers by its short name in :func:`register_all`
ppo_3p = _shipped_factory("ppo-3p")
ppo_4p = _shipped_factory("ppo-4p")
ppo_solo = _shipped_factory("ppo-solo")
ppo_long = _shipped_factory("ppo-long")


def register_all() -> None:
    """Register this package's agents and every shipped checkpoint under its short name."""
    register_agent("greedy", greedy, "the greedy rollout policy")
    register_agent("heuristic", heuristic, "documented rule-based player")
    register_agent("mcts", mcts, "determinized information-set MCTS; mcts:SPEC guided by a policy network")
    register_agent("ppo", ppo, "the shipped 2-player policy; ppo:PATH a policy checkpoint")
    register_agent("ismcts", ismcts, "the framework's IS-MCTS; ismcts:N N iterations, ismcts:gumbel[:N]")
    register_agent("gumbel", gumbel, "ppo with the Gumbel root of IS-MCTS; gumbel:N N simulations, gumbel:N:SPEC")
    register_agent("exec", exec_agent, "exec:COMMAND, an external program over JSON lines (stdin/stdout)")
    register_agent("sb3", sb3, "sb3:PATH, a MaskablePPO zip (trust_pickle=True only)")
    from .checkpoint import shipped_checkpoints

    for short in shipped_checkpoints():
        if short != "ppo":
            register_agent(short, _shipped_factory(short), f"shipped agent {short}")


__all__ = [
    "exec_agent",
    "greedy",
    "gumbel",
    "heuristic",
    "ismcts",
    "mcts",
    "ppo",
    "ppo_3p",
    "ppo_4p",
    "ppo_long",
    "ppo_solo",
    "register_all",
    "sb3",
    "shipped",
]
