"""``ohmygoods train``: the loop that made the shipped agents, its recipes, and a MaskablePPO path.

* ``ohmygoods train --players N --minutes M --out DIR`` runs :mod:`ohmygoods_training.fast_ppo`
  (every option of that loop is an option here; ``--help`` lists them): it trains, evaluates
  and writes the best network in the safe format as ``DIR/final.json`` + ``DIR/final.safetensors``,
  the agent ``ppo:DIR/final.json``. ``--device auto|cpu|cuda`` (the network's inference and update;
  ``auto``: CUDA when torch sees it) and ``--threads auto|N`` (torch's and numba's threads) say where.
* ``ohmygoods train --recipe NAME`` replays the documented run that made the shipped agent NAME
  (:mod:`ohmygoods_training.recipe`); ``--minutes``, ``--threads``, ``--out``, ``--eval-games``,
  ``--final-games`` and ``--no-progress`` may go with it, nothing else.
* ``ohmygoods train --game NAME --players N --minutes M --out DIR`` trains any other registered game with
  the same loop and the same outputs (its training kit, :mod:`ohmygoods_training.kits`: an MLP for
  *Artificium* and *Goofspiel*; ``--players 2,3,4`` trains several counts in one run), ``--plan`` and
  a bare command print the plan; a game's recipes are named ``GAME-NAME`` (``artificium-ppo``).
* ``ohmygoods train --algo maskable-ppo ...`` runs sb3-contrib MaskablePPO
  (:mod:`ohmygoods_training.train_ppo`, its own options: ``--algo maskable-ppo --help``).

Before a run starts the plan is printed: the loop, players, prior, league, decisions and
time, with the speed measured for such runs (:data:`RATES`). With no arguments at all the
command only prints the plan of the default run, so a bare ``ohmygoods train`` never starts a
long job by surprise; ``--plan`` does the same for any other arguments. Bad arguments are
usage errors (status 2) before anything is trained.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

ALGOS: tuple[str, ...] = ("fast-ppo", "maskable-ppo")
#: options that may go with --recipe (they change how long it runs, how fast and how it is measured, not what it
#: learns: --league-workers plays the same moves in other processes)
RECIPE_OPTIONS: tuple[str, ...] = (
    "--minutes", "--max-minutes", "--threads", "--out", "--eval-games", "--final-games", "--league-workers",
)  # fmt: skip
RECIPE_FLAGS: tuple[str, ...] = ("--no-progress",)

#: the shipped agent whose run gives ``ohmygoods train`` its defaults, by players
RECIPE_OF_PLAYERS: dict[int, str] = {1: "ppo-solo", 2: "ppo", 3: "ppo-3p", 4: "ppo-4p"}
#: the options :func:`player_defaults` takes from a recipe (what is learned and how; not how long)
LEARNING: tuple[str, ...] = (
    "reward", "shaping", "prior", "prior_gain", "minibatch", "epochs", "lr", "ent_coef", "league", "gamma",
    "max_rounds", "bc_games", "bc_epochs",
)  # fmt: skip
#: learner decisions per second of the fast loop, one thread, on the shared 2-core machine
#: (docs/training.md): (prior?, players) -> rate. Read as an order of magnitude. The runs with the heuristic
#: prior, since the heuristic is compiled: idle, 2026-11-27 (docs/performance.md, *The heuristic compiled*).
RATES: dict[tuple[bool, int], float] = {
    (False, 1): 7000.0,  # ppo-solo's PPO stage
    (False, 2): 2000.0,  # default league, `ohmygoods bench --train` and the runs of docs/performance.md
    (False, 3): 2000.0,
    (False, 4): 2000.0,
    (True, 2): 8000.0,  # the quick start: 8,140/s (its Python heuristic: 3,668/s idle, 2,300 on the loaded machine)
    (True, 3): 5800.0,  # a minute of ppo-3p's settings: 5,841/s (ppo-3p's runs, Python heuristic: 903-1,830)
    (True, 4): 6700.0,  # a minute of ppo-4p's settings: 6,694/s (ppo-4p's runs, Python heuristic: 783-1,518)
}
#: learner steps per second of the MaskablePPO loop (the previous ppo's run: 1.8M in about 87 minutes)
MASKABLE_RATE = 345.0


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} seconds"
    return f"{seconds / 60:.0f} minutes" if seconds < 5400 else f"{seconds / 3600:.1f} hours"


def rate_of(players: int, prior: bool) -> float:
    """The expected learner decisions per second of a fast-loop run."""
    return RATES.get((bool(prior), int(players)), RATES[(False, 2)])


def planned_steps(args: argparse.Namespace) -> int:
    """The learner decisions a fast-loop run with the parsed ``args`` is expected to make: ``--total-steps``,
    or fewer where ``--minutes`` stops it first at the measured rate (:func:`rate_of`)."""
    if not args.max_minutes:
        return int(args.total_steps)
    return min(int(args.total_steps), int(rate_of(args.players, bool(args.prior)) * 60 * args.max_minutes))


def run_command(argv: list[str], args: argparse.Namespace) -> str:
    """The command that starts the planned run: ``argv`` (the options as given, ``--plan`` dropped) with
    ``--minutes`` / ``--total-steps`` replaced by ``--total-steps`` of the planned decisions
    (:func:`planned_steps`), so that it runs what the plan says on any machine."""
    import shlex

    timed = ("--minutes", "--max-minutes", "--total-steps")
    kept: list[str] = []
    it = iter(argv)
    for tok in it:
        if tok in timed:
            next(it, None)
        elif tok != "--plan" and not tok.startswith(tuple(f + "=" for f in timed)):
            kept.append(tok)
    return shlex.join(["ohmygoods", "train", *kept, "--total-steps", str(planned_steps(args))])


def _device_text(spec: str) -> str:
    """``--device`` as the run will resolve it (``auto`` says what it found)."""
    if spec != "auto":
        return spec
    from ohmygoods_training.fast_ppo import resolve_device

    return f"auto ({resolve_device('auto')})"


def _forward_text(args: argparse.Namespace) -> str:
    """How the loop reads its network (``--sparse-forward``), for the plan's ``runs on`` line."""
    if getattr(args, "sparse_forward", 1):
        return ", the network's sparse form where it runs on the CPU in float32 (--sparse-forward)"
    return ", the network's dense forward (--sparse-forward 0)"


