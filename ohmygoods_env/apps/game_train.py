"""``ohmygoods train --game NAME`` for a game on the framework: the one self-play loop.

A game's tools name this module as its ``train`` (``GameTools.commands``:
``{"train": "ohmygoods_env.apps.game_train:main"}``); :func:`~ohmygoods_env.apps.common.game_command`
passes the game. It is ``ohmygoods train`` for that game (:func:`ohmygoods_env.apps.train.game_main`):
the loop of :mod:`ohmygoods_training.fast_ppo` with the game's training kit, the same contract
as *Oh my Goods!*'s (``--players``, ``--minutes``, ``--out DIR`` -> ``DIR/final.json``, a progress bar,
``--recipe``, ``--plan``); ``docs/training.md`` documents it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None, game: str | None = None) -> int:
    """Entry point of ``ohmygoods train --game NAME``; returns the exit status."""
    if game is None:
        raise ValueError("game_train.main needs the game (ohmygoods train --game NAME calls it with one)")
    from .train import game_main

    return game_main(list(argv or []), game)
