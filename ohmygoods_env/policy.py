"""The agent concept and the opponent protocol: one of each, below the envs in the layers.

This module owns

* :class:`Agent` — the protocol every player follows: ``act(observation, mask, info_state=None)
  -> int`` and ``act_batch(observations, masks, info_states=None) -> int[N]``;
* :class:`RandomAgent` — uniformly random legal play (one numba call per batch);
* :class:`BatchPolicy` and :func:`play_owned` — how the env adapters, the training league,
  evaluation and tournaments ask agents to move in a :class:`~ohmygoods_env.batch.BatchGames`
  (:func:`batch_policy`: the game's hook for the framework's batched series player);
* the agent **registry**: :func:`make_agent` builds an agent from a spec string.

Protocol
--------
=====================  =======================================================================
argument               content
=====================  =======================================================================
``observation``        ``Game.observe(p)``, ``float32[OBS_DIM]`` (:mod:`ohmygoods_env.layout`)
``mask``               ``int8[N_ACTIONS]`` legal actions of the player to move
``info_state``         that player's *information state*: the state row redacted by
                       :func:`ohmygoods_env.infostate.redact` (public information and the
                       player's own cards only). Agents never receive the true state.
=====================  =======================================================================

Class attributes tell harnesses what an agent reads: ``needs_info_state`` (pass the
information state) and ``needs_observation`` (False: harnesses may pass zeros). A plain
callable ``f(observation, mask) -> int`` is accepted wherever an agent is.

Registry
--------
A spec is ``NAME`` or ``NAME:ARG`` (``ppo:PATH``). *Oh my Goods!*'s agents live in the
framework's one agent registry (:mod:`ohmygoods_env.framework.agents`) under the game
``"ohmygoods"``; :func:`make_agent`, :func:`agent_names` and :func:`register_agent` here are
that registry with the game filled in. Factories are ``factory(arg: str | None, *, seed: int |
None, **kwargs) -> Agent``. The shipped agents are declared in the entry point group
``ohmygoods.game_agents`` as ``ohmygoods.NAME`` (``pyproject.toml``), so the library below the
agents package resolves ``opponents="heuristic"`` without importing it by name; the older group
``ohmygoods.agents`` (:data:`ENTRY_POINT_GROUP`) is still read for this game. A name found
nowhere makes the registry import every provider module once (the agents package registers
every shipped checkpoint, ``ppo-3p``, ``ppo-solo``, ..., by its short name), so every shipped
agent resolves in a fresh interpreter. ``random`` (:class:`RandomAgent`) is registered for this
game by its spec (:mod:`ohmygoods_env.game_spec`); ``ismcts`` (the framework's IS-MCTS) is
nameable too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import layout as L
from .batch import BatchGames, make_rng, random_actions
from .framework import agents as _fa
from .infostate import redact, redact_rows

# ===================================================================== the agent concept


class Agent:
    """Base class: subclasses implement :meth:`act` (and may override :meth:`act_batch`)."""

    name: str = "agent"
    #: True for agents that read ``info_state`` (harnesses must pass it); False if obs + mask suffice.
    needs_info_state: bool = False
    #: False for agents whose ``act`` never reads ``observation`` (harnesses then pass zeros).
    needs_observation: bool = True

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        raise NotImplementedError

    def act_batch(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        info_states: np.ndarray | None = None,
    ) -> np.ndarray:
        """One action per row (default: a loop over :meth:`act`)."""
        n = len(masks)
        out = np.empty(n, np.int64)
        for i in range(n):
            out[i] = self.act(observations[i], masks[i], None if info_states is None else info_states[i])
        return out

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        return self.act(observation, mask, info_state)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def info_state_of(state: np.ndarray, player: int) -> np.ndarray:
    """The information state of ``player`` for the true state row ``state`` (a fresh array)."""
    out = np.zeros(L.STATE_LEN, np.int32)
    redact(state, int(player), out)
    return out


def require_info_state(agent: str, info_state: np.ndarray | None) -> np.ndarray:
    """Check that an agent that reads the information state was given one."""
    if info_state is None:
        raise ValueError(
            f"the {agent} agent reads the acting player's information state: call act(observation, mask, "
            "info_state) with info_state = ohmygoods_env.policy.info_state_of(game.state, player) "
            "(the redacted state row of the acting player)"
        )
    info = np.asarray(info_state)
    if info.shape != (L.STATE_LEN,):
        raise ValueError(f"info_state must have shape ({L.STATE_LEN},), got {info.shape}")
    return info.astype(np.int32, copy=False)


class RandomAgent(Agent):
    """Uniform over the legal actions, drawn by a numba kernel from the agent's own RNG words.

    ``seed`` makes the choices reproducible; ``seed(s)`` restarts the stream.
    """

    name = "random"
    needs_observation = False  # reads the mask only
    needs_info_state = False

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self._seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
        self._rng = make_rng(1, self._seed)

    def act(self, observation: np.ndarray | None, mask: np.ndarray, info_state: Any = None) -> int:
        m = np.asarray(mask)
        if not m.any():
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        return int(self.act_batch(None, m[None, :])[0])

    def act_batch(self, observations: Any, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        n = masks.shape[0]
        if self._rng.shape[0] < n:
            extra = make_rng(n - self._rng.shape[0], self._seed + self._rng.shape[0])
            self._rng = np.concatenate([self._rng, extra])
        return random_actions(np.ascontiguousarray(masks, np.int8), self._rng[:n])


# ===================================================================== batched play


def info_states_of(state: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Redacted information states (``int32[len(rows), STATE_LEN]``) of the acting seat of each of ``rows``
    of a batch state (:func:`ohmygoods_env.infostate.redact_rows`: one compiled call, the rows on numba's
    threads when that has been faster)."""
    return redact_rows(state, rows)


