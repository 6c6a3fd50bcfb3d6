"""The kernel registry (:mod:`ohmygoods_env._jit`): every cached kernel is checked for staleness."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ohmygoods_env import core
from ohmygoods_env.framework import jit as _jit

ROOT = Path(__file__).resolve().parents[2]
KERNEL_MODULES = (
    *(f"ohmygoods_env.core.{m}" for m in core.MODULES),
    "ohmygoods_env.batch",
    "ohmygoods_env.infostate",
    "ohmygoods_env.fuzz",
    "ohmygoods_agents._kernels",
    "ohmygoods_agents.mcts",
)
PROBE = """
import importlib, json, sys
for m in sys.argv[1:]:
    importlib.import_module(m)
from ohmygoods_env import core
from ohmygoods_env.framework import jit as _jit
print(json.dumps(_jit.REPORT))
"""


def _report(tmp: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tmp), NUMBA_CACHE_DIR="")
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *KERNEL_MODULES], cwd=tmp, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_kernel_module_is_registered() -> None:
    import ohmygoods_agents.mcts  # noqa: F401

    from ohmygoods_env import fuzz  # noqa: F401

    for m in KERNEL_MODULES:
        assert m in _jit.REPORT, m
        assert _jit.REPORT[m]["kernels"], m


def test_twins_pick_by_batch_size() -> None:
    from ohmygoods_env import batch

    t = batch._step
    assert t.pick(1) is t.serial and t.pick(_jit.PARALLEL_MIN - 1) is t.serial
    assert t.pick(_jit.PARALLEL_MIN) is t.parallel
    assert t.serial.py_func.__qualname__ != t.parallel.py_func.__qualname__  # separate cache entries


def test_layout_change_flushes_every_dependent_kernel(tmp_path: Path) -> None:
    """Change one layout constant in a copy of the package: every kernel module is flushed."""
    for folder, pkg in (("ohmygoods_env", "ohmygoods_env"), ("agents", "ohmygoods_agents")):
        shutil.copytree(ROOT / folder, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    first = _report(tmp_path)
    assert all(first[m]["status"] == "new" for m in KERNEL_MODULES), first
    again = _report(tmp_path)
    assert all(again[m]["status"] == "fresh" and not again[m]["flushed"] for m in KERNEL_MODULES), again
    layout = tmp_path / "ohmygoods_env" / "layout.py"
    text = layout.read_text()
    assert "\nSUB_END = 11\n" in text
    layout.write_text(text.replace("\nSUB_END = 11\n", "\nSUB_END = 12\n"))
    after = _report(tmp_path)
    for m in KERNEL_MODULES:
        assert after[m]["status"] == "stale", (m, after[m])
        assert after[m]["flushed"] == after[m]["kernels"], m
