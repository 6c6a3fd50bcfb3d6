"""MaskablePPO self-play training: ``ohmygoods train --algo maskable-ppo`` (``python -m ohmygoods_training.train_ppo``).

The learner plays against an opponent league (:mod:`ohmygoods_training.league`): random, greedy and
heuristic baselines and frozen snapshots of itself, drawn per game. Every ``--eval-every``
steps the current policy is frozen into the league, saved as a checkpoint and evaluated
against the baselines (win rate with a Wilson 95% interval, ties count half).

Output directory (``--out runs/NAME``):

=====================  =============================================================
``checkpoints/``       ``step_<N>.zip`` at every evaluation
``best.zip``           the checkpoint with the best win rate against ``--best-vs``
``last.zip``           the final model
``eval.csv``           one row per evaluation and baseline
``tb/``                TensorBoard logs (``tensorboard --logdir runs/NAME/tb``)
``run.json``           the arguments, steps done, wall time and the final evaluation
``final.json``         ``best.zip`` in the safe format (+ ``.safetensors``; the agent ``ppo:OUT/final.json``)
=====================  =============================================================

Example::

    python -m ohmygoods_training.train_ppo --total-steps 2000000 --opponents heuristic:0.6,snapshot:0.3,random:0.1 \\
        --reward margin --out runs/ppo2p
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ohmygoods_agents.checkpoint import UntrustedCheckpointError
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from ohmygoods_env.argtypes import DefaultsFormatter, int_at_least
from ohmygoods_env.rules import EDITIONS

from .allocator import keep_freed_memory
from .fast_ppo import EVAL_SEED, FINAL_SEED
from .league import LeagueVecEnv, OpponentPool, snapshot
from .league_spec import SNAPSHOT
from .stats import AgentResult, match

EVAL_FIELDS = (
    "timesteps",
    "wall_s",
    "opponent",
    "games",
    "wins",
    "ties",
    "losses",
    "win_rate",
    "ci_low",
    "ci_high",
)
DEFAULT_REWARD_SCALE = {"win": 1.0, "score": 0.1, "margin": 0.1}


def _arch_arg(text: str) -> str:
    """Argument type: layer sizes as a comma list of positive integers (kept as the text)."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected layer sizes as positive integers, e.g. 256,256; got {text!r}")
    return text


