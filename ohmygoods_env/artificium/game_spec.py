"""*Artificium* on the framework's game interface: the spec ``"artificium"`` and its env ids.

:class:`~ohmygoods_env.artificium.engine.Game` is a
:class:`~ohmygoods_env.framework.game.ForwardModel` as it is (its ``pending_players()`` is
every choosing seat during the face-down card choice, A4.1, one seat elsewhere), so the
spec deals it directly and every front end of :mod:`ohmygoods_env.framework.envs` plays it.
Importing this module (importing :mod:`ohmygoods_env` does) registers :data:`ARTIFICIUM` and
the ids

* ``ohmygoods/artificium-v{LAYOUT_VERSION}`` in PettingZoo's registries: :func:`env` (AEC,
  one seat per step, face-down choices asked one seat at a time) and :func:`parallel_env`
  (every seat in the round chooses its card in the same step; waiting seats get the
  ``A_WAIT`` mask);
* ``ohmygoods/Artificium-v{LAYOUT_VERSION}`` in Gymnasium's: :func:`gym_env`, the learner
  against opponent agents by name.
"""

from __future__ import annotations

from typing import Any

from ..framework.envs.aec import aec_env
from ..framework.envs.parallel import GameParallelEnv
from ..framework.envs.registration import register_env_ids
from ..framework.envs.single import GameSingleAgentEnv
from ..framework.game import GameSpec, register_game
from . import ENV_VERSION, MAX_PLAYERS, MIN_PLAYERS, NAME, NUM_ACTIONS, TITLE, describe, new_game, obs_size, render_text
from . import layout as L
from .engine import REWARD_MODES, obs_bounds

__all__ = ["ARTIFICIUM", "ENV_ID", "ENV_ID_GYM", "env", "gym_env", "parallel_env"]

ENV_ID = f"ohmygoods/{NAME}-v{ENV_VERSION}"
ENV_ID_GYM = f"ohmygoods/{TITLE}-v{ENV_VERSION}"


def _obs_bounds(num_players: int) -> tuple:
    return obs_bounds()


#: the game's facts (declared in :mod:`ohmygoods_env.artificium`) as the framework's spec
ARTIFICIUM = register_game(
    GameSpec(
        name=NAME,
        title=TITLE,
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        num_actions=NUM_ACTIONS,
        obs_size=obs_size,
        new_game=new_game,
        describe=describe,
        render_text=render_text,
        version=ENV_VERSION,
        wait_action=L.A_WAIT,
        simultaneous=None,  # its pending seats decide together, once each: no padding, step_joint applies them
        obs_bounds=_obs_bounds,
        reward_modes=REWARD_MODES,
        action_ranges=L.ACTION_RANGES,
        web="ohmygoods_env.apps.web_artificium:ArtificiumWeb",  # its browser page (imported by the web shell only)
        tools="ohmygoods_env.artificium.game_tools:TOOLS",  # what the shared commands need (imported on use)
    )
)


def env(**kwargs: Any) -> Any:
    """The AEC env of *Artificium* (:func:`ohmygoods_env.framework.envs.aec.aec_env`)."""
    return aec_env(ARTIFICIUM, **kwargs)


def parallel_env(**kwargs: Any) -> GameParallelEnv:
    """The parallel env of *Artificium*: every seat in the round chooses its card in the same step."""
    return GameParallelEnv(ARTIFICIUM, **kwargs)


def gym_env(**kwargs: Any) -> GameSingleAgentEnv:
    """The single-agent Gymnasium env of *Artificium* (``opponents`` by name or object)."""
    return GameSingleAgentEnv(ARTIFICIUM, **kwargs)


PETTINGZOO_REGISTERED = register_env_ids(
    ENV_ID,
    aec="ohmygoods_env.artificium.game_spec:env",
    parallel="ohmygoods_env.artificium.game_spec:parallel_env",
    gym_id=ENV_ID_GYM,
    gym="ohmygoods_env.artificium.game_spec:gym_env",
)