def _precision_text(args: argparse.Namespace) -> str:
    """``--precision`` as the run will resolve it on its device (``auto`` says what it found)."""
    spec = getattr(args, "precision", "float32")
    if spec != "auto":
        return spec
    from ohmygoods_training.fast_ppo import InputError, resolve_device, resolve_precision

    try:
        dtype = resolve_precision("auto", resolve_device(getattr(args, "device", "cpu")))
    except InputError:  # the device is refused when the run starts, with its own message
        return spec
    return f"auto ({str(dtype).removeprefix('torch.')})"


def plan_text(args: argparse.Namespace) -> str:
    """What a run of the fast loop with the parsed ``args`` will do, in a few lines."""
    rate = rate_of(args.players, bool(args.prior))
    steps_s = args.total_steps / rate
    seconds = min(steps_s, 60 * args.max_minutes) if args.max_minutes else steps_s
    decisions = planned_steps(args)
    stop = f"after {args.max_minutes:g} minutes or " if args.max_minutes else "after "
    lines = [
        "training plan:",
        f"  fast masked PPO (ohmygoods_training.fast_ppo), {args.players} player(s), rules {args.rules}, "
        f"reward {args.reward!r}{' shaped' if args.shaping else ''}, seed {args.seed}",
        f"  network: {'from ' + args.init if args.init else 'new'}"
        + (f", heuristic prior (gain {args.prior_gain:g})" if args.prior else ""),
        f"  league: {args.league}" if args.players > 1 else "  solo: every decision is the learner's",
        *([f"  warm start: clone {args.bc_games:,} games of {args.bc_teacher} first"] if args.bc_games else []),
        f"  stops {stop}{args.total_steps:,} learner decisions; evaluation every {args.eval_every:,} "
        f"({args.eval_games} games against {args.eval_vs if args.players > 1 else 'the solo score'})",
        f"  output folder {args.out}/: final.json + final.safetensors (the best network; ppo:{args.out}/final.json), "
        "best/last checkpoints, eval.csv, train.log, run.json",
        f"  expected: about {decisions:,} decisions in {_duration(seconds)} at ~{rate:,.0f} decisions/s "
        "(one thread on a shared 2-core machine; others differ), then the final evaluation",
        f"  runs on: device {_device_text(getattr(args, 'device', 'cpu'))}, {getattr(args, 'threads', 1)} torch and "
        f"numba thread(s), precision {_precision_text(args)} (--device, --threads, --precision)"
        + _forward_text(args)
        + OVERLAP_TEXT * bool(getattr(args, "overlap", False))
        + _workers_text(args)
        + _openmp_text(args),
    ]
    return "\n".join(lines)


