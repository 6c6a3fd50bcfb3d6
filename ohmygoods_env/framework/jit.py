"""The registry of cached numba kernels: staleness checks and serial/parallel twins.

Numba checks a cached kernel against its own source file only, but a kernel compiles in the
engine functions and constants it calls (``core``, ``layout``, ``cards`` ...). Every module
that defines cached kernels ends with

>>> register(globals(), core, layout, cards)  # doctest: +SKIP

naming the modules its kernels depend on. A package of kernel modules (``core``) registers
its modules in its ``__init__``, so registering against the package covers all of them.
:func:`register` hashes the sources and the public constants of those modules (and,
transitively, of the modules *they* registered against) and compares the digest with the one
stored next to the numba cache. When they differ, it empties the cache index of every kernel
of that module, so they recompile on first use. :data:`REPORT` records what each registration
found (``"fresh"``, ``"new"`` or ``"stale"``) and which kernels were flushed.

A loop over games that should run multi-threaded for large batches is written once, with
``prange``, and wrapped by :func:`twin`: the result compiles a serial and a parallel
kernel from the same source and :meth:`Twin.pick` chooses by batch size
(:data:`PARALLEL_MIN`); :class:`Timed` chooses between the two by their measured speed.

A game's engine compiles on first use (about a minute with a cold cache). The constructors
that trigger it call :func:`first_use` with the kernels they are about to run: when numba has
no cached machine code for one of them, it logs :func:`compile_notice` once per process and
game (a warning of the ``ohmygoods_env`` logger, which Python writes to stderr when logging
is not configured). :func:`cache_cold` is the one check; the commands' own notice reuses it.

This module sits below every kernel module and imports nothing from the package. It lives in
the game-agnostic framework; ``ohmygoods_env._jit`` is the same module under its old name.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
import types
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

#: Batches at least this large use the multi-threaded (``prange``) twin: below it, waking the
#: thread pool costs more than it saves (measured on 2 cores; see docs/performance.md).
PARALLEL_MIN = 128

#: the file whose source every cache stamp covers besides a module's own dependencies: this one, where
#: :class:`Twin`'s compile flags (``nogil``, ``parallel``) are set
FLAGS_SOURCE = Path(__file__)

#: module name -> {"status": "fresh" | "new" | "stale" | "uncached", "kernels": [...], "flushed": [...]}
REPORT: dict[str, dict[str, Any]] = {}
_DEPS: dict[str, tuple[str, ...]] = {}

#: What the first use of a cold engine says (the commands add the seconds elapsed).
COMPILE_NOTICE = "compiling the engine once (about a minute)"
#: The logger of the notice; ``logging.getLogger("ohmygoods_env").setLevel(logging.ERROR)`` silences it.
LOG = logging.getLogger("ohmygoods_env")
_TOLD: set[str] = set()  # games whose compile was announced in this process
_SEEN: set[str] = set()  # entry points already looked at in this process


class Twin:
    """A serial and a parallel kernel compiled from one ``prange`` function.

    Both release the GIL while they run (``nogil``): a batch of games is stepped or observed while other
    Python threads go on (the training loop's forward thread, its overlapped collector, a user's own).
    They read and write only the arrays they are given."""

    __slots__ = ("serial", "parallel", "__name__")

    def __init__(self, fn: types.FunctionType) -> None:
        self.serial = njit(cache=True, nogil=True)(fn)
        # a distinct function object (own qualname) so the two cache entries never collide
        pf = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_parallel", fn.__defaults__, fn.__closure__)
        pf.__qualname__ = fn.__qualname__ + "_parallel"
        pf.__module__ = fn.__module__
        pf.__doc__ = fn.__doc__
        self.parallel = njit(cache=True, parallel=True, nogil=True)(pf)
        self.__name__ = fn.__name__

    def pick(self, n: int) -> CPUDispatcher:
        """The kernel for a loop over ``n`` games."""
        return self.parallel if n >= PARALLEL_MIN else self.serial


def twin(fn: types.FunctionType) -> Twin:
    """Decorator: compile ``fn`` (a loop written with ``prange``) as a serial and a parallel kernel."""
    return Twin(fn)


class Timed:
    """Runs the serial or the parallel kernel of a :class:`Twin`, whichever has been faster per row.

    For a loop called again and again (a batch step): from ``PARALLEL_MIN`` rows on, each call runs the
    kernel with the lower time per row, and now and then the other one, so the choice follows the machine:
    on an idle machine the parallel kernel wins, while other processes keep the cores busy the serial one
    does (waking a thread that has no core of its own costs more than the half of the rows it would take).

    **Timed in seconds, after a warm-up.** A kernel that starts running after the other one (or for the first
    time) is not counted for its first ``warm`` seconds: the parallel kernel's other threads, idle while the
    serial one ran, wake slowly at first. On an idle 2-core virtual machine, 1,024 games, the parallel step
    took 650, 400, 350 ... µs in its first calls after a run of serial ones and 200-220 µs from about 40 calls
    (10 ms) on, against 310 µs for the serial step; tries of three calls measured it at 350 ns a row and kept
    the serial kernel (3.6M decisions/s where the parallel one makes 4.7-5.0M). A try of the kernel not
    chosen runs it for ``warm`` seconds, then for ``measure`` seconds whose mean time per row is its cost;
    then the faster one runs. The first try comes ``gap`` seconds after both were timed; each try that
    confirms the choice doubles the wait for the next one (up to ``max_gap``), one that changes it starts
    again from ``gap``. Both kernels are tried first (parallel, then serial).

    **Between tries** the running kernel's cost is a moving average of its calls (after its warm-up), a run
    counted at most twice the average: one run slowed by a preempted or late-woken thread moves the average
    by a quarter at most, while a lasting change (the machine got busy) makes it the slower one within a few
    runs, and the other kernel is tried at once.

    Both kernels compute the same results, so the choice changes only the time.
    """

    __slots__ = ("twin", "warm", "measure", "gap0", "max_gap", "cost", "known", "runs", "calls", "current",
                 "since", "trying", "before", "tried_t", "tried_rows", "gap", "next_try")  # fmt: skip

    def __init__(
        self, twin: Twin, warm: float = 0.01, measure: float = 0.01, gap: float = 0.1, max_gap: float = 3.2
    ) -> None:
        self.twin = twin
        self.warm, self.measure = float(warm), float(measure)
        self.gap0, self.max_gap = float(gap), float(max_gap)
        self.cost = [0.0, 0.0]  # seconds per row: serial, parallel
        self.known = [False, False]  # timed at least once
        self.runs = [0, 0]  # counted calls of each kernel
        self.calls = 0  # calls of PARALLEL_MIN rows or more
        self.current = 1  # the kernel the next large call runs: the parallel one is tried first
        self.since = -1.0  # when ``current`` began to run (-1: not yet)
        self.trying = True  # ``current`` is on trial: its cost is the mean of its calls after the warm-up
        self.before = 1  # the choice before the trial under way
        self.tried_t, self.tried_rows = 0.0, 0
        self.gap = self.gap0  # seconds between two tries of the kernel not chosen
        self.next_try = float("inf")

    def best(self) -> int:
        """0 (serial) or 1 (parallel): the kernel with the lower time per row so far."""
        return 0 if self.cost[0] <= self.cost[1] else 1

    def _switch(self, k: int, now: float, trial: bool) -> None:
        self.before = self.current if trial else self.before
        self.current, self.since, self.trying = k, now, trial
        self.tried_t, self.tried_rows = 0.0, 0

    def __call__(self, n: int, *args: Any) -> Any:
        """Run the kernel for a loop over ``n`` rows with ``args``; returns what it returns."""
        if n < PARALLEL_MIN:
            return self.twin.serial(*args)
        self.calls += 1
        t = time.perf_counter()
        if not self.trying and t >= self.next_try:  # time to try the kernel not chosen
            self._switch(1 - self.current, t, True)
        if self.since < 0:
            self.since = t
        k = self.current
        out = (self.twin.parallel if k else self.twin.serial)(*args)
        end = time.perf_counter()
        if t - self.since < self.warm:  # warming up after a switch: not counted
            return out
        self.runs[k] += 1
        if self.trying:
            self.tried_t += end - t
            self.tried_rows += n
            if end - self.since >= self.warm + self.measure:
                self._judge(k, end)
            return out
        per_row = min((end - t) / n, 2.0 * self.cost[k])  # one slow run moves the average by a quarter at most
        self.cost[k] += 0.25 * (per_row - self.cost[k])
        if self.cost[k] > self.cost[1 - k]:  # a lasting change (or the other kernel got faster): try the other
            self._switch(1 - k, end, True)
        return out

    def _judge(self, k: int, now: float) -> None:
        """The trial of kernel ``k`` is over: its cost is known; the faster kernel runs from now on."""
        first = not all(self.known)  # the end of the first trials: no choice to confirm yet
        self.cost[k], self.known[k] = self.tried_t / self.tried_rows, True
        if not self.known[1 - k]:  # the first trials: the other kernel next
            self._switch(1 - k, now, True)
            return
        best = self.best()
        if best != k:
            self._switch(best, now, False)  # back to the faster one, which warms up again before it is counted
        else:
            self.trying = False
        confirmed = best == self.before and not first
        self.gap = min(2.0 * self.gap, self.max_gap) if confirmed else self.gap0
        self.next_try = now + self.gap


def _kernels(namespace: dict) -> list[CPUDispatcher]:
    name = namespace["__name__"]
    out: list[CPUDispatcher] = []
    for v in namespace.values():
        ds = (v.serial, v.parallel) if isinstance(v, Twin) else (v,)
        for d in ds:
            if isinstance(d, CPUDispatcher) and d.py_func.__module__ == name and getattr(d, "_cache", None):
                out.append(d)
    return out


def _constants(m: ModuleType) -> str:
    """The public constants of ``m`` (upper-case names bound to ints, floats, strings or tuples)."""
    items = []
    for k, v in sorted(vars(m).items()):
        if k.isupper() and isinstance(v, (int, float, str, tuple, np.integer)):
            items.append(f"{k}={v!r}")
    return "\n".join(items)


def _closure(names: tuple[str, ...]) -> list[str]:
    seen: list[str] = []
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.append(n)
        todo.extend(_DEPS.get(n, ()))
    return sorted(seen)


def stamp(namespace: dict, *deps: ModuleType) -> str:
    """Digest of the sources and constants ``namespace``'s kernels depend on."""
    import sys

    names = _closure(tuple(m.__name__ for m in deps))
    digest = hashlib.sha256()
    digest.update(FLAGS_SOURCE.read_bytes())  # the compile flags of Twin (numba does not key its cache on them)
    for n in names:
        m = sys.modules[n]
        digest.update(n.encode())
        digest.update(Path(m.__file__).read_bytes())
        digest.update(_constants(m).encode())
    return digest.hexdigest()


