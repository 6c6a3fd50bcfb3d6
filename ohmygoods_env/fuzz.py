"""``ohmygoods fuzz``: random legal play over many games with invariant checks.

A numba kernel (:func:`fuzz_slot`, compiled ``nogil``) plays one slot of a batch; the slots
run side by side on a thread pool. Each slot plays game after game until it has used its
share of the step budget; the rules are those
of :mod:`ohmygoods_env.core` (``init_game``, ``legal_mask``, ``apply_action``,
``apply_forced``, ``check_invariants``, ``step_checked``) — nothing is reimplemented here.
Actions are drawn uniformly from the legal mask by a separate per-slot RNG, never by the
game's own RNG word, so the games themselves are ordinary seeded games.

Checked after every step:

* ``check_invariants == 0``: each of the 94 deck cards in exactly one place, arrays that
  agree with the card locations, no negative counts (failure codes: see ``core``);
* a non-empty legal mask until the end, an empty one after it;
* every game ends: a game longer than ``max_rounds`` rounds or ``MAX_GAME_STEPS`` decisions
  fails (code :data:`FAIL_TOO_LONG`);
* about one step in eight also offers a random *illegal* action to ``step_checked`` and
  checks that it is refused and leaves the state untouched (:data:`FAIL_ILLEGAL_ACCEPTED`).

Games are seeded ``seed * 2**32 + slot + games_of_slot * batch`` (modulo ``2**64``; ``seed``
is an int in ``0 <= seed < 2**64``) and every chosen action is
logged, so a failure is reported as a :class:`~ohmygoods_env.engine.GameRecord` that
:meth:`Game.replay` reproduces.

The command line (``ohmygoods fuzz --steps 1000000 --players 1,2,3,4 --rules omg2,royal``) is
:mod:`ohmygoods_env.apps.fuzz`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from . import cards as _cards
from . import core
from . import layout as L
from .cards import default_cards
from .engine import GameRecord, seed_bits
from .framework import jit as _jit
from .framework import rng as _rng
from .framework.checks import check_seed
from .framework.rng import nth_legal
from .rules import EDITIONS, RuleSet

#: failure codes beyond ``core.check_invariants``' 1..99
FAIL_EMPTY_MASK = 101
FAIL_MASK_AFTER_END = 102
FAIL_TOO_LONG = 103
FAIL_ILLEGAL_ACCEPTED = 104
FAIL_ILLEGAL_CHANGED_STATE = 105
FAIL_NAMES = {
    FAIL_EMPTY_MASK: "empty legal mask before the end",
    FAIL_MASK_AFTER_END: "non-empty legal mask after the end",
    FAIL_TOO_LONG: "game did not end in time",
    FAIL_ILLEGAL_ACCEPTED: "step_checked accepted an illegal action",
    FAIL_ILLEGAL_CHANGED_STATE: "step_checked changed the state on a refused action",
}
MAX_GAME_STEPS = 200_000
LOG_CAP = 16_384

# per-slot statistics columns
(
    S_GAMES,
    S_STEPS,
    S_ROUNDS,
    S_END_R81,
    S_END_CAP,
    S_REFILLS,
    S_SHORT_ROWS,
    S_ILLEGAL_TRIED,
    S_FAIL,
    S_FAIL_SEED,
    S_FAIL_CFG,
    S_FAIL_LEN,
    S_FORCED,
) = range(13)
N_STATS = 13
_M64 = (1 << 64) - 1


@njit(cache=True)
def _rand(rng, i, n):
    """Uniform in [0, n) from slot i's own RNG (a splitmix64 sequence, :func:`core.mix64`), n >= 1."""
    rng[i] = rng[i] + core.GOLDEN
    z = core.mix64(rng[i])
    return np.int64((z >> np.uint64(11)) % np.uint64(n))


@njit(cache=True)
def _new_game(g, C, AS, rng, i, cfgs, seed):
    k = _rand(rng, i, cfgs.shape[0])
    core.init_game(g, C, AS, seed, cfgs[k, 0], cfgs[k, 1], cfgs[k, 2], cfgs[k, 3])
    return k


