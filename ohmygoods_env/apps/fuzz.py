"""``ohmygoods fuzz``: the command line of the fuzzer (:mod:`ohmygoods_env.fuzz` holds the kernels).

Every option is checked before anything is compiled or played: empty or unknown player
counts and rule sets, and non-positive step, batch, thread and round counts are usage
errors (exit status 2). The exit status is 1 when any game broke an invariant.
"""

from __future__ import annotations

import json
import sys

from ..framework.files import OutputError, check_output, write_atomic
from ..fuzz import run_fuzz
from ..game_spec import OHMYGOODS
from ..rules import EDITIONS
from .common import comma_choices, comma_ints, int_at_least, own_game_option, parser, seed_arg


def _parser():
    ap = parser("ohmygoods fuzz", "Random legal play over many games with invariant checks after every step.")
    own_game_option(ap, "fuzz", OHMYGOODS.name)
    ap.add_argument("--steps", type=int_at_least(1), default=1_000_000, help="decisions to play in total")
    ap.add_argument("--players", type=comma_ints((1, 2, 3, 4)), default="1,2,3,4", help="player counts (1: solo)")
    ap.add_argument("--rules", type=comma_choices(EDITIONS), default=",".join(EDITIONS), help="rule sets")
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the games and of the random play")
    ap.add_argument(
        "--auto-forced",
        choices=("both", "on", "off"),
        default="both",
        help="apply forced moves automatically (on), ask every decision (off), or mix games (both)",
    )
    ap.add_argument(
        "--variants",
        type=comma_ints((0, 1, 2, 3)),
        default="0,1,2,3",
        help="R10 variant switches per game: bit 0 keep one card (R10.1), bit 1 two cards for one resource (R10.2)",
    )
    ap.add_argument("--batch", type=int_at_least(1), default=64, help="games played side by side")
    ap.add_argument("--threads", type=int_at_least(1), default=None, help="worker threads (default: all CPUs)")
    ap.add_argument("--max-rounds", type=int_at_least(1), default=60, help="round cap (decision R8.4)")
    ap.add_argument("--dump", default=None, help="write failing game records (JSON) to this file")
    return ap


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods fuzz``; returns 1 on any failure."""
    ap = _parser()
    args = ap.parse_args(argv)
    if args.dump:
        try:
            check_output(args.dump)
        except OutputError as exc:
            ap.error(f"--dump: {exc}")
    auto = {"both": (True, False), "on": (True,), "off": (False,)}[args.auto_forced]
    print("compiling the fuzz kernel (cached after the first run)...", file=sys.stderr)
    run_fuzz(steps=0, players=tuple(args.players), rules=tuple(args.rules), batch=1)
    rep = run_fuzz(
        steps=args.steps,
        players=tuple(args.players),
        rules=tuple(args.rules),
        seed=args.seed,
        auto_forced=auto,
        batch=args.batch,
        max_rounds=args.max_rounds,
        threads=args.threads,
        variants=tuple(args.variants),
    )
    print(rep.summary())
    if rep.failures and args.dump:
        write_atomic(args.dump, json.dumps([{"why": why, **rec.to_dict()} for why, rec in rep.failures]))
        print(f"failing games written to {args.dump}; replay with Game.replay(GameRecord.from_dict(d))")
    return 1 if rep.failures else 0
