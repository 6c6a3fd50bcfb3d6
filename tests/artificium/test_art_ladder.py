"""The ladder of docs/artificium/agents.md: its commands parse, and a short run prints one table per player count."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ohmygoods_agents.artificium import ladder

DOC = (Path(__file__).resolve().parents[2] / "docs" / "artificium" / "agents.md").read_text(encoding="utf-8")
COMMANDS = re.findall(r"^python -m ohmygoods_agents\.artificium\.ladder (.*)$", DOC, flags=re.M)


def test_the_doc_lists_a_ladder_command_for_2_4_and_6_players() -> None:
    players = sorted(int(shlex.split(c)[shlex.split(c).index("--players") + 1]) for c in COMMANDS)
    assert players == [2, 4, 6]


def test_a_short_ladder_prints_a_markdown_table_per_player_count(capsys) -> None:
    assert ladder.main(["--players", "2,3", "--games", "3", "--ismcts", "2", "--ismcts-games", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 players" in out and "3 players" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line and "agent |" not in line]
    assert [r.split("|")[1].strip() for r in rows] == [
        "greedy", "heuristic", "heuristic", "ismcts:2", "heuristic",  # 2 players: heuristic vs ismcts too
        "greedy", "heuristic", "heuristic", "ismcts:2",
    ]  # fmt: skip
    for r in rows:
        rate, lo, hi = map(float, re.search(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", r).groups())
        assert 0 <= lo <= rate <= hi <= 1
