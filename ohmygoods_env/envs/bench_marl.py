"""Speed of the multi-agent batched front ends next to ``BatchGames.step + observe()``, in one run.

Each function plays random legal actions for about ``seconds`` (after one warm-up second)
and returns a row ``{"name", "batch", "decisions_per_s", "calls_per_s"}``; a *decision*
is any applied engine action, forced moves included (``BatchGames.decisions``), as in
``ohmygoods bench``. :func:`rows` measures the three at one batch size and
:func:`print_table` prints them; ``python -m ohmygoods_env.envs.bench_marl [--batch N]
[--players P] [--seconds S]`` does both.

* ``step+observe``: ``BatchGames.step`` then ``observe()`` of the acting seats (N rows).
* ``BatchEnv`` (Pgx style): :class:`.batched.BatchEnv` step with autoreset (N rows).
* ``SeatVecEnv`` (SuperSuit convention, SB3 ``VecEnv``): ``step`` and ``action_masks()``
  over N games x P seats (N * P observation rows per step).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from ..batch import BatchGames, make_rng, random_actions

__all__ = ["bench_batch_env", "bench_seat_vec_env", "bench_step_observe", "print_table", "rows"]


def _timed(step: Callable[[], None], decisions: Callable[[], int], seconds: float) -> tuple[float, float]:
    t_end = time.perf_counter() + min(1.0, seconds)
    while time.perf_counter() < t_end:  # warm-up: compiled kernels, page faults, thread pool
        step()
    d0, calls, t0 = decisions(), 0, time.perf_counter()
    while True:
        step()
        calls += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return (decisions() - d0) / dt, calls / dt


def bench_step_observe(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """``BatchGames.step`` + ``observe()`` with random legal actions; finished games restart."""
    g = BatchGames(batch, num_players, seed=0)
    rng = make_rng(batch, seed=1)

    def step() -> None:
        g.step(random_actions(g.masks(copy=False), rng))
        g.observe()
        g.reset()

    dps, cps = _timed(step, lambda: int(g.decisions.sum()), seconds)
    return {"name": "BatchGames.step + observe()", "batch": batch, "decisions_per_s": dps, "calls_per_s": cps}


def bench_batch_env(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """:class:`.batched.BatchEnv` (Pgx-style, autoreset) with random legal actions."""
    from .batched import BatchEnv

    env = BatchEnv(batch, num_players, seed=0)
    ts = [env.reset()]
    rng = make_rng(batch, seed=1)

    def step() -> None:
        ts[0] = env.step(random_actions(ts[0].legal_action_mask.view(np.int8), rng))

    dps, cps = _timed(step, lambda: int(env.games.decisions.sum()), seconds)
    return {"name": "BatchEnv (Pgx style)", "batch": batch, "decisions_per_s": dps, "calls_per_s": cps}


def bench_seat_vec_env(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """:class:`.seat_vec.SeatVecEnv` (N games x P seats) with random legal actions, masks read every step."""
    from .seat_vec import SeatVecEnv

    env = SeatVecEnv(batch, num_players, seed=0)
    env.reset()
    rng = make_rng(env.num_envs, seed=1)

    def step() -> None:
        env.step(random_actions(env.action_masks().view(np.int8), rng))

    dps, cps = _timed(step, lambda: int(env.games.decisions.sum()), seconds)
    name = f"SeatVecEnv (SuperSuit convention, {batch} x {num_players} rows)"
    return {"name": name, "batch": batch, "decisions_per_s": dps, "calls_per_s": cps}


def rows(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> list[dict]:
    """The three measurements at one batch size, in one run; each row gets ``share`` of step+observe."""
    out = [f(batch, num_players, seconds) for f in (bench_step_observe, bench_batch_env, bench_seat_vec_env)]
    for r in out:
        r["share"] = r["decisions_per_s"] / out[0]["decisions_per_s"]
    return out


def print_table(table: list[dict]) -> None:
    """A Markdown table of :func:`rows` output."""
    print("| front end | games | decisions/s | steps/s | vs step+observe |")
    print("|---|---:|---:|---:|---:|")
    for r in table:
        share = f"{100 * r['share']:.0f} %" if "share" in r else ""
        print(f"| {r['name']} | {r['batch']} | {r['decisions_per_s']:,.0f} | {r['calls_per_s']:,.0f} | {share} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    a = ap.parse_args(argv)
    print_table(rows(a.batch, a.players, a.seconds))


if __name__ == "__main__":
    main()
