"""*Oh my Goods!*'s batch engine as the framework's :class:`~ohmygoods_env.framework.batch.BatchEngine`.

:class:`OhMyGoodsBatch` is :class:`~ohmygoods_env.batch.BatchGames` unchanged (the same games, masks,
observations and rewards) with the protocol's ``model(i)``: row ``i`` as the game's forward model,
:class:`~ohmygoods_env.game_spec.OhMyGoodsModel`. It lives here, not in ``batch.py``, because the
forward model's module imports the batch engine (through the ``random`` agent). The game's tools
name it (``GameTools.batch_engine``).
"""

from __future__ import annotations

from .batch import BatchGames
from .game_spec import OhMyGoodsModel

__all__ = ["OhMyGoodsBatch"]


class OhMyGoodsBatch(BatchGames):
    """:class:`BatchGames` with ``model(i)`` (the framework's batch-engine protocol)."""

    def model(self, i: int) -> OhMyGoodsModel:
        """Game ``i`` as the framework's forward model (a copy; stepping it leaves the batch alone)."""
        return OhMyGoodsModel(self.game(i))
