"""The ``ohmygoods`` command: one entry point, one module of :mod:`ohmygoods_env.apps` per subcommand.

=================  ======================================================
subcommand         what it does
=================  ======================================================
``demo``           a game between bots, told move by move, with final scores
``play``           play in the terminal against agents
``serve``          play in the browser against agents (a local web server)
``replay``         a game of ``games.jsonl`` as a self-contained HTML page
``tournament``     round-robin between agents, win rates with intervals
``evaluate``       an agent's report card against the fixed ladder; the leaderboard
``bench``          steps/s of the engine and envs next to the anchors
``fuzz``           long random games with invariant checks
``train``          trains an agent; ``--recipe NAME`` replays a shipped one
=================  ======================================================

``ohmygoods --version`` prints the version. Output into a closed pipe (``ohmygoods demo |
head``) ends the command quietly with status 0. Each subcommand checks its arguments
before any work; bad arguments exit with status 2 and a message.

``--game NAME`` names the registered game in every command that plays one (``demo``, ``play``,
``fuzz``, ``train``, ``serve``, ``replay``, ``tournament``, ``evaluate``, ``bench --train``);
``demo``, ``play``, ``fuzz`` and ``train`` run the game's own implementation, named by its
tools (:class:`~ohmygoods_env.framework.game.GameTools` ``commands``), and a game without one
is refused with status 2 and one line naming the game and the games that have it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def _demo(argv: list[str]) -> int:
    from .common import game_command

    return game_command("demo", argv)


def _play(argv: list[str]) -> int:
    from .common import game_command

    return game_command("play", argv)


def _serve(argv: list[str]) -> int:
    from .serve import main

    return main(argv)


def _replay(argv: list[str]) -> int:
    from .replay import main

    return main(argv)


def _tournament(argv: list[str]) -> int:
    from .tournament import main

    return main(argv)


def _evaluate(argv: list[str]) -> int:
    from .evaluate import main

    return main(argv)


def _bench(argv: list[str]) -> int:
    from .bench import main

    return main(argv)


def _fuzz(argv: list[str]) -> int:
    from .common import game_command

    return game_command("fuzz", argv)


def _train(argv: list[str]) -> int:
    from .common import game_command

    return game_command("train", argv)


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "demo": (_demo, "a game between bots, told move by move"),
    "play": (_play, "play in the terminal against agents"),
    "serve": (_serve, "play in the browser against agents (local web server)"),
    "replay": (_replay, "write a game of games.jsonl as a self-contained HTML page"),
    "tournament": (_tournament, "round-robin tournament between agents"),
    "evaluate": (_evaluate, "report card of an agent against the fixed ladder; --leaderboard, --compare"),
    "bench": (_bench, "throughput benchmark next to the anchors (--train: training speed)"),
    "fuzz": (_fuzz, "random games with invariant checks"),
    "train": (_train, "train an agent (the loop of the shipped ones; --recipe NAME replays one)"),
}


def version() -> str:
    """The installed distribution's version, else the package's ``__version__``."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        return dist_version("ohmygoods")
    except (ImportError, PackageNotFoundError):
        from .. import __version__

        return __version__


def _usage() -> str:
    lines = [
        "usage: ohmygoods COMMAND [options]   (ohmygoods COMMAND --help shows each command's options)",
        "       ohmygoods --version",
        "",
        "commands:",
    ]
    lines += [f"  {name:<12} {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "--game NAME picks the game in every command (default: the first registered game)"]
    return "\n".join(lines)


def _quiet_broken_pipe() -> int:
    """After the reader of stdout went away: point stdout at /dev/null so the exit flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ohmygoods`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] in ("-h", "--help"):
            print(_usage())
            return 0
        if argv[0] in ("-V", "--version"):
            print(f"ohmygoods {version()}")
            return 0
        name, rest = argv[0], argv[1:]
        if name not in COMMANDS:
            print(f"ohmygoods: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
            return 2
        status = int(COMMANDS[name][0](rest) or 0)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        return _quiet_broken_pipe()


if __name__ == "__main__":
    sys.exit(main())