def build_parser(prog: str = "python -m ohmygoods_training.train_ppo") -> argparse.ArgumentParser:
    """The MaskablePPO loop's parser (``ohmygoods train --algo maskable-ppo``); ``--help`` shows every default."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="MaskablePPO self-play training (ohmygoods train --algo maskable-ppo).",
        formatter_class=DefaultsFormatter,
    )
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game")
    p.add_argument("--rules", default="omg2", choices=EDITIONS, help="rule set")
    p.add_argument("--num-envs", type=int_at_least(1), default=32, help="games played side by side")
    p.add_argument(
        "--total-steps", type=int_at_least(1), default=1_000_000, help="total learner steps (a resumed run counts on)"
    )
    p.add_argument("--net-arch", type=_arch_arg, default="256,256", help="policy layers, e.g. 256,256")
    p.add_argument("--vf-arch", type=_arch_arg, default=None, help="value layers (None: as --net-arch)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games, the league and the network")
    p.add_argument(
        "--reward",
        choices=("win", "score", "margin"),
        default="margin",
        help="reward of a finished game (margin: own score minus the best other; win: +1/0/-1)",
    )
    p.add_argument("--reward-scale", type=float, default=None, help="None: 1 for win, 0.1 for score/margin")
    p.add_argument(
        "--opponents",
        default="random,heuristic,snapshot",
        help="pool: league entries with optional weights k:w (snapshot, heuristic, greedy, random, mctsN)",
    )
    p.add_argument("--max-snapshots", type=int_at_least(1), default=5, help="frozen learner snapshots kept in the pool")
    p.add_argument(
        "--snapshot-every", type=int_at_least(1), default=None, help="steps between snapshots (None: --eval-every)"
    )
    p.add_argument("--eval-every", type=int_at_least(1), default=100_000, help="learner steps between evaluations")
    p.add_argument("--eval-games", type=int_at_least(1), default=200, help="games per evaluation and baseline")
    p.add_argument("--eval-opponents", default="random,heuristic", help="baselines of the evaluations")
    p.add_argument("--best-vs", default="heuristic", help="baseline that decides best.zip")
    p.add_argument("--n-steps", type=int_at_least(1), default=256, help="rollout steps per env")
    p.add_argument("--batch-size", type=int_at_least(1), default=1024, help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int_at_least(1), default=5, help="PPO epochs per rollout")
    p.add_argument("--lr", type=float, default=None, help="learning rate (None: 3e-4, or with --resume the saved one)")
    p.add_argument("--gamma", type=float, default=0.995, help="discount factor")
    p.add_argument(
        "--ent-coef", type=float, default=None, help="entropy bonus (None: 0.01, or with --resume the saved one)"
    )
    p.add_argument(
        "--bc-games", type=int_at_least(0), default=0, help="warm start: behaviour cloning on this many games"
    )
    p.add_argument("--bc-teacher", default="heuristic", help="teacher agent of the warm start")
    p.add_argument("--bc-epochs", type=int_at_least(1), default=3, help="epochs of the warm start")
    p.add_argument(
        "--threads", type=int_at_least(1), default=1, help="torch threads (1 is fastest on a busy 2-core machine)"
    )
    p.add_argument("--out", default="runs/ppo", help="output folder")
    p.add_argument("--resume", default=None, help="checkpoint zip to continue from (needs --trust-pickle)")
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="allow --resume: loading an SB3 zip unpickles code stored in it; pass only for runs of your own",
    )
    p.add_argument(
        "--final-games",
        type=int_at_least(0),
        default=200,
        help="games of the final evaluation of best.zip (as final.json) against --eval-opponents (0: none)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def parse_args(argv: list[str] | None, prog: str = "python -m ohmygoods_training.train_ppo") -> argparse.Namespace:
    """Parsed and checked arguments (usage errors exit with status 2)."""
    p = build_parser(prog)
    args = p.parse_args(argv)
    if args.resume and not args.trust_pickle:
        p.error(RESUME_REFUSED.format(path=args.resume))
    try:
        check_inputs(args)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return args


def check_inputs(args: argparse.Namespace) -> None:
    """The inputs that used to fail after the run had started: the ``--opponents`` league, every agent
    of ``--eval-opponents``, ``--best-vs`` and (with ``--bc-games``) ``--bc-teacher`` (built once, no opt-in:
    ``exec:`` and ``sb3:`` are refused), ``--out`` and the ``--resume`` file; ``ValueError`` names the first."""
    from .fast_ppo import check_agent
    from .league_spec import parse_entries

    try:
        parse_entries(args.opponents)
    except ValueError as exc:
        raise ValueError(f"--opponents {args.opponents!r}: {exc}") from None
    for name in [s.strip() for s in args.eval_opponents.split(",") if s.strip()] or [""]:
        check_agent(name, "--eval-opponents")
    check_agent(args.best_vs, "--best-vs")
    if args.bc_games:
        check_agent(args.bc_teacher, "--bc-teacher")
    from ohmygoods_agents.reserved import check_unreserved

    # the games, the evaluations that keep the best model and the final one (the fast loop's offsets)
    check_unreserved((args.seed, args.seed + EVAL_SEED, args.seed + FINAL_SEED), f"--seed {args.seed}")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise ValueError(f"--out {args.out}: a file is there; expected a folder")
    if args.resume and not Path(args.resume).is_file():
        raise ValueError(f"--resume {args.resume}: no such file; expected a checkpoint zip of an earlier run")


def _arch(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


class ProgressBar(BaseCallback):
    """A tqdm bar over the learner steps of this call to ``learn`` (on a terminal only)."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from ohmygoods_env.framework.progress import progress_bar

        self.bar = progress_bar(self.total, unit="step", dynamic_ncols=True, mininterval=2.0)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


