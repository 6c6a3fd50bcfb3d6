"""``ohmygoods train --game NAME`` for a game on the framework: its self-play loop.

A game's tools name this module as its ``train`` (``GameTools.commands``:
``{"train": "ohmygoods_env.apps.game_train:main"}``); :func:`~ohmygoods_env.apps.common.game_command`
passes the game. The loop is :mod:`ohmygoods_training.selfplay` (the training extra), given
``--game NAME`` and the command's other arguments, under the name ``ohmygoods train --game NAME``;
its options, checks and outputs are documented in ``docs/training.md``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None, game: str | None = None) -> int:
    """Entry point of ``ohmygoods train --game NAME``; returns the exit status."""
    if game is None:
        raise ValueError("game_train.main needs the game (ohmygoods train --game NAME calls it with one)")
    try:
        from ohmygoods_training.selfplay import main as selfplay
    except ImportError as exc:
        print(f"ohmygoods train --game {game}: needs the training extra ({exc}); pip install 'ohmygoods[train]'",
              file=sys.stderr)  # fmt: skip
        return 2
    return selfplay(["--game", game, *(argv or [])], prog=f"ohmygoods train --game {game}")
