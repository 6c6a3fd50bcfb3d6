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
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..checks import optional_seed
from .game import ForwardModel, GameSpec, InformationSet, check_player, resolve_game

__all__ = [
    "AgentProtocol",
    "RandomAgent",
    "agent_names",
    "choose",
    "make_agent",
    "register_agent",
    "resolve_agent",
]

AgentFactory = Callable[..., Any]
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
    """Names :func:`make_agent` resolves for ``game`` through this registry (game-specific and generic)."""
    spec = resolve_game(game)
    return sorted(set(_REGISTRY.get(spec.name, {})) | set(_REGISTRY.get(ANY_GAME, {})))


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
