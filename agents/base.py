"""The agent protocol shared by the tournament, the terminal game and the vector envs.

An agent chooses one action id for the player to move from what that player may know:

* ``observation`` — ``Game.observe(p)``, ``float32[OBS_DIM]`` (see :mod:`ohmygoods_env.layout`);
* ``mask`` — the ``int8[N_ACTIONS]`` legal mask;
* ``info_state`` — the acting player's *information state*: the state row redacted by
  :func:`ohmygoods_env.infostate.redact` (public information and the player's own cards only;
  exact integers, decodable with the ``layout`` constants). Agents never receive the true state.

:class:`Agent` implements ``act_batch`` (a loop over ``act``) and ``__call__`` on top of ``act``.
:func:`info_state_of` is how every harness in this package builds the information state.
"""

from __future__ import annotations

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.infostate import redact


class Agent:
    """Base class: subclasses implement :meth:`act`."""

    name: str = "agent"
    #: True for agents that read ``info_state`` (harnesses must pass it); False if obs + mask suffice.
    needs_info_state: bool = False
    #: False for agents whose ``act`` never reads ``observation``: batched harnesses
    #: (``envs.gym_env.BatchPolicy``) then pass zeros instead of computing observations.
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
            "info_state) with info_state = agents.base.info_state_of(game.state, player) "
            "(the redacted state row of the acting player)"
        )
    info = np.asarray(info_state)
    if info.shape != (L.STATE_LEN,):
        raise ValueError(f"info_state must have shape ({L.STATE_LEN},), got {info.shape}")
    return info.astype(np.int32, copy=False)