_info_states = info_states_of  # its earlier private name

_ZERO_OBS = np.zeros((1, L.OBS_DIM), np.float32)
_ZERO_OBS.flags.writeable = False


def no_observations(n: int) -> np.ndarray:
    """``n`` rows of zeros in place of observations (a read-only view of one row), for agents that read none."""
    return np.broadcast_to(_ZERO_OBS, (n, L.OBS_DIM))


class BatchPolicy:
    """Any agent as a policy over games of a :class:`~ohmygoods_env.batch.BatchGames`.

    An agent is an object with ``act_batch(observations, masks[, info_states])`` or
    ``act(observation, mask[, info_state])``, or a plain callable ``(observation, mask)``.
    ``policy(games, rows)`` returns one action per game in ``rows``, each for the seat to act
    there, from that seat's observation (zeros when ``needs_observation`` is False), its mask
    and, when ``needs_info_state`` is True, its redacted information state — never the true
    state. A plain object (no closures): it pickles and deep-copies with its agent.
    """

    def __init__(self, agent: Any) -> None:
        if not (hasattr(agent, "act_batch") or callable(getattr(agent, "act", None)) or callable(agent)):
            raise TypeError(f"an agent needs act(observation, mask), act_batch(...) or to be callable: {agent!r}")
        self.agent = agent
        self.needs_observation = bool(getattr(agent, "needs_observation", True))
        self.needs_info_state = bool(getattr(agent, "needs_info_state", False))

    def act(self, observations: np.ndarray, masks: np.ndarray, infos: np.ndarray | None) -> np.ndarray:
        """One action per row for the given observations, masks and information states."""
        a = self.agent
        n = masks.shape[0]
        if hasattr(a, "act_batch"):
            out = a.act_batch(observations, masks, infos) if self.needs_info_state else a.act_batch(observations, masks)
            return np.asarray(out, np.int64).reshape(-1)
        act = a.act if callable(getattr(a, "act", None)) else a
        if self.needs_info_state:
            return np.fromiter(
                (int(act(o, m, i)) for o, m, i in zip(observations, masks, infos, strict=True)), np.int64, n
            )
        return np.fromiter((int(act(o, m)) for o, m in zip(observations, masks, strict=True)), np.int64, n)

    def __call__(self, games: BatchGames, rows: np.ndarray) -> np.ndarray:
        if self.needs_observation:
            obs = games.observe(rows=rows)
        else:
            obs = no_observations(rows.shape[0])
        infos = info_states_of(games.state, rows) if self.needs_info_state else None
        return self.act(obs, games.masks(copy=False)[rows], infos)


