"""The ``ohmygoods`` command: one entry point, one module per subcommand.

=================  ======================================================
subcommand         what it does
=================  ======================================================
``demo``           a game between bots, told move by move, with final scores
``play``           play in the terminal against bots
``tournament``     round-robin between agents, win rates with intervals
``bench``          steps/s of the engine and envs next to the anchors
``fuzz``           long random games with invariant checks
``train``          MaskablePPO self-play training
=================  ======================================================
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("ohmygoods_env.demo", "a game between bots, told move by move"),
    "play": ("agents.play", "play in the terminal against bots"),
    "tournament": ("agents.tournament", "round-robin tournament between agents"),
    "bench": ("ohmygoods_env.bench", "throughput benchmark next to the anchors"),
    "fuzz": ("ohmygoods_env.fuzz", "random games with invariant checks"),
    "train": ("training.train_ppo", "MaskablePPO self-play training"),
}


def _usage() -> str:
    lines = ["usage: ohmygoods COMMAND [options]   (ohmygoods COMMAND --help)", "", "commands:"]
    lines += [f"  {name:<12} {text}" for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"ohmygoods: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
