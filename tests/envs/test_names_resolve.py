"""Names resolve in a fresh interpreter, without importing anything first (issue 27, item 3).

* every shipped agent (``ppo``, ``ppo-3p``, ``ppo-4p``, ``ppo-solo``) by ``make_agent`` from
  :mod:`ohmygoods_env.policy`, with ``ohmygoods_agents`` not imported beforehand;
* the Gymnasium ids in the form the README shows (``gymnasium.make("ohmygoods_env:ohmygoods/OhMyGoods-v2")``;
  Gymnasium 1.x has no plugin entry points, so the ``module:id`` form imports the registering module);
* every shipped agent has an entry point ``ohmygoods.NAME`` of ``ohmygoods.game_agents`` in ``pyproject.toml``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ohmygoods_agents.checkpoint import shipped_checkpoints

ROOT = Path(__file__).resolve().parents[2]


def run_fresh(code: str, tmp_path: Path) -> str:
    """Run ``code`` in a fresh interpreter outside the repository; its stdout (fails with its stderr)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


SHIPPED = sorted(shipped_checkpoints())


def test_the_shipped_agents_are_the_documented_ones() -> None:
    assert {"ppo", "ppo-3p", "ppo-4p", "ppo-long", "ppo-solo"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_agent_resolves_by_name_in_a_fresh_interpreter(name: str, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from ohmygoods_env.policy import agent_names, make_agent\n"
        "assert 'ohmygoods_agents' not in sys.modules\n"
        f"print(make_agent({name!r}, seed=0).name)\n"
        f"assert set({SHIPPED!r}) <= set(agent_names())\n"
    )
    assert run_fresh(code, tmp_path).split() == [name]  # the shipped agent of that name, first thing resolved


def test_an_unknown_name_still_fails_naming_the_shipped_ones(tmp_path: Path) -> None:
    code = (
        "from ohmygoods_env.policy import make_agent\n"
        "try:\n    make_agent('ppo-9p')\nexcept ValueError as e:\n    print(e)\n"
    )
    out = run_fresh(code, tmp_path)
    assert "unknown agent 'ppo-9p'" in out and "'ppo-3p'" in out and "'ppo-solo'" in out


def test_pyproject_has_an_entry_point_for_every_shipped_agent() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    groups = meta["project"]["entry-points"]
    assert "ohmygoods.agents" not in groups  # the older group is read, no longer declared
    eps = {
        k.removeprefix("ohmygoods."): v
        for k, v in groups["ohmygoods.game_agents"].items()
        if k.startswith("ohmygoods.")
    }
    assert set(shipped_checkpoints()) <= set(eps)
    assert all(target.startswith("ohmygoods_agents.registry:") for target in eps.values())


@pytest.mark.parametrize("make", ["make", "make_vec"])
def test_gymnasium_make_with_the_module_prefix_in_a_fresh_interpreter(make: str, tmp_path: Path) -> None:
    kwargs = "opponents='heuristic'" if make == "make" else "num_envs=2"
    code = (
        "import sys, gymnasium\n"
        f"env = gymnasium.{make}('ohmygoods_env:ohmygoods/OhMyGoods-v2', {kwargs})\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__name__, obs.shape)\n"
    )
    assert "OhMyGoods" in run_fresh(code, tmp_path)


def test_a_list_of_opponents_must_match_the_seats() -> None:
    pytest.importorskip("stable_baselines3")
    from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv

    with pytest.raises(ValueError, match=r"2 at num_players=3, got 3 .*give num_players=4"):
        OhMyGoodsVecEnv(num_envs=2, num_players=3, opponents=["random", "heuristic", "greedy"])
    env = OhMyGoodsVecEnv(num_envs=2, num_players=3, opponents=["heuristic", "greedy"], seed=0)
    assert env.reset().shape[0] == 2
