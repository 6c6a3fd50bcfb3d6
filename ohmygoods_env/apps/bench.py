"""``ohmygoods bench``: random-play throughput of the engine and the envs next to the anchors.

This module only turns the arguments into rows and prints them; the rows, the timer and the
targets are the package :mod:`ohmygoods_env.bench` (its docstring says what each row times),
``--train`` hands over to ``ohmygoods_training.bench_train``.
"""

from __future__ import annotations

import argparse
import sys

from .. import layout as L
from ..bench import engine, format_table, machine, suite, targets
from .common import parser, positive_float


def train_bench(argv: list[str]) -> int:
    """``ohmygoods bench --train``: the training benchmark, ``ohmygoods_training.bench_train.main(argv)``."""
    try:
        from ohmygoods_training import bench_train
    except ImportError as exc:  # torch / sb3 missing: the optional 'train' extra
        print(f"ohmygoods bench --train needs the 'train' extra: pip install -e '.[train]' ({exc})", file=sys.stderr)
        return 2
    return int(bench_train.main(argv) or 0)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s) for s in text.split(",") if s.strip())
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected batch sizes as positive integers, e.g. 1,256,4096; got {text!r}")
    return sizes


def _parser() -> argparse.ArgumentParser:
    ap = parser("ohmygoods bench", "Random-play throughput of the engine and the envs next to the anchors.")
    ap.add_argument("--train", action="store_true", help="the training benchmark instead (options after --train)")
    ap.add_argument("--quick", action="store_true", help="short timings, no cold-compile measurement")
    ap.add_argument(
        "--seconds", type=positive_float, default=None, help="seconds per row (default: 2, with --quick 0.3)"
    )
    ap.add_argument(
        "--sizes",
        type=_sizes,
        default=suite.SIZES,
        help=f"comma-separated batch sizes of the BatchGames rows (default: {','.join(map(str, suite.SIZES))})",
    )
    ap.add_argument("--no-compile", action="store_true", help="skip the cold/warm compile measurement")
    ap.add_argument("--no-anchors", action="store_true", help="skip Pgx, OpenSpiel and PettingZoo classic")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods bench``; ``--train ...`` hands the rest to the training benchmark."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--train"]:
        return train_bench(argv[1:])
    args = _parser().parse_args(argv)
    if args.train:
        return train_bench([a for a in argv if a != "--train"])
    seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 2.0)

    print("ohmygoods bench: random play, steps per second (higher is better)")
    print(f"machine: {machine.machine_info()}")
    print("note: other processes on this machine disturb the figures; repeat runs to compare\n")
    cold, warm, note = machine.compile_times(cold=not (args.quick or args.no_compile))
    print(f"warm-up in this process (load cached kernels): {engine.warm_up():.1f} s")
    per_game, agent_per_game = engine.decisions_per_game()
    print(
        f"a random 2-player game: {per_game:.0f} decisions ({agent_per_game:.0f} agent steps, the rest forced moves)\n"
    )

    rows = suite.fill_games(suite.suite(args.sizes, seconds, not args.no_anchors), per_game)
    print(format_table(rows))

    from ..batch import BatchGames

    mem = BatchGames(1).memory_per_game
    print(
        f"\nmemory per game: {mem:,} bytes in BatchGames (state {L.STATE_LEN * 4:,} + mask {L.N_ACTIONS:,} "
        f"+ bookkeeping); an observation adds {L.OBS_DIM * 4:,} bytes"
    )
    if cold is not None:
        print(f"first-use compile time: cold cache {cold:.1f} s, warm cache {warm:.1f} s ({note})")
    else:
        print(f"first-use compile time: {note}")
    print("\ntargets (figures of this run):")
    for line in targets.target_lines(rows, mem):
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
