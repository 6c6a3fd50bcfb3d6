"""The one timer of every benchmark row: counts over wall-clock and CPU time, and the rates made of them.

A row's work is a callable ``step() -> (agent steps, decisions, finished games)``. :func:`timed`
calls it for a warm-up, then until ``seconds`` of wall-clock time have passed (and at least
``min_calls`` calls were made), and returns :class:`Rates`: counts per wall-clock second, and
decisions per CPU-second of this process (all its threads; on a busy machine the wall-clock
rate drops while the CPU-time rate does not).

Loops that cannot be cut into equal calls (the training rows: a rollout, then an update) time
their sections with :meth:`Tally.section` and turn the :class:`Tally` into :class:`Rates`
with the same statistic. Both read the clocks below, which a test may replace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Rates", "Tally", "cpu_clock", "rate", "timed", "wall_clock"]

#: wall-clock seconds (read at call time, so a test can swap in a fake clock)
wall_clock: Callable[[], float] = time.perf_counter
#: CPU seconds of this process, all threads
cpu_clock: Callable[[], float] = time.process_time

Step = Callable[[], tuple[int, int, int]]


def rate(count: float, seconds: float) -> float:
    """``count`` per second; NaN when no time was measured."""
    return count / seconds if seconds > 0 else float("nan")


@dataclass(frozen=True)
class Rates:
    """What one measurement gives: rates per wall-clock second, decisions per CPU-second."""

    agent_steps: float
    decisions: float
    games: float
    calls: float
    cpu: float  # decisions per CPU-second of this process
    seconds: float  # wall-clock seconds measured


@dataclass
class Tally:
    """Counts and the wall-clock and CPU seconds spent on them, over one or more timed sections."""

    agent_steps: int = 0
    decisions: int = 0
    games: int = 0
    calls: int = 0
    wall: float = 0.0
    cpu: float = 0.0

    def add(self, agent_steps: int = 0, decisions: int = 0, games: int = 0) -> None:
        """Count the work of one call."""
        self.agent_steps += agent_steps
        self.decisions += decisions
        self.games += games
        self.calls += 1

    @contextmanager
    def section(self) -> Iterator[Tally]:
        """Add the wall-clock and CPU time of the ``with`` block to this tally."""
        w, c = wall_clock(), cpu_clock()
        try:
            yield self
        finally:
            self.wall += wall_clock() - w
            self.cpu += cpu_clock() - c

    def rates(self) -> Rates:
        """The counts per wall-clock second, decisions per CPU-second (CPU time floored at 1 ns)."""
        return Rates(
            agent_steps=rate(self.agent_steps, self.wall),
            decisions=rate(self.decisions, self.wall),
            games=rate(self.games, self.wall),
            calls=rate(self.calls, self.wall),
            cpu=self.decisions / max(self.cpu, 1e-9),
            seconds=self.wall,
        )


def _warm_up(step: Step, calls: int, seconds: float) -> None:
    """``calls`` calls, then more until ``seconds`` have passed: compiled kernels, caches, thread pool."""
    for _ in range(calls):
        step()
    end = wall_clock() + seconds
    while wall_clock() < end:
        step()


def timed(
    step: Step, seconds: float, *, warmup_calls: int = 1, warmup_seconds: float = 0.0, min_calls: int = 3
) -> Rates:
    """Call ``step`` (returns agent steps, decisions, finished games) for ``seconds``, after a warm-up.

    The window ends at the first call that brings it to ``seconds`` of wall-clock time with at
    least ``min_calls`` calls; ``seconds=0`` with ``min_calls=n`` times exactly ``n`` calls.
    """
    if seconds < 0 or min_calls < 1 or warmup_calls < 0 or warmup_seconds < 0:
        raise ValueError(
            f"timed: expected seconds >= 0, min_calls >= 1 and a warm-up >= 0; got seconds={seconds}, "
            f"min_calls={min_calls}, warmup_calls={warmup_calls}, warmup_seconds={warmup_seconds}"
        )
    _warm_up(step, warmup_calls, warmup_seconds)
    tally = Tally()
    t0, c0 = wall_clock(), cpu_clock()
    while True:
        tally.add(*step())
        tally.wall = wall_clock() - t0
        if tally.wall >= seconds and tally.calls >= min_calls:
            tally.cpu = cpu_clock() - c0
            return tally.rates()
