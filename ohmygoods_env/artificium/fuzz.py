"""Random play of *Artificium* in one compiled loop: the fuzzer (:func:`run_fuzz`) and the bench (:func:`bench`).

:func:`fuzz_games` plays ``n`` random games (a uniformly random legal action, a random
pending seat during the simultaneous choice) and, with ``check`` set, after every step
asserts the invariants of A9.8 (:func:`core.check_invariants`), a non-empty mask while the
game runs, that an illegal action is refused with the state unchanged, and that the game
ends after round 4 within :data:`MAX_STEPS`. The random picks use their own xorshift64
word seeded through ``ohmygoods_env.core.mix64``, never the games' RNG.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from .. import _jit
from ..batch import nth_legal, rng_below
from ..core import mix64
from . import cards as _cards
from . import core
from . import layout as L
from .cards import default_tables

#: A game longer than this is reported as not ending (random games take a few hundred steps).
MAX_STEPS = 20000
FAIL_NO_ACTION = 100  # a running game with an empty mask for the seat asked
FAIL_TOO_LONG = 101
FAIL_NOT_REFUSED = 102  # an illegal action was accepted or changed the state
FAIL_ROUNDS = 103  # the game ended before or after round 4


@njit(cache=True)
def _below(word, n):
    return rng_below(word, 0, n)


@njit(cache=True)
def _seat(g, word):
    """The seat to act: the current one, or a random pending seat during the simultaneous choice."""
    if g[L.F_DEC] != L.D_CHOOSE:
        return g[L.F_CUR]
    n = 0
    for p in range(g[L.F_NP]):
        if core.is_pending(g, p):
            n += 1
    k = _below(word, n)
    for p in range(g[L.F_NP]):
        if core.is_pending(g, p):
            if k == 0:
                return p
            k -= 1
    return -1


@njit(cache=True)
def _refused(g, T, B, TR, CT, p, mask, word):
    """An illegal action of ``p`` must be refused with the row unchanged (True when none exists)."""
    n_illegal = mask.shape[0] - np.sum(mask)
    if n_illegal == 0:
        return True
    k = _below(word, n_illegal)
    a = 0
    for i in range(mask.shape[0]):
        if mask[i] == 0:
            if k == 0:
                a = i
                break
            k -= 1
    before = g.copy()
    code = core.step_checked(g, T, B, TR, CT, p, a)
    return code == core.ERR_ILLEGAL and np.array_equal(before, g)


@njit(cache=True)
def _play_one(g, T, B, TR, CT, word, check, stats):
    mask = np.zeros(L.N_ACTIONS, np.int8)
    steps = 0
    while g[L.F_DEC] != L.D_OVER:
        p = _seat(g, word)
        core.legal_mask(g, T, B, TR, CT, p, mask)
        n = np.sum(mask)
        if n == 0:
            return FAIL_NO_ACTION
        if check and steps % 16 == 0 and not _refused(g, T, B, TR, CT, p, mask, word):
            return FAIL_NOT_REFUSED
        core.apply_action(g, T, B, TR, CT, p, nth_legal(mask, _below(word, n)))
        steps += 1
        stats[0] += 1
        if check:
            code = core.check_invariants(g, T, B, TR, CT)
            if code != 0:
                return code
        if steps > MAX_STEPS:
            return FAIL_TOO_LONG
    if g[L.F_ROUND] != L.ROUNDS:
        return FAIL_ROUNDS
    return 0


@njit(cache=True)
def fuzz_games(T, B, TR, CT, num_players, n, seed, check, stats):
    """Play ``n`` random games; returns 0 or the first failure code; ``stats``: steps, games, failing game."""
    g = np.zeros(L.STATE_LEN, np.int32)
    word = np.zeros(1, np.uint64)
    word[0] = mix64(np.uint64(seed) ^ np.uint64(0x5DEECE66D)) | np.uint64(1)
    for i in range(n):
        game_seed = np.int64(mix64(np.uint64(seed) + np.uint64(i)))
        np_ = num_players if num_players > 0 else 2 + _below(word, L.MAX_PLAYERS - 1)
        core.init_game(g, T, B, TR, CT, game_seed, np_)
        code = _play_one(g, T, B, TR, CT, word, check, stats)
        stats[1] += 1
        if code != 0:
            stats[2] = i
            return code
    return 0


@dataclass
class FuzzReport:
    """What a fuzz run did: games, steps, seconds, and the failure (code 0: none)."""

    games: int
    steps: int
    seconds: float
    code: int
    failing_game: int = -1

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def run_fuzz(games: int = 200, num_players: int = 0, seed: int = 0, check: bool = True) -> FuzzReport:
    """Random games with every check (``num_players`` 0: a random count 2-6 per game)."""
    if not 0 <= int(num_players) <= L.MAX_PLAYERS or int(num_players) == 1:
        raise ValueError(f"num_players must be 0 (random) or 2..6, got {num_players}")
    t = default_tables()
    stats = np.zeros(3, np.int64)
    stats[2] = -1
    t0 = time.perf_counter()
    code = fuzz_games(
        t.types, t.board, t.track, t.card_type, int(num_players), int(games), np.int64(seed), check, stats
    )
    return FuzzReport(int(stats[1]), int(stats[0]), time.perf_counter() - t0, int(code), int(stats[2]))


def bench_step(num_players: int, games_per_call: int = 20, seed: int = 0) -> Callable[[], tuple[int, int, int]]:
    """A loop body for ``ohmygoods_env.bench.timer.timed``: each call plays ``games_per_call`` random games
    (new seeds each call) and returns ``(agent steps, decisions, games)``; decisions = agent steps here."""
    if not L.MIN_PLAYERS <= int(num_players) <= L.MAX_PLAYERS:
        raise ValueError(f"num_players must be in [{L.MIN_PLAYERS}, {L.MAX_PLAYERS}], got {num_players}")
    t = default_tables()
    calls = [0]

    def step() -> tuple[int, int, int]:
        stats = np.zeros(3, np.int64)
        base = np.int64((seed + calls[0] * games_per_call) % (1 << 62))
        fuzz_games(t.types, t.board, t.track, t.card_type, int(num_players), games_per_call, base, False, stats)
        calls[0] += 1
        return int(stats[0]), int(stats[0]), int(stats[1])

    return step


def bench(num_players: int, games: int = 200, seed: int = 0) -> dict:
    """Random-play steps per second of the compiled engine (no checks), one game at a time."""
    run_fuzz(2, num_players, seed, check=False)  # compile / warm the cache
    r = run_fuzz(games, num_players, seed, check=False)
    return {
        "game": "artificium",
        "players": num_players,
        "games": r.games,
        "steps": r.steps,
        "seconds": r.seconds,
        "steps_per_s": r.steps_per_second,
    }


_jit.register(globals(), core, _cards, L)
