"""A win-probability value for 2-player *Oh my Goods!*: positions of ``ppo`` self-play labelled with the result.

``python -m ohmygoods_training.value_head collect --games 6000 --out runs/value/data.npz``
``python -m ohmygoods_training.value_head fit --data runs/value/data.npz --out runs/value/win``

The shipped ``ppo`` network's value head estimates a shaped margin return, not who wins
(docs/training.md, "Gumbel search"). This module trains one that does:

* **collect** plays ``--games`` games of ``ppo`` (sampling) against itself in the batched engine
  (:func:`ohmygoods_env.policy.play_owned`, the loop of every batched match) and keeps a share
  ``--keep`` of the decisions; at a kept decision it records every seat's own observation
  (:meth:`ohmygoods_env.batch.BatchGames.observe` from that seat: no hidden information), whether
  the seat is the one to move, the seat's shaping potential (its exact score margin, only to
  compare with the old mapped value) and, when the game ends, the seat's result (win 1, tie 0.5,
  loss 0). The games are split by game into fit / validation / test sets (``--splits``), so
  positions of one game never fall on both sides.
* **fit** trains a network whose value output is the *logit* of the seat's win probability, by
  binary cross-entropy on the fit set; ``--mode head`` trains only a new value layer on the
  frozen trunk of ``--init`` (the policy is unchanged: the file is ``ppo`` with another ``v``),
  ``--mode finetune`` trains a copy of the whole network on the value alone (the policy of the
  file then differs from ``ppo``'s; the search reads priors from ``ppo`` and values from this
  file). It keeps the epoch with the best validation cross-entropy and reports, on the test set
  (games no choice saw), the cross-entropy and the Brier score of the new value, of the constant
  (the fit set's mean result) and of the old mapped value
  (:meth:`ohmygoods_agents.gumbel.NetworkEvaluator.win_share`).

The result is written in the one policy-checkpoint format (``NAME.json`` + ``NAME.safetensors``,
:func:`ohmygoods_training.fast_ppo.save_agent`), its card saying ``value: "win logit"``; it loads
only through the safe checkpoint reader (:func:`ohmygoods_agents.gumbel.load_win_value`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from ohmygoods_env import layout as L  # noqa: E402

__all__ = ["Positions", "collect", "fit", "main", "metrics"]

#: the card entry of a checkpoint whose value output is a win logit (``ohmygoods_agents.gumbel.load_win_value``)
VALUE_KIND = "win logit"


@dataclass
class Positions:
    """Recorded positions: one row per seat at each kept decision."""

    obs: np.ndarray  # float32 [n, OBS_DIM]: the seat's own observation
    game: np.ndarray  # int64 [n]: the game's index in the collection
    to_move: np.ndarray  # bool [n]: the seat is the one to move
    potential: np.ndarray  # float32 [n]: the seat's exact score margin (comparison with the old value only)
    result: np.ndarray  # float32 [n]: the seat's result (1 win, 0.5 tie, 0 loss)

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    def take(self, idx: np.ndarray) -> Positions:
        return Positions(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **{f: getattr(self, f) for f in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: str | Path) -> Positions:
        with np.load(path, allow_pickle=False) as z:
            return cls(*(z[f] for f in cls.__dataclass_fields__))


class _Recorder:
    """A :class:`~ohmygoods_env.policy.BatchPolicy` that also records a share of the decisions it answers:
    every seat's own observation, whether it is to move, and its exact score margin."""

    def __init__(self, agent: Any, keep: float, seed: int) -> None:
        from ohmygoods_env.policy import BatchPolicy

        self.policy, self.keep = BatchPolicy(agent), float(keep)
        self.rng = np.random.default_rng(seed)
        self.parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def __call__(self, games: Any, rows: np.ndarray) -> np.ndarray:
        pick = rows[self.rng.random(rows.shape[0]) < self.keep]
        if pick.size:
            margins = np.stack([margins_of(games.state[i], games.cards) for i in pick])
            cur = games.state[pick, L.F_CUR]
            for seat in range(games.num_players):
                obs = games.observe(players=np.full(pick.shape[0], seat, np.int64), rows=pick)
                self.parts.append((seat, obs, pick.copy(), cur == seat, margins[:, seat]))
        return self.policy(games, rows)


def margins_of(state: np.ndarray, cards: Any) -> np.ndarray:
    """float32[P]: each seat's exact score (R8.3, leftover coins / 5) minus the best other seat's
    (:func:`ohmygoods_agents.gumbel.potentials` of a state row)."""
    from ohmygoods_env.core import score_player

    ex = np.array([s + left / 5.0 for s, left in (score_player(state, cards.buildings, cards.assistants, p)
                                                   for p in range(int(state[L.F_NP])))])  # fmt: skip
    return np.array([ex[p] - np.delete(ex, p).max() for p in range(ex.size)], np.float32)


