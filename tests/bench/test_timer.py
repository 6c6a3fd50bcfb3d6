"""The one timer: its statistic on fake clocks, and every row kind of ``ohmygoods bench`` measured by it."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from ohmygoods_env.bench import anchors, engine, marl, timer
from ohmygoods_env.bench.table import Row


class WorkClock:
    """Fake wall and CPU clocks that only the work advances: each call of ``step`` takes ``wall`` / ``cpu`` s."""

    def __init__(self, wall: float, cpu: float, counts: tuple[int, int, int] = (2, 3, 1)) -> None:
        self.now = self.cpu_now = 0.0
        self.wall, self.cpu, self.counts, self.calls = wall, cpu, counts, 0

    def step(self) -> tuple[int, int, int]:
        self.now += self.wall
        self.cpu_now += self.cpu
        self.calls += 1
        return self.counts

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(timer, "wall_clock", lambda: self.now)
        monkeypatch.setattr(timer, "cpu_clock", lambda: self.cpu_now)


def test_rates_are_counts_over_the_timed_window_after_one_warm_up_call(monkeypatch) -> None:
    clock = WorkClock(wall=0.4, cpu=0.1)
    clock.install(monkeypatch)
    r = timer.timed(clock.step, 1.0)
    # warm-up 1 call (not counted), then 0.4, 0.8, 1.2 s: the third call passes 1.0 s
    assert clock.calls == 4
    assert r.seconds == pytest.approx(1.2)
    assert (r.agent_steps, r.decisions, r.games, r.calls) == pytest.approx((6 / 1.2, 9 / 1.2, 3 / 1.2, 3 / 1.2))
    assert r.cpu == pytest.approx(9 / 0.3)  # decisions per CPU-second: 3 calls of 0.1 CPU-s


def test_the_window_has_at_least_min_calls_and_zero_seconds_means_exactly_min_calls(monkeypatch) -> None:
    clock = WorkClock(wall=5.0, cpu=5.0)
    clock.install(monkeypatch)
    assert timer.timed(clock.step, 1.0).seconds == pytest.approx(15.0)  # 3 calls although the first passed 1 s
    clock.calls = 0
    r = timer.timed(clock.step, 0.0, warmup_calls=0, min_calls=7)
    assert clock.calls == 7 and r.seconds == pytest.approx(35.0)


def test_a_warm_up_in_seconds_runs_until_they_have_passed(monkeypatch) -> None:
    clock = WorkClock(wall=0.3, cpu=0.3)
    clock.install(monkeypatch)
    timer.timed(clock.step, 0.0, warmup_calls=0, warmup_seconds=1.0, min_calls=1)
    assert clock.calls == 4 + 1  # 0.3, 0.6, 0.9, 1.2 s of warm-up, then one timed call


def test_a_tally_adds_its_sections_and_gives_the_same_rates(monkeypatch) -> None:
    clock = WorkClock(wall=0.5, cpu=0.25)
    clock.install(monkeypatch)
    tally = timer.Tally()
    for _ in range(4):
        with tally.section():
            tally.add(*clock.step())
    clock.step()  # work outside a section is not timed
    r = tally.rates()
    assert (tally.wall, tally.cpu, tally.calls) == pytest.approx((2.0, 1.0, 4))
    assert (r.agent_steps, r.decisions, r.cpu) == pytest.approx((8 / 2.0, 12 / 2.0, 12 / 1.0))
    assert math.isnan(timer.Tally().rates().decisions)  # nothing timed: NaN, not 0 or inf


@pytest.mark.parametrize(
    "kwargs", [{"seconds": -1.0}, {"seconds": 1.0, "min_calls": 0}, {"seconds": 1.0, "warmup_seconds": -1.0}]
)
def test_bad_arguments_name_what_was_expected(kwargs: dict) -> None:
    calls = []
    with pytest.raises(ValueError, match="timed: expected seconds >= 0, min_calls >= 1"):
        timer.timed(lambda: calls.append(1) or (0, 0, 0), **kwargs)
    assert not calls  # nothing ran


ROWS: dict[str, Callable[[float], list[Row]]] = {
    "BatchGames.step": lambda s: [engine.bench_batch(4, s)],
    "BatchGames.play_random": lambda s: [engine.bench_batch(4, s, mode="play_random")],
    "whole games": lambda s: [engine.bench_batch(4, s, mode="whole_games")],
    "step + observe()": lambda s: [engine.bench_batch(4, s, mode="observe")],
    "step + observe_seats()": lambda s: [engine.bench_batch(4, s, mode="observe_seats")],
    "SeatVecEnv, BatchEnv": lambda s: marl.table_rows(4, s),
    "OhMyGoodsVecEnv": lambda s: [engine.bench_vecenv(4, s)],
    "Game": lambda s: [engine.bench_game(s)],
    "Gymnasium": lambda s: [engine.bench_gym(s)],
    "AEC": lambda s: [engine.bench_aec(s)],
    "Pgx": lambda s: [anchors.bench_pgx(s, size=4)],
    "OpenSpiel": lambda s: [anchors.bench_openspiel(s)],
    "PettingZoo connect_four": lambda s: [anchors.bench_pz_connect_four(s)],
}


@pytest.mark.parametrize("kind", list(ROWS))
def test_every_row_kind_is_measured_by_the_one_timer(kind: str, ticking_clocks) -> None:
    """On clocks that tick one second per reading, a row's window is whole seconds and its CPU time one tick."""
    for row in ROWS[kind](0.5):
        if row.note.startswith("skipped"):
            pytest.skip(row.note)
        assert row.seconds is not None and row.seconds >= 1.0 and row.seconds == int(row.seconds), row
        assert row.decisions and row.decisions > 0
        assert row.cpu == pytest.approx(row.decisions * row.seconds), row  # one CPU tick between the readings
