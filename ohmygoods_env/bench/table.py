"""The row type of every benchmark table and the plain-text table ``ohmygoods bench`` prints."""

from __future__ import annotations

from dataclasses import dataclass

from .timer import Rates

__all__ = ["Row", "fmt", "format_table", "measured", "skipped"]


@dataclass
class Row:
    """One line of the table: who was measured, at which batch size, and the rates of :mod:`.timer`."""

    name: str
    batch: str
    agent_steps: float | None = None
    decisions: float | None = None
    games: float | None = None
    note: str = ""
    cpu: float | None = None  # decisions per CPU-second of this process
    seconds: float | None = None  # wall-clock seconds of the timed window (None: not measured)


def measured(name: str, batch: int | str, rates: Rates, note: str = "", *, agent_steps: bool = True) -> Row:
    """The row of one :func:`.timer.timed` measurement (``agent_steps=False``: that column stays empty)."""
    return Row(
        name,
        str(batch),
        rates.agent_steps if agent_steps else None,
        rates.decisions,
        rates.games,
        note,
        rates.cpu,
        rates.seconds,
    )


def skipped(name: str, batch: int | str, exc: BaseException, hint: str = "") -> Row:
    """The row of a measurement whose package is not installed: the reason in the note."""
    return Row(name, str(batch), note=f"skipped: {exc}{hint}")


def fmt(x: float | None) -> str:
    """A rate for the table: thousands separated, one decimal below 100, "-" when not measured."""
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.1f}"


def format_table(rows: list[Row]) -> str:
    """The fixed-width table: name, batch, agent steps/s, decisions/s, games/s, dec/CPU-s, note."""
    head = (
        f"{'engine / env':<38} {'batch':>6} {'agent steps/s':>14} {'decisions/s':>13} {'games/s':>9} "
        f"{'dec/CPU-s':>11}  note"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.name:<38} {r.batch:>6} {fmt(r.agent_steps):>14} {fmt(r.decisions):>13} {fmt(r.games):>9} "
            f"{fmt(r.cpu):>11}  {r.note}"
        )
    return "\n".join(lines)
