"""The speed targets: each figure declared once in ``bench.targets``, the same in the docs and the verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.bench import targets as T
from ohmygoods_env.bench.table import Row

DOC = Path(__file__).resolve().parents[2] / "docs" / "performance.md"


def _targets_table() -> list[str]:
    """The first column of the table under ``## Targets``."""
    section = DOC.read_text(encoding="utf-8").split("\n## Targets\n", 1)[1].split("\n## ", 1)[0]
    return [line.split("|")[1].strip() for line in section.splitlines() if re.match(r"\| [^-]", line)][1:]


def test_the_documented_targets_are_the_declared_figures() -> None:
    table = _targets_table()
    expected = [
        f"batched engine ≥ {T.BATCH_DECISIONS:,} decisions/s",
        f"`BatchGames.step` ≥ {T.PGX_RATIO:g}× Pgx `connect_four`",
        f"PettingZoo AEC env ≥ {T.AEC_VS_CONNECT_FOUR:g}× PettingZoo `connect_four_v3`",
        f"all-seats `SeatVecEnv` ≥ {100 * T.SEAT_VEC_SHARE:.0f} % of `step + observe()`",
        f"state of one game ≤ {T.STATE_BYTES // 1024} KiB",
    ]
    assert table[: len(expected)] == expected
    assert table[len(expected) :] == ["compile time reported, cached start fast"]  # reported, not judged


def _rows(scale: float) -> list[Row]:
    """One row per judged target, each at ``scale`` times its target figure."""
    return [
        Row("ohmygoods BatchGames.step", "1024", None, scale * T.BATCH_DECISIONS),
        Row("Pgx connect_four (jax CPU)", "1024", 1.0, T.BATCH_DECISIONS / scale / T.PGX_RATIO),
        Row("ohmygoods PettingZoo AEC env", "1", scale * T.AEC_VS_CONNECT_FOUR * 1000.0, 1.0),
        Row("PettingZoo connect_four_v3", "1", 1000.0, 1000.0),
        Row("ohmygoods BatchGames.step + observe()", "1024", None, 1000.0),
        Row("ohmygoods SeatVecEnv (all seats)", "1024", None, scale * T.SEAT_VEC_SHARE * 1000.0),
    ]


@pytest.mark.parametrize(("scale", "verdict"), [(1.001, "-> met"), (0.999, "-> NOT met")])
def test_each_verdict_turns_at_its_declared_figure(scale: float, verdict: str) -> None:
    lines = T.target_lines(_rows(scale), 2 * L.STATE_LEN * 4)
    assert len(lines) == 5
    assert all(line.endswith(verdict) for line in lines[:4]), lines
    assert lines[4].endswith("-> met") == (L.STATE_LEN * 4 <= T.STATE_BYTES)


def test_the_seat_vec_line_adds_the_share_of_the_same_bytes_without_judging_it() -> None:
    """With a ``step + observe_seats()`` row (every seat's observation: the bytes ``SeatVecEnv`` returns) the
    SeatVecEnv line also gives that share; the verdict stays on ``step + observe()``."""
    rows = [*_rows(0.5), Row("ohmygoods BatchGames.step + observe_seats()", "1024", None, 500.0)]
    line = T.target_lines(rows, 2 * L.STATE_LEN * 4)[3]
    assert "= 38 % (" in line and "; 75 % of step + observe_seats(), the same bytes) -> NOT met" in line, line