@njit(cache=True)
def _check_position(g, C, AS, mask, gsteps):
    """``(failure code, number of legal actions)`` of the position: invariants, the mask, the end."""
    code = core.check_invariants(g, C)
    n = core.legal_mask(g, C, AS, mask)
    if code == 0:
        if g[L.F_DEC] == L.D_OVER:
            if n != 0:
                code = FAIL_MASK_AFTER_END
            elif core.step_checked(g, C, AS, 0) != core.ERR_OVER:
                code = FAIL_ILLEGAL_ACCEPTED
        elif n == 0:
            code = FAIL_EMPTY_MASK
        elif g[L.F_ROUND] > g[L.F_MAXR] or gsteps > MAX_GAME_STEPS:
            code = FAIL_TOO_LONG
    return code, n


@njit(cache=True)
def _record_failure(stats, i, code, seed, cfg, nlog, steps):
    stats[i, S_FAIL] = code
    stats[i, S_FAIL_SEED] = seed
    stats[i, S_FAIL_CFG] = cfg
    stats[i, S_FAIL_LEN] = nlog
    stats[i, S_STEPS] = steps


@njit(cache=True)
def _count_game(stats, i, g):
    """Slot ``i``'s counters for a game that just ended (R8.1 or the round cap)."""
    stats[i, S_GAMES] += 1
    stats[i, S_ROUNDS] += g[L.F_ROUND]
    if g[L.F_FINAL] == 1:
        stats[i, S_END_R81] += 1
    else:
        stats[i, S_END_CAP] += 1


@njit(cache=True)
def _try_illegal(g, C, AS, mask, rng, i, tmp):
    """Step a random illegal action: 0 when it is refused and the state is untouched, else the failure."""
    bad = _rand(rng, i, L.N_ACTIONS)
    while mask[bad] == 1:
        bad = (bad + 1) % L.N_ACTIONS
    tmp[:] = g
    if core.step_checked(g, C, AS, bad) == 0:
        return FAIL_ILLEGAL_ACCEPTED
    for j in range(g.shape[0]):
        if g[j] != tmp[j]:
            return FAIL_ILLEGAL_CHANGED_STATE
    return 0


@njit(cache=True)
def _random_step(g, C, AS, mask, mask2, n, rng, i, stats, log, nlog):
    """Apply a uniformly random legal action (and the forced ones after it), logged at ``log[i, nlog]``."""
    a = nth_legal(mask, _rand(rng, i, n))
    if nlog < log.shape[1]:
        log[i, nlog] = a
    before = g[L.F_STEPS]
    core.apply_action(g, C, AS, a)
    if g[L.F_AUTO] == 1:
        core.apply_forced_mask(g, C, AS, mask2)
    stats[i, S_FORCED] += g[L.F_STEPS] - before - 1


@njit(cache=True)
def _count_market(stats, i, g, prev_ph, last_short):
    """Count refills and rounds with a market row cut short (R3.1); returns the new ``(prev_ph, last_short)``."""
    ph = g[L.F_PH]
    if ph == L.PH_REFILL and prev_ph != L.PH_REFILL:
        stats[i, S_REFILLS] += 1
    if (g[L.F_ROW_CUT] == 1 or g[L.F_ROW_CUT + 1] == 1) and last_short != g[L.F_ROUND]:
        last_short = g[L.F_ROUND]
        stats[i, S_SHORT_ROWS] += 1
    return ph, last_short


