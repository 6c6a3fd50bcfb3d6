"""Shared pieces of the command line: the parser factory and argument types that refuse bad values.

Every subcommand builds its parser with :func:`parser`, so ``--help`` shows each option's
default, and validates with the types below, so bad values are usage errors (exit status 2,
a message naming the option and what was expected) before any work starts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..argtypes import DefaultsFormatter, int_at_least, seed_arg
from ..framework import jit as _jit

__all__ = [
    "DefaultsFormatter",
    "add_variant_options",
    "comma_choices",
    "comma_ints",
    "game_command",
    "int_at_least",
    "split_game",
    "parser",
    "positive_float",
    "seed_arg",
    "variants_of",
    "workers_arg",
]


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An ``ArgumentParser`` whose help shows every option's default."""
    return argparse.ArgumentParser(prog=prog, description=description, formatter_class=DefaultsFormatter)


def own_game_option(ap: argparse.ArgumentParser, command: str, game: str) -> None:
    """``--game`` in the parser of one game's implementation of ``command`` (``--help`` shows it): only that
    game (``ohmygoods COMMAND --game NAME`` has already chosen the implementation, :func:`game_command`)."""
    from ..framework.game import games_with

    ap.add_argument(
        "--game",
        choices=[game],
        default=game,
        help=f"the game; ohmygoods {command} --game NAME plays another ({', '.join(games_with(command))})",
    )


