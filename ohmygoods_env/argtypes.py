"""Argument types for command lines that refuse bad values before any work starts.

Below the app layer, so that the ``ohmygoods`` subcommands (:mod:`ohmygoods_env.apps.common`
re-exports these) and the training scripts (``python -m ohmygoods_training.train_ppo``) share one copy.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["int_at_least"]


def int_at_least(low: int) -> Callable[[str], int]:
    """Argument type: an integer ``>= low``."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    convert.__name__ = f"integer >= {low}"
    return convert
