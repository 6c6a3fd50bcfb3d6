"""The built wheel: its top-level import names, and (marked ``venv``) fresh venvs that install it.

* :func:`test_wheel_top_level_names` builds the wheel offline (``pip wheel --no-deps
  --no-build-isolation``, from a copy of the source so no stale ``build/`` leaks in) and checks
  that it installs exactly ``ohmygoods_env``, ``ohmygoods_agents`` and ``ohmygoods_training``.
* The ``venv`` tests (deselected by default; ``.ci/run`` runs ``pytest -m venv``) create venvs from
  PyPI: the wheel beside ``openai-agents`` (which installs the import package ``agents``), and
  the wheel with the ``benchmarl`` extra running the MAPPO block of ``docs/marl.md`` as written.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from test_docs_blocks import ROOT, read_blocks

TOP_LEVEL = {"ohmygoods_env", "ohmygoods_agents", "ohmygoods_training"}
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv",
    ".ci-venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "runs",
    "results",
    ".pyshim",
    "*.nbi",
    "*.nbc",
)


def build_wheel(out: Path) -> Path:
    """Build the project's wheel into ``out`` from a clean copy of the source; returns its path."""
    src = out / "ohmygoods-source"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("ohmygoods-*.whl")
    return wheel


def wheel_top_level(wheel: Path) -> set[str]:
    """The top-level names a wheel installs (first path part of every file outside its metadata)."""
    with zipfile.ZipFile(wheel) as z:
        parts = {name.split("/", 1)[0] for name in z.namelist()}
    return {p.removesuffix(".py") for p in parts if not p.endswith((".dist-info", ".data"))}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_wheel_top_level_names(wheel: Path) -> None:
    assert wheel_top_level(wheel) == TOP_LEVEL
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (top_level_txt,) = [n for n in names if n.endswith(".dist-info/top_level.txt")] or [None]
        if top_level_txt is not None:
            assert set(z.read(top_level_txt).decode().split()) == TOP_LEVEL
        entry_points = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "ohmygoods_agents/checkpoints/ppo_2p.safetensors" in names  # package data of the renamed folder
    assert "ohmygoods_env/framework/stats.py" in names  # the game-agnostic subpackage ships too
    assert "ohmygoods_env/goofspiel/eval_protocol.json" in names  # a game folder's protocol (package data)
    assert "ohmygoods_env/apps/static/generic.html" in names  # the generic page
    assert "ohmygoods_agents.registry:" in entry_points and "= agents." not in entry_points
    # every package of the source tree is in the wheel (setuptools lists them by hand in pyproject.toml)
    for folder, name in (
        ("ohmygoods_env", "ohmygoods_env"),
        ("agents", "ohmygoods_agents"),
        ("training", "ohmygoods_training"),
    ):
        for init in (ROOT / folder).rglob("__init__.py"):
            inside = init.relative_to(ROOT / folder).as_posix()
            assert f"{name}/{inside}" in names, f"{name}/{inside} is missing from the wheel (pyproject.toml packages)"


def _make_venv(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    return where / "bin" / "python"


def _run(cmd: list[str], timeout: float = 900, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


_BESIDE_OPENAI_AGENTS = """
import sys
from importlib import metadata
import agents, ohmygoods_agents, ohmygoods_training
from ohmygoods_env.framework.agents import ENTRY_POINT_GROUP
from ohmygoods_env.policy import make_agent
from ohmygoods_agents.checkpoint import shipped_checkpoints

assert hasattr(agents, "Agent") and hasattr(agents, "Runner"), agents.__file__  # openai-agents' own package
assert metadata.distribution("openai-agents").read_text("top_level.txt") is None or "agents" in (
    metadata.distribution("openai-agents").read_text("top_level.txt"))
eps = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name.startswith("ohmygoods.")]
names = {ep.name.removeprefix("ohmygoods.") for ep in eps}
assert set(shipped_checkpoints()) <= names, (sorted(names), sorted(shipped_checkpoints()))
for ep in eps:
    factory = ep.load()
    assert factory.__module__ == "ohmygoods_agents.registry", (ep, factory.__module__)
assert make_agent("heuristic", seed=0).name == "heuristic"
print("ok", sorted(names))
"""


@pytest.mark.venv
def test_wheel_installs_beside_openai_agents(wheel: Path, tmp_path: Path) -> None:
    python = _make_venv(tmp_path / "venv")
    _run([str(python), "-m", "pip", "install", "-q", str(wheel), "openai-agents"])
    done = _run([str(python), "-c", _BESIDE_OPENAI_AGENTS], cwd=tmp_path)
    assert done.stdout.startswith("ok")


def benchmarl_block() -> str:
    """The BenchMARL block of docs/marl.md (the one that imports ``benchmark_task``), as written."""
    (block,) = [b for b in read_blocks(ROOT / "docs" / "marl.md") if "benchmarl_task" in b.code]
    assert block.language == "python" and block.not_run, "the block is marked: the dev env has no BenchMARL"
    return block.code


_BENCHMARL_TASKS = """
from ohmygoods_env import layout as L
from ohmygoods_env.envs.benchmarl_task import OhMyGoodsTask
from ohmygoods_env.envs.pettingzoo_env import STATE_DIM

for member, players in [(OhMyGoodsTask.PLAYERS_2, 2), (OhMyGoodsTask.PLAYERS_3, 3), (OhMyGoodsTask.PLAYERS_4, 4)]:
    task = member.get_task(config={"reward": "margin"})
    assert task.config == {"num_players": players, "rules": "omg2", "reward": "margin", "max_steps": 4000}
    env = task.get_env_fun(num_envs=1, continuous_actions=False, seed=0, device="cpu")()
    ((group, agents),) = task.group_map(env).items()
    assert len(agents) == players, agents
    assert task.action_mask_spec(env)[group, "action_mask"].shape == (players, L.N_ACTIONS)
    assert task.state_spec(env)["state"].shape[-1] == STATE_DIM  # the privileged state, for the critic only
    assert set(task.observation_spec(env)[group].keys()) == {"observation"}
    td = env.rollout(30)  # random actions inside the masks (the env raises on an illegal one)
    print(players, group, tuple(td[group, "action_mask"].shape))
try:
    OhMyGoodsTask.PLAYERS_2.get_task(config={"rules": "nope"}).get_env_fun(1, False, 0, "cpu")
except ValueError as e:
    print("bad rules:", e)
"""


@pytest.mark.venv
def test_benchmarl_tasks_and_the_mappo_block_run_in_their_own_venv(wheel: Path, tmp_path: Path) -> None:
    python = _make_venv(tmp_path / "venv")
    _run([str(python), "-m", "pip", "install", "-q", f"{wheel}[benchmarl]"])
    tasks = _run([str(python), "-c", _BENCHMARL_TASKS], cwd=tmp_path).stdout.splitlines()
    assert [line.split()[0] for line in tasks[:3]] == ["2", "3", "4"] and "rules must be one of" in tasks[3]
    (tmp_path / "block.py").write_text(benchmarl_block(), encoding="utf-8")
    done = _run([str(python), "block.py"], cwd=tmp_path, timeout=600)
    assert "iterations 3" in done.stdout, done.stdout[-2000:]
