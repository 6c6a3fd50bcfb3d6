"""Argument checks that every front end shares: seeds, fresh seeds, finite numbers, bool flags, worker counts.

One validator per concept, so that :class:`~ohmygoods_env.engine.Game`,
:class:`~ohmygoods_env.batch.BatchGames`, the env adapters and the command lines accept the
same values and refuse the others with the same words (``TypeError`` for a wrong type,
``ValueError`` for a value out of range), before anything changes.

Seeds: a game seed is an int in ``0 <= seed < 2**64`` (:data:`SEED_LIMIT`); every such seed
deals its own game. Where no seed is given, :func:`fresh_seed` draws one from the operating
system's entropy (as ``numpy.random.default_rng()`` does), so unseeded games differ; the
seed drawn is kept in the game's record, so the game still replays exactly.

This module sits below every other module of the package and imports nothing from it. It is part
of the game-agnostic framework; ``ohmygoods_env.checks`` is the same module under its old name.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "SEED_LIMIT",
    "check_int",
    "seed_bits",
    "check_finite",
    "check_flag",
    "check_seed",
    "check_seeds",
    "fresh_seed",
    "max_workers",
    "offset_seed",
    "optional_seed",
    "seed_or_fresh",
]

#: Seeds are ints in ``0 <= seed < SEED_LIMIT`` (64 bits).
SEED_LIMIT = 1 << 64


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as a Python int in ``0 <= seed < 2**64``; ``TypeError`` / ``ValueError`` otherwise."""
    if not _is_int(seed):
        raise TypeError(f"{name} must be an int in 0 <= {name} < 2**64, got {type(seed).__name__} {seed!r}")
    s = int(seed)
    if not 0 <= s < SEED_LIMIT:
        raise ValueError(f"{name} must be an int in 0 <= {name} < 2**64, got {s}")
    return s


def optional_seed(seed: object, name: str = "seed") -> int | None:
    """:func:`check_seed`, with ``None`` (no seed) passed through."""
    return None if seed is None else check_seed(seed, name)


def fresh_seed() -> int:
    """A seed in ``0 <= seed < 2**64`` drawn from the operating system's entropy."""
    return int(np.random.SeedSequence().entropy) % SEED_LIMIT


def seed_or_fresh(seed: object, name: str = "seed") -> int:
    """``seed`` checked by :func:`check_seed`, or a :func:`fresh_seed` when it is ``None``."""
    return fresh_seed() if seed is None else check_seed(seed, name)


def offset_seed(seed: int, k: int) -> int:
    """``seed + k`` wrapped into ``0 <= s < 2**64`` (derived seeds, e.g. one per seat or per game)."""
    return (int(seed) + int(k)) % SEED_LIMIT


def check_seeds(seeds: object, n: int, name: str = "seeds") -> np.ndarray:
    """``n`` seeds (ints in ``0 <= s < 2**64``) as ``uint64[n]``.

    Accepts a sequence of Python or numpy ints or an integer array (``uint64`` covers the whole
    range); a negative, too large or non-integer entry raises naming its index and value.
    """
    if not isinstance(seeds, np.ndarray):  # a sequence: each entry checked as it is (no float rounding)
        seeds = np.array(seeds if isinstance(seeds, (str, bytes)) or np.ndim(seeds) == 0 else list(seeds), dtype=object)
    if seeds.shape != (n,):
        raise ValueError(f"{name} must be {n} ints in 0 <= s < 2**64, got shape {seeds.shape}")
    if seeds.dtype.kind == "u":
        return seeds.astype(np.uint64)
    if seeds.dtype.kind == "i":
        if n and seeds.min() < 0:
            i = int(np.flatnonzero(seeds < 0)[0])
            raise ValueError(f"{name}[{i}] must be an int in 0 <= s < 2**64, got {int(seeds[i])}")
        return seeds.astype(np.uint64)
    out = np.empty(n, np.uint64)
    for i, s in enumerate(seeds.tolist() if seeds.dtype != object else list(seeds)):
        out[i] = check_seed(s, f"{name}[{i}]")
    return out


def check_finite(value: object, name: str) -> float:
    """``value`` (an int or float, not a bool) as a finite float; ``TypeError`` / ``ValueError`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a finite number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {v}")
    return v


def check_flag(value: object, name: str) -> bool:
    """``value`` as a bool: only ``True`` / ``False`` (numpy bools too); anything else is a ``TypeError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool (True or False), got {type(value).__name__} {value!r}")
    return bool(value)


def check_int(value: object, name: str, lo: int, hi: int) -> int:
    """``value`` as an int in ``[lo, hi]`` (a 0-d integer array too; never a bool).

    ``TypeError`` for another type, ``ValueError`` outside the range; both name ``name`` and the range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.integer):
            value = int(value)
        else:
            raise TypeError(f"{name} must be an int in [{lo}, {hi}], got {type(value).__name__} {value!r}")
    v = int(value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} {v} is out of range: expected an int in [{lo}, {hi}]")
    return v


def max_workers() -> int:
    """The most worker processes a run may ask for: 4 per CPU core of this machine (``--workers`` refuses
    more; a pool never has more processes than games to play either)."""
    import os

    return 4 * (os.cpu_count() or 1)


def seed_bits(seed: int) -> np.int64:
    """The 64 bits of a seed ``0 <= seed < 2**64`` (:func:`check_seed`) as the int64 an engine's kernels mix."""
    s = check_seed(seed)
    return np.int64(s - (1 << 64) if s >= 1 << 63 else s)
