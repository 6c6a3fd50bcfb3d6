"""Expert iteration for the slot network: the network-guided search plays, the network learns its choices.

``python -m ohmygoods_training.expert generate --agent mcts:ppo --sims 1000 --games 200 --out runs/ex1``
``python -m ohmygoods_training.expert distill --init ppo --data runs/ex1 --out runs/ex1/net``

What it owns:

* :func:`generate` — games between search agents (default ``mcts:ppo`` in every seat, the
  IS-MCTS of :mod:`ohmygoods_agents.mcts` with the network biasing its root). Every **searched** decision
  is a sample: the acting seat's observation, legal mask and information state, the root's
  visit counts (``MCTSAgent.last_visits``) and the seat's final ``win`` reward. Decisions the
  search does not make (a single legal action, payments) leave no sample. The search reads
  the information state only, so no sample holds hidden information. Games are written in
  shards of ``--chunk`` games (``shard_NNNN.npz``), so a long run can be stopped and used.
* :func:`distill` — fine-tunes a slot network (a checkpoint of :mod:`ohmygoods_training.fast_ppo`, with
  or without the heuristic prior) to the search's root distribution: cross-entropy between
  the masked policy and the visit counts raised to ``1 / temperature`` and normalised, plus
  ``value_coef`` times the squared error of the value head against the final reward, plus
  ``anchor`` times KL(starting policy || network) on the same samples; ``min_share`` keeps the
  cross-entropy to the decisions whose most visited action has at least that share. A
  held-out share of the games (whole games, never split) measures the validation loss and
  the agreement of the network's choice with the search's after every epoch; the epoch with the
  lowest validation cross-entropy is written (safe checkpoint format, ``run.json`` and
  ``distill.csv`` beside it).

One round of expert iteration is ``generate`` with the current network, then ``distill`` from it.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ohmygoods_agents import make_agent
from ohmygoods_agents.slotnet import SlotNet, make_prior, prior_actions

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames
from ohmygoods_env.matches import play_batch as play_games
from ohmygoods_env.policy import BatchPolicy, info_states_of

SAMPLE_KEYS: tuple[str, ...] = ("obs", "mask", "info", "visits", "reward", "game")


# ===================================================================== generate


class RecordingPolicy(BatchPolicy):
    """A :class:`~ohmygoods_env.policy.BatchPolicy` over a search agent that keeps every searched
    decision (see the module docstring) in ``self.samples``."""

    def __init__(self, agent: Any) -> None:
        if not hasattr(agent, "last_visits"):
            raise TypeError(f"expert data needs a search agent with last_visits (mcts, mcts:SPEC), got {agent!r}")
        super().__init__(agent)
        self.samples: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, dict[int, int]]] = []

    def __call__(self, games: BatchGames, rows: np.ndarray) -> np.ndarray:
        obs = games.observe(rows=rows)
        masks = games.masks(copy=True)[rows]
        infos = info_states_of(games.state, rows)
        out = np.empty(rows.shape[0], np.int64)
        for j, i in enumerate(rows):
            self.agent.last_visits = {}
            out[j] = int(self.agent.act(obs[j], masks[j], infos[j]))
            if self.agent.last_visits:
                seat = int(games.state[i, L.F_CUR])
                self.samples.append((int(i), seat, obs[j].copy(), masks[j], infos[j], dict(self.agent.last_visits)))
        return out


def play_recorded(agents: list[Any], num_games: int, seed: int, num_players: int = 2) -> dict[str, np.ndarray]:
    """Play ``num_games`` games (seats rotating as in :func:`ohmygoods_env.matches.play_games`) and
    return the samples of every searched decision as arrays (keys :data:`SAMPLE_KEYS`)."""
    if len(agents) != num_players:
        raise ValueError(f"need {num_players} agents, got {len(agents)}")
    if not 0 < num_games <= 1000:
        raise ValueError(f"num_games must be in 1..1000 (game ids are seed * 1000 + index), got {num_games}")
    policies = [RecordingPolicy(a) for a in agents]
    rewards, _ = play_games(policies, num_games, num_players, "omg2", seed)
    samples = [s for p in policies for s in p.samples]
    n = len(samples)
    out = {
        "obs": np.zeros((n, L.OBS_DIM), np.float32),
        "mask": np.zeros((n, L.N_ACTIONS), bool),
        "info": np.zeros((n, L.STATE_LEN), np.int32),
        "visits": np.zeros((n, L.N_ACTIONS), np.float32),
        "reward": np.zeros(n, np.float32),
        "game": np.zeros(n, np.int64),
    }
    for k, (i, seat, o, m, info, visits) in enumerate(samples):
        out["obs"][k], out["mask"][k], out["info"][k] = o, m, info
        for a, v in visits.items():
            out["visits"][k, a] = v
        out["reward"][k] = rewards[i, seat]
        out["game"][k] = seed * 1000 + i  # a game id: unique across shards played with distinct seeds
    return out


def generate(
    agent: str = "mcts:ppo",
    opponent: str | None = None,
    sims: int = 1000,
    games: int = 100,
    chunk: int = 4,
    seed: int = 0,
    out: str | Path = "runs/expert",
    seconds: float | None = None,
) -> Path:
    """Write shards of expert samples to ``out`` until ``games`` games or ``seconds`` have passed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    a = make_agent(agent, seed=seed, sims=sims)
    b = a if opponent is None else make_agent(opponent, seed=seed + 1, sims=sims)
    t0, done, shard = time.perf_counter(), 0, 0
    while done < games and (seconds is None or time.perf_counter() - t0 < seconds):
        n = min(chunk, games - done)
        s = play_recorded([a, b], n, seed=seed * 10_000 + shard)
        path = out / f"shard_{seed:03d}_{shard:04d}.npz"
        np.savez_compressed(path, **s)
        done += n
        shard += 1
        print(
            json.dumps(
                {
                    "shard": path.name,
                    "games": done,
                    "samples": int(s["obs"].shape[0]),
                    "s": round(time.perf_counter() - t0, 1),
                }
            ),
            flush=True,
        )
    return out


