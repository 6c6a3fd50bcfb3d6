"""The kernel registry (:mod:`ohmygoods_env._jit`): every cached kernel is checked for staleness."""

import json
import os
import shutil
import subprocess
import sys
import types
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


def _fake_twin(monkeypatch, cost: dict[str, float]) -> tuple[types.SimpleNamespace, list[str]]:
    """A twin whose kernels take ``cost[name]`` seconds per row on a fake clock (``cost`` can change between
    calls), and the list of the kernels that ran, in order."""
    now = [0.0]
    monkeypatch.setattr(_jit.time, "perf_counter", lambda: now[0])
    ran: list[str] = []

    def kernel(name):
        def run(n):
            ran.append(name)
            now[0] += cost[name] * n
            return name

        return run

    return types.SimpleNamespace(serial=kernel("serial"), parallel=kernel("parallel")), ran


def test_timed_twin_runs_the_faster_kernel_and_probes_the_other(monkeypatch) -> None:
    """``Timed``: from PARALLEL_MIN rows on, the kernel with the lower time per row runs; the other one
    is tried in bursts of ``burst`` calls, ``probe`` calls after both were timed, then after twice as many
    calls each time the try confirms the choice (the choice follows the machine); a kernel's first call
    after the other one's is not counted; smaller loops always run serially."""
    cost = {"serial": 2e-6, "parallel": 1e-6}  # seconds per row, changed below
    fake, ran = _fake_twin(monkeypatch, cost)
    t = _jit.Timed(fake, probe=8, burst=3)
    n = _jit.PARALLEL_MIN
    assert t(n - 1, n - 1) == "serial" and t.calls == 0  # below the threshold: serial, not timed
    ran.clear()
    for _ in range(70):
        t(n, n)
    assert ran[:4] == ["parallel", "parallel", "serial", "serial"]  # each kernel: an uncounted call, a timed one
    tries = [i + 1 for i, name in enumerate(ran) if i >= 4 and name == "serial"]
    assert tries == [13, 14, 15, 31, 32, 33, 65, 66, 67]  # bursts of 3, 16 and 32 calls apart: each confirmed
    assert t.runs == [1 + 3 * 2, 59 - 5]  # not counted: the first call of each kernel, of each burst, of each return
    cost["parallel"] = 6e-6  # the machine got busy: parallel is now the slower one
    ran.clear()
    for _ in range(60):
        t(n, n)
    # each slow run counts at most twice the average (1 us a row, then 1.25, 1.56, 1.95 and 2.44 > 2): the
    # fourth slow run tips the balance, and the tries come 8, then 16 calls later
    assert ran[:5] == ["parallel"] * 4 + ["serial"] and t.best() == 0
    assert [i for i, name in enumerate(ran) if name == "parallel"] == [0, 1, 2, 3, 11, 12, 13, 29, 30, 31]


def test_one_slow_run_does_not_switch_the_kernel(monkeypatch) -> None:
    """A single run slowed by a late thread (an outlier, not a busier machine) counts at most twice the
    kernel's average, so the faster kernel keeps running."""
    cost = {"serial": 2e-6, "parallel": 1e-6}
    fake, ran = _fake_twin(monkeypatch, cost)
    t = _jit.Timed(fake, probe=8, burst=3)
    n = _jit.PARALLEL_MIN
    for _ in range(10):
        t(n, n)
    assert t.best() == 1 and t.try_left == 0  # parallel chosen, no try of the serial one under way
    cost["parallel"] = 50e-6  # one run 50 times slower (uncounted, it would make the average 13 us a row)
    ran.clear()
    t(n, n)
    assert ran == ["parallel"] and t.best() == 1 and abs(t.cost[1] - 1.25e-6) < 1e-12


def test_a_try_that_wakes_the_other_kernel_is_judged_on_its_later_calls(monkeypatch) -> None:
    """The first call of a kernel after the other one's pays a wake-up (sleeping threads, cold caches): it
    is not counted, so a kernel faster in a run of calls is chosen although each first call is slow."""
    now = [0.0]
    monkeypatch.setattr(_jit.time, "perf_counter", lambda: now[0])
    last = [""]

    def kernel(name, per_row, wake):
        def run(n):
            now[0] += per_row * n + (wake if last[0] != name else 0.0)
            last[0] = name
            return name

        return run

    n = _jit.PARALLEL_MIN
    fake = types.SimpleNamespace(serial=kernel("serial", 2e-6, 0.0), parallel=kernel("parallel", 1e-6, 1.0))
    t = _jit.Timed(fake, probe=4, burst=3)
    got = [t(n, n) for _ in range(200)]
    assert t.best() == 1 and got[-50:].count("parallel") >= 45


def test_every_batch_size_steps_the_same_games_whichever_kernel_runs() -> None:
    """The serial and the parallel step kernels give the same games (the timed choice changes the time only)."""

    from ohmygoods_env import batch

    n = _jit.PARALLEL_MIN
    games = [batch.BatchGames(n, 3, seed=4) for _ in range(2)]
    rng = [batch.make_rng(n, 5) for _ in range(2)]
    for step in range(60):
        for k, (b, r) in enumerate(zip(games, rng, strict=True)):
            a = batch.random_actions(b.masks(copy=False), r)
            C, AS = b.cards.buildings, b.cards.assistants
            kernel = batch._step.parallel if (step + k) % 2 else batch._step.serial
            kernel(b.state, C, AS, b._all, a, b._masks, b._flags, b.rewards, b.decisions, b._params, True)
            b.reset()
        assert games[0].state.tobytes() == games[1].state.tobytes()
        assert games[0]._masks.tobytes() == games[1]._masks.tobytes()
        assert games[0].decisions.tobytes() == games[1].decisions.tobytes()


def test_batch_kernels_release_the_gil_and_their_caches_follow_the_flags(tmp_path, monkeypatch) -> None:
    """Every serial and parallel twin is compiled with ``nogil`` (the training loop's forward thread and
    overlapped collector run while a batch is stepped), and a cache stamp covers the source where those flags
    live (this module's): numba does not key its cache on them."""
    from ohmygoods_env import batch

    twins = [v for v in vars(batch).values() if isinstance(v, _jit.Twin)]
    assert twins
    for t in twins:
        assert t.serial.targetoptions.get("nogil") is True and t.parallel.targetoptions.get("nogil") is True
    assert _jit.FLAGS_SOURCE == Path(_jit.__file__)
    digest = _jit.stamp({}, core)
    copy = tmp_path / "jit.py"
    copy.write_bytes(_jit.FLAGS_SOURCE.read_bytes())
    monkeypatch.setattr(_jit, "FLAGS_SOURCE", copy)
    assert _jit.stamp({}, core) == digest
    copy.write_bytes(copy.read_bytes() + b"\n# a changed flag\n")
    assert _jit.stamp({}, core) != digest