@njit(cache=True, nogil=True)
def fuzz_slot(S, C, AS, i, cfgs, rng, base_seed, budget, stats, log, illegal_every):
    """Fuzz slot ``i`` of ``S`` for ``budget`` decisions (see the module docstring).

    ``cfgs[k] = (num_players, edition bits, auto_forced, max_rounds)``: each new game picks a row
    at random. ``stats[i]`` gets slot i's counters (``S_*``); on a failure the slot stops and
    ``log[i]`` holds the actions of the failing game. Slots touch only their own rows, so
    several threads may run different slots at once.
    """
    g = S[i]
    B = S.shape[0]
    mask = np.zeros(L.N_ACTIONS, np.int8)
    mask2 = np.zeros(L.N_ACTIONS, np.int8)
    tmp = np.zeros(g.shape[0], np.int32)
    games = 0
    seed = base_seed + i
    cfg = _new_game(g, C, AS, rng, i, cfgs, seed)
    nlog = 0
    gsteps = 0
    last_short = -1
    prev_ph = g[L.F_PH]
    steps = 0
    while steps < budget:
        code, n = _check_position(g, C, AS, mask, gsteps)
        if code != 0:
            _record_failure(stats, i, code, seed, cfg, nlog, steps)
            return
        if g[L.F_DEC] == L.D_OVER:
            games += 1
            _count_game(stats, i, g)
            seed = base_seed + i + games * B
            cfg = _new_game(g, C, AS, rng, i, cfgs, seed)
            nlog = 0
            gsteps = 0
            last_short = -1
            prev_ph = g[L.F_PH]
            continue
        # now and then: an illegal action must be refused without touching the state
        if illegal_every > 0 and _rand(rng, i, illegal_every) == 0 and n < L.N_ACTIONS:
            stats[i, S_ILLEGAL_TRIED] += 1
            code = _try_illegal(g, C, AS, mask, rng, i, tmp)
            if code != 0:
                _record_failure(stats, i, code, seed, cfg, nlog, steps)
                return
        _random_step(g, C, AS, mask, mask2, n, rng, i, stats, log, nlog)
        nlog += 1
        steps += 1
        gsteps += 1
        prev_ph, last_short = _count_market(stats, i, g, prev_ph, last_short)
    stats[i, S_STEPS] = steps


@dataclass
class FuzzReport:
    """What a fuzz run saw; ``failures`` holds a replayable record per failing slot."""

    games: int
    steps: int
    seconds: float
    rounds: int
    ended_by_r8_1: int
    ended_by_cap: int
    refills: int
    short_rows: int
    illegal_checks: int
    forced_steps: int
    failures: list[tuple[str, GameRecord]] = field(default_factory=list)

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else float("inf")

    @property
    def mean_rounds(self) -> float:
        return self.rounds / self.games if self.games else 0.0

    def summary(self) -> str:
        lines = [
            f"games            {self.games}",
            f"steps            {self.steps}  (+{self.forced_steps} forced, applied automatically)",
            f"steps/s          {self.steps_per_second:,.0f}",
            f"mean rounds      {self.mean_rounds:.2f}",
            f"ended by R8.1    {self.ended_by_r8_1}",
            f"ended by cap     {self.ended_by_cap}  (decision R8.4, max_rounds)",
            f"refills (R3.1)   {self.refills}",
            f"short rows       {self.short_rows}  (rounds with a market row cut short, R3.1)",
            f"illegal checks   {self.illegal_checks}",
            f"failures         {len(self.failures)}",
        ]
        for why, rec in self.failures:
            lines.append(f"  FAIL {why}: {json.dumps(rec.to_dict())[:300]}...")
        return "\n".join(lines)


def _configs(
    players: list[int], rules: list[str], auto: list[bool], max_rounds: int, variants: list[int]
) -> np.ndarray:
    rows = [
        (n, rs.edition_bits, int(a), rs.round_limit)
        for n in players
        for r in rules
        for a in auto
        for v in variants
        if not (r == "royal" and v & 1)  # keep one (R10.1) does not exist in royal (R9.1)
        for rs in [RuleSet(n, r, max_rounds=max_rounds, keep_one=bool(v & 1), two_for_one=bool(v & 2))]
    ]
    return np.array(rows, np.int64)


