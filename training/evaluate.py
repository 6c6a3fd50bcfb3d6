"""Evaluate a policy checkpoint against the baselines; plot a run's learning curve.

``python -m ohmygoods_training.evaluate CHECKPOINT [--games 1000] [--players 2] [--opponents random,heuristic]``

CHECKPOINT is a checkpoint in the safe format (``NAME.json``, e.g. the ``final.json`` that
``ohmygoods train`` writes); a MaskablePPO ``.zip`` loads only with ``--trust-pickle`` (loading one
unpickles code), else the command exits with status 2 and says how to convert it.

* ``--engine tournament`` (default) plays the games with the tournament harness of
  :mod:`ohmygoods_agents.tournament` (``Game`` objects; the checkpoint loaded as ``ppo:PATH`` through
  :func:`ohmygoods_agents.checkpoint.load_policy`, deterministic): each pairing separately, deals played
  from every seat, win rate with a 95% Wilson interval (ties count half).
* ``--engine batch`` plays all games of a pairing at once in one ``BatchGames`` (one torch
  forward per decision point over all games waiting for the policy) — the evaluation used
  during training (:func:`ohmygoods_training.stats.match`); same rules and win rule, other deals.
* MCTS joins only with ``--mcts-games N`` (a small budget: ``--mcts-sims``).

Writes into ``--out`` (default: ``<checkpoint dir>/eval_<checkpoint name>``): ``results.json``,
``results.csv`` and, when the training run's ``eval.csv`` is found (``--run-dir``, default
the checkpoint's folder or its parent), ``learning_curve.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch: tiny forwards are fastest single-threaded

RESULT_FIELDS = ("opponent", "games", "wins", "ties", "losses", "win_rate", "ci_low", "ci_high", "seconds", "engine")


def tournament_match(
    checkpoint: str,
    opponent: str,
    games: int,
    players: int = 2,
    rules: str = "omg2",
    seed: int = 2024,
    workers: int = 1,
    mcts_sims: int = 100,
    trust_pickle: bool = False,
) -> dict[str, Any]:
    """``ppo:checkpoint`` (``sb3:checkpoint`` for a zip) against ``opponent`` with the tournament
    harness; the policy's row of the result."""
    from ohmygoods_agents import tournament as T

    from ohmygoods_env.framework.stats import pair_outcomes

    spec = f"sb3:{checkpoint}" if str(checkpoint).endswith(".zip") else f"ppo:{checkpoint}"
    names = [spec, opponent]
    kwargs: dict[str, dict[str, Any]] = {"mcts": {"sims": mcts_sims, "seconds": None}}
    if trust_pickle:
        kwargs[spec] = {"trust_pickle": True}
    t0 = time.perf_counter()
    specs = T.schedule(2, players, games, seed)
    played = T.run_games(names, specs, players, rules, workers=workers, agent_kwargs=kwargs, progress=False)
    wall = time.perf_counter() - t0
    summary = T.summarize(names, played, bootstrap=0, seed=seed)
    cell = summary["winrate_matrix"][0][1]
    wins, ties, losses = pair_outcomes(played, 0, 1)
    return {
        "opponent": opponent,
        "games": len(played),
        "wins": int(wins),
        "ties": int(ties),
        "losses": int(losses),
        "win_rate": cell["rate"],
        "ci_low": cell["lo"],
        "ci_high": cell["hi"],
        "seconds": round(wall, 1),
        "engine": "tournament",
    }


def batch_match(
    checkpoint: str,
    opponent: str,
    games: int,
    players: int = 2,
    rules: str = "omg2",
    seed: int = 2024,
    trust_pickle: bool = False,
) -> dict[str, Any]:
    """``checkpoint`` against ``opponent`` with the batched harness (:func:`ohmygoods_training.stats.match`)."""
    from ohmygoods_agents.checkpoint import load_policy

    from .stats import match

    agent = load_policy(checkpoint, deterministic=True, trust_pickle=trust_pickle)
    r = match(agent, opponent, games, players, rules, seed=seed).as_dict()
    r["seconds"] = round(r["seconds"], 1)
    r["engine"] = "batch"
    return r