def batch_policy(agent: Any) -> BatchPolicy:
    """``agent`` as a :class:`BatchPolicy` (one already is, as it is): this game's ``GameTools.batch_policy``,
    so the framework's batched series player (``framework.matches.play_batch``) asks its agents as
    :func:`play_owned` does, with the redacted state rows of the batch engine."""
    return agent if isinstance(agent, BatchPolicy) else BatchPolicy(agent)


def play_owned(
    games: BatchGames, rows: np.ndarray, owner: np.ndarray, policy_of: Callable[[int], BatchPolicy]
) -> np.ndarray:
    """Play games ``rows`` until each has ended or waits for a seat with ``owner`` -1.

    ``owner[i, p]`` names who plays seat ``p`` of game ``i``: ``policy_of(owner[i, p])`` (a
    :class:`BatchPolicy`), or -1 for a seat played from outside (a learner). All games
    waiting for the same policy move in one call. Returns the summed final rewards
    (``float32[N, P]``) of the games that ended meanwhile. Without -1 owners it plays the
    games to their end (evaluation between fixed agents).
    """
    total = np.zeros((games.num_games, games.num_players), np.float32)
    while True:
        live = rows[~games.done[rows]]
        if live.size == 0:
            return total
        who = owner[live, games.state[live, L.F_CUR]]
        waiting = who >= 0
        if not waiting.any():
            return total
        live, who = live[waiting], who[waiting]
        for k in np.unique(who):
            sel = live[who == k]
            r, _, _ = games.step(policy_of(int(k))(games, sel), rows=sel)
            total += r


# ===================================================================== registry
# Oh my Goods!'s names in the framework's one registry (:mod:`ohmygoods_env.framework.agents`).

GAME = "ohmygoods"
#: the entry point group Oh my Goods!'s agents were registered in before ``ohmygoods.game_agents``; still
#: read (the game spec lists it in ``agent_entry_points``): an entry ``NAME`` there is an agent of this game
ENTRY_POINT_GROUP = "ohmygoods.agents"

AgentFactory = Callable[..., Any]


def register_agent(name: str, factory: AgentFactory, description: str = "") -> None:
    """Register ``factory(arg, *, seed, **kwargs) -> Agent`` under ``name`` for *Oh my Goods!* (replaces an
    earlier one): ``framework.agents.register_agent("ohmygoods", name, factory, description)``."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"an agent name must be a non-empty str without ':', got {name!r}")
    _fa.register_agent(GAME, name, factory, description)


def random_factory(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> RandomAgent:
    """``random``: :class:`RandomAgent` (the engine's RNG words; no argument)."""
    if arg is not None:
        raise ValueError(f"the random agent takes no argument, got 'random:{arg}'")
    return RandomAgent(seed=seed, **kwargs)


_random_factory = random_factory  # its earlier private name


def agent_names() -> list[str]:
    """Every resolvable agent name of *Oh my Goods!*: registered ones, the entry points' and what their
    providers register (``framework.agents.agent_names("ohmygoods")`` after ``load_providers``)."""
    _fa.load_providers(GAME)
    return _fa.agent_names(GAME)


def make_agent(spec: str, seed: int | None = None, **kwargs: Any) -> Any:
    """Build an agent of *Oh my Goods!* from a spec ``NAME`` or ``NAME:ARG``:
    ``framework.agents.make_agent("ohmygoods", spec, ...)``.

    >>> make_agent("random", seed=1).name
    'random'
    """
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec must be a str such as 'heuristic' or 'ppo:PATH', got {spec!r}")
    return _fa.make_agent(GAME, spec, seed=seed, **kwargs)


def resolve_agent(agent: Any, seed: int | None = None) -> Any:
    """An agent object: a spec string is built with :func:`make_agent`, ``None`` is random play."""
    if agent is None:
        return RandomAgent(0 if seed is None else seed)
    if isinstance(agent, str):
        return make_agent(agent, seed=seed)
    return agent


__all__ = [
    "ENTRY_POINT_GROUP",
    "Agent",
    "BatchPolicy",
    "RandomAgent",
    "agent_names",
    "batch_policy",
    "info_state_of",
    "info_states_of",
    "make_agent",
    "no_observations",
    "play_owned",
    "random_factory",
    "register_agent",
    "require_info_state",
    "resolve_agent",
]
