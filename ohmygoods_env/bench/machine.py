"""What a benchmark run is measured on: the machine line and the cold/warm compile times of the engine."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

from .timer import Tally

__all__ = ["compile_times", "machine_info"]

_COMPILE_SNIPPET = """
import time
t0 = time.perf_counter()
import numpy as np
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.engine import Game
t1 = time.perf_counter()
for n in (2, 128):  # serial and multi-threaded kernels
    b = BatchGames(n, seed=0)
    b.step(random_actions(b.masks(), make_rng(n)))
    b.observe()
g = Game(2, seed=0)
g.step(int(np.flatnonzero(g.legal_mask())[0]))
g.observe(0)
print(f"{t1 - t0:.3f} {time.perf_counter() - t0:.3f}")
"""


def compile_times(cold: bool) -> tuple[float | None, float | None, str]:
    """(cold seconds, warm seconds, note): import + first steps in fresh interpreters."""
    if not cold:
        return None, None, "cold/warm compile skipped (--quick or --no-compile)"
    with tempfile.TemporaryDirectory(prefix="omg-numba-") as cache:
        envvars = dict(os.environ, NUMBA_CACHE_DIR=cache)

        def run() -> float:
            with Tally().section() as tally:
                subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=envvars, check=True, capture_output=True)
            return tally.wall

        try:
            c = run()
            w = run()
        except (subprocess.CalledProcessError, OSError) as exc:
            return None, None, f"failed: {exc}"
    return c, w, "fresh interpreter: import + first batch step, observe and Game step"


def _cpu_model() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def machine_info() -> str:
    """CPU model, cores, numba threads, library versions and the load average, on one line."""
    import numba

    try:
        load = f", load average {os.getloadavg()[0]:.2f}"
    except OSError:
        load = ""
    return (
        f"{_cpu_model()}, {os.cpu_count()} logical cores, numba {numba.__version__} with {numba.get_num_threads()} "
        f"threads, numpy {np.__version__}, Python {platform.python_version()} on {platform.system()}{load}"
    )