def recipe_plan(recipe: Any, argvs: list[list[str]]) -> str:
    """The stages of a recipe run, as commands."""
    from ohmygoods_training.recipe import PROG

    lines = [f"recipe {recipe.name}: {recipe.about}", f"  documented minutes: {recipe.minutes:g}"]
    for s, argv in zip(recipe.stages, argvs, strict=True):
        lines += [f"  stage {s.name}: {s.about}", "    " + " ".join([PROG, *argv])]
    return "\n".join(lines)


def maskable_plan(args: argparse.Namespace) -> str:
    """What a MaskablePPO run with the parsed ``args`` of ``ohmygoods_training.train_ppo`` will do."""
    seconds = args.total_steps / MASKABLE_RATE
    return "\n".join(
        [
            "training plan:",
            f"  MaskablePPO (sb3-contrib), {args.players} players, rules {args.rules}, reward {args.reward!r}, "
            f"seed {args.seed}",
            f"  {args.total_steps:,} learner steps over {args.num_envs} games side by side"
            + (f", continuing {args.resume}" if args.resume else ""),
            f"  opponents {args.opponents}; evaluations every {args.eval_every:,} steps, {args.eval_games} games "
            f"against {args.eval_opponents}",
            f"  output folder {args.out}/: final.json (the best checkpoint in the safe format), best.zip, last.zip, "
            "checkpoints/, eval.csv, tb/, run.json",
            f"  expected time: about {_duration(seconds)} at ~{MASKABLE_RATE:.0f} steps/s "
            "(2-core machine; others differ)",
        ]
    )


