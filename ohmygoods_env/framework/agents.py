"""Agents over the game interface: the shared protocol, a random agent and a per-game agent registry.

Every player, whatever the game, follows one protocol (the one of
:class:`ohmygoods_env.policy.Agent`): ``act(observation, mask, info_state=None) -> int``.
Front ends ask an agent to move with :func:`choose`, which passes the seat's observation,
its legal mask and, to agents with ``needs_info_state = True``, the seat's
:class:`~.game.InformationSet` (worlds from ``determinize``; ``numpy.asarray`` of it is the
game's array information state where the game has one). A plain callable
``f(observation, mask) -> int`` is accepted wherever an agent is.

Registry: :func:`register_agent` ``(game, name, factory)`` with ``game`` a game name or
``"*"`` for every game; a factory is ``factory(arg, *, seed, **kwargs) -> agent``, ``arg``
the part after ``NAME:`` in a spec. :func:`make_agent` looks a name up for the game, then
among the agents of every game, then asks the game's own registry (``GameSpec.make_agent``).
``random`` is built in for every game; ``ohmygoods_agents.ismcts`` registers ``ismcts``
when imported, and a name found nowhere is looked up once in the entry point group
``ohmygoods.game_agents``: an entry ``GAME.NAME`` registers ``NAME`` for that game only, an
entry ``NAME`` for every game (``pyproject.toml`` lists ``ismcts`` and Artificium's
``artificium.greedy`` and ``artificium.heuristic`` there).

Trust: two keyword arguments of :func:`make_agent` let an agent run code, ``allow_exec=True``
(``exec:COMMAND`` starts a program) and ``trust_pickle=True`` (an SB3 zip is unpickled). Only a
command line (or a caller's own code) may pass them: an agent read from a file (a protocol's
ladder, a recipe, a league spec, a checkpoint) goes through :func:`check_file_agent`, which
refuses those keywords and the specs that need them (:data:`TRUST_KWARGS`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .checks import optional_seed
from .game import ForwardModel, GameSpec, InformationSet, check_player, resolve_game

__all__ = [
    "AgentProtocol",
    "RandomAgent",
    "TRUST_KWARGS",
    "agent_names",
    "check_file_agent",
    "choose",
    "make_agent",
    "register_agent",
    "resolve_agent",
]

AgentFactory = Callable[..., Any]
#: the keyword arguments of :func:`make_agent` that let an agent run code: a program (``exec:COMMAND``)
#: or the pickle of a Stable-Baselines3 zip (``sb3:PATH``, ``ppo:PATH.zip``); never taken from a file
TRUST_KWARGS = ("allow_exec", "trust_pickle")


def _spec_runs_code(spec: str) -> str | None:
    """The keyword a spec needs to build (``allow_exec`` / ``trust_pickle``), or ``None``: ``exec:``, ``sb3:``
    and a ``.zip`` path at any depth (``mcts:sb3:PATH`` guides a search with a zip)."""
    parts = spec.split(":")
    if "exec" in (p.strip() for p in parts):
        return "allow_exec"
    if "sb3" in (p.strip() for p in parts) or spec.rstrip().lower().endswith(".zip"):
        return "trust_pickle"
    return None


def check_file_agent(spec: object, kwargs: object, source: str) -> tuple[str, dict[str, Any]]:
    """An agent read from a file: ``(spec, kwargs)`` checked, else ``ValueError`` naming ``source``.

    ``spec`` must be a string and ``kwargs`` an object with string keys. A keyword of
    :data:`TRUST_KWARGS` (whatever its value) and a spec that needs one (``exec:COMMAND``,
    ``sb3:PATH``, a ``.zip`` checkpoint) are refused: only the command line may let an agent
    start a program or unpickle a file. ``source`` names the file and the entry
    (``"p.json: ladder 'x'"``). The one rule for every file the library reads.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{source}: expected an agent spec, a string such as 'heuristic', got {spec!r:.80}")
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise ValueError(
            f'{source}: expected an object of keyword arguments such as {{"sims": 100}}, got {kwargs!r:.80}'
        )
    for key in TRUST_KWARGS:
        if key in kwargs:
            raise ValueError(
                f"{source}: {key!r} is refused from a file: only the command line may let an agent start a "
                "program or unpickle a file (evaluate and tournament: the agents named there, --trust-pickle)"
            )
    needs = _spec_runs_code(spec)
    if needs is not None:
        what = "start a program" if needs == "allow_exec" else "unpickle a file"
        raise ValueError(
            f"{source}: the agent {spec!r:.120} would {what}; only the command line may allow that "
            f"({needs}): name it there"
        )
    return spec, dict(kwargs)


ANY_GAME = "*"
#: entry point group of agents for every game (``name = "module:factory"``), read for unknown names
ENTRY_POINT_GROUP = "ohmygoods.game_agents"


