"""How a training process's C allocator keeps the memory it frees (glibc's ``malloc``, on Linux).

torch allocates a CPU tensor with the C allocator. glibc serves a block larger than its *mmap threshold*
(128 KiB at start, rising to at most 32 MiB as such blocks are freed) with a fresh mapping of its own and
unmaps it when it is freed, and it gives the top of its heap back to the system once more than the *trim
threshold* (twice the mmap threshold) is free there. Memory mapped again is zero pages: the first write to
each 4 KiB page faults. A PPO update allocates the same large tensors minibatch after minibatch (the
4,096 gathered observation rows alone are 37 MB, then the activations and their gradients), so it paid
those faults every minibatch: on this 2-core machine 93,000-190,000 page faults for four rollouts and
updates, against 33,000-47,000 with freed memory kept, and the update 199-262 ms against 179-213 ms
(docs/performance.md, *Freed memory kept*).

:func:`keep_freed_memory` raises both thresholds (``mallopt``) in the training commands (``ohmygoods
train``, ``ohmygoods bench --train``): blocks up to :data:`MMAP_THRESHOLD` come from the heap and are reused,
and up to :data:`TRIM_THRESHOLD` of free heap stays with the process. The cost is resident memory: what a
process freed stays counted to it, up to its peak plus the trim threshold. It changes no result. A process
whose environment sets glibc's malloc already (``GLIBC_TUNABLES`` naming ``glibc.malloc``, or a
``MALLOC_*_`` variable) keeps its own setting; a C library other than glibc is left alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

#: blocks up to this size come from the heap (glibc's ``M_MMAP_THRESHOLD``)
MMAP_THRESHOLD = 256 << 20
#: free memory at the top of the heap kept up to this size (glibc's ``M_TRIM_THRESHOLD``)
TRIM_THRESHOLD = 1 << 30
#: the environment variables through which a user sets glibc's malloc (then left as they say)
MALLOC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)
_state: dict[str, str] = {}


def _glibc() -> ctypes.CDLL | None:
    """The process's C library when it is glibc, else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version.restype = ctypes.c_char_p
        libc.gnu_get_libc_version()
        libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        libc.mallopt.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def _user_setting() -> str | None:
    """The environment's own malloc setting, as a short text, or None."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if "glibc.malloc." in tunables:
        return f"GLIBC_TUNABLES={tunables}"
    named = [f"{k}={os.environ[k]}" for k in MALLOC_VARIABLES if k in os.environ]
    return " ".join(named) or None


def keep_freed_memory(mmap_threshold: int = MMAP_THRESHOLD, trim_threshold: int = TRIM_THRESHOLD) -> str:
    """Raise glibc's mmap and trim thresholds for the rest of this process (module docstring); returns what
    :func:`freed_memory` says afterwards. Does nothing when the environment sets glibc's malloc or the C
    library is not glibc."""
    if not (0 < mmap_threshold < 1 << 31 and 0 < trim_threshold < 1 << 31):
        raise ValueError(f"thresholds must be in [1, 2**31), got {mmap_threshold} and {trim_threshold}")
    user = _user_setting()
    if user is not None:
        _state["text"] = f"as the environment sets it ({user})"
        return freed_memory()
    libc = _glibc()
    if libc is None:
        _state["text"] = "the C library's default (not glibc)"
        return freed_memory()
    ok = libc.mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
    ok = libc.mallopt(_M_TRIM_THRESHOLD, int(trim_threshold)) == 1 and ok
    if not ok:
        _state["text"] = "glibc's default (mallopt refused the thresholds)"
    else:
        mib = (mmap_threshold >> 20, trim_threshold >> 20)
        _state["text"] = "kept (glibc: blocks up to {} MiB from the heap, {} MiB of free heap kept)".format(*mib)
    return freed_memory()


def freed_memory() -> str:
    """How this process's C allocator keeps freed memory, as the training commands print it."""
    if "text" in _state:
        return _state["text"]
    user = _user_setting()
    return f"as the environment sets it ({user})" if user else "the C library's default"


__all__ = ["MALLOC_VARIABLES", "MMAP_THRESHOLD", "TRIM_THRESHOLD", "freed_memory", "keep_freed_memory"]
