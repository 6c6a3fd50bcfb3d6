"""Front ends over the game interface: PettingZoo AEC and parallel envs, a Gymnasium single-agent env,
an all-seats vector env. They know no game: each takes a registered game name or a
:class:`~ohmygoods_env.framework.game.GameSpec` and plays its forward models.
"""

from __future__ import annotations

from .aec import GameAECEnv, aec_env
from .parallel import GameParallelEnv, parallel_env
from .single import GameSingleAgentEnv
from .vector import VecStep, VectorGameEnv

__all__ = ["GameAECEnv", "GameParallelEnv", "GameSingleAgentEnv", "VecStep", "VectorGameEnv", "aec_env", "parallel_env"]
