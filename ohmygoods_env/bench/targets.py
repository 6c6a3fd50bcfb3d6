"""The project's speed targets, each figure declared once, and their judgement on the rows of one run.

The targets are documented in docs/performance.md (*Targets*; a test keeps that table and these
figures in step). ``ohmygoods bench`` prints :func:`target_lines` under its table; a target
missed is a line saying ``NOT met``, never an exit status.
"""

from __future__ import annotations

from .. import layout as L
from .table import Row, fmt

__all__ = ["AEC_VS_CONNECT_FOUR", "BATCH_DECISIONS", "PGX_RATIO", "SEAT_VEC_SHARE", "STATE_BYTES", "target_lines"]

#: decisions/s of the best ``BatchGames.step`` row
BATCH_DECISIONS = 1_000_000
#: decisions/s of ``BatchGames.step`` as a multiple of Pgx ``connect_four``'s at the same batch size (1024)
PGX_RATIO = 2.0
#: agent steps/s of our PettingZoo AEC env as a multiple of PettingZoo's ``connect_four_v3`` under the same loop
AEC_VS_CONNECT_FOUR = 10.0
#: decisions/s of ``SeatVecEnv`` as a share of ``BatchGames.step + observe()`` at the same batch
SEAT_VEC_SHARE = 0.75
#: bytes of one game's state row
STATE_BYTES = 4096


def _find(rows: list[Row], name: str, batch: str | None = None) -> Row | None:
    for r in rows:
        if r.name == name and (batch is None or r.batch == batch) and r.decisions:
            return r
    return None


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _per_cpu(ours: Row, other: Row) -> str:
    """The two rows' decisions per CPU-second as a ratio (what other processes on the machine disturb least)."""
    if not (ours.cpu and other.cpu):
        return "per CPU-second not measured"
    return f"{ours.cpu / other.cpu:.2f}x per CPU-second"


def _batch_line(rows: list[Row]) -> list[str]:
    batch_rows = [r for r in rows if r.name == "ohmygoods BatchGames.step" and r.decisions]
    if not batch_rows:
        return []
    best = max(batch_rows, key=lambda r: r.decisions or 0)
    return [
        f"batched engine >= {BATCH_DECISIONS:,} decisions/s: best {fmt(best.decisions)} at B={best.batch} "
        f"({fmt(best.agent_steps)} agent steps/s) -> {_verdict((best.decisions or 0) >= BATCH_DECISIONS)}"
    ]


def _pgx_line(rows: list[Row]) -> list[str]:
    pgx = _find(rows, "Pgx connect_four (jax CPU)")
    ours = _find(rows, "ohmygoods BatchGames.step", pgx.batch) if pgx else None
    if not (pgx and ours):
        return ["faster than Pgx connect_four: not measured (Pgx row skipped, or no batch of the same size)"]
    ratio = (ours.decisions or 0) / (pgx.decisions or 1)
    return [
        f"BatchGames.step >= {PGX_RATIO:g}x Pgx connect_four at B={pgx.batch}: {fmt(ours.decisions)} vs "
        f"{fmt(pgx.decisions)} decisions/s = {ratio:.2f}x ({_per_cpu(ours, pgx)}; "
        f"{(ours.agent_steps or 0) / (pgx.agent_steps or 1):.2f}x in agent steps) -> {_verdict(ratio >= PGX_RATIO)}"
    ]


def _aec_line(rows: list[Row]) -> list[str]:
    aec = _find(rows, "ohmygoods PettingZoo AEC env")
    if not aec:
        return []
    pz = _find(rows, "PettingZoo connect_four_v3")
    if not pz:
        return [f"AEC env >= {AEC_VS_CONNECT_FOUR:g}x connect_four_v3: not measured (PettingZoo's row skipped)"]
    ratio = (aec.agent_steps or 0) / (pz.agent_steps or 1)
    # per CPU-second: the rows' CPU rates count decisions; ours has agent_steps/decisions of them agent steps
    cpu = (aec.cpu or 0) * (aec.agent_steps or 0) / (aec.decisions or 1) / ((pz.cpu or 0) or 1)
    return [
        f"AEC env >= {AEC_VS_CONNECT_FOUR:g}x PettingZoo connect_four_v3: {fmt(aec.agent_steps)} vs "
        f"{fmt(pz.agent_steps)} agent steps/s = {ratio:.1f}x ({cpu:.1f}x per CPU-second) "
        f"-> {_verdict(ratio >= AEC_VS_CONNECT_FOUR)}"
    ]


def _seat_vec_line(rows: list[Row]) -> list[str]:
    seat = _find(rows, "ohmygoods SeatVecEnv (all seats)")
    obs = _find(rows, "ohmygoods BatchGames.step + observe()", seat.batch) if seat else None
    if not (seat and obs):
        return []
    share = (seat.decisions or 0) / (obs.decisions or 1)
    seats = _find(rows, "ohmygoods BatchGames.step + observe_seats()", seat.batch)
    same = (
        f"; {100 * (seat.decisions or 0) / (seats.decisions or 1):.0f} % of step + observe_seats(), the same bytes"
        if seats
        else ""
    )
    return [
        f"all-seats SeatVecEnv >= {100 * SEAT_VEC_SHARE:.0f} % of step + observe() at B={seat.batch}: "
        f"{fmt(seat.decisions)} vs {fmt(obs.decisions)} decisions/s = {100 * share:.0f} % ({_per_cpu(seat, obs)}"
        f"{same}) -> {_verdict(share >= SEAT_VEC_SHARE)}"
    ]


def _state_line(mem_per_game: int) -> list[str]:
    state = L.STATE_LEN * 4
    return [
        f"state of one game <= {STATE_BYTES // 1024} KiB: {state:,} B ({mem_per_game:,} B with mask and "
        f"bookkeeping) -> {_verdict(state <= STATE_BYTES)}"
    ]


def target_lines(rows: list[Row], mem_per_game: int) -> list[str]:
    """One line per target, each judged on the rows of this run only."""
    return [
        *_batch_line(rows),
        *_pgx_line(rows),
        *_aec_line(rows),
        *_seat_vec_line(rows),
        *_state_line(mem_per_game),
    ]
