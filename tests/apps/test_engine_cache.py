"""The first-use compile notice's look at numba's cache (:func:`ohmygoods_env.apps.common.engine_cache_cold`)."""

from __future__ import annotations

import os
from pathlib import Path

from ohmygoods_env.apps import common


def _index(folder: Path, name: str, code: bool) -> Path:
    """A numba index file ``name``.nbi in ``folder``, with (or without) machine code written after it."""
    folder.mkdir(parents=True, exist_ok=True)
    nbi = folder / f"{name}.nbi"
    nbi.write_bytes(b"index")
    if code:
        (folder / f"{name}.1.nbc").write_bytes(b"code")
    return nbi


def test_indexes_left_by_moved_kernels_do_not_make_the_cache_cold(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    folder = tmp_path / "ohmygoods_env_x"
    for kernel in common.ENTRY_KERNELS:  # the engine before it was split: emptied indexes, no code
        _index(folder, f"core.{kernel}-1500.py311", code=False)
    assert common.engine_cache_cold()
    for kernel in common.ENTRY_KERNELS:  # the kernels where they are now, with machine code
        _index(folder / "core", f"flow.{kernel}-40.py311", code=True)
    assert not common.engine_cache_cold()
    nbi = folder / "core" / f"flow.{common.ENTRY_KERNELS[0]}-40.py311.nbi"
    later = nbi.stat().st_mtime + 60
    os.utime(nbi, (later, later))  # the current index was emptied after its code was written: stale
    assert common.engine_cache_cold()
