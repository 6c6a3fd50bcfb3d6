"""``agent_names`` lists every agent a game's ``make_agent`` resolves, the entry points' ones too, in a fresh
interpreter where no agents package is imported yet (what ``ohmygoods serve`` offers)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import ohmygoods_env  # registers the games
import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers goofspiel)
from ohmygoods_env.framework.agents import agent_names, make_agent
assert "ohmygoods_agents" not in sys.modules
art, goof = agent_names("artificium"), agent_names("goofspiel")
for name in art:  # exec needs a command and the caller's consent; the process starts at its first decision
    if name == "exec":
        make_agent("artificium", f"exec:{sys.executable} -c pass", seed=0, allow_exec=True)
    else:
        make_agent("artificium", name, seed=0)
print(art, goof)
"""


def test_names_include_entry_points_of_this_game_only_and_each_resolves() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    art, goof = out.stdout.strip().split("] [")
    assert all(f"'{n}'" in art for n in ("random", "greedy", "heuristic", "ismcts", "ppo", "exec"))
    assert (
        "greedy" not in goof
        and "exec" not in goof
        and "heuristic" not in goof
        and "'ismcts'" in goof
        and "'random'" in goof
    )
