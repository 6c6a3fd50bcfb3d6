"""Progress bars on a terminal only: the one rule of every command and loop that shows one.

A bar redrawn with carriage returns is for a person watching; written into a redirected
stderr (a log file, CI output) it is hundreds of lines of noise. :func:`progress_bar` is a
``tqdm`` bar on stderr that is shown only when stderr is a terminal (:func:`on_terminal`)
and the caller asked for one (``--no-progress`` turns it off); otherwise it is disabled, and
its ``update``/``close`` do nothing. ``tournament``, ``evaluate``, ``train`` and the SB3
trainer all draw their bars here.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

__all__ = ["on_terminal", "progress_bar"]


def on_terminal(stream: TextIO | None = None) -> bool:
    """True when ``stream`` (default: ``sys.stderr``) is an open terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def progress_bar(total: float | None = None, *, enabled: bool = True, file: TextIO | None = None, **kwargs: Any):
    """A ``tqdm`` bar over ``total`` on ``file`` (default: stderr), drawn only on a terminal and when ``enabled``."""
    from tqdm import tqdm

    file = sys.stderr if file is None else file
    return tqdm(total=total, file=file, disable=not (enabled and on_terminal(file)), **kwargs)
