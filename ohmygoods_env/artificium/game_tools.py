"""What the shared commands need of *Artificium* (:class:`~ohmygoods_env.framework.game.GameTools`).

The spec ``"artificium"`` names :data:`TOOLS`; the framework's defaults serve the rest (one
rule set, the protocol's ladder on its leaderboard in ``docs/artificium/``, the framework's
match loop and external-agent hello). It has no terminal ``play`` (its browser page:
``ohmygoods serve --game artificium``).
"""

from __future__ import annotations

from ..framework.game import GameTools

__all__ = ["TOOLS"]


TOOLS = GameTools(
    commands={
        "demo": "ohmygoods_env.apps.game_demo:main",  # the framework's demo: its agents, its render_text
        "fuzz": "ohmygoods_env.apps.fuzz_artificium:main",  # its compiled fuzzer (artificium.fuzz)
        "train": "ohmygoods_env.apps.game_train:main",  # the framework's self-play loop
    },
    bench_rows="ohmygoods_env.bench.artificium:artificium_rows",  # the bench layer, imported by it only
    checkpoint_layout="ohmygoods_agents.artificium.policy:checkpoint_layout",
    batch_engine="ohmygoods_env.artificium.batch:ArtBatch",  # framework.batch.BatchEngine
)