def collect(games: int, seed: int, keep: float = 0.1, batch: int = 256, network: str = "ppo") -> Positions:
    """Positions of ``games`` 2-player games of ``network`` (sampling) against itself (module docstring).

    Game ``i`` is dealt from ``seed + i // batch * batch`` by :class:`~ohmygoods_env.batch.BatchGames`."""
    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.policy import make_agent, play_owned

    agent = make_agent(network, seed=seed, deterministic=False)
    parts: list[Positions] = []
    for start in range(0, games, batch):
        n = min(batch, games - start)
        bg = BatchGames(n, 2, "omg2", seed=seed + start, illegal="raise", reward_mode="win")
        rec = _Recorder(agent, keep, seed + start)
        total = play_owned(bg, np.arange(n, dtype=np.int64), np.zeros((n, 2), np.int64), lambda _k, r=rec: r)
        result = (total + 1.0) / 2.0  # win +1, tie 0, loss -1 per seat
        for seat, obs, g, to_move, pot in rec.parts:
            parts.append(Positions(obs, g + start, to_move, pot, result[g, seat].astype(np.float32)))
    return Positions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Positions.__dataclass_fields__))


# ===================================================================== fitting


def split_of(pos: Positions, parts: tuple[int, int, int] = (8, 1, 1)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices of the fit, validation and test sets: by game (``game % sum(parts)``), so the
    positions of one game fall in one set."""
    k = pos.game % sum(parts)
    a, b = parts[0], parts[0] + parts[1]
    return np.flatnonzero(k < a), np.flatnonzero((k >= a) & (k < b)), np.flatnonzero(k >= b)


def metrics(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Cross-entropy (nats) and Brier score of win probabilities ``p`` against results ``y`` (1, 0.5, 0)."""
    p = np.clip(np.asarray(p, np.float64), 1e-7, 1 - 1e-7)
    y = np.asarray(y, np.float64)
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    return {"cross_entropy": round(float(ce), 4), "brier": round(float(((p - y) ** 2).mean()), 4), "n": int(y.size)}


def _batches(n: int, size: int, rng: np.random.Generator | None = None):
    order = rng.permutation(n) if rng is not None else np.arange(n)
    for s in range(0, n, size):
        yield order[s : s + size]


def features_of(net: Any, obs: np.ndarray, chunk: int = 4096) -> torch.Tensor:
    """The frozen trunk features of ``obs`` (no gradient), in chunks."""
    with torch.no_grad():
        return torch.cat(
            [net.features(torch.from_numpy(obs[i : i + chunk]), seats=2) for i in range(0, len(obs), chunk)]
        )


def win_logits(net: Any, obs: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """float64[n]: the value output (a win logit) of ``net`` for ``obs``."""
    with torch.no_grad():
        return torch.cat([net.v(net.features(torch.from_numpy(obs[i : i + chunk]))).squeeze(1)
                          for i in range(0, len(obs), chunk)]).double().numpy()  # fmt: skip


def fit(
    pos: Positions,
    init: Any,
    mode: str = "head",
    epochs: int = 10,
    lr: float = 1e-3,
    minibatch: int = 512,
    seed: int = 0,
    log: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """A copy of the SlotNet ``init`` whose ``v`` outputs the win logit, fitted on ``pos`` (module docstring).

    Returns ``(net, report)``; the report holds the per-epoch validation cross-entropy and the epoch kept."""
    import copy

    if mode not in ("head", "finetune"):
        raise ValueError(f"mode must be 'head' or 'finetune', got {mode!r}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    fit_i, val_i, _ = split_of(pos)
    if fit_i.size == 0 or val_i.size == 0:
        raise ValueError(
            f"need positions of at least 10 games (fit and validation sets), got {len(np.unique(pos.game))}"
        )
    net = copy.deepcopy(init).train()
    y = torch.from_numpy(pos.result)
    base = float(pos.result[fit_i].mean())
    torch.nn.init.zeros_(net.v.weight)
    torch.nn.init.constant_(net.v.bias, float(np.log(base / (1 - base))) if 0 < base < 1 else 0.0)
    if mode == "head":
        for p in net.parameters():
            p.requires_grad_(False)
        for p in net.v.parameters():
            p.requires_grad_(True)
        h_fit, h_val = features_of(net, pos.obs[fit_i]), features_of(net, pos.obs[val_i])
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    best = (float("inf"), -1, copy.deepcopy(net.state_dict()))
    curve = []
    for ep in range(1, epochs + 1):
        for b in _batches(fit_i.size, minibatch, rng):
            if mode == "head":
                logit = net.v(h_fit[b]).squeeze(1)
            else:
                logit = net.v(net.features(torch.from_numpy(pos.obs[fit_i[b]]), seats=2)).squeeze(1)
            loss = bce(logit, y[fit_i[b]])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            if mode == "head":
                val = bce(net.v(h_val).squeeze(1), y[val_i]).item()
            else:
                net.eval()
                val = bce(torch.from_numpy(win_logits(net, pos.obs[val_i])).float(), y[val_i]).item()
                net.train()
        curve.append(round(val, 5))
        if log is not None:
            print(f"epoch {ep}: validation cross-entropy {val:.4f}", file=log, flush=True)
        if val < best[0]:
            best = (val, ep, copy.deepcopy(net.state_dict()))
    net.load_state_dict(best[2])
    for p in net.parameters():
        p.requires_grad_(True)
    return net.eval(), {"mode": mode, "validation_curve": curve, "epoch_kept": best[1], "base_rate": round(base, 4)}


def report(pos: Positions, net: Any, old: Any) -> dict[str, Any]:
    """Test-set cross-entropy and Brier score (all rows, and the seat to move only) of the new value ``net``,
    of the constant (the fit set's mean result) and of the old mapped value of ``old`` (a SlotNet whose
    ``v`` is the shaped return, read through :meth:`ohmygoods_agents.gumbel.NetworkEvaluator.win_share`)."""
    from ohmygoods_agents.gumbel import NetworkEvaluator

    fit_i, _, test_i = split_of(pos)
    t = pos.take(test_i)
    new = 1.0 / (1.0 + np.exp(-win_logits(net, t.obs)))
    old_v = win_logits(old, t.obs)  # the old head's raw output (a shaped return)
    mapped = NetworkEvaluator(old).win_share(old_v, t.potential.astype(np.float64))
    const = np.full(len(t), float(pos.result[fit_i].mean()))
    out: dict[str, Any] = {"test_games": int(np.unique(t.game).size)}
    for name, sel in (("all seats", slice(None)), ("seat to move", t.to_move)):
        out[name] = {
            k: metrics(p[sel], t.result[sel]) for k, p in (("new", new), ("constant", const), ("old mapped", mapped))
        }
    return out


# ===================================================================== CLI


def _load(spec: str) -> Any:
    from .fast_ppo import init_path, load_net

    return load_net(init_path(spec))


def run_fit(args: argparse.Namespace) -> dict[str, Any]:
    from ohmygoods_agents.checkpoint import CheckpointError

    from .fast_ppo import InputError, save_agent

    try:
        init = _load(args.init)
    except (InputError, CheckpointError, OSError) as exc:
        print(f"--init {args.init}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    pos = Positions.load(args.data)
    t0 = time.process_time()
    net, info = fit(pos, init, args.mode, args.epochs, args.lr, args.minibatch, args.seed, log=sys.stderr)
    info["cpu_s"] = round(time.process_time() - t0, 1)
    info["test"] = report(pos, net, init)
    info.update(positions=len(pos), games=int(np.unique(pos.game).size), init=args.init, data=args.data)
    card = {"value": VALUE_KIND, "command": "python -m ohmygoods_training.value_head " + " ".join(sys.argv[1:]),
            "fit": info}  # fmt: skip
    path = save_agent(net, args.out, card, players=2)
    print(json.dumps({**info, "out": str(path)}), flush=True)
    return info


def run_collect(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.process_time()
    pos = collect(args.games, args.seed, args.keep, args.batch, args.network)
    pos.save(args.out)
    out = {"games": args.games, "positions": len(pos), "cpu_s": round(time.process_time() - t0, 1), "out": args.out}
    print(json.dumps(out), flush=True)
    return out


def build_parser() -> argparse.ArgumentParser:
    from ohmygoods_env.argtypes import int_at_least

    p = argparse.ArgumentParser(prog="python -m ohmygoods_training.value_head", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="positions of ppo self-play labelled with the result")
    c.add_argument("--games", type=int_at_least(1), default=16000, help="self-play games")
    c.add_argument("--seed", type=int_at_least(0), default=5_000_000, help="seed of the first deal")
    c.add_argument("--keep", type=float, default=0.05, help="share of the decisions recorded (0..1]")
    c.add_argument("--batch", type=int_at_least(1), default=500, help="games played at once")
    c.add_argument("--network", default="ppo", help="the network that plays (a shipped agent or NAME.json)")
    c.add_argument("--out", default="runs/value/data.npz", help="the positions file (.npz)")
    f = sub.add_parser("fit", help="fit the win-logit value and report held-out cross-entropy and Brier")
    f.add_argument("--data", default="runs/value/data.npz", help="positions from collect")
    f.add_argument("--init", default="ppo", help="the network whose trunk is read (head) or copied (finetune)")
    f.add_argument("--mode", choices=("head", "finetune"), default="head", help="what is trained")
    f.add_argument("--epochs", type=int_at_least(1), default=10, help="passes over the fit set")
    f.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    f.add_argument("--minibatch", type=int_at_least(1), default=512, help="positions per step")
    f.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the order and the start")
    f.add_argument("--out", default="runs/value/win", help="the checkpoint written (NAME.json + NAME.safetensors)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    if args.command == "collect":
        if not 0.0 < args.keep <= 1.0:
            print(f"--keep {args.keep}: expected a share in (0, 1]", file=sys.stderr)
            return 2
        run_collect(args)
    else:
        if not Path(args.data).is_file():
            print(f"--data {args.data}: no such positions file (python -m ohmygoods_training.value_head collect)",
                  file=sys.stderr)  # fmt: skip
            return 2
        run_fit(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