def split_game(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """``(game, rest)``: the value of ``--game NAME`` / ``--game=NAME`` in ``argv`` (the last one; None
    without one) and ``argv`` without it."""
    found, rest, args = None, [], list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            rest += args[i:]
            break
        if a == "--game" and i + 1 < len(args):
            found, i = args[i + 1], i + 2
            continue
        if a.startswith("--game="):
            found = a.partition("=")[2]
        else:
            rest.append(a)
        i += 1
    return found, rest


def game_command(command: str, argv: Sequence[str]) -> int:
    """Run ``ohmygoods COMMAND`` for the game named by ``--game`` (default: the default game): the
    implementation the game's tools name (:class:`~ohmygoods_env.framework.game.GameTools` ``commands``),
    given ``argv`` without ``--game``, and ``game=NAME`` where it takes a ``game`` (a shared implementation
    such as :func:`ohmygoods_env.apps.game_demo.main`, which any game may name). An unknown game, or a game
    without that command, exits 2 with one line naming the game, the command and the games that have it."""
    import importlib

    from ..framework.game import default_game, game_spec, game_tools, games_with

    name, rest = split_game(argv)
    name = name or default_game()
    try:
        spec = game_spec(name)
        target = game_tools(spec).commands.get(command)
    except (TypeError, ValueError) as exc:
        print(f"ohmygoods {command}: --game {name}: {exc}", file=sys.stderr)
        return 2
    if target is None:
        print(
            f"ohmygoods {command}: {spec.title} ({spec.name}) has no {command}: "
            f"games with one: {', '.join(games_with(command))}",
            file=sys.stderr,
        )
        return 2
    import inspect

    module, _, attr = target.partition(":")
    main = getattr(importlib.import_module(module), attr)
    if "game" in inspect.signature(main).parameters:  # a shared implementation (the framework's demo): told the game
        return int(main(rest, game=spec.name) or 0)
    return int(main(rest) or 0)


def add_variant_options(ap: argparse.ArgumentParser) -> None:
    """The variant switches of a game command: ``--keep-one`` (R10.1) and ``--two-for-one`` (R10.2)."""
    ap.add_argument(
        "--keep-one", action="store_true", help="variant R10.1: discarding the hand in phase I keeps one card (omg2)"
    )
    ap.add_argument(
        "--two-for-one",
        action="store_true",
        help="variant R10.2: two hand cards of any resource stand in for one missing resource",
    )


def variants_of(ap: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, bool]:
    """The ``RuleSet`` variant fields of parsed ``args``; ``--keep-one`` with ``--rules royal`` is a usage error."""
    from ..rules import RuleSet

    variants = {"keep_one": bool(args.keep_one), "two_for_one": bool(args.two_for_one)}
    try:
        RuleSet(num_players=args.players, edition=args.rules, **variants)
    except ValueError as exc:
        ap.error(f"--keep-one: {exc}" if args.keep_one else str(exc))
    return variants


def positive_float(text: str) -> float:
    """Argument type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def workers_arg(text: str) -> int:
    """Argument type of ``--workers``: an integer from 1 to 4 per CPU core of this machine
    (:func:`ohmygoods_env.framework.checks.max_workers`; a run never starts more processes than games)."""
    from ..framework.checks import max_workers

    most = max_workers()
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to {most}, got {text!r}") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(
            f"expected an integer from 1 to at most {most} (4 processes per CPU core of this machine), got {value}"
        )
    return value


workers_arg.__name__ = "worker count"


def _comma_parts(text: str, allowed: Sequence[object]) -> list[str]:
    """The non-empty items of a comma list; ``ArgumentTypeError`` naming ``allowed`` when there are none."""
    parts = [x.strip() for x in text.split(",") if x.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected a comma list of some of {list(allowed)}, got {text!r}")
    return parts


def _only_allowed(values: list, allowed: Sequence[object], bad_text: str) -> list:
    """``values`` without repeats, in order; ``ArgumentTypeError`` (``bad_text`` naming the first
    value not in ``allowed``) otherwise."""
    bad = [v for v in values if v not in allowed]
    if bad:
        raise argparse.ArgumentTypeError(f"{bad_text.format(bad[0])}: expected some of {list(allowed)}")
    return list(dict.fromkeys(values))


def comma_ints(allowed: Sequence[int]) -> Callable[[str], list[int]]:
    """Argument type: a non-empty comma list of integers, each one of ``allowed``."""

    def convert(text: str) -> list[int]:
        parts = _comma_parts(text, allowed)
        try:
            values = [int(x) for x in parts]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
        return _only_allowed(values, allowed, "{} is not allowed")

    convert.__name__ = "comma list"
    return convert


def comma_choices(allowed: Sequence[str]) -> Callable[[str], list[str]]:
    """Argument type: a non-empty comma list of names, each one of ``allowed``."""

    def convert(text: str) -> list[str]:
        return _only_allowed(_comma_parts(text, allowed), allowed, "unknown {!r}")

    convert.__name__ = "comma list"
    return convert


# ===================================================================== first-use compile notice

COMPILE_NOTICE = _jit.COMPILE_NOTICE  # the library's words; the commands add the seconds elapsed


def engine_cache_cold() -> bool:
    """True when the Oh my Goods! engine's first game would compile (numba's cache is cold).

    The library's own check (:func:`ohmygoods_env.framework.jit.cache_cold` over
    :data:`ohmygoods_env.engine.ENTRY_KERNELS`), the one that decides the notice of a first ``Game``.
    """
    from .. import engine

    return _jit.cache_cold(engine.ENTRY_KERNELS)


def warm_engine(stream=None) -> float:
    """Compile (or load from numba's cache) the engine, telling the user when that takes a while.

    With a cold cache the first use prints :data:`COMPILE_NOTICE` and the seconds elapsed
    (updated in place on a terminal) to ``stream`` (stderr). Returns the seconds spent.
    """
    import threading
    import time

    from .. import engine

    stream = sys.stderr if stream is None else stream
    # claims the library's notice of a first Game: the command says it here, with the seconds
    cold = _jit.first_use("Oh my Goods!", "ohmygoods_env.apps.common.warm_engine", engine.ENTRY_KERNELS, quiet=True)
    done = threading.Event()
    t0 = time.perf_counter()
    tty = hasattr(stream, "isatty") and stream.isatty()

    def ticker() -> None:
        while not done.wait(1.0):
            stream.write(f"\r{COMPILE_NOTICE}: {time.perf_counter() - t0:4.0f} s")
            stream.flush()

    thread = None
    if cold:
        stream.write(f"{COMPILE_NOTICE}...{'' if tty else chr(10)}")
        stream.flush()
        if tty:
            thread = threading.Thread(target=ticker, daemon=True)
            thread.start()
    try:
        _touch_engine()
    finally:
        done.set()
        if thread is not None:
            thread.join()
    seconds = time.perf_counter() - t0
    if cold:
        stream.write(f"{chr(13) if tty else ''}{COMPILE_NOTICE}: done in {seconds:.0f} s; later starts are quick\n")
        stream.flush()
    return seconds


def _touch_engine() -> None:
    """Run every engine path the commands use once: a short game with observations and masks."""
    import numpy as np

    from ..engine import Game

    for players, rules in ((2, "omg2"), (3, "royal")):
        game = Game(players, rules, seed=0)
        rng = np.random.default_rng(0)
        while not game.done:
            game.observe(game.current_player)
            game.step(int(rng.choice(np.flatnonzero(game.legal_mask()))))
        game.scores()
