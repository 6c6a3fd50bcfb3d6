"""The reserved deal set: deals kept for the final measurement of a shipped agent, which no choice may see.

A figure quoted for a shipped agent must come from games on deals that took no part in choosing
it (a snapshot, a run, a setting): a network picked as the best of several on some deals looks
better on those deals than it is (*Artificium*'s ``ppo`` was chosen on ``--seed 11`` and won 0.709
of 2-player games on ``--seed 12``; 600 games on other deals gave 0.642). So one range of series
seeds is set apart here, with the deals dealt from it, under the name :data:`RESERVED`:

* :data:`RESERVED_SEEDS` — the series seeds 39,000,000 to 39,000,999. A series seed is the seed a
  command deals its games from (``play_games(..., seed=S)`` deals game ``i`` from
  ``derive_seed(S, i)``; a training loop's ``--seed`` and the seeds its evaluations derive from it).
  Training loops, recipes and snapshot choices refuse every seed of the range
  (:func:`check_unreserved`: exit 2 on their command lines, naming the reserved set).
* :func:`reserved_deals` — the deals of ``players`` players in the set (version 1, deal-set id
  :data:`RESERVED_DEAL_SET`): game ``i`` is ``derive_seed(39_000_000 + players, i)``, the deals
  ``play_games(game, ..., seed=39_000_000 + players)`` deals, for every game of the framework.
* :func:`reserved_protocol` — a game's evaluation protocol on the reserved deals (same ladder,
  tiers and schedule; as many deals per player count as the protocol's own set, or more):
  ``ohmygoods evaluate AGENT --deals reserved``.

A figure measured on these deals is a final one: the set serves no choice, so an agent chosen on
them (or tuned until its figure there looked right) makes the set used up, and the next version
of the set takes the next seeds of the range (``RESERVED_SEEDS.start + 100 * (version - 1)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ohmygoods_env.framework.matches import derive_seed

if TYPE_CHECKING:
    from .evaluation import Protocol

#: the name of the set (``ohmygoods evaluate --deals reserved``)
RESERVED = "reserved"
#: the version of the set's deals; its id in a report's ``deal_set``
RESERVED_VERSION = 1
RESERVED_DEAL_SET = f"{RESERVED}-{RESERVED_VERSION}"
#: the series seeds set apart: no training run, recipe or snapshot choice may deal from them
RESERVED_SEEDS = range(39_000_000, 39_001_000)
#: the series seed of the deals of ``P`` players in this version is ``RESERVED_BASE + P``
RESERVED_BASE = RESERVED_SEEDS.start + 100 * (RESERVED_VERSION - 1)

__all__ = [
    "RESERVED",
    "RESERVED_BASE",
    "RESERVED_DEAL_SET",
    "RESERVED_SEEDS",
    "RESERVED_VERSION",
    "ReservedSeedError",
    "check_unreserved",
    "reserved_deals",
    "reserved_protocol",
]


class ReservedSeedError(ValueError):
    """A seed of the reserved deal set asked for by a training run or a snapshot choice."""


def reserved_text() -> str:
    """The set in words, for messages: its name, its seeds and what it is kept for."""
    return (
        f"the reserved deal set {RESERVED!r} (series seeds {RESERVED_SEEDS.start}..{RESERVED_SEEDS.stop - 1}, "
        "kept for the final measurement of shipped agents: ohmygoods evaluate --deals reserved, docs/evaluation.md)"
    )


def check_unreserved(seeds: int | Iterable[int], what: str) -> None:
    """Refuse a seed of :data:`RESERVED_SEEDS`: ``ReservedSeedError`` naming ``what`` (the option, e.g.
    ``"--seed 39000002"``), the seed and the reserved set. ``seeds``: the series seeds a run deals its
    games from (its own seed and those its evaluations derive from it)."""
    for seed in [seeds] if isinstance(seeds, int) else seeds:
        if int(seed) in RESERVED_SEEDS:
            raise ReservedSeedError(
                f"{what}: seed {int(seed)} belongs to {reserved_text()}; training and snapshot choice must use "
                "other seeds"
            )


def reserved_deals(players: int, count: int) -> list[int]:
    """The first ``count`` deals (game seeds) of ``players`` players in the reserved set."""
    if players < 1 or count < 0:
        raise ValueError(f"expected players >= 1 and count >= 0, got players={players}, count={count}")
    return [derive_seed(RESERVED_BASE + players, i) for i in range(count)]


def reserved_protocol(protocol: Protocol, deals: int = 0) -> Protocol:
    """``protocol`` on the reserved deals: the same ladder, tiers, schedule and version, each player
    count's deal list replaced by as many reserved deals (at least ``deals``: a larger evaluation than
    the protocol's own set allows), and ``deal_set`` :data:`RESERVED_DEAL_SET`."""
    lists = {n: reserved_deals(n, max(len(seeds), deals)) for n, seeds in protocol.deals.items()}
    return dataclasses.replace(protocol, deals=lists, deal_set=RESERVED_DEAL_SET)
