"""framework.native: scratch arrays on a kernel's stack, and the engine's step path compiled without NRT."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from numba.core.registry import CPUDispatcher

from ohmygoods_env.framework.native import local_zeros

N = 5


@njit(_nrt=False)
def _rows_of_squares(x, out):
    """Each turn takes a fresh scratch row: anything left from the turn before would show in ``out``."""
    for k in range(x.shape[0]):
        t = local_zeros(N, np.int64)
        flags = local_zeros(N, np.bool_)
        for i in range(k % N + 1):
            t[i] = x[k] * x[k] + i
            flags[i] = True
        for i in range(N):
            out[k, i] = t[i] if flags[i] else -1


def test_local_zeros_is_a_fresh_zeroed_array_at_every_call_even_in_a_loop() -> None:
    x = np.arange(12, dtype=np.int64)
    out = np.zeros((12, N), np.int64)
    _rows_of_squares(x, out)
    expected = np.full((12, N), -1, np.int64)
    for k in range(12):
        for i in range(k % N + 1):
            expected[k, i] = k * k + i
    np.testing.assert_array_equal(out, expected)


def test_local_zeros_takes_the_dtype_and_needs_a_constant_size() -> None:
    @njit(_nrt=False)
    def halves():
        t = local_zeros(3, np.float64)
        b = local_zeros(N, np.int8)
        t[1] = 0.5
        b[N - 1] = 127
        b[N - 1] += 1  # int8 wraps: the element type is the one asked for
        return t[0] + t[1] + t[2], b[N - 1]

    assert halves() == (0.5, -128)

    @njit
    def runtime_size(n):
        t = local_zeros(n, np.int32)  # a size known only at run time cannot live on the stack
        return t[0]

    with pytest.raises(Exception, match="_stack_zeros"):
        runtime_size(4)


def test_the_interpreted_engine_gets_numpy_zeros() -> None:
    code = (
        "import numpy as np\n"
        "from ohmygoods_env.framework.native import local_zeros\n"
        "a = local_zeros(4, np.int16)\n"
        "print(type(a).__name__, a.dtype, a.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["ndarray", "int16", "[0,", "0,", "0,", "0]"]


STEP_PATH = ("rng", "queries", "deck", "production", "assistants", "payments", "flow", "legal", "apply")


def test_the_step_path_is_compiled_without_reference_counting() -> None:
    """Every kernel a batch step runs per row is ``_nrt=False`` (numba counts no references there: an
    atomic add per array argument per call, half the time of a step when it did); only the end
    of a game (final rewards) allocates."""
    import importlib

    from ohmygoods_env import batch
    from ohmygoods_env.framework import rng

    kernels = [rng.__dict__[k] for k in ("pick_legal", "nth_legal", "rng_below")]
    for name in STEP_PATH:
        m = importlib.import_module(f"ohmygoods_env.core.{name}")
        kernels += [v for v in vars(m).values() if isinstance(v, CPUDispatcher) and v.py_func.__module__ == m.__name__]
    kernels += [batch._settle, batch._apply, batch._step_row, batch._check, batch._illegal, batch._penalise]
    assert len(kernels) > 60
    nrt = [k.py_func.__qualname__ for k in kernels if k.targetoptions.get("_nrt") is not False]
    assert nrt == []
    assert batch._end_rewards.targetoptions.get("_nrt") is True  # the one that allocates, once per game
