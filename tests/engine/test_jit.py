"""The kernel registry (:mod:`ohmygoods_env._jit`): every cached kernel is checked for staleness."""

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np

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


def _fake_twin(monkeypatch, cost: dict[str, float]) -> tuple[types.SimpleNamespace, list[tuple[str, float]]]:
    """A twin whose kernels take ``cost[name]`` seconds per call on a fake clock (``cost`` can change between
    calls, or be a function of the seconds since the other kernel last ran), and the list of ``(kernel, start
    time)`` of the calls, in order."""
    now = [0.0]
    monkeypatch.setattr(_jit.time, "perf_counter", lambda: now[0])
    ran: list[tuple[str, float]] = []
    since = [0.0]

    def kernel(name):
        def run(n):
            if ran and ran[-1][0] != name:
                since[0] = now[0]
            ran.append((name, now[0]))
            c = cost[name]
            now[0] += c(now[0] - since[0]) if callable(c) else c
            return name

        return run

    return types.SimpleNamespace(serial=kernel("serial"), parallel=kernel("parallel")), ran


def _timed(fake: types.SimpleNamespace) -> _jit.Timed:
    """Timed with times of a few milliseconds: 4 ms of warm-up, 4 ms measured, tries 20 to 80 ms apart."""
    return _jit.Timed(fake, warm=0.004, measure=0.004, gap=0.02, max_gap=0.08)


def _starts(ran: list[tuple[str, float]], name: str) -> list[int]:
    return [round(t * 1000) for k, t in ran if k == name]


def test_timed_twin_runs_the_faster_kernel_and_tries_the_other(monkeypatch) -> None:
    """``Timed``: from PARALLEL_MIN rows on, the kernel with the lower time per row runs. Each kernel is first
    tried (parallel, then serial): ``warm`` seconds not counted, then ``measure`` seconds whose mean is its
    cost. The other kernel is tried ``gap`` seconds later, then twice as long after each try that confirms
    the choice (up to ``max_gap``); smaller loops always run serially."""
    cost = {"serial": 0.002, "parallel": 0.001}  # seconds per call of PARALLEL_MIN rows, changed below
    fake, ran = _fake_twin(monkeypatch, cost)
    t = _timed(fake)
    n = _jit.PARALLEL_MIN
    while len(ran) < 200:
        t(n, n)
    # parallel 0-7 ms (its trial), serial 8-15 ms (its trial), then parallel, with tries of the serial one
    # 20, 40 and 80 ms after the end of the one before (each one lasts 8 ms: 4 serial calls)
    assert _starts(ran, "serial") == [8, 10, 12, 14, 36, 38, 40, 42, 84, 86, 88, 90, 172, 174, 176, 178]
    assert _starts(ran, "parallel")[:8] == list(range(8)) and t.best() == 1
    assert np.allclose(t.cost, [0.002 / n, 0.001 / n], rtol=1e-9, atol=0)
    cost["parallel"] = 0.006  # the machine got busy: parallel is now the slower one
    ran.clear()
    while len(ran) < 60:
        t(n, n)
    # each slow run counts at most twice the average (1 ms a call, then 1.25, 1.56, 1.95 and 2.44 > 2): the
    # fourth slow run tips the balance, the serial kernel is tried and kept; the parallel one is tried 20 ms
    # later (a warm-up call and a measured one) and 40 ms after that
    names = [k for k, _ in ran]
    assert names[:5] == ["parallel"] * 4 + ["serial"] and t.best() == 0
    s0 = ran[4][1]
    assert [round((s - s0) * 1000) for s in [s for k, s in ran if k == "parallel"][4:]] == [28, 34, 80, 86]
    calls = t.calls
    assert t(n - 1, n - 1) == "serial" and t.calls == calls  # below the threshold: serial, not timed


def test_one_slow_run_does_not_switch_the_kernel(monkeypatch) -> None:
    """A single run slowed by a late thread (an outlier, not a busier machine) counts at most twice the
    kernel's average, so the faster kernel keeps running."""
    cost = {"serial": 0.002, "parallel": 0.001}
    fake, ran = _fake_twin(monkeypatch, cost)
    t = _timed(fake)
    n = _jit.PARALLEL_MIN
    while len(ran) < 30:  # past both trials and the parallel kernel's warm-up after them
        t(n, n)
    assert t.best() == 1 and t.current == 1 and not t.trying
    cost["parallel"] = 0.05  # one run 50 times slower (uncounted, it would make the average 13 us a row)
    ran.clear()
    t(n, n)
    assert [k for k, _ in ran] == ["parallel"] and t.best() == 1 and abs(t.cost[1] - 1.25 * 0.001 / n) < 1e-15


def test_a_kernel_that_wakes_slowly_is_judged_after_its_warm_up(monkeypatch) -> None:
    """After the serial kernel ran, the parallel kernel's threads wake slowly (on a 2-core virtual machine its
    first calls took 2-3x its later ones for about 10 ms): a try is judged on its calls after ``warm``
    seconds, so the kernel faster in a run of calls is chosen although its first calls are slower than the
    serial kernel."""
    cost = {"serial": 0.0015, "parallel": lambda after: 0.003 if after < 0.006 else 0.001}
    fake, ran = _fake_twin(monkeypatch, cost)
    t = _timed(fake)
    n = _jit.PARALLEL_MIN
    while len(ran) < 400:
        t(n, n)
    assert t.best() == 1 and [k for k, _ in ran[-50:]].count("parallel") >= 40  # 4 calls of a try at most
    assert abs(t.cost[1] - 0.001 / n) < 1e-15  # the warm-up's slow calls are not in the cost


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
