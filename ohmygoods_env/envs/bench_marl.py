"""Deprecated: the multi-agent benchmark moved to :mod:`ohmygoods_env.bench.marl`.

This alias keeps ``from ohmygoods_env.envs.bench_marl import rows`` and
``python -m ohmygoods_env.envs.bench_marl`` working, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from ..bench.marl import bench_batch_env, bench_seat_vec_env, bench_step_observe, main, print_table, rows

__all__ = ["bench_batch_env", "bench_seat_vec_env", "bench_step_observe", "print_table", "rows"]

warnings.warn(
    "ohmygoods_env.envs.bench_marl moved to ohmygoods_env.bench.marl; the old path will be removed",
    DeprecationWarning,
    stacklevel=2,
)

if __name__ == "__main__":
    main()