def register(namespace: dict, *deps: ModuleType) -> str:
    """Register the cached kernels of ``namespace`` (a module's ``globals()``) and their dependencies.

    Flushes their numba caches when ``deps`` changed since the caches were written. Returns the
    status also stored in :data:`REPORT`.
    """
    name = namespace["__name__"]
    _DEPS[name] = tuple(m.__name__ for m in deps)
    kernels = _kernels(namespace)
    entry: dict[str, Any] = {"status": "uncached", "kernels": sorted(d.py_func.__qualname__ for d in kernels)}
    entry["flushed"] = []
    REPORT[name] = entry
    if not kernels:
        return entry["status"]
    try:
        digest = stamp(namespace, *deps)
        path = Path(kernels[0]._cache._cache_path) / f"{name}.engine-stamp"
        if path.exists() and path.read_text() == digest:
            entry["status"] = "fresh"
            return "fresh"
        entry["status"] = "stale" if path.exists() else "new"
        for d in kernels:
            d._cache.flush()
        entry["flushed"] = list(entry["kernels"])
        path.write_text(digest)
    except (OSError, AttributeError, TypeError):  # read-only or unusual cache: leave numba's own checks
        entry["status"] = "unchecked"
    return entry["status"]


# ===================================================================== first-use compile notice


