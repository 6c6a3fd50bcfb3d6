"""What the shared commands need of *Artificium* (:class:`~ohmygoods_env.framework.game.GameTools`).

The spec ``"artificium"`` names :data:`TOOLS`; the framework's defaults serve the rest (one
rule set, the protocol's ladder on its leaderboard in ``docs/artificium/``, the framework's
match loop and external-agent hello). It has no terminal ``play`` (its browser page:
``ohmygoods serve --game artificium``).
"""

from __future__ import annotations

from ..framework.game import GameTools

__all__ = ["TOOLS"]


def _bench_rows(seconds: float) -> list:
    from ..bench.artificium import artificium_rows

    return artificium_rows(seconds)


def _checkpoint_layout() -> dict:
    from ohmygoods_agents.artificium.policy import checkpoint_layout

    return checkpoint_layout()


TOOLS = GameTools(
    commands={
        "demo": "ohmygoods_env.artificium.commands:demo",
        "fuzz": "ohmygoods_env.artificium.commands:fuzz",
        "train": "ohmygoods_env.artificium.commands:train",
    },
    bench_rows=_bench_rows,
    checkpoint_layout=_checkpoint_layout,
)
