"""``ohmygoods train``: says what a training run will do, then runs :mod:`ohmygoods_training.train_ppo`.

Before a run starts, the plan is printed: learner steps, games side by side, opponents,
output folder and the expected time. The time is estimated from :data:`STEPS_PER_SECOND`,
the rate of the shipped 2-player run (1.8M learner steps in about 87 minutes on a 2-core
machine, ``docs/training.md``), scaled by nothing else: read it as an order of magnitude.

With no arguments at all the command only prints the plan of the default run and how to
start it, so a bare ``ohmygoods train`` never starts a long job by surprise; ``--plan``
does the same for any other arguments. Bad arguments are usage errors (status 2) before
anything is imported or trained.
"""

from __future__ import annotations

import sys

#: Learner steps per second of the shipped run (docs/training.md), for the time estimate.
STEPS_PER_SECOND = 345.0


def plan_text(args) -> str:
    """What a run with the parsed ``args`` of ``ohmygoods_training.train_ppo`` will do, in a few lines."""
    seconds = args.total_steps / STEPS_PER_SECOND
    when = f"{seconds / 60:.0f} minutes" if seconds < 5400 else f"{seconds / 3600:.1f} hours"
    evals = args.total_steps // args.eval_every
    lines = [
        "training plan:",
        f"  MaskablePPO, {args.players} players, rules {args.rules}, reward {args.reward!r}, seed {args.seed}",
        f"  {args.total_steps:,} learner steps over {args.num_envs} games side by side"
        + (f", continuing {args.resume}" if args.resume else ""),
        f"  opponents {args.opponents}; {evals} evaluations of {args.eval_games} games against {args.eval_opponents}",
        f"  output folder {args.out}/ (checkpoints/, best.zip, last.zip, eval.csv, tb/, run.json)",
        f"  expected time: about {when} at ~{STEPS_PER_SECOND:.0f} steps/s (2-core machine; faster ones differ)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods train``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    plan_only = not argv or "--plan" in argv
    argv = [a for a in argv if a != "--plan"]
    try:
        from ohmygoods_training import train_ppo
    except ImportError as exc:
        print(
            f"ohmygoods train needs the 'train' extra: pip install -e '.[train]' (missing: {exc.name})",
            file=sys.stderr,
        )
        return 2
    args = train_ppo.parse_args(argv)  # --help, and usage errors with status 2
    print(plan_text(args), file=sys.stderr)
    if plan_only:
        print(
            "\nnothing started. Start this run with: ohmygoods train --total-steps "
            f"{args.total_steps} (any option starts it; --plan prints the plan only)",
            file=sys.stderr,
        )
        return 0
    from .common import warm_engine

    warm_engine()
    return int(train_ppo.main(argv) or 0)