@runtime_checkable
class AgentProtocol(Protocol):
    """``act(observation, mask, info_state=None) -> int`` (the protocol of ``ohmygoods_env.policy.Agent``)."""

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int: ...


class RandomAgent:
    """Uniform over the legal actions of any game; ``seed`` makes it reproducible."""

    name = "random"
    needs_info_state = False
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart the agent's random stream (``None``: fresh entropy)."""
        self._rng = np.random.default_rng(optional_seed(seed))

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over, or is it not this seat's turn?)")
        return int(legal[self._rng.integers(legal.size)])

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return self.act(observation, mask, info_state)


def choose(agent: Any, model: ForwardModel, player: int) -> int:
    """``agent``'s action for seat ``player`` of ``model`` (a pending seat), through the agent protocol."""
    p = check_player(player, model.num_players)
    mask = model.legal_mask(p)
    obs = model.observe(p) if getattr(agent, "needs_observation", True) else np.zeros(model.obs_size, np.float32)
    act = getattr(agent, "act", agent)
    if getattr(agent, "needs_info_state", False):
        return int(act(obs, mask, InformationSet(model, p)))
    return int(act(obs, mask))


# ===================================================================== registry

_REGISTRY: dict[str, dict[str, tuple[AgentFactory, str]]] = {}


def register_agent(game: str, name: str, factory: AgentFactory, description: str = "") -> None:
    """Register ``factory`` under ``name`` for ``game`` (a game name, or ``"*"`` for every game)."""
    for what, value in (("game", game), ("name", name)):
        if not isinstance(value, str) or not value or ":" in value:
            raise ValueError(f"agent {what} must be a non-empty str without ':', got {value!r}")
    if not callable(factory):
        raise TypeError(f"factory must be callable, got {type(factory).__name__}")
    _REGISTRY.setdefault(game, {})[name] = (factory, description)


def agent_names(game: str | GameSpec) -> list[str]:
    """Names :func:`make_agent` resolves for ``game``: registered (game-specific and generic) and offered by
    the entry point group :data:`ENTRY_POINT_GROUP` (``game.name`` for this game, ``name`` for every game),
    whether or not their modules are imported yet."""
    spec = resolve_game(game)
    names = set(_REGISTRY.get(spec.name, {})) | set(_REGISTRY.get(ANY_GAME, {}))
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        target, dot, name = ep.name.rpartition(".")
        if not dot or target == spec.name:
            names.add(name)
    return sorted(names)


def make_agent(game: str | GameSpec, spec: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent ``spec`` (``NAME`` or ``NAME:ARG``) for ``game``; ``ValueError`` naming the known ones."""
    gs = resolve_game(game)
    if not isinstance(spec, str):
        raise TypeError(f"agent spec must be a str, got {type(spec).__name__} {spec!r}")
    name, _, arg = spec.partition(":")
    if name not in _REGISTRY.get(gs.name, {}) and name not in _REGISTRY.get(ANY_GAME, {}):
        _load_entry_point(gs.name, name)
    for table in (_REGISTRY.get(gs.name, {}), _REGISTRY.get(ANY_GAME, {})):
        if name in table:
            return table[name][0](arg or None, seed=seed, **kwargs)
    if gs.make_agent is not None:
        try:
            return gs.make_agent(spec, seed=seed, **kwargs)
        except ValueError as exc:
            known = agent_names(gs)
            raise ValueError(f"unknown agent {spec!r} for {gs.title}: {exc}; generic agents: {known}") from None
    raise ValueError(f"unknown agent {spec!r} for {gs.title}: known agents are {agent_names(gs)}")


def _load_entry_point(game: str, name: str) -> None:
    """Register ``name`` from the entry point group :data:`ENTRY_POINT_GROUP`, if it is there: the entry
    ``game.name`` for ``game`` only, else the entry ``name`` for every game."""
    eps = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    for key, target in ((f"{game}.{name}", game), (name, ANY_GAME)):
        if key in eps:
            register_agent(target, name, eps[key].load(), f"from the entry point {eps[key].value}")
            return


def resolve_agent(game: str | GameSpec, agent: Any, seed: int | None = None) -> Any:
    """An agent from a spec string (:func:`make_agent`), an agent object, a callable or ``None`` (random)."""
    if agent is None:
        return RandomAgent(seed)
    if isinstance(agent, str):
        return make_agent(game, agent, seed=seed)
    if callable(getattr(agent, "act", None)) or callable(agent):
        return agent
    raise TypeError(f"an agent must be a name, an object with act(observation, mask) or a callable, got {agent!r}")


def _random_factory(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> RandomAgent:
    if arg is not None:
        raise ValueError(f"the random agent takes no argument, got random:{arg}")
    return RandomAgent(seed, **kwargs)


register_agent(ANY_GAME, "random", _random_factory, "uniformly random legal action")
