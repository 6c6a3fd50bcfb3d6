"""Argument types for command lines that refuse bad values before any work starts, and the help formatter.

Below the app layer, so that the ``ohmygoods`` subcommands (:mod:`ohmygoods_env.apps.common`
re-exports these) and the training scripts (``python -m ohmygoods_training.train_ppo``) share one copy.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .framework.checks import check_seed

__all__ = ["DefaultsFormatter", "int_at_least", "seed_arg"]


class DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Help that shows each option's default once: options without one (None, off) and options whose
    text already speaks of their default say so in their text, the others get "(default: X)"."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or "default" in (action.help or "").lower():
            return action.help
        return super()._get_help_string(action)


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


def seed_arg(text: str) -> int:
    """Argument type: a seed, an integer ``0 <= seed < 2**64`` (:func:`ohmygoods_env.checks.check_seed`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed in 0 <= seed < 2**64, got {text!r}") from None
    try:
        return check_seed(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
