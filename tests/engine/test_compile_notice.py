"""The first-use compile notice of the library (:func:`ohmygoods_env.framework.jit.first_use`).

A first ``Game`` (or ``BatchGames``, or an *Artificium* game) with a cold numba cache says,
once per process and game, that the engine compiles; a warm cache says nothing. The check
(:func:`~ohmygoods_env.framework.jit.cache_cold`) reads numba's own index of each kernel.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ohmygoods_env.framework import jit

ROOT = Path(__file__).resolve().parents[2]
KERNEL_SOURCE = """
from numba import njit


@njit(cache=True)
def plus_one(x):
    return x + 1
"""


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cache_cold_reads_numbas_own_index(tmp_path, monkeypatch) -> None:
    """Cold before the first compile, warm from the cache in a fresh dispatcher, cold again once emptied or edited."""
    src = tmp_path / "kernel_mod.py"
    src.write_text(KERNEL_SOURCE)
    first = _load(src, "kernel_mod_a")
    assert jit.cache_cold([first.plus_one])
    assert first.plus_one(1) == 2
    assert not jit.cache_cold([first.plus_one])  # compiled in this process
    assert not jit.cache_cold([_load(src, "kernel_mod_b").plus_one])  # a new dispatcher finds the cached code
    _load(src, "kernel_mod_c").plus_one._cache.flush()  # what register() does to stale kernels
    assert jit.cache_cold([_load(src, "kernel_mod_d").plus_one])
    assert _load(src, "kernel_mod_e").plus_one(2) == 3
    src.write_text(KERNEL_SOURCE + "# edited\n")  # the source changed after the code was cached
    assert jit.cache_cold([_load(src, "kernel_mod_f").plus_one])
    assert not jit.cache_cold([lambda x: x + 1])  # a plain function (NUMBA_DISABLE_JIT) never compiles


@pytest.fixture
def cold(monkeypatch):
    """A process that has announced nothing yet, with every cache cold."""
    monkeypatch.setattr(jit, "_TOLD", set())
    monkeypatch.setattr(jit, "_SEEN", set())
    monkeypatch.setattr(jit, "cache_cold", lambda kernels: True)


def _notices(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "ohmygoods_env" and "compiling" in r.getMessage()]


def test_each_game_says_it_compiles_once_per_process(cold, caplog) -> None:
    from ohmygoods_env.artificium.batch import ArtBatch
    from ohmygoods_env.artificium.engine import Game as ArtGame
    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.engine import Game

    caplog.set_level(logging.WARNING, logger="ohmygoods_env")
    Game(2, seed=1)
    Game(3, "royal", seed=2)
    BatchGames(2, seed=3)
    assert _notices(caplog) == ["compiling the Oh my Goods! engine once (about a minute)"]
    ArtBatch(2, 3, seed=4)
    ArtGame(2, seed=5)
    assert _notices(caplog)[1:] == ["compiling the Artificium engine once (about a minute)"]


def test_a_warm_cache_says_nothing(monkeypatch, caplog) -> None:
    from ohmygoods_env.engine import Game

    monkeypatch.setattr(jit, "_TOLD", set())
    monkeypatch.setattr(jit, "_SEEN", set())
    caplog.set_level(logging.WARNING, logger="ohmygoods_env")
    Game(2, seed=1)  # this process has compiled or loaded the engine: nothing to announce
    assert _notices(caplog) == []


def test_the_commands_claim_the_notice_they_say_in_their_own_words(cold, caplog, monkeypatch) -> None:
    import io

    from ohmygoods_env.apps import common
    from ohmygoods_env.engine import Game

    monkeypatch.setattr(common, "_touch_engine", lambda: None)
    caplog.set_level(logging.WARNING, logger="ohmygoods_env")
    out = io.StringIO()
    common.warm_engine(out)
    assert out.getvalue().startswith(jit.COMPILE_NOTICE) and "done in" in out.getvalue()
    Game(2, seed=1)
    assert _notices(caplog) == []  # told once, by the command


def _stderr_until(proc: subprocess.Popen, text: str, seconds: float) -> str:
    """The process's stderr up to the first line holding ``text`` (or all of it, at exit or after ``seconds``)."""
    got = b""
    end = time.monotonic() + seconds
    while text.encode() not in got and time.monotonic() < end:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            got += chunk
    return got.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="select on pipes")
def test_a_fresh_cache_prints_the_notice_on_stderr_before_compiling(tmp_path) -> None:
    """A new user's first ``Game(...)``: the line comes at once, before the minute of compiling (then stopped)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    code = "from ohmygoods_env.engine import Game\nGame(2)\nGame(3)\nprint('done')"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    try:
        err = _stderr_until(proc, "engine once", 120)
    finally:
        proc.kill()
        proc.wait()
    assert err == "compiling the Oh my Goods! engine once (about a minute)\n"


def test_a_warm_cache_prints_nothing_in_a_new_process(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    code = (
        "import numpy as np\nfrom ohmygoods_env.engine import Game\nfrom ohmygoods_env.batch import BatchGames\n"
        "g = Game(2)\ng.observe(0)\ng.step(int(np.flatnonzero(g.legal_mask())[0]))\n"
        "b = BatchGames(2)\nb.observe()\nb.step(np.argmax(b.masks(), axis=1))"
    )
    run = [sys.executable, "-c", code]
    subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, check=True, timeout=600)  # warms it if needed
    proc = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=True, timeout=120)
    assert proc.stderr == ""