def find_eval_csv(checkpoint: Path, run_dir: str | None) -> Path | None:
    """The training run's ``eval.csv`` for a checkpoint (given folder, the checkpoint's folder or its parent)."""
    candidates = [Path(run_dir)] if run_dir else [checkpoint.parent, checkpoint.parent.parent]
    for d in candidates:
        if (d / "eval.csv").exists():
            return d / "eval.csv"
    return None


def plot_learning_curve(eval_csv: str | Path, png: str | Path, title: str | None = None) -> Path:
    """Win rate (with its 95% interval) against each baseline over training steps, from an ``eval.csv``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(eval_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        sel = [r for r in rows if r["opponent"] == opp]
        x = [int(r["timesteps"]) for r in sel]
        y = [float(r["win_rate"]) for r in sel]
        lo = [float(r["ci_low"]) for r in sel]
        hi = [float(r["ci_high"]) for r in sel]
        (line,) = ax.plot(x, y, marker="o", ms=3, label=f"vs {opp}")
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (ties count half)")
    ax.set_ylim(0, 1)
    ax.set_title(title or "MaskablePPO evaluation during training (95% Wilson intervals)")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def write_results(out: Path, results: list[dict[str, Any]], config: dict[str, Any]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps({"config": config, "results": results}, indent=2))
    with (out / "results.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_FIELDS)
        w.writeheader()
        for r in results:
            w.writerow({k: r.get(k) for k in RESULT_FIELDS})
    return [out / "results.json", out / "results.csv"]


def format_results(results: list[dict[str, Any]]) -> str:
    lines = [f"{'opponent':<10} {'games':>6} {'W':>5} {'T':>4} {'L':>5}  win rate [95% CI]"]
    for r in results:
        lines.append(
            f"{r['opponent']:<10} {r['games']:>6} {r['wins']:>5} {r['ties']:>4} {r['losses']:>5}  "
            f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m ohmygoods_training.evaluate", description=__doc__.split("\n")[0])
    p.add_argument("checkpoint", help="policy checkpoint NAME.json, or a MaskablePPO zip with --trust-pickle")
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="allow a MaskablePPO zip: loading one unpickles code stored in it; pass only for files of your own",
    )
    p.add_argument("--games", type=int, default=1000, help="games per baseline")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--rules", default="omg2")
    p.add_argument("--opponents", default="random,heuristic")
    p.add_argument("--mcts-games", type=int, default=0, help="games against MCTS (0: none)")
    p.add_argument("--mcts-sims", type=int, default=100)
    p.add_argument("--engine", choices=("tournament", "batch"), default="tournament")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--run-dir", default=None, help="training output folder with eval.csv (for the curve)")
    p.add_argument("--out", default=None)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Evaluate; returns 0. See ``--help``."""
    args = parse_args(argv)
    from ohmygoods_agents.reserved import check_unreserved

    try:  # a checkpoint's figures here may choose among checkpoints; the reserved deals: ohmygoods evaluate
        check_unreserved(args.seed, f"--seed {args.seed}")
    except ValueError as exc:
        print(f"python -m ohmygoods_training.evaluate: error: {exc}", file=sys.stderr)
        return 2
    ckpt = Path(args.checkpoint)
    if not ckpt.exists():
        print(f"no checkpoint at {ckpt}", file=sys.stderr)
        return 2
    if ckpt.suffix == ".zip" and not args.trust_pickle:
        from ohmygoods_agents.checkpoint import untrusted_zip_message

        print(untrusted_zip_message(ckpt) + " (here: --trust-pickle)", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else ckpt.parent / f"eval_{ckpt.stem}"
    plan = [(o.strip(), args.games) for o in args.opponents.split(",") if o.strip()]
    if args.mcts_games > 0:
        plan.append(("mcts", args.mcts_games))
    results = []
    for opp, n in plan:
        if args.engine == "batch" and opp != "mcts":
            r = batch_match(str(ckpt), opp, n, args.players, args.rules, args.seed, args.trust_pickle)
        else:
            r = tournament_match(
                str(ckpt), opp, n, args.players, args.rules, args.seed, args.workers, args.mcts_sims, args.trust_pickle
            )
        print(f"vs {opp}: {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] in {r['seconds']}s", flush=True)
        results.append(r)
    config = {k: v for k, v in vars(args).items()}
    written = write_results(out, results, config)
    curve = find_eval_csv(ckpt, args.run_dir)
    if curve is not None:
        written.append(plot_learning_curve(curve, out / "learning_curve.png"))
    print(format_results(results))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
