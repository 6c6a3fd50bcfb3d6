"""What a game's spec may declare for the PettingZoo envs beyond the generic ones: :class:`EnvHooks`.

The framework's AEC and parallel envs (:mod:`ohmygoods_env.framework.envs`) play every game
from its :class:`~ohmygoods_env.framework.game.GameSpec`; a spec's ``env_hooks`` adds what one
game shows on top (its infos, a privileged global state, picture render modes, a fused
observe-with-mask kernel, a step that observes the next seat in the same call, its own action
checks and error wording). Every field defaults to the
generic behaviour, so a game on the framework alone declares nothing. This module imports no
env library: a spec can build its hooks at import time for free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GENERIC_INFO_KEYS", "EnvHooks", "generic_info"]

#: the info keys of a game that declares no ``info`` hook
GENERIC_INFO_KEYS: tuple[str, ...] = ("to_act", "winner")


def generic_info(model: Any, player: int, acting: bool, choice: Any = None) -> dict[str, int]:
    """The generic info of one seat: ``to_act`` (1 for a seat to act), ``winner`` (1 for a winner, at the end)."""
    return {"to_act": int(acting), "winner": int(model.done and player in model.winners())}


@dataclass(frozen=True)
class EnvHooks:
    """A game's additions to the framework's PettingZoo envs (``GameSpec.env_hooks``); every field optional.

    * ``info(model, player, acting, choice) -> dict[str, int]``: the info of seat ``player``: numbers
      only, the keys ``info_keys`` for every seat at every step. ``acting``: the seat decides in this
      step; ``choice``: the simultaneous choice in progress (parallel env) or ``None``; at the end
      ``model.done`` is true. Mid-game a seat's info may change only when it starts or stops acting:
      the AEC env then builds new dicts for the seat that acted and the seat to act only (an info
      handed out earlier keeps its values), and rebuilds every seat's at reset and at the end.
      Default: :func:`generic_info` (``to_act``, ``winner``). ``idle_info``: where every seat that
      does not act has the same info mid-game, that dict (the AEC env copies it instead of calling
      ``info``: one call less per step); ``None``: ``info`` is asked.
    * ``state(model) -> float32[...]`` and ``state_space(model) -> gymnasium.spaces.Box``: a
      **privileged** global state for centralised critics (``env.state()``, ``env.state_space``,
      computed from the first model); ``None``: the envs have no ``state()``.
    * ``render_modes`` and ``render(model, mode)``: render modes beyond ``"human"`` and ``"ansi"``
      (the spec's ``render_text``), e.g. pictures; ``render_fps``: ``metadata["render_fps"]``.
    * ``observe_with_mask(model, player, obs, mask)``: writes seat ``player``'s observation
      (``float32[obs_size]``) and legal mask (``int8[num_actions]``, all zeros unless the seat is to
      act) in place, in one call (a fused kernel); ``None``: ``observe`` and ``legal_mask``.
    * ``stepper(model) -> step(action, obs, mask) -> int``: the model's step and the next seat's
      ``observe_with_mask`` in one call (the AEC env asks at every deal and hands ``obs`` and
      ``mask`` out at the next ``last()`` / ``observe`` of that seat). ``step`` gets a plain
      ``int`` in ``0 .. num_actions - 1``; it applies it for the seat to act as ``model.step``
      would and returns the seat now to act, having written that seat's observation and mask
      into ``obs`` and ``mask``; or -1 when the game is over (``obs`` and ``mask`` unused); or
      any other negative number when the model refuses the action, with nothing changed (the
      env then takes its usual path, which raises the error). ``None``: the env steps
      ``model.step`` and observes at ``last()``.
    * ``checks_actions``: the model's ``step`` checks its action itself and raises the framework's
      ``TypeError`` / ``ValueError`` / :class:`~ohmygoods_env.framework.game.IllegalActionError`
      naming the action, the player and the decision, with the state unchanged; the envs then step
      the one seat to act directly (its own wording reaches the user) instead of checking its mask first.
    * ``decision_name(model, player, choice) -> str``: the name of the decision ``player`` faces
      (``choice``: the simultaneous choice in progress or ``None``); the envs' errors then end in
      ``(agent, decision 'name')`` instead of ``(agent)``.
    * ``wait_label``: how errors name the wait action (``"A_WAIT"``); ``None``: "the wait action".
    * ``deal_options(model) -> dict``: options every later deal of the env adds, read off its first
      model (*Oh my Goods!*: the card set the first game loaded, so a reset does not load the
      tables again); ``None``: none.
    """

    info: Callable[[Any, int, bool, Any], dict[str, int]] | None = None
    info_keys: tuple[str, ...] = GENERIC_INFO_KEYS
    idle_info: dict[str, int] | None = None
    state: Callable[[Any], np.ndarray] | None = None
    state_space: Callable[[Any], Any] | None = None
    render_modes: tuple[str, ...] = ()
    render: Callable[[Any, str], Any] | None = None
    render_fps: int | None = None
    observe_with_mask: Callable[[Any, int, np.ndarray, np.ndarray], None] | None = None
    stepper: Callable[[Any], Callable[[int, np.ndarray, np.ndarray], int]] | None = None
    checks_actions: bool = False
    decision_name: Callable[[Any, int, Any], str] | None = None
    wait_label: str | None = None
    deal_options: Callable[[Any], dict[str, Any]] | None = None


#: the hooks of a game that declares none
NO_HOOKS = EnvHooks()
