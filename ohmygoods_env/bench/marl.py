"""The multi-agent rows: the all-seats batched front ends next to ``BatchGames.step + observe()``.

Each ``bench_*`` function plays random legal actions for about ``seconds`` through
:func:`.timer.timed` (after a warm-up of ``min(1, seconds)`` seconds) and returns
``{"name", "batch", "decisions_per_s", "calls_per_s"}``; a *decision* is any applied engine
action, forced moves included (``BatchGames.decisions``), as in ``ohmygoods bench``.
:func:`rows` measures the three at one batch size and :func:`print_table` prints them;
``python -m ohmygoods_env.bench.marl [--batch N] [--players P] [--seconds S]`` does both.
:func:`table_rows` gives the two front-end rows of ``ohmygoods bench``.

* ``step+observe``: ``BatchGames.step`` then ``observe()`` of the acting seats (N rows).
* ``BatchEnv`` (Pgx style): :class:`~ohmygoods_env.envs.batched.BatchEnv` step with autoreset (N rows).
* ``SeatVecEnv`` (SuperSuit convention, SB3 ``VecEnv``): ``step`` and ``action_masks()``
  over N games x P seats (N * P observation rows per step).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from ..batch import BatchGames, make_rng, random_actions
from .table import Row, measured
from .timer import Rates, timed

__all__ = ["bench_batch_env", "bench_seat_vec_env", "bench_step_observe", "print_table", "rows", "table_rows"]


def _measure(step: Callable[[], None], decisions: Callable[[], int], batch: int, seconds: float) -> Rates:
    """One call of ``step`` is one agent step per game; decisions are read from the games' counter."""

    def counted() -> tuple[int, int, int]:
        d0 = decisions()
        step()
        return batch, decisions() - d0, 0

    return timed(counted, seconds, warmup_calls=0, warmup_seconds=min(1.0, seconds), min_calls=1)


def _result(name: str, batch: int, rates: Rates) -> dict:
    return {"name": name, "batch": batch, "decisions_per_s": rates.decisions, "calls_per_s": rates.calls}


def _step_observe(batch: int, num_players: int, seconds: float) -> Rates:
    g = BatchGames(batch, num_players, seed=0)
    rng = make_rng(batch, seed=1)

    def step() -> None:
        g.step(random_actions(g.masks(copy=False), rng))
        g.observe()
        g.reset()

    return _measure(step, lambda: int(g.decisions.sum()), batch, seconds)


def _batch_env(batch: int, num_players: int, seconds: float) -> Rates:
    from ..envs.batched import BatchEnv

    env = BatchEnv(batch, num_players, seed=0)
    ts = [env.reset()]
    rng = make_rng(batch, seed=1)

    def step() -> None:
        ts[0] = env.step(random_actions(ts[0].legal_action_mask.view(np.int8), rng))

    return _measure(step, lambda: int(env.games.decisions.sum()), batch, seconds)


def _seat_vec_env(batch: int, num_players: int, seconds: float) -> Rates:
    from ..envs.seat_vec import SeatVecEnv

    env = SeatVecEnv(batch, num_players, seed=0)
    env.reset()
    rng = make_rng(env.num_envs, seed=1)

    def step() -> None:
        env.step(random_actions(env.action_masks().view(np.int8), rng))

    return _measure(step, lambda: int(env.games.decisions.sum()), batch, seconds)


def bench_step_observe(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """``BatchGames.step`` + ``observe()`` with random legal actions; finished games restart."""
    return _result("BatchGames.step + observe()", batch, _step_observe(batch, num_players, seconds))


def bench_batch_env(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """:class:`~ohmygoods_env.envs.batched.BatchEnv` (Pgx-style, autoreset) with random legal actions."""
    return _result("BatchEnv (Pgx style)", batch, _batch_env(batch, num_players, seconds))


def bench_seat_vec_env(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> dict:
    """:class:`~ohmygoods_env.envs.seat_vec.SeatVecEnv` (N games x P seats), masks read every step."""
    name = f"SeatVecEnv (SuperSuit convention, {batch} x {num_players} rows)"
    return _result(name, batch, _seat_vec_env(batch, num_players, seconds))


def rows(batch: int = 1024, num_players: int = 2, seconds: float = 3.0) -> list[dict]:
    """The three measurements at one batch size, in one run; each row gets ``share`` of step+observe."""
    out = [f(batch, num_players, seconds) for f in (bench_step_observe, bench_batch_env, bench_seat_vec_env)]
    for r in out:
        r["share"] = r["decisions_per_s"] / out[0]["decisions_per_s"]
    return out


def table_rows(size: int, seconds: float) -> list[Row]:
    """The rows of ``ohmygoods bench``: ``SeatVecEnv`` and ``BatchEnv`` with ``size`` 2-player games each."""
    seats = measured("ohmygoods SeatVecEnv (all seats)", size, _seat_vec_env(size, 2, seconds))
    batch_env = measured("ohmygoods BatchEnv (Pgx style)", size, _batch_env(size, 2, seconds))
    seats.note, batch_env.note = "rows = games x 2 seats, obs + masks", "acting seat's obs, masks, autoreset"
    return [seats, batch_env]


def print_table(table: list[dict]) -> None:
    """A Markdown table of :func:`rows` output."""
    print("| front end | games | decisions/s | steps/s | vs step+observe |")
    print("|---|---:|---:|---:|---:|")
    for r in table:
        share = f"{100 * r['share']:.0f} %" if "share" in r else ""
        print(f"| {r['name']} | {r['batch']} | {r['decisions_per_s']:,.0f} | {r['calls_per_s']:,.0f} | {share} |")


def main(argv: list[str] | None = None) -> None:
    """``python -m ohmygoods_env.bench.marl``: :func:`rows` printed by :func:`print_table`."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    a = ap.parse_args(argv)
    print_table(rows(a.batch, a.players, a.seconds))


if __name__ == "__main__":
    main()