def run_fuzz(
    steps: int = 1_000_000,
    players: tuple[int, ...] = (1, 2, 3, 4),
    rules: tuple[str, ...] = ("omg2", "royal"),
    seed: int = 0,
    auto_forced: tuple[bool, ...] = (True, False),
    batch: int = 64,
    max_rounds: int = 60,
    illegal_every: int = 8,
    threads: int | None = None,
    variants: tuple[int, ...] = (0, 1, 2, 3),
) -> FuzzReport:
    """Play about ``steps`` random legal decisions over many games and report (no raise).

    Every new game picks one configuration: player count x rule set x forced-move mode x
    variant switches (``variants``: bit 0 keep one, R10.1, ``omg2`` only; bit 1 two for one, R10.2).

    ``threads`` (default: the number of CPUs) run the ``batch`` slots side by side; the
    result does not depend on it.
    """
    seed = check_seed(seed)
    for n in players:
        RuleSet(num_players=n)  # validates the player count
    for r in rules:
        RuleSet(edition=r)
    if batch < 1 or steps < 0:
        raise ValueError(f"batch must be >= 1 and steps >= 0, got batch={batch}, steps={steps}")
    cards = default_cards()
    cfgs = _configs(list(players), list(rules), list(auto_forced), max_rounds, list(variants))
    if cfgs.shape[0] == 0:
        raise ValueError("no configuration to play: keep one (R10.1, variant bit 0) needs omg2 (R9.1)")
    S = np.zeros((batch, L.STATE_LEN), np.int32)
    rng = np.array([((seed * 1_000_003 + i) * 0x9E3779B9 + 1) & 0xFFFFFFFFFFFFFFFF for i in range(batch)], np.uint64)
    stats = np.zeros((batch, N_STATS), np.int64)
    log = np.zeros((batch, LOG_CAP), np.int32)
    budget = -(-steps // batch)
    base_seed = int(seed_bits((seed << 32) & _M64))
    C, AS = cards.buildings, cards.assistants

    def slot(i: int) -> None:
        fuzz_slot(S, C, AS, i, cfgs, rng, base_seed, budget, stats, log, illegal_every)

    t0 = time.perf_counter()
    _run_slots(slot, batch, threads)
    dt = time.perf_counter() - t0
    failures = [_failure(stats, cfgs, log, i) for i in np.flatnonzero(stats[:, S_FAIL])]
    return _report(stats, dt, failures)


def _run_slots(slot: Callable[[int], None], batch: int, threads: int | None) -> None:
    """Run ``slot(i)`` for every slot, on ``threads`` threads (default: the number of CPUs)."""
    workers = max(1, min(batch, threads or os.cpu_count() or 1))
    if workers == 1:
        for i in range(batch):
            slot(i)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(slot, range(batch)))


def _failure(stats: np.ndarray, cfgs: np.ndarray, log: np.ndarray, i: int) -> tuple[str, GameRecord]:
    """Why slot ``i`` failed and the replayable record of its failing game."""
    code = int(stats[i, S_FAIL])
    n, bits, auto, mr = (int(x) for x in cfgs[stats[i, S_FAIL_CFG]])
    nlog = int(stats[i, S_FAIL_LEN])
    why = FAIL_NAMES.get(code, f"check_invariants code {code}")
    if nlog > LOG_CAP:
        why += f" (action log truncated at {LOG_CAP})"
    rec = GameRecord(
        RuleSet(n, EDITIONS[bits & 1], bool(auto), mr, keep_one=bool(bits & 2), two_for_one=bool(bits & 4)),
        int(stats[i, S_FAIL_SEED]) & _M64,
        [int(a) for a in log[i, : min(nlog, LOG_CAP)]],
    )
    return why, rec


def _report(stats: np.ndarray, seconds: float, failures: list[tuple[str, GameRecord]]) -> FuzzReport:
    """The slots' counters summed into a :class:`FuzzReport`."""
    col = stats.sum(axis=0)
    return FuzzReport(
        games=int(col[S_GAMES]),
        steps=int(col[S_STEPS]),
        seconds=seconds,
        rounds=int(col[S_ROUNDS]),
        ended_by_r8_1=int(col[S_END_R81]),
        ended_by_cap=int(col[S_END_CAP]),
        refills=int(col[S_REFILLS]),
        short_rows=int(col[S_SHORT_ROWS]),
        illegal_checks=int(col[S_ILLEGAL_TRIED]),
        forced_steps=int(col[S_FORCED]),
        failures=failures,
    )


_jit.register(globals(), core, L, _cards, _rng)
