"""The league spec: who plays the seats of a training game, written ``"self:0.6,snapshot:0.3,heuristic:0.1"``.

One spec, one meaning, for every training loop (:mod:`ohmygoods_training.fast_ppo`, the SB3 loop
of :mod:`ohmygoods_training.train_ppo` / :mod:`ohmygoods_training.league`, and the self-play loop of
any framework game, :mod:`ohmygoods_training.selfplay`, whose seats are the game's agents by name):

==================  ===============================================================================
entry               who plays the seat
==================  ===============================================================================
``self``            the learner itself (its current network; every decision is a training sample)
``snapshot``        a frozen earlier copy of the learner (the league keeps the last few)
``heuristic``       :class:`ohmygoods_agents.heuristic.HeuristicAgent`
``greedy``          :class:`ohmygoods_agents.greedy.GreedyAgent`
``random``          uniformly random legal actions
``mctsN``           :class:`ohmygoods_agents.mcts.MCTSAgent` with ``N`` simulations per decision
==================  ===============================================================================

Each entry takes an optional weight ``NAME:W`` (default 1); weights are relative. Every game has
one learner seat; ``self`` is the share of the *other* seats that are the learner too. The SB3
loop trains one seat per game, so it takes no ``self`` weight; there ``self`` is read as its old
spelling of ``snapshot`` (with a ``DeprecationWarning``). This module imports no
stable-baselines3.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ohmygoods_agents import make_agent

SELF = "self"
SNAPSHOT = "snapshot"
BASELINES: tuple[str, ...] = ("heuristic", "greedy", "random")
SEARCH_PREFIX = "mcts"  # league entry ``mctsN``: ohmygoods_agents.mcts.MCTSAgent with N simulations per decision
#: simulations of a bare ``mcts`` opponent or teacher (a small budget: evaluation and warm starts)
DEFAULT_SEARCH_SIMS = 50

__all__ = [
    "BASELINES",
    "DEFAULT_SEARCH_SIMS",
    "SEARCH_PREFIX",
    "SELF",
    "SNAPSHOT",
    "League",
    "keep_snapshot",
    "old_self_as_snapshot",
    "opponent_agent",
    "parse_entries",
    "search_sims",
]


def search_sims(name: str) -> int | None:
    """``N`` for a league entry ``mctsN`` (N ≥ 1), else None; a malformed ``mcts...`` raises."""
    if not name.startswith(SEARCH_PREFIX):
        return None
    tail = name[len(SEARCH_PREFIX) :]
    if not tail.isdigit() or int(tail) < 1:
        raise ValueError(
            f"league entry {name!r}: the search takes its simulations per decision in the name, e.g. {SEARCH_PREFIX}200"
        )
    return int(tail)


def opponent_agent(name: str, seed: int) -> Any:
    """The agent behind a league entry (a baseline or ``mctsN``), or any agent spec of the registry
    (a bare ``mcts`` searches :data:`DEFAULT_SEARCH_SIMS` simulations)."""
    tail = name[len(SEARCH_PREFIX) :] if name.startswith(SEARCH_PREFIX) else None
    if tail == "":
        return make_agent(SEARCH_PREFIX, seed=seed, sims=DEFAULT_SEARCH_SIMS)
    if tail is not None and tail.isdigit() and int(tail) >= 1:
        return make_agent(SEARCH_PREFIX, seed=seed, sims=int(tail))
    return make_agent(name, seed=seed)


def parse_entries(spec: str | Iterable[str], agents: Iterable[str] | None = None) -> dict[str, float]:
    """The entries of a league spec with their weights, in order (validated, not normalised).

    ``agents``: the agent names a seat may be besides ``self`` and ``snapshot`` (another game's agent
    registry, e.g. ``framework.agents.agent_names("artificium")``); None: *Oh my Goods!*'s baselines
    and ``mctsN``. Raises ``ValueError`` naming an unknown entry, a malformed ``mcts...``, a negative
    weight, or a spec with no positive weight.
    """
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    allowed = None if agents is None else sorted(set(agents))
    out: dict[str, float] = {}
    for item in items:
        name, _, val = item.strip().partition(":")
        if not name:
            continue
        if allowed is not None and name not in (SELF, SNAPSHOT, *allowed):
            raise ValueError(f"unknown league entry {name!r}: expected {SELF}, {SNAPSHOT} or one of {allowed}")
        if allowed is None and name not in (SELF, SNAPSHOT, *BASELINES) and search_sims(name) is None:
            raise ValueError(
                f"unknown league entry {name!r}: expected {SELF}, {SNAPSHOT}, {', '.join(BASELINES)} "
                f"or {SEARCH_PREFIX}N (the search with N simulations)"
            )
        try:
            x = float(val) if val else 1.0
        except ValueError:
            raise ValueError(f"league entry {name!r}: the weight {val!r} is not a number") from None
        if x < 0:
            raise ValueError(f"league entry {name!r} has a negative weight {x}")
        out[name] = out.get(name, 0.0) + x
    if sum(out.values()) <= 0:
        raise ValueError(f"league {spec!r} has no positive weight")
    return out


def old_self_as_snapshot(entries: dict[str, float]) -> dict[str, float]:
    """A one-learner-seat loop's entries: ``self`` (its old spelling of ``snapshot``) becomes ``snapshot``."""
    if SELF not in entries:
        return entries
    warnings.warn(
        "league entry 'self' here is the old spelling of 'snapshot' (frozen copies of the learner): this loop "
        "trains one seat per game, so no other seat can be the learner; write 'snapshot'",
        DeprecationWarning,
        stacklevel=3,
    )
    out: dict[str, float] = {}
    for name, w in entries.items():
        key = SNAPSHOT if name == SELF else name
        out[key] = out.get(key, 0.0) + w
    return out


def keep_snapshot(entries: list[Any], snapshots: list[int], entry: Any, max_snapshots: int) -> int:
    """Add a frozen snapshot ``entry`` to a league's ``entries``; ``snapshots`` lists the indices of the
    snapshots, oldest first. Beyond ``max_snapshots`` the oldest is replaced in place (games that still
    hold its index meet the new snapshot). Returns the new snapshot's index."""
    if len(snapshots) >= max_snapshots:
        index = snapshots.pop(0)
        entries[index] = entry
    else:
        index = len(entries)
        entries.append(entry)
    snapshots.append(index)
    return index


@dataclass
class League:
    """Who plays the seats that are not the learner's (see the module docstring).

    ``self_share``: the chance that a seat (beyond the one learner seat every game has) is the
    learner too. The other seats go to ``weights``: ``snapshot``, the baselines and any
    ``mctsN`` (the search with ``N`` simulations; about 0.1 ms per simulation, so a search seat
    costs far more than a network or baseline seat: give it a small share). Until the first
    snapshot is taken, the ``snapshot`` share of seats is the learner's.
    """

    self_share: float = 0.6
    weights: dict[str, float] = field(
        default_factory=lambda: {"snapshot": 0.5, "heuristic": 0.2, "greedy": 0.2, "random": 0.1}
    )
    max_snapshots: int = 5

    @classmethod
    def parse(cls, text: str | Iterable[str], max_snapshots: int = 5, agents: Iterable[str] | None = None) -> League:
        """``"self:0.6,snapshot:0.2,heuristic:0.1,greedy:0.05,mcts200:0.05"`` (self = the learner's share of seats);
        ``agents``: another game's agent names (:func:`parse_entries`)."""
        entries = parse_entries(text, agents)
        total = sum(entries.values())
        share = entries.pop(SELF, 0.0)
        return cls(share / total, {k: v / total for k, v in entries.items()}, max_snapshots)