def compile_notice(game: str) -> str:
    """The line :func:`first_use` logs for ``game`` (``"Oh my Goods!"``, ``"Artificium"``)."""
    return COMPILE_NOTICE.replace("the engine", f"the {game} engine")


def _kernel_cold(d: CPUDispatcher) -> bool:
    if d.overloads:  # compiled (or loaded) in this process already
        return False
    try:
        cache = d._cache
        index = cache._cache_file._load_index()  # {} when missing, of another numba or source
        folder = cache._cache_path
    except Exception:  # noqa: BLE001 - no cache, or numba's private layout changed: cannot tell, say nothing
        return False
    return not any(os.path.exists(os.path.join(folder, name)) for name in index.values())


def cache_cold(kernels: Iterable[Any]) -> bool:
    """True when one of ``kernels`` is neither compiled in this process nor in numba's cache.

    Reads numba's own index of each kernel (a small file), so it agrees with numba: an index
    emptied by :func:`register` (stale kernels), or written by another numba version or for
    another version of the kernel's source file, counts as cold. Plain functions (``NUMBA_DISABLE_JIT=1``)
    never are.
    """
    return any(_kernel_cold(d) for d in kernels if isinstance(d, CPUDispatcher))


def first_use(game: str, entry: str, kernels: Iterable[Any], *, quiet: bool = False) -> bool:
    """Before ``entry`` runs ``kernels`` of ``game``'s engine: announce the compile if the cache is cold.

    Logs :func:`compile_notice` (a warning of :data:`LOG`) at most once per process and game,
    and looks at each ``entry`` once. ``quiet=True`` only claims the notice (a caller that
    says it in its own words, like the commands' counter). Returns whether the compile was
    announced by this call (or claimed).
    """
    if game in _TOLD or entry in _SEEN:
        return False
    _SEEN.add(entry)
    if not cache_cold(kernels):
        return False
    _TOLD.add(game)
    if not quiet:
        LOG.warning(compile_notice(game))
    return True
