"""The framework games' self-play names, now served by the one loop (:mod:`ohmygoods_training.fast_ppo`).

Every registered game trains with :mod:`ohmygoods_training.fast_ppo` (``ohmygoods train --game NAME``), its
game-specific parts in the game's training kit (:mod:`ohmygoods_training.kits`). What stays here:

* the names the framework games' loop had, importable as before: :class:`ActorCritic`, :func:`save_net`,
  :func:`load_net`, :func:`game_layout`, :func:`export_policy`, :class:`Opponent`, :func:`collect_teacher`,
  :func:`behaviour_clone`, :func:`evaluate_vs`, :func:`make_batch` (from :mod:`~ohmygoods_training.kits`);
* :class:`Config` and :class:`SelfPlay`, the old configuration and learner, as a thin layer over
  :class:`~ohmygoods_training.fast_ppo.FastPPO` (deprecated: use ``PPOConfig(game=...)``);
* ``--evaluate CHECKPOINT``: a checkpoint's greedy policy against ``--eval-vs`` at each player count
  (the command that chose *Artificium*'s snapshots, ``docs/artificium/training.md``). Any other use of
  ``python -m ohmygoods_training.selfplay`` trains with the one loop (a ``DeprecationWarning`` names
  ``ohmygoods train --game NAME``); ``--hidden W,W`` is read as ``--hidden W``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import torch
from ohmygoods_agents.checkpoint import CheckpointError, load_policy
from ohmygoods_agents.reserved import check_unreserved

from ohmygoods_env.framework.batch import ModelBatch
from ohmygoods_env.framework.game import resolve_game

from .fast_ppo import FastPPO, PPOConfig, _threads, threads_arg
from .kits import (
    ActorCritic,
    Opponent,
    behaviour_clone,
    collect_teacher,
    evaluate_vs,
    export_policy,
    game_layout,
    load_net,
    make_batch,
    save_net,
)

__all__ = [
    "ActorCritic",
    "Config",
    "ModelBatch",
    "Opponent",
    "SelfPlay",
    "behaviour_clone",
    "collect_teacher",
    "evaluate_checkpoint",
    "evaluate_vs",
    "export_policy",
    "game_layout",
    "load_net",
    "main",
    "make_batch",
    "save_net",
]


@dataclass
class Config:
    """The framework games' old configuration (deprecated: :class:`~ohmygoods_training.fast_ppo.PPOConfig` with
    ``game``); :class:`SelfPlay` maps it onto the one loop."""

    game: str = "artificium"
    players: tuple[int, ...] = (2, 3, 4, 5, 6)
    num_envs: int = 64  # games per player count
    n_steps: int = 64  # batch steps per rollout
    epochs: int = 3
    minibatch: int = 2048
    lr: float = 3e-4
    gamma: float = 1.0
    lam: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    margin_coef: float = 0.05
    hidden: tuple[int, ...] = (128, 128)
    league: str = "self:0.5,snapshot:0.3,random:0.2"
    max_snapshots: int = 6
    snapshot_every: int = 300_000
    seed: int = 0
    fast: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def ppo_config(self) -> PPOConfig:
        """The same run as a :class:`~ohmygoods_training.fast_ppo.PPOConfig` (the ``win`` reward, unscaled)."""
        same = ("num_envs", "n_steps", "epochs", "minibatch", "lr", "gamma", "lam", "clip", "ent_coef",
                "vf_coef", "max_grad_norm", "margin_coef", "league", "max_snapshots", "snapshot_every", "seed",
                "game")  # fmt: skip
        cfg = PPOConfig(
            **{k: getattr(self, k) for k in same}, players=tuple(self.players), hidden=tuple(self.hidden),
            reward="win", reward_scale=1.0,
        )  # fmt: skip
        cfg.fast = self.fast  # type: ignore[attr-defined]  # the engine of the game, or ModelBatch
        return cfg


class SelfPlay(FastPPO):
    """The old learner of the framework games (deprecated): :class:`~ohmygoods_training.fast_ppo.FastPPO` on
    ``cfg.ppo_config()``, with the old names ``batches`` (one engine per player count), ``results``
    (training-time outcomes), ``layout``, ``spec`` and ``collect``."""

    def __init__(self, cfg: Config, net: ActorCritic | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(cfg.ppo_config(), net, device=device)
        self.config = cfg
        self.spec = resolve_game(cfg.game)
        self.layout = game_layout(self.spec)

    @property
    def batches(self) -> list[Any]:
        return [t.engine for t in self.rollout.tables]

    @property
    def results(self) -> dict[str, list[float]]:
        return self.rollout.stats

    @results.setter
    def results(self, value: dict[str, list[float]]) -> None:
        self.rollout.stats = value

    @property
    def snapshots(self) -> list[int]:
        return self.rollout.snapshots

    def collect(self, n_steps: int) -> dict[str, torch.Tensor]:
        return self.rollout.collect(n_steps)


# ===================================================================== --evaluate


def _eval_parser(prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="a checkpoint's greedy policy at each player count")
    ap.add_argument("--game", default="artificium")
    ap.add_argument("--players", default="2,3,4,5,6", help="player counts, e.g. 2,3,4,5,6")
    ap.add_argument("--eval-vs", default="random", help="opponent agent names, comma separated")
    ap.add_argument("--eval-games", type=int, default=60, help="games per player count and opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=threads_arg, default=1, metavar="{auto,N}")
    ap.add_argument("--evaluate", required=True, help="evaluate this checkpoint (--eval-vs, --eval-games)")
    return ap


def evaluate_checkpoint(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--evaluate PATH``: the checkpoint's greedy policy against each ``--eval-vs`` opponent at each
    player count; prints and returns one row each (win rate, 95% Wilson interval, parity ``1/P``)."""
    _threads(args.threads)
    spec = resolve_game(args.game)
    agent = load_policy(args.evaluate, layout=game_layout(spec))
    rows = []
    for opp in [o for o in args.eval_vs.split(",") if o]:
        for p in (int(x) for x in args.players.split(",") if x.strip()):
            t = time.perf_counter()
            rate, lo, hi = evaluate_vs(spec, agent, opp, p, args.eval_games, seed=args.seed)
            row = {"players": p, "opponent": opp, "games": args.eval_games, "rate": round(rate, 4),
                   "low": round(lo, 4), "high": round(hi, 4), "parity": round(1 / p, 4),
                   "seconds": round(time.perf_counter() - t, 1)}  # fmt: skip
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def _loop_argv(argv: list[str]) -> list[str]:
    """The old command line for the one loop: the game (default artificium) and ``--hidden W,W`` as ``--hidden W``."""
    out = list(argv)
    if not any(tok == "--game" or tok.startswith("--game=") for tok in out):
        out = ["--game", Config.game, *out]
    for i, tok in enumerate(out[:-1]):
        if tok == "--hidden" and "," in out[i + 1]:
            widths = set(out[i + 1].split(","))
            out[i + 1] = widths.pop() if len(widths) == 1 else out[i + 1]
    return out


def main(argv: list[str] | None = None, prog: str = "python -m ohmygoods_training.selfplay") -> int:
    """``--evaluate CHECKPOINT``, else a run of the one loop (deprecated here); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(tok == "--evaluate" or tok.startswith("--evaluate=") for tok in argv):
        args = _eval_parser(prog).parse_args(argv)
        try:
            check_unreserved(args.seed, f"--seed {args.seed} (--evaluate chooses snapshots)")
            load_policy(args.evaluate, layout=game_layout(resolve_game(args.game)))
        except (CheckpointError, OSError, ValueError) as exc:
            print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        evaluate_checkpoint(args)
        return 0
    warnings.warn(
        f"{prog} trains with the one loop now: use ohmygoods train --game NAME (python -m ohmygoods_training.fast_ppo)",
        DeprecationWarning,
        stacklevel=2,
    )
    from .fast_ppo import main as loop_main

    return loop_main(_loop_argv(argv), prog=prog)


if __name__ == "__main__":
    sys.exit(main())
