"""Agents over the game interface: the shared protocol, a random agent and a per-game agent registry.

Every player, whatever the game, follows one protocol (the one of
:class:`ohmygoods_env.policy.Agent`): ``act(observation, mask, info_state=None) -> int``.
Front ends ask an agent to move with :func:`choose`, which passes the seat's observation,
its legal mask and, to agents with ``needs_info_state = True``, the seat's
:class:`~.game.InformationSet` (worlds from ``determinize``; ``numpy.asarray`` of it is the
game's array information state where the game has one). A plain callable
``f(observation, mask) -> int`` is accepted wherever an agent is.

Registry — the one agent registry of every game, *Oh my Goods!* included:
:func:`register_agent` ``(game, name, factory)`` with ``game`` a game name or ``"*"`` for every
game; a factory is ``factory(arg, *, seed, **kwargs) -> agent``, ``arg`` the part after
``NAME:`` in a spec (``None`` without one). :func:`make_agent` looks a name up for the game,
then among the agents of every game, then in the entry points, then among the names the entry
points' modules register when imported (:func:`load_providers`), and last asks the game's own
registry (``GameSpec.make_agent``) where a game keeps one. ``random`` is built in for every game
(a game may register its own ``random``: *Oh my Goods!*'s draws from the engine's RNG words).

Entry points: the group ``ohmygoods.game_agents`` (:data:`ENTRY_POINT_GROUP`) is the one group
for new registrations: an entry ``GAME.NAME`` registers ``NAME`` for that game only, an entry
``NAME`` for every game (``pyproject.toml`` lists ``ismcts``, ``ohmygoods.heuristic``, ...,
``artificium.greedy``, ...). A game's spec may name older groups in ``agent_entry_points``
whose every entry is an agent of that game: *Oh my Goods!* names ``ohmygoods.agents``, the
group its agents were registered in before, so third-party packages that declare agents there
keep working (the shipped agents are declared only in the new group).

Trust: two keyword arguments of :func:`make_agent` let an agent run code, ``allow_exec=True``
(``exec:COMMAND`` starts a program) and ``trust_pickle=True`` (an SB3 zip is unpickled). Only a
command line (or a caller's own code) may pass them: an agent read from a file (a protocol's
ladder, a recipe, a league spec, a checkpoint) goes through :func:`check_file_agent`, which
refuses those keywords and the specs that need them (:data:`TRUST_KWARGS`).
"""

from __future__ import annotations

import importlib
import inspect
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
    "load_providers",
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
#: modules of entry points imported once for a name found nowhere (a provider may register more names)
_LOADED_PROVIDERS: set[str] = set()


def register_agent(game: str, name: str, factory: AgentFactory, description: str = "") -> None:
    """Register ``factory`` under ``name`` for ``game`` (a game name, or ``"*"`` for every game).

    The one way an agent becomes nameable, for every game; a later registration of the same
    ``(game, name)`` replaces the earlier one. A name registered for a game is found before the
    same name registered for ``"*"``.
    """
    for what, value in (("game", game), ("name", name)):
        if not isinstance(value, str) or not value or ":" in value:
            raise ValueError(f"agent {what} must be a non-empty str without ':', got {value!r}")
    if not callable(factory):
        raise TypeError(f"factory must be callable, got {type(factory).__name__}")
    _REGISTRY.setdefault(game, {})[name] = (factory, description)


def _game_entry_points(spec: GameSpec) -> dict[str, tuple[metadata.EntryPoint, str]]:
    """``name -> (entry point, game or "*")`` of the entry points that offer agents to ``spec``'s game: the
    group :data:`ENTRY_POINT_GROUP` (``game.NAME`` for that game, ``NAME`` for every game), then each older
    group the game's spec lists in ``agent_entry_points`` (every entry there is an agent of that game). An
    entry for the game comes before a generic one of the same name."""
    found: dict[str, tuple[metadata.EntryPoint, str]] = {}
    generic: dict[str, tuple[metadata.EntryPoint, str]] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        target, dot, name = ep.name.rpartition(".")
        if not dot:
            generic.setdefault(name, (ep, ANY_GAME))
        elif target == spec.name:
            found.setdefault(name, (ep, spec.name))
    for group in spec.agent_entry_points:
        for ep in metadata.entry_points(group=group):
            found.setdefault(ep.name, (ep, spec.name))
    return {**generic, **found}


