"""The single-game envs' one kernel call per step: apply the action, observe the seat to act next.

A PettingZoo AEC step of *Oh my Goods!* applies the acting seat's action and then (in the
next ``last()``) shows the seat to act its observation and mask. :func:`step_observe` does
both in one numba call. No rule lives here: it chains the engine's kernels as
:func:`~ohmygoods_env.core.step_checked` and then
:func:`~ohmygoods_env.core.observe_with_mask` for the seat now to act would, so the result
equals ``Game.step`` followed by the fused observe, byte for byte. Like the batch step it lets
:func:`~ohmygoods_env.core.apply_forced_mask` leave the next decision's legal mask behind, so
a step computes two legal masks (the check, the next seat's) where the two calls compute three.

The kernel compiles without numba's reference counting (``_nrt=False``, as the batch step's
kernels; nothing it calls allocates), which saves about 0.3 µs a step.
:func:`stepper_for` gives the compiled function for the arrays of one game without numba's
per-call type resolution: the envs always pass arrays of the same types, so the dispatcher
would find the same machine code every step (about 0.15 µs of a 0.4 µs call).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, typeof

from . import cards as _cards
from . import core
from . import layout as L
from .core import apply_action, apply_forced_mask, legal_mask, observe_seat
from .core.apply import check_action
from .framework import jit as _jit

__all__ = ["REFUSED", "step_observe", "stepper_for"]

#: what :func:`step_observe` returns for an action the engine refuses (the state is unchanged)
REFUSED = -2

_F_CUR, _F_AUTO = L.F_CUR, L.F_AUTO


@njit(cache=True, _nrt=False)
def step_observe(g, C, AS, tables, a, obs, mask):
    """Apply action ``a`` as ``core.step_checked`` does; if the game goes on, write the observation and
    mask of the seat now to act into ``obs`` (float32[OBS_DIM]) and ``mask`` (int8[N_ACTIONS]), as
    ``core.observe_with_mask`` does.

    Returns that seat, -1 when the game is over (``obs`` untouched), or :data:`REFUSED` when
    ``step_checked`` would refuse ``a`` (over, out of range, illegal): the state unchanged,
    ``mask`` scratch.
    """
    if check_action(g, C, AS, a, mask) != 0:
        return REFUSED
    apply_action(g, C, AS, a)
    if g[_F_AUTO] == 1:
        apply_forced_mask(g, C, AS, mask)  # leaves the legal mask of the decision it stops at
    else:
        legal_mask(g, C, AS, mask)
    cur = g[_F_CUR]
    if cur >= 0:
        observe_seat(g, C, AS, tables, cur, obs)  # the mask is the current seat's: observe_with_mask's for cur
    return cur


def _kind(a: np.ndarray) -> tuple:
    """What numba's type of array ``a`` is made of: dtype, dimensions, layout flags, read-only, alignment."""
    f = a.flags
    return (a.dtype, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned)


_OBS_TYPE = typeof(np.empty(L.OBS_DIM, np.float32))
_MASK_TYPE = typeof(np.empty(L.N_ACTIONS, np.int8))
#: the compiled step_observe per kinds of (state, buildings, assistants)
_ENTRIES: dict[tuple, Any] = {}


def stepper_for(state: np.ndarray, C: np.ndarray, AS: np.ndarray, tables: tuple) -> Any:
    """:func:`step_observe` compiled for arrays of these kinds (loaded or compiled on first use), called
    directly: ``f(state, C, AS, tables, action, obs, mask)`` with the card set's observation tables
    (``engine.observation_tables``), an ``int`` action, ``obs`` float32[OBS_DIM] and ``mask``
    int8[N_ACTIONS] (fresh, C-contiguous); other argument types are not checked."""
    key = (_kind(state), _kind(C), _kind(AS), *(_kind(t) for t in tables))
    entry = _ENTRIES.get(key)
    if entry is None:
        _jit.first_use("Oh my Goods!", "ohmygoods_env.env_kernels.step_observe", (step_observe,))
        sig = (typeof(state), typeof(C), typeof(AS), typeof(tables), typeof(0), _OBS_TYPE, _MASK_TYPE)
        entry = _ENTRIES[key] = step_observe.compile(sig)
    return entry


_jit.register(globals(), core, L, _cards)