def _front(argv: list[str], players: bool = True) -> tuple[argparse.Namespace, list[str]]:
    """``--algo``, ``--recipe``, ``--plan`` and (``players``: Oh my Goods!'s recipes' counts) ``--players`` of
    ``argv``, and ``argv`` without the first three."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("--algo", choices=ALGOS, default="fast-ppo")
    p.add_argument("--recipe", default=None)
    p.add_argument("--plan", action="store_true")
    if players:
        p.add_argument("--players", type=int, choices=sorted(RECIPE_OF_PLAYERS), default=2)
    front, _ = p.parse_known_args(argv)
    rest: list[str] = []
    it = iter(argv)
    for tok in it:
        if tok in ("--algo", "--recipe"):
            next(it, None)
        elif tok != "--plan" and not tok.startswith(("--algo=", "--recipe=")):
            rest.append(tok)
    return front, rest


def player_defaults(players: int) -> dict[str, Any]:
    """The learning options of the shipped agent's recipe for ``players`` (:data:`RECIPE_OF_PLAYERS`):
    its stages up to the first that trains with PPO (the solo recipe's warm start joins its PPO stage)."""
    from ohmygoods_training import recipe as R
    from ohmygoods_training.fast_ppo import parse_args

    out: dict[str, Any] = {}
    for stage in R.load(RECIPE_OF_PLAYERS[players]).stages:
        ns = parse_args(stage.args)
        out.update(
            {d: getattr(ns, d) for d in LEARNING if R.option(stage.args, "--" + d.replace("_", "-")) is not None}
        )
        if ns.total_steps > 0:
            break
    return out


def build_parser(players: int = 2) -> argparse.ArgumentParser:
    """``ohmygoods train``'s parser: the fast loop's options, defaults from the shipped agent's run for
    ``players`` (:func:`player_defaults`), plus ``--recipe``, ``--algo`` and ``--plan``."""
    from ohmygoods_training.fast_ppo import build_parser as loop_parser

    p = loop_parser("ohmygoods train")
    p.allow_abbrev = False
    p.description = (
        "Train an agent with the loop that made the shipped ones and write the best network as OUT/final.json "
        "(the agent ppo:OUT/final.json). The learning options default to those of the shipped agent's run for "
        f"--players (shown: {players} players, recipe {RECIPE_OF_PLAYERS[players]})."
    )
    p.set_defaults(players=players, eval_every=100_000, out="runs/train", **player_defaults(players))
    g = p.add_argument_group("ohmygoods train")
    g.add_argument("--recipe", default=None, help="replay the documented run of a shipped agent: ppo, ppo-3p, ...")
    g.add_argument("--algo", choices=ALGOS, default="fast-ppo", help="maskable-ppo: sb3-contrib's MaskablePPO loop")
    g.add_argument("--plan", action="store_true", help="print the plan only")
    return p


def run_args(parser: argparse.ArgumentParser, rest: list[str]) -> argparse.Namespace:
    """The run's options from ``rest`` (the arguments without ``--algo``, ``--recipe``, ``--plan``): with
    ``--init``, the saved network brings its own prior and needs no warm start, unless asked for."""
    args = parser.parse_args(rest)
    given = {tok.split("=", 1)[0] for tok in rest if tok.startswith("--")}
    if args.init:
        args.prior = args.prior if "--prior" in given else ""
        args.bc_games = args.bc_games if "--bc-games" in given else 0
    return args


#: the plan's note of ``--overlap`` (training/fast_ppo.py, FastPPO)
OVERLAP_TEXT = "; overlapped: the next rollout is collected in a second thread while each update runs (--overlap)"


def _openmp_text(args: Any) -> str:
    """The plan's note of how idle OpenMP threads wait (:func:`ohmygoods_env.openmp_wait`), with more than one
    thread (one thread runs no parallel region)."""
    if int(getattr(args, "threads", 1) or 1) == 1:
        return ""
    from .. import SPIN_SETTING, openmp_wait

    now = openmp_wait()
    hint = "" if now == SPIN_SETTING else f" ({SPIN_SETTING} in the environment: faster on an idle machine)"
    return f"; idle OpenMP threads: {now}{hint}"


def _workers_text(args: Any) -> str:
    """The plan's note of ``--league-workers`` (training/league_pool.py), empty without it."""
    n = int(getattr(args, "league_workers", 0) or 0)
    return f"; the heuristic's seats and prior in {n} worker process(es) (--league-workers)" if n else ""


def _refuse(message: str) -> int:
    """A bad input: one line on stderr, status 2 (nothing was started or written)."""
    print(f"ohmygoods train: error: {message}", file=sys.stderr)
    return 2


def _needs_extra(exc: ImportError) -> int:
    print(
        f"ohmygoods train needs the 'train' extra: pip install 'ohmygoods[train]' (missing: {exc.name})",
        file=sys.stderr,
    )
    return 2


def _maskable(rest: list[str], plan_only: bool) -> int:
    try:
        from ohmygoods_training import train_ppo
    except ImportError as exc:
        return _needs_extra(exc)
    args = train_ppo.parse_args(rest, prog="ohmygoods train --algo maskable-ppo")
    print(maskable_plan(args), file=sys.stderr)
    if plan_only:
        return 0
    from .common import warm_engine

    warm_engine()
    return int(train_ppo.main(rest) or 0)


def _recipe(name: str, rest: list[str], plan_only: bool, parser: argparse.ArgumentParser, command: str) -> int:
    from ohmygoods_training import recipe as R

    given = [tok.split("=", 1)[0] for tok in rest if tok.startswith("--")]
    extra = [f for f in given if f not in RECIPE_OPTIONS + RECIPE_FLAGS]
    if extra:
        parser.error(
            f"--recipe {name} fixes the run's options; {', '.join(extra)} cannot go with it "
            f"(allowed: {', '.join(RECIPE_OPTIONS + RECIPE_FLAGS)})"
        )
    try:
        recipe = R.load(name)
    except R.RecipeError as exc:
        return _refuse(f"--recipe {name}: {exc}")
    args = parser.parse_args(rest)
    out = args.out if "--out" in given else f"runs/{recipe.name}"
    overrides: dict[str, str | None] = {
        f: str(getattr(args, f[2:].replace("-", "_")))
        for f in ("--eval-games", "--final-games", "--league-workers")
        if f in given
    }
    if args.no_progress:
        overrides["--no-progress"] = None
    threads = args.threads if "--threads" in given else None
    argvs = R.stage_argvs(recipe, out, args.max_minutes, threads, overrides)
    print(recipe_plan(recipe, argvs), file=sys.stderr)
    if plan_only:
        return 0
    from .common import warm_engine

    warm_engine()
    R.run(recipe, out, args.max_minutes, threads, overrides, command)
    return 0


def game_plan(args: argparse.Namespace) -> str:
    """What a run of the loop on another game (``--game``) will do, in a few lines."""
    counts = args.players if isinstance(args.players, tuple) else (args.players,)
    stop = f"after {args.max_minutes:g} minutes or " if args.max_minutes else "after "
    return "\n".join(
        [
            "training plan:",
            f"  masked PPO self-play (ohmygoods_training.fast_ppo), game {args.game}, player count(s) "
            f"{', '.join(map(str, counts))}, reward {args.reward!r} + {args.margin_coef:g} x score margin, "
            f"seed {args.seed}",
            f"  network: {'from ' + args.init if args.init else f'new MLP, two layers of {args.hidden}'}",
            f"  league: {args.league}",
            *([f"  warm start: clone {args.bc_games:,} games of {args.bc_teacher} first"] if args.bc_games else []),
            f"  stops {stop}{args.total_steps:,} learner decisions; evaluation every {args.eval_every:,} "
            f"({args.eval_games} games per player count against {args.eval_vs})",
            f"  output folder {args.out}/: final.json + final.safetensors (the best network; ppo:{args.out}/final.json "
            f"with --game {args.game}), best/last checkpoints, eval.csv, train.log, run.json",
            f"  runs on: device {_device_text(getattr(args, 'device', 'cpu'))}, {getattr(args, 'threads', 1)} "
            f"torch and numba thread(s), precision {_precision_text(args)} (--device, --threads, --precision)"
            + _forward_text(args)
            + OVERLAP_TEXT * bool(getattr(args, "overlap", False))
            + _openmp_text(args),
        ]
    )


def game_main(argv: list[str], game: str) -> int:
    """``ohmygoods train --game NAME`` for a game other than *Oh my Goods!*: the one loop with the game's kit,
    the same contract (``--players``, ``--minutes``, ``--out DIR`` -> ``DIR/final.json``, a progress bar,
    ``--recipe``, ``--plan``)."""
    prog = f"ohmygoods train --game {game}"
    plan_only = not argv or "--plan" in argv
    front, rest = _front(argv, players=False)
    if front.algo != "fast-ppo":
        return _refuse(f"--game {game}: --algo {front.algo} trains Oh my Goods! only")
    try:
        from ohmygoods_training.fast_ppo import InputError, prepare, run
        from ohmygoods_training.fast_ppo import build_parser as loop_parser
    except ImportError as exc:
        return _needs_extra(exc)
    try:
        parser = loop_parser(prog, game)
    except InputError as exc:
        return _refuse(str(exc))
    parser.allow_abbrev = False
    parser.set_defaults(eval_every=100_000, out=f"runs/train-{game}")
    g = parser.add_argument_group("ohmygoods train")
    g.add_argument("--recipe", default=None, help=f"replay a documented run: {game}-NAME (ohmygoods_training.recipe)")
    g.add_argument("--algo", choices=ALGOS, default="fast-ppo", help="fast-ppo only for this game")
    g.add_argument("--plan", action="store_true", help="print the plan only")
    if front.recipe:
        from ohmygoods_training import recipe as R

        name = front.recipe  # the game's recipes are named GAME-NAME: --recipe ppo is artificium-ppo
        name = f"{game}-{name}" if f"{game}-{name}" in R.names() else name
        return _recipe(name, rest, plan_only, parser, " ".join([prog, *argv]))
    args = parser.parse_args(["--game", game, *rest])
    try:
        prepare(args)
    except InputError as exc:
        return _refuse(str(exc))
    print(game_plan(args), file=sys.stderr)
    if plan_only:
        print("\nnothing started (any option starts the run; --plan prints the plan only)", file=sys.stderr)
        return 0
    run(args, " ".join([prog, *argv]))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ohmygoods train``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    plan_only = not argv or "--plan" in argv
    front, rest = _front(argv)
    if front.algo == "maskable-ppo":
        if "--overlap" in rest:
            return _refuse("--overlap overlaps the one loop's rollouts and updates; drop --algo maskable-ppo")
        if front.recipe:
            print("ohmygoods train: --recipe replays a run of the fast loop; drop --algo maskable-ppo", file=sys.stderr)
            return 2
        return _maskable(rest, plan_only)
    try:
        parser = build_parser(front.players)
    except ImportError as exc:
        return _needs_extra(exc)
    if front.recipe:
        return _recipe(front.recipe, rest, plan_only, parser, " ".join(["ohmygoods train", *argv]))
    args = run_args(parser, rest)  # --help, and usage errors with status 2
    from ohmygoods_training.fast_ppo import InputError, prepare, run

    try:
        prepare(args)  # every input, before the plan: nothing is trained or written for a bad one
    except InputError as exc:
        return _refuse(str(exc))
    print(plan_text(args), file=sys.stderr)
    if plan_only:
        print(
            f"\nnothing started. Start this run with: {run_command(argv, args)} "
            "(any option starts it; --plan prints the plan only)",
            file=sys.stderr,
        )
        return 0

    from .common import warm_engine

    warm_engine()
    run(args, " ".join(["ohmygoods train", *argv]))
    return 0