def agent_names(game: str | GameSpec) -> list[str]:
    """Names :func:`make_agent` resolves for ``game``: registered (game-specific and generic) and offered by
    the entry point groups (:data:`ENTRY_POINT_GROUP`: ``game.NAME`` for this game, ``NAME`` for every
    game; and the game's older groups, ``GameSpec.agent_entry_points``), whether or not their modules are
    imported yet (:func:`load_providers` imports them, for names a provider registers beyond its entries)."""
    spec = resolve_game(game)
    names = set(_REGISTRY.get(spec.name, {})) | set(_REGISTRY.get(ANY_GAME, {})) | set(_game_entry_points(spec))
    return sorted(names)


def load_providers(game: str | GameSpec) -> None:
    """Import, once each, the module of every entry point that offers agents to ``game``.

    A provider may register more names when imported than it lists as entry points (the
    agents package registers every shipped checkpoint of *Oh my Goods!* by its short name), so
    a name found nowhere else is looked up again after this.
    """
    for ep, _ in _game_entry_points(resolve_game(game)).values():
        module = ep.value.partition(":")[0].strip()
        if module not in _LOADED_PROVIDERS:
            _LOADED_PROVIDERS.add(module)
            importlib.import_module(module)


def _lookup(spec: GameSpec, name: str) -> AgentFactory | None:
    for table in (_REGISTRY.get(spec.name, {}), _REGISTRY.get(ANY_GAME, {})):
        if name in table:
            return table[name][0]
    return None


def _takes_game(factory: AgentFactory) -> bool:
    """Does ``factory`` take the keyword ``game``? (A factory of every game may ask which game it plays.)"""
    try:
        return "game" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def make_agent(game: str | GameSpec, spec: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build the agent ``spec`` (``NAME`` or ``NAME:ARG``) for ``game``; ``ValueError`` naming the known ones.

    ``NAME`` is looked up among the game's agents, then the agents of every game, then in the
    entry points (:func:`agent_names`), then among the names the entry points' modules register
    when imported (:func:`load_providers`), and last in the game's own registry
    (``GameSpec.make_agent``) where it has one. ``ARG`` is the text after the first ``:``.
    """
    gs = resolve_game(game)
    if not isinstance(spec, str):
        raise TypeError(
            f"agent spec must be a str such as 'heuristic' or 'ppo:PATH', got {type(spec).__name__} {spec!r}"
        )
    name, sep, arg = spec.partition(":")
    if sep and not arg:
        raise ValueError(f"agent spec {spec!r} has an empty argument after ':'")
    factory = _lookup(gs, name)
    if factory is None:
        _load_entry_point(gs, name)
        factory = _lookup(gs, name)
    if factory is None:
        load_providers(gs)
        factory = _lookup(gs, name)
    if factory is not None:
        if _takes_game(factory):  # a factory of every game that needs to know which (the generic ppo:PATH)
            kwargs.setdefault("game", gs)
        return factory(arg if sep else None, seed=seed, **kwargs)
    if gs.make_agent is not None:
        try:
            return gs.make_agent(spec, seed=seed, **kwargs)
        except ValueError as exc:
            known = agent_names(gs)
            raise ValueError(f"unknown agent {spec!r} for {gs.title}: {exc}; generic agents: {known}") from None
    raise ValueError(
        f"unknown agent {spec!r} for {gs.title}: expected one of {agent_names(gs)} (a name, or NAME:ARG such as "
        f"ppo:PATH; agents come from register_agent or the {ENTRY_POINT_GROUP!r} entry points)"
    )


def _load_entry_point(spec: GameSpec, name: str) -> None:
    """Register ``name`` for ``spec``'s game from the entry points that offer agents to it, if one offers it
    (the entry ``game.NAME`` or one of an older group of the game before an entry ``NAME`` of every game).
    A generic entry is registered for the game that asked only: registered for every game, it would hide
    another game's own entry of the same name that is not loaded yet (the generic ``ppo:PATH`` and
    *Oh my Goods!*'s ``ppo``)."""
    found = _game_entry_points(spec).get(name)
    if found is not None:
        ep, _ = found
        register_agent(spec.name, name, ep.load(), f"from the entry point {ep.value}")


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