def load_samples(paths: list[str | Path]) -> dict[str, np.ndarray]:
    """Concatenate the shards under ``paths`` (directories or ``.npz`` files)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.glob("shard_*.npz")) if p.is_dir() else [p]
    if not files:
        raise FileNotFoundError(f"no expert shards (shard_*.npz) under {[str(p) for p in paths]}")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in SAMPLE_KEYS}
    for f in files:
        with np.load(f, allow_pickle=False) as z:
            missing = [k for k in SAMPLE_KEYS if k not in z.files]
            if missing:
                raise ValueError(f"{f}: not an expert shard, missing arrays {missing}")
            for k in SAMPLE_KEYS:
                parts[k].append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


# ===================================================================== distill


def visit_targets(visits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Visit counts → target distribution ``n^(1/T) / sum`` per row (T → 0: the most visited)."""
    v = np.asarray(visits, np.float64)
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    v = v / v.max(axis=1, keepdims=True)
    t = v ** (1.0 / temperature)
    return (t / t.sum(axis=1, keepdims=True)).astype(np.float32)


@dataclass
class _Samples:
    """Distillation samples as tensors: inputs, the search's targets and the games' rewards."""

    obs: torch.Tensor
    mask: torch.Tensor
    pa: torch.Tensor | None  # the prior's actions, when the network has a prior
    target: torch.Tensor  # visit targets at the temperature
    reward: torch.Tensor
    best_arg: torch.Tensor  # the most visited action
    init_logp: torch.Tensor | None = None  # the starting network's log-policy (``anchor > 0``)

    def forward(self, net: SlotNet, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return net(self.obs[t], self.mask[t], None if self.pa is None else self.pa[t])


def _split_games(game: np.ndarray, val_share: float, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Training and validation sample ids, split by game (no game on both sides), and the validation games."""
    ids = np.unique(game)
    val_games = rng.choice(ids, size=max(1, int(round(val_share * ids.size))), replace=False)
    is_val = np.isin(game, val_games)
    return np.flatnonzero(~is_val), np.flatnonzero(is_val), val_games


def _init_log_policy(net: SlotNet, d: _Samples, n: int) -> torch.Tensor:
    """The starting network's log-policy on every sample, fixed (the anchor's KL(init || net))."""
    net.eval()
    with torch.no_grad():
        logp = torch.cat(
            [torch.log_softmax(d.forward(net, torch.arange(k, min(k + 4096, n)))[0], 1) for k in range(0, n, 4096)]
        )
    net.train()
    return logp


def _losses(
    net: SlotNet, d: _Samples, idx: np.ndarray
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Per-sample cross-entropy to the visit targets, value error, agreement with the most visited
    action, and the anchor's KL (None without one)."""
    t = torch.as_tensor(idx)
    logits, value = d.forward(net, t)
    logp = torch.log_softmax(logits, dim=1)
    ce = -(d.target[t] * logp.masked_fill(~d.mask[t], 0.0)).sum(1)
    agree = (logits.argmax(1) == d.best_arg[t]).float()
    if d.init_logp is None:
        return ce, (value - d.reward[t]) ** 2, agree, None
    init = d.init_logp[t]
    kl = (init.exp() * (init - logp)).masked_fill(~d.mask[t], 0.0).sum(1)
    return ce, (value - d.reward[t]) ** 2, agree, kl


def _validate(net: SlotNet, d: _Samples, va: np.ndarray) -> dict[str, float]:
    """Mean validation cross-entropy, value error and agreement."""
    net.eval()
    with torch.no_grad():
        ce, vl, ag, _ = zip(*(_losses(net, d, va[k : k + 4096]) for k in range(0, va.size, 4096)), strict=True)
    net.train()
    return {
        "val_ce": float(torch.cat(ce).mean()),
        "val_value": float(torch.cat(vl).mean()),
        "val_agree": float(torch.cat(ag).mean()),
    }


def _train_epoch(
    net: SlotNet,
    opt: torch.optim.Optimizer,
    d: _Samples,
    perm: np.ndarray,
    batch: int,
    decisive: torch.Tensor,
    value_coef: float,
    anchor: float,
    epoch: int,
) -> float:
    """One pass over ``perm`` in minibatches; the summed training cross-entropy."""
    tot = 0.0
    for k in range(0, perm.size, batch):
        ce, vl, _, kl = _losses(net, d, perm[k : k + batch])
        w = decisive[torch.as_tensor(perm[k : k + batch])]
        loss = (ce * w).sum() / w.sum().clamp(min=1.0) + value_coef * vl.mean()
        if kl is not None:
            loss = loss + anchor * kl.mean()
        if not torch.isfinite(loss):
            raise FloatingPointError(f"distill: non-finite loss at epoch {epoch}")
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        tot += float(ce.detach().sum())
    return tot


def _fit(
    net: SlotNet,
    d: _Samples,
    tr: np.ndarray,
    va: np.ndarray,
    rng: np.random.Generator,
    epochs: int,
    lr: float,
    batch: int,
    decisive: torch.Tensor,
    value_coef: float,
    anchor: float,
) -> tuple[list[dict[str, float]], dict[str, float]]:
    """Train for ``epochs``, validating after each; leaves ``net`` at its best validation epoch.
    Returns every epoch's row (epoch 0: before training) and the best row."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    rows = [{"epoch": 0, "train_ce": float("nan"), **_validate(net, d, va)}]
    print(json.dumps(rows[-1]), flush=True)
    best = dict(rows[-1])
    best_state = {k: v.clone() for k, v in net.state_dict().items()}
    for epoch in range(1, epochs + 1):
        tot = _train_epoch(net, opt, d, rng.permutation(tr), batch, decisive, value_coef, anchor, epoch)
        rows.append({"epoch": epoch, "train_ce": tot / max(tr.size, 1), **_validate(net, d, va)})
        print(json.dumps(rows[-1]), flush=True)
        if rows[-1]["val_ce"] < best["val_ce"]:
            best = dict(rows[-1])
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    return rows, best


def distill(
    init: str,
    data: list[str | Path],
    out: str | Path,
    epochs: int = 6,
    lr: float = 3e-4,
    batch: int = 512,
    temperature: float = 1.0,
    value_coef: float = 0.25,
    val_share: float = 0.1,
    seed: int = 0,
    anchor: float = 0.0,
    min_share: float = 0.0,
) -> dict[str, Any]:
    """Fine-tune the slot network of checkpoint ``init`` on the samples under ``data`` (module docstring)."""
    from ohmygoods_agents.checkpoint import shipped_checkpoints

    from .fast_ppo import load_net, save_agent

    torch.manual_seed(seed)
    path = shipped_checkpoints().get(init, init)
    net: SlotNet = load_net(path)
    s = load_samples(list(data))
    n = s["obs"].shape[0]
    prior = make_prior(net.prior) if net.prior is not None else None
    d = _Samples(
        obs=torch.as_tensor(s["obs"]),
        mask=torch.as_tensor(s["mask"]),
        pa=prior_actions(prior, "distill", s["obs"], s["mask"], s["info"]),
        target=torch.as_tensor(visit_targets(s["visits"], temperature)),
        reward=torch.as_tensor(s["reward"]),
        best_arg=torch.as_tensor(s["visits"].argmax(1)),
    )
    rng = np.random.default_rng(seed)
    tr, va, val_games = _split_games(s["game"], val_share, rng)
    if not 0.0 <= min_share <= 1.0:
        raise ValueError(f"min_share must be in [0, 1], got {min_share}")
    share = s["visits"].max(1) / np.maximum(s["visits"].sum(1), 1)
    decisive = torch.as_tensor(share >= min_share, dtype=torch.float32)  # CE weight per sample
    if anchor < 0:
        raise ValueError(f"anchor must be >= 0, got {anchor}")
    if anchor > 0:  # the starting network's policy, fixed: KL(init || net) keeps what it knew
        d.init_logp = _init_log_policy(net, d, n)

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rows, best = _fit(net, d, tr, va, rng, epochs, lr, batch, decisive, value_coef, anchor)
    with open(out / "distill.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    card = {
        "trainer": "ohmygoods_training.expert distill",
        "init": str(init),
        "data": [str(x) for x in data],
        "samples": int(n),
        "train_samples": int(tr.size),
        "val_games": int(val_games.size),
        "epochs": epochs,
        "best_epoch": int(best["epoch"]),
        "lr": lr,
        "batch": batch,
        "temperature": temperature,
        "value_coef": value_coef,
        "anchor": anchor,
        "min_share": min_share,
        "val_agree": best["val_agree"],
        "seconds": round(time.perf_counter() - t0, 1),
        "command": "python -m ohmygoods_training.expert " + " ".join(sys.argv[1:]),
    }
    save_agent(net, out / "last", card)
    (out / "run.json").write_text(json.dumps(card, indent=1))
    return card


# ===================================================================== CLI


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ohmygoods_training.expert", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="play search games and write expert shards")
    g.add_argument("--agent", default="mcts:ppo")
    g.add_argument("--opponent", default=None, help="the other seat (default: the same agent)")
    g.add_argument("--sims", type=int, default=1000)
    g.add_argument("--games", type=int, default=100)
    g.add_argument("--chunk", type=int, default=4)
    g.add_argument("--seconds", type=float, default=None, help="stop starting shards after this long")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", required=True)
    d = sub.add_parser("distill", help="fine-tune a slot network on expert shards")
    d.add_argument("--init", default="ppo", help="a shipped name or a checkpoint path")
    d.add_argument("--data", nargs="+", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--epochs", type=int, default=6)
    d.add_argument("--lr", type=float, default=3e-4)
    d.add_argument("--batch", type=int, default=512)
    d.add_argument("--temperature", type=float, default=1.0)
    d.add_argument("--value-coef", type=float, default=0.25)
    d.add_argument("--anchor", type=float, default=0.0, help="weight of KL(starting policy || network)")
    d.add_argument(
        "--min-share",
        type=float,
        default=0.0,
        help="learn the search's choice only where its top visit share is this high",
    )
    d.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    if a.cmd == "generate":
        generate(a.agent, a.opponent, a.sims, a.games, a.chunk, a.seed, a.out, a.seconds)
    else:
        print(
            json.dumps(
                distill(
                    a.init,
                    a.data,
                    a.out,
                    a.epochs,
                    a.lr,
                    a.batch,
                    a.temperature,
                    a.value_coef,
                    seed=a.seed,
                    anchor=a.anchor,
                    min_share=a.min_share,
                )
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
