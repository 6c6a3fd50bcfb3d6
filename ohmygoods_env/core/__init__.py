"""The rules engine: numba kernels over one game's ``int32`` state row.

This package is the single implementation of the rules (R2-R8). Every kernel takes the
state row ``g`` (see :mod:`ohmygoods_env.layout`), the building table ``C`` and the
assistant table ``AS`` (see :mod:`ohmygoods_env.cards`). Loops over many games live in
:mod:`ohmygoods_env.batch`.

Flow: :func:`advance` runs everything automatic (dealing, market reveals, drawing goods,
resolving simultaneous choices, scoring the round end) until a player must decide; it then
sets ``F_DEC`` (the decision) and ``F_CUR`` (who decides). :func:`apply_action` applies one
action *without* checking it; :func:`step_checked` checks it against :func:`legal_mask`
first and leaves the state untouched when it is illegal. With ``F_AUTO`` set, decisions
with exactly one legal action are applied automatically (DESIGN: forced moves).

Chance lives inside the state: ``F_RNG`` holds a per-game 64-bit xorshift64 state (two
int32 words) seeded by :func:`seed_rng` from a 64-bit seed, so a game depends only on its
seed and its actions. :func:`rand_at` is the 32-bit xorshift step that agents use on their
own private words.

The modules, bottom to top; each imports only modules before it in this list
(``tests/engine/test_function_size.py`` checks it):

===============  ==========================================================================
``rng``          the per-game RNG and the seed mixer (R2)
``queries``      small read-only queries: hand sizes, coins, building kinds, shown cards
``deck``         shuffling, drawing, gathering cards back into the deck (R3.1)
``production``   what a building misses, what covers it, running a chain (R7.2-R7.9)
``assistants``   free production buildings, hiring and moving assistants (R5.3, R7.12)
``payments``     paying a cost good by good (R5.2, R7.10-R7.12)
``flow``         the automatic flow between decisions: :func:`advance`, :func:`advance_turn` (R3-R8)
``legal``        :func:`legal_mask`, one ``_legal_<decision>`` per decision
``apply``        :func:`apply_action`, one ``_apply_<decision>`` per decision, :func:`step_checked`
``deal``         :func:`init_game`: the set-up (R2)
``scoring``      scores, winners, final rewards (R8.3)
``observation``  one player's observation and the legal mask with it
``invariants``   :func:`check_invariants`
===============  ==========================================================================

Every name other modules use is re-exported here: ``from ohmygoods_env import core;
core.legal_mask`` and ``from ohmygoods_env.core import legal_mask`` both work.
"""

from __future__ import annotations

import importlib

from ..framework import jit as _jit
from .apply import (
    ERR_ILLEGAL,
    ERR_OVER,
    ERR_PLAYER,
    ERR_RANGE,
    apply_action,
    apply_decision,
    apply_forced,
    apply_forced_mask,
    step_checked,
)
from .deal import CHARBURNER_BASE, init_game
from .deck import draw_card
from .flow import advance, advance_turn
from .invariants import check_invariants
from .legal import legal_mask
from .observation import observe, observe_seat, observe_seats, observe_with_mask, rounds_left, seat_tables
from .production import _missing
from .queries import (
    coins,
    count_kind,
    goods_of_type,
    hand_count,
    hand_res_counts,
    is_production,
    is_shown,
    n_assistants,
    office_bonus,
)
from .rng import GOLDEN, mix64, rand_at, rand_below, seed_rng
from .scoring import final_rewards, score_player, scores, winners

__all__ = [
    "CHARBURNER_BASE",
    "ERR_ILLEGAL",
    "ERR_OVER",
    "ERR_PLAYER",
    "ERR_RANGE",
    "GOLDEN",
    "_missing",
    "advance",
    "advance_turn",
    "apply_action",
    "apply_decision",
    "apply_forced",
    "apply_forced_mask",
    "check_invariants",
    "coins",
    "count_kind",
    "draw_card",
    "final_rewards",
    "goods_of_type",
    "hand_count",
    "hand_res_counts",
    "init_game",
    "is_production",
    "is_shown",
    "legal_mask",
    "mix64",
    "n_assistants",
    "observe",
    "observe_seat",
    "observe_seats",
    "observe_with_mask",
    "office_bonus",
    "rand_at",
    "rand_below",
    "rounds_left",
    "score_player",
    "seat_tables",
    "scores",
    "seed_rng",
    "step_checked",
    "winners",
]

#: the modules of the package, bottom to top (each imports only modules before it)
MODULES: tuple[str, ...] = (
    "rng",
    "queries",
    "deck",
    "production",
    "assistants",
    "payments",
    "flow",
    "legal",
    "apply",
    "deal",
    "scoring",
    "observation",
    "invariants",
)

# kernels elsewhere register against ``core``: its stamp covers every module of the package
_jit.register(globals(), *(importlib.import_module(f"{__name__}.{m}") for m in MODULES))