class LeagueCallback(BaseCallback):
    """Snapshots into the league, periodic evaluation, checkpoints, CSV and TensorBoard logging."""

    def __init__(self, args: argparse.Namespace, pool: OpponentPool, out: Path, t_start: float) -> None:
        super().__init__()
        self.args = args
        self.pool = pool
        self.out = out
        self.t_start = t_start
        self.snapshot_every = args.snapshot_every or args.eval_every
        self.next_eval = 0
        self.next_snapshot = 0
        self.best = -1.0
        self.outcomes: dict[str, list[float]] = {}
        self.csv_path = out / "eval.csv"

    def _on_training_start(self) -> None:
        n = self.model.num_timesteps
        self.next_eval = (n // self.args.eval_every + 1) * self.args.eval_every
        self.next_snapshot = (n // self.snapshot_every + 1) * self.snapshot_every
        if self.csv_path.exists():
            with self.csv_path.open() as f:
                rows = [r for r in csv.DictReader(f) if r["opponent"] == self.args.best_vs]
            self.best = max((float(r["win_rate"]) for r in rows), default=-1.0)

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "win" in info:
                self.outcomes.setdefault(info["opponent"].split("#")[0], []).append(info["win"])
        n = self.model.num_timesteps
        if n >= self.next_snapshot:
            self.pool.add_snapshot(self.model.policy)
            self.next_snapshot += self.snapshot_every
        if n >= self.next_eval:
            self.evaluate()
            self.next_eval += self.args.eval_every
        return True

    def _on_rollout_end(self) -> None:
        for kind, wins in self.outcomes.items():
            w = np.asarray(wins)
            self.logger.record(f"train/win_rate_vs_{kind}", float(((w > 0) + 0.5 * (w == 0)).mean()))
            self.logger.record(f"train/games_vs_{kind}", len(w))
        self.outcomes = {}

    def evaluate(self) -> list[AgentResult]:
        """Evaluate the current policy, write the CSV rows, save checkpoints."""
        n = self.model.num_timesteps
        agent = snapshot(self.model.policy, deterministic=True, name="learner")
        results = run_eval(agent, self.args, seed=self.args.seed + EVAL_SEED)
        wall = time.perf_counter() - self.t_start
        write_eval_rows(self.csv_path, n, wall, results)
        for r in results:
            self.logger.record(f"eval/win_rate_vs_{r.opponent}", r.win_rate)
        self.logger.dump(n)
        ckpt = self.out / "checkpoints" / f"step_{n}.zip"
        self.model.save(ckpt)
        for r in results:
            if r.opponent == self.args.best_vs and r.win_rate > self.best:
                self.best = r.win_rate
                self.model.save(self.out / "best.zip")
        msg = "; ".join(str(r) for r in results)
        print(f"[eval] step {n} ({wall:.0f}s): {msg}", file=sys.stderr, flush=True)
        return results


def write_eval_rows(path: Path, timesteps: int, wall: float, results: list[AgentResult]) -> None:
    """Append one ``eval.csv`` row per result (header on a new file)."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        if new:
            w.writeheader()
        for r in results:
            row = {k: v for k, v in r.as_dict().items() if k in EVAL_FIELDS}
            w.writerow({"timesteps": timesteps, "wall_s": round(wall, 1), **row})


def run_eval(agent: Any, args: argparse.Namespace, seed: int) -> list[AgentResult]:
    """The agent against each of ``--eval-opponents`` in ``--eval-games`` games."""
    names = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
    return [match(agent, name, args.eval_games, args.players, args.rules, seed=seed) for name in names]


RESUME_REFUSED = (
    "--resume {path}: an SB3 zip unpickles code when it is loaded; resume only from a run of your own "
    "and say so with --trust-pickle"
)


def build_model(args: argparse.Namespace, env: LeagueVecEnv, out: Path) -> MaskablePPO:
    if args.resume:
        if not args.trust_pickle:
            raise UntrustedCheckpointError(RESUME_REFUSED.format(path=args.resume))
        model = MaskablePPO.load(args.resume, env=env, device="cpu", tensorboard_log=str(out / "tb"))
        if args.lr is not None:
            model.learning_rate = args.lr
            model._setup_lr_schedule()
        if args.ent_coef is not None:
            model.ent_coef = args.ent_coef
        return model
    pi = _arch(args.net_arch)
    vf = _arch(args.vf_arch) if args.vf_arch else pi
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=3e-4 if args.lr is None else args.lr,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=0.95,
        ent_coef=0.01 if args.ent_coef is None else args.ent_coef,
        policy_kwargs={"net_arch": {"pi": pi, "vf": vf}},
        tensorboard_log=str(out / "tb"),
        seed=args.seed,
        device="cpu",
        verbose=0,
    )


def main(argv: list[str] | None = None) -> int:
    """Train; returns 0. See ``--help``."""
    args = parse_args(argv)
    torch.set_num_threads(max(1, args.threads))
    keep_freed_memory()  # as the one loop keeps it (training/allocator.py)
    out = Path(args.out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    pool = OpponentPool(args.opponents, max_snapshots=args.max_snapshots, seed=args.seed)
    scale = args.reward_scale if args.reward_scale is not None else DEFAULT_REWARD_SCALE[args.reward]
    env = LeagueVecEnv(args.num_envs, pool, args.players, args.rules, args.reward, scale, "random", seed=args.seed)
    model = build_model(args, env, out)
    bc_stats = None
    if args.bc_games and not args.resume:
        from .imitation import warm_start

        bc_stats = warm_start(model.policy, args.bc_games, args, scale)
        results = run_eval(snapshot(model.policy, deterministic=True), args, seed=args.seed + EVAL_SEED)
        write_eval_rows(out / "eval.csv", 0, time.perf_counter() - t0, results)
        print("[bc] " + "; ".join(str(r) for r in results), file=sys.stderr, flush=True)
    if args.resume or SNAPSHOT in pool.kinds:
        pool.add_snapshot(model.policy)
    remaining = max(0, args.total_steps - model.num_timesteps)
    league = LeagueCallback(args, pool, out, t0)
    callbacks: list[BaseCallback] = [league]
    if not args.no_progress:
        callbacks.insert(0, ProgressBar(remaining))
    if remaining:
        model.learn(
            remaining,
            callback=CallbackList(callbacks),
            reset_num_timesteps=not args.resume,
            tb_log_name="ppo",
        )
    league.model = model
    final = league.evaluate() if remaining and model.num_timesteps % args.eval_every else []
    model.save(out / "last.zip")
    if not (out / "best.zip").exists():
        model.save(out / "best.zip")
    info = {
        "argv": list(argv) if argv is not None else sys.argv[1:],
        "args": vars(args),
        "timesteps": int(model.num_timesteps),
        "wall_s": round(time.perf_counter() - t0, 1),
        "final_eval": [r.as_dict() for r in final],
        "warm_start": bc_stats,
    }
    (out / "run.json").write_text(json.dumps(info, indent=2))
    final_json, final_results = write_final(out, args)
    info["final"] = {"path": str(final_json), "evaluation": [r.as_dict() for r in final_results]}
    (out / "run.json").write_text(json.dumps(info, indent=2))
    lines = [f"done: {model.num_timesteps} steps in {info['wall_s']}s; {final_json} is best.zip in the safe format"]
    lines += [f"  final evaluation, other deals: {r}" for r in final_results]
    print("\n".join(lines), file=sys.stderr, flush=True)
    return 0


def write_final(out: Path, args: argparse.Namespace) -> tuple[Path, list[AgentResult]]:
    """``best.zip`` exported to the safe format as ``OUT/final.json`` (the agent ``ppo:OUT/final.json``;
    nothing is unpickled), and its deterministic play against ``--eval-opponents`` in ``--final-games``
    games on deals the evaluations during training did not play."""
    from ohmygoods_agents.checkpoint import load_policy

    from .export import ship

    note = "best.zip of this run (ohmygoods train --algo maskable-ppo)"
    path = ship(out / "best.zip", out / "final.json", note=note, players=args.players)
    if not args.final_games:
        return path, []
    agent = load_policy(path, deterministic=True)
    names = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
    seed = args.seed + FINAL_SEED
    return path, [match(agent, n, args.final_games, args.players, args.rules, seed=seed) for n in names]


if __name__ == "__main__":
    sys.exit(main())
