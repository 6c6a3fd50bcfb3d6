"""Masked PPO self-play for any game of the framework, one network for every player count.

``python -m ohmygoods_training.selfplay --game artificium --players 2,3,4,5,6 --total-steps 3000000 --out runs/art``

What it owns:

* the rollouts step every game through the framework's batch-engine protocol,
  :class:`~ohmygoods_env.framework.batch.BatchEngine` (:func:`make_batch`): ``n`` games of one player
  count stepped together, one acting seat per game (a simultaneous choice is asked one seat at a
  time, and no observation shows a choice before the reveal). The engine is the one the game's
  tools name (``GameTools.batch_engine``: *Artificium*'s ``ArtBatch``, *Oh my Goods!*'s
  ``BatchGames``), else :class:`~ohmygoods_env.framework.batch.ModelBatch` over its forward models
  (*Goofspiel*). Nothing in this module knows a game.
* :class:`ActorCritic` — an MLP trunk with a policy head (masked logits over the game's one
  action space) and a value head. The policy part (trunk + policy head) is exactly an
  :class:`~ohmygoods_agents.policy_agents.MLPAgent` and is saved in the safe checkpoint format
  of :mod:`ohmygoods_agents.checkpoint` (network kind ``mlp``); the value head is kept beside it
  in ``NAME.value.safetensors`` for resuming.
* :class:`SelfPlay` — rollouts over one batch engine per player count, every seat of
  every game owned by the learner (all its decisions are samples) or a league opponent (a
  frozen snapshot of the policy, sampling; or an agent by name, ``random``, ``heuristic`` ...,
  from the game's agent registry). Per-seat GAE (:func:`ohmygoods_training.fast_ppo.gae_per_seat`);
  the final reward goes to each learner seat's last decision: the game's ``win`` reward (+1
  winners, -1 others, 0 when every seat ties) plus ``margin_coef`` x (my score minus the best
  other score). The PPO update (clipped surrogate, value loss, masked entropy: the one
  :func:`~ohmygoods_training.fast_ppo.ppo_terms`) works on the legal columns only
  (:func:`~ohmygoods_training.fast_ppo.legal_index`).
* :func:`evaluate_vs` — one agent against ``P - 1`` seats of an opponent, seats rotated, through
  the framework's :func:`~ohmygoods_env.framework.matches.play_games` (win rate, a shared win
  counting ``1/k``, with its 95% Wilson interval).

Output of ``--out runs/NAME``: ``train.log`` (one JSON line per iteration), ``eval.csv``,
``last.json`` (+ ``.safetensors``, ``.value.safetensors``), ``step_K.json`` snapshots and
``run.json`` (the command and the configuration).
"""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ohmygoods_agents.checkpoint import CheckpointError, load_policy, read_checkpoint, same_layout, save_checkpoint
from ohmygoods_agents.policy_agents import MLPAgent, sample_masked
from ohmygoods_agents.reserved import check_unreserved
from torch import nn

from ohmygoods_env.framework.agents import agent_names, choose, make_agent
from ohmygoods_env.framework.batch import BatchEngine, ModelBatch, has_batch_engine, make_engine
from ohmygoods_env.framework.game import GameSpec, game_tools, resolve_game
from ohmygoods_env.framework.matches import play_games

from .fast_ppo import (
    DEVICES,
    Split,
    _threads,
    gae_per_seat,
    legal_index_host,
    legal_logits,
    ppo_update,
    resolve_device,
    threads_arg,
)
from .fast_ppo import InputError as LoopInputError
from .imitation import clone
from .league_spec import parse_entries

LEARNER = -1
NEG = -1e9


# ===================================================================== the batch engines


def make_batch(game: str | GameSpec, n: int, num_players: int, seed: int = 0, fast: bool = True) -> BatchEngine:
    """``n`` games of ``game`` as a :class:`~ohmygoods_env.framework.batch.BatchEngine`: the batch engine its
    tools name (``GameTools.batch_engine``) where it has one and ``fast``, else
    :class:`~ohmygoods_env.framework.batch.ModelBatch` over its forward models."""
    spec = resolve_game(game)
    if fast and has_batch_engine(spec):
        return make_engine(spec, n, num_players, seed=seed)
    return ModelBatch(spec, n, num_players, seed)


def _margins(scores: np.ndarray) -> np.ndarray:
    """Each seat's score minus the best score of the others, ``scores`` float[n, P]."""
    out = np.empty_like(scores)
    for p in range(scores.shape[1]):
        out[:, p] = scores[:, p] - np.delete(scores, p, axis=1).max(axis=1)
    return out


def outcome(b: BatchEngine, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(win, margin)``, float32[len(rows), P] of games ``rows`` that just ended: the game's ``win`` reward
    and each seat's score minus the best other score."""
    win = np.asarray(b.rewards, np.float32)[rows]
    return win, _margins(np.asarray(b.scores(), np.float32)[rows])


def _ended(rows: np.ndarray, n: int) -> np.ndarray:
    mask = np.zeros(n, np.bool_)
    mask[rows] = True
    return mask


# ===================================================================== network


class ActorCritic(nn.Module):
    """MLP trunk -> policy logits and a value; the policy part is an :class:`MLPAgent`'s ``layers.K``."""

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int] = (128, 128)) -> None:
        super().__init__()
        sizes = [int(obs_size), *[int(h) for h in hidden]]
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-1], sizes[1:], strict=True):
            layers += [nn.Linear(a, b), nn.Tanh()]
        self.trunk = nn.Sequential(*layers)
        self.pi = nn.Linear(sizes[-1], int(num_actions))
        self.v = nn.Linear(sizes[-1], 1)
        with torch.no_grad():  # a near-uniform start over the legal actions
            self.pi.weight.mul_(0.01)
            self.pi.bias.zero_()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(x)
        return self.pi(h), self.v(h).squeeze(1)

    def linears(self) -> list[nn.Linear]:
        return [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.pi]

    def policy_tensors(self) -> dict[str, np.ndarray]:
        """The policy as ``layers.K.weight`` / ``layers.K.bias`` (an ``mlp`` checkpoint with ``tanh``)."""
        out = {}
        for k, lin in enumerate(self.linears()):
            out[f"layers.{k}.weight"] = lin.weight.detach().cpu().numpy().copy()
            out[f"layers.{k}.bias"] = lin.bias.detach().cpu().numpy().copy()
        return out

    def load_policy_tensors(self, tensors: dict[str, np.ndarray]) -> None:
        with torch.no_grad():
            for k, lin in enumerate(self.linears()):
                lin.weight.copy_(torch.as_tensor(tensors[f"layers.{k}.weight"]))
                lin.bias.copy_(torch.as_tensor(tensors[f"layers.{k}.bias"]))

    def agent(self, layout: dict[str, Any], deterministic: bool = True, seed: int = 0, name: str = "ppo") -> MLPAgent:
        """A frozen copy of the policy as an :class:`MLPAgent` on ``layout``."""
        return MLPAgent(self.policy_tensors(), "tanh", name=name, deterministic=deterministic, seed=seed, layout=layout)


# ===================================================================== checkpoints


def game_layout(game: str | GameSpec) -> dict[str, Any]:
    """The layout a checkpoint of ``game`` records (the game's own where it declares one)."""
    spec = resolve_game(game)
    own = game_tools(spec).load("checkpoint_layout")  # the game's own layout (Artificium's), else from its sizes
    if own is not None:
        return own()
    size = int(spec.obs_size(spec.min_players))
    return {
        "version": f"{spec.name}-v{spec.version}",
        "obs_dim": size,
        "obs_blocks": [["observation", 0, size]],
        "n_actions": int(spec.num_actions),
        "action_ranges": [["actions", 0, int(spec.num_actions)]],
    }


def save_net(net: ActorCritic, path: str | Path, layout: dict[str, Any], **fields: Any) -> Path:
    """The policy in the safe format (``path`` ``.json`` + ``.safetensors``) and the value head beside it."""
    from safetensors.numpy import save_file

    dst = save_checkpoint(path, net.policy_tensors(), "tanh", layout=layout, **fields)
    value = {"weight": net.v.weight.detach().cpu().numpy().copy(), "bias": net.v.bias.detach().cpu().numpy().copy()}
    save_file(value, str(dst.with_suffix(".value.safetensors")))
    return dst


def load_net(path: str | Path, layout: dict[str, Any] | None = None) -> ActorCritic:
    """An :class:`ActorCritic` from a checkpoint (the value head too where ``.value.safetensors`` is beside it);
    with ``layout``, the checkpoint must have been made for it (:class:`CheckpointError` otherwise)."""
    tensors, desc = read_checkpoint(path)
    if desc["network"].get("kind") != "mlp" or desc["network"].get("activation") != "tanh":
        raise CheckpointError(
            f"{path}: self-play networks are tanh MLPs, the checkpoint has {desc['network'].get('kind')!r} "
            f"{desc['network'].get('activation')!r}"
        )
    if layout is not None and not same_layout(desc["layout"], layout):
        raise CheckpointError(
            f"{path}: made for another observation/action layout ({desc['layout'].get('obs_dim')} features, "
            f"{desc['layout'].get('n_actions')} actions); the game has {layout['obs_dim']} and {layout['n_actions']}"
        )
    sizes = desc["network"]["sizes"]
    net = ActorCritic(sizes[0], sizes[-1], sizes[1:-1])
    net.load_policy_tensors(tensors)
    vpath = Path(path).with_suffix(".value.safetensors")
    if vpath.is_file():
        from safetensors.numpy import load_file

        v = load_file(str(vpath))
        with torch.no_grad():
            net.v.weight.copy_(torch.as_tensor(v["weight"]))
            net.v.bias.copy_(torch.as_tensor(v["bias"]))
    return net


def export_policy(src: str | Path, dst: str | Path, **card: Any) -> Path:
    """Copy the policy of checkpoint ``src`` to ``dst`` (no value head), with ``card`` data (command, evaluation)."""
    tensors, desc = read_checkpoint(src)
    old = desc.get("card") if isinstance(desc.get("card"), dict) else {}
    return save_checkpoint(dst, tensors, desc["network"]["activation"], layout=desc["layout"], card={**old, **card})


# ===================================================================== league


class Opponent:
    """A league seat: ``act(batch, rows) -> actions`` for the acting seats of ``rows``."""

    def __init__(self, name: str, agent: Any) -> None:
        self.name, self.agent = name, agent
        self.batched = hasattr(agent, "act_batch") and not getattr(agent, "needs_info_state", False)

    def act(self, batch: Any, rows: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.batched:
            return np.asarray(self.agent.act_batch(obs[rows], masks[rows]), np.int64)
        if getattr(self.agent, "needs_info_state", False):
            out = []
            for i in rows:
                m = batch.model(int(i))
                out.append(choose(self.agent, m, int(m.current_player)))
            return np.asarray(out, np.int64)
        act = getattr(self.agent, "act", self.agent)
        return np.asarray([act(obs[i], masks[i]) for i in rows], np.int64)


# ===================================================================== self-play rollouts


@dataclass
class Config:
    """Hyperparameters of :class:`SelfPlay` (the CLI flags have the same names)."""

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


class SelfPlay:
    """The learner: an :class:`ActorCritic`, one batch engine per player count, the league, Adam."""

    def __init__(self, cfg: Config, net: ActorCritic | None = None, device: str | torch.device = "cpu") -> None:
        self.cfg = cfg
        #: where the network's inference and update run; the games, the league and the checkpoints stay on the host
        self.device = resolve_device(device)
        self.split = Split()
        self._buffers: dict[str, Any] = {}
        #: the network reads device buffers that each step's rows are copied into (True off the CPU; a test
        #: sets it on the CPU to run the copying path of a GPU)
        self.staged = self.device.type != "cpu"
        torch.manual_seed(cfg.seed)
        self.spec = resolve_game(cfg.game)
        # a count named k times gets k batches, each dealt from its own seed (more games at that count)
        self.batches = [
            make_batch(self.spec, cfg.num_envs, p, cfg.seed + 1000 * p + 100 * cfg.players[:j].count(p), cfg.fast)
            for j, p in enumerate(cfg.players)
        ]
        b0 = self.batches[0]
        sizes = {b.num_players: b.obs_dim for b in self.batches}
        if len(set(sizes.values())) > 1:
            raise ValueError(
                f"one network needs one observation size, {self.spec.name} has {sizes} by player count: "
                "train one player count per run"
            )
        self.net = net if net is not None else ActorCritic(b0.obs_dim, b0.n_actions, cfg.hidden)
        self.net.to(self.device)
        self.layout = game_layout(self.spec)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        self.rng = np.random.default_rng(cfg.seed)
        self.gen = torch.Generator().manual_seed(cfg.seed)
        self.weights = parse_entries(cfg.league, agents=agent_names(self.spec))
        self.opponents: list[Opponent] = []
        self.fixed: dict[str, int] = {}
        for k, name in enumerate(n for n in self.weights if n not in ("self", "snapshot")):
            if self.weights[name] > 0:
                self.fixed[name] = len(self.opponents)
                self.opponents.append(Opponent(name, make_agent(self.spec, name, seed=cfg.seed + 17 * k)))
        self.snapshots: list[int] = []
        self.owner = [np.full((b.num_games, b.num_players), LEARNER, np.int64) for b in self.batches]
        for j, b in enumerate(self.batches):
            self._assign(j, np.arange(b.num_games))
        self.steps = 0
        self.next_snapshot = 0
        self.results: dict[str, list[float]] = {}

    # -------------------------------------------------------------- league
    def add_snapshot(self) -> None:
        """Freeze the current policy into the league (the oldest beyond ``max_snapshots`` is replaced)."""
        agent = self.net.agent(self.layout, deterministic=False, seed=int(self.rng.integers(1 << 31)), name="snapshot")
        opp = Opponent("snapshot", agent)
        if len(self.snapshots) >= self.cfg.max_snapshots:
            idx = self.snapshots.pop(0)
            self.opponents[idx] = opp
        else:
            idx = len(self.opponents)
            self.opponents.append(opp)
        self.snapshots.append(idx)

    def _assign(self, j: int, rows: np.ndarray) -> None:
        """Draw the owners of every seat of games ``rows`` of batch ``j`` (one learner seat at least)."""
        if rows.size == 0:
            return
        P = self.batches[j].num_players
        names = ["self", "snapshot", *self.fixed]
        w = np.array([self.weights.get(n, 0.0) for n in names])
        if not self.snapshots:
            w[0] += w[1]
            w[1] = 0.0
        w = w / w.sum()
        draw = self.rng.choice(len(names), size=(rows.size, P), p=w)
        draw[np.arange(rows.size), self.rng.integers(P, size=rows.size)] = 0
        owner = np.full(draw.shape, LEARNER, np.int64)
        for k, name in enumerate(names[1:], start=1):
            sel = draw == k
            if not sel.any():
                continue
            if name == "snapshot":
                owner[sel] = np.asarray(self.snapshots)[self.rng.integers(len(self.snapshots), size=int(sel.sum()))]
            else:
                owner[sel] = self.fixed[name]
        self.owner[j][rows] = owner

    # -------------------------------------------------------------- collecting
    def _buffer(self, cap: int) -> dict[str, Any]:
        """Observation and mask buffers for ``cap`` samples, allocated once (again only for a longer rollout);
        pinned host memory and device buffers on CUDA (as in ``fast_ppo.SelfPlayRollout._buffer``)."""
        b = self._buffers
        if b.get("cap", 0) < cap or b.get("staged") != self.staged:
            b.clear()
            pin = self.device.type == "cuda"
            staged = self.staged
            b0 = self.batches[0]
            host_obs = torch.empty((cap, b0.obs_dim), dtype=torch.float32, pin_memory=pin)
            host_mask = torch.empty((cap, b0.n_actions), dtype=torch.bool, pin_memory=pin)
            b.update(
                cap=cap,
                staged=staged,
                host_obs=host_obs,
                host_mask=host_mask,
                obs=host_obs.numpy(),
                mask=host_mask.numpy(),
            )
            if staged:
                b.update(dev_obs=torch.empty_like(host_obs, device=self.device),
                         dev_mask=torch.empty_like(host_mask, device=self.device))  # fmt: skip
            else:
                b.update(dev_obs=host_obs, dev_mask=host_mask)
        return b

    def _env_buffers(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Each batch's observation and mask rows of one step, allocated once (the engines write into them)."""
        if "env_obs" not in self._buffers:
            self._buffers["env_obs"] = [np.zeros((b.num_games, b.obs_dim), np.float32) for b in self.batches]
            self._buffers["env_mask"] = [np.zeros((b.num_games, b.n_actions), np.bool_) for b in self.batches]
        return self._buffers["env_obs"], self._buffers["env_mask"]

    def collect(self, n_steps: int) -> dict[str, torch.Tensor]:
        """``n_steps`` steps of every batch; the learner's samples with advantages and returns (on the
        learner's device; ``obs`` and ``mask`` are views of buffers the next ``collect`` writes over). Each
        part's time goes to :attr:`split`."""
        clock, net = self.split, self.net
        cap = n_steps * sum(b.num_games for b in self.batches)
        buf = self._buffer(cap)
        actions = np.empty(cap, np.int64)
        logp = np.empty(cap, np.float32)
        values = np.empty(cap, np.float32)
        rewards = np.zeros(cap, np.float32)
        done = np.zeros(cap, np.bool_)
        next_idx = np.full(cap, -1, np.int64)
        last = [np.full((b.num_games, b.num_players), -1, np.int64) for b in self.batches]
        env_obs, env_mask = self._env_buffers()
        k = 0
        for _ in range(n_steps):
            for j, b in enumerate(self.batches):
                with clock("env"):
                    cur = b.current_player.astype(np.int64, copy=False)
                    live = np.flatnonzero(cur >= 0)
                    obs = b.observe(np.maximum(cur, 0), out=env_obs[j])
                    masks = b.legal_mask(out=env_mask[j])
                acts = np.zeros(b.num_games, np.int64)
                who = self.owner[j][live, cur[live]]
                rows = live[who == LEARNER]
                if rows.size:
                    n = rows.size
                    with clock("copy"):  # the learner's rows into the rollout's buffers, and to the device
                        np.take(obs, rows, axis=0, out=buf["obs"][k : k + n])
                        np.take(masks, rows, axis=0, out=buf["mask"][k : k + n])
                        x, m = buf["dev_obs"][k : k + n], buf["dev_mask"][k : k + n]
                        if self.staged:
                            x.copy_(buf["host_obs"][k : k + n], non_blocking=True)
                            m.copy_(buf["host_mask"][k : k + n], non_blocking=True)
                    with clock("forward"), torch.inference_mode():
                        logits, v = net(x)
                        ids_np, valid_np = legal_index_host(buf["mask"][k : k + n])  # the host's copy of the masks
                        ids = torch.from_numpy(ids_np)
                        lg = legal_logits(logits, ids.to(self.device), torch.from_numpy(valid_np).to(self.device))
                        lg, v = lg.cpu(), v.cpu()  # sampled on the host: the same draws anywhere
                        c = sample_masked(lg, self.gen)
                        a = ids.gather(1, c[:, None]).squeeze(1)
                        lp = torch.log_softmax(lg, 1).gather(1, c[:, None]).squeeze(1)
                    acts[rows] = a.numpy()
                    idx = np.arange(k, k + n)
                    actions[idx], logp[idx], values[idx] = a.numpy(), lp.numpy(), v.numpy()
                    seats = cur[rows]
                    prev = last[j][rows, seats]
                    next_idx[prev[prev >= 0]] = idx[prev >= 0]
                    last[j][rows, seats] = idx
                    k += n
                opp_rows, opp_who = live[who != LEARNER], who[who != LEARNER]
                if opp_rows.size:
                    with clock("opponents"):
                        for o_ in np.unique(opp_who):
                            sel = opp_rows[opp_who == o_]
                            acts[sel] = self.opponents[int(o_)].act(b, sel, obs, masks)
                with clock("env"):
                    b.step(acts)
                    ended = np.flatnonzero(b.done)
                if ended.size:
                    with clock("env"):
                        win, margin = outcome(b, ended)
                    r = win + self.cfg.margin_coef * margin
                    for p in range(b.num_players):
                        ix = last[j][ended, p]
                        has = ix >= 0
                        rewards[ix[has]] = r[has, p]
                        done[ix[has]] = True
                    self._record(j, ended, win)
                    last[j][ended] = -1
                    with clock("env"):
                        b.reset(_ended(ended, b.num_games))
                    self._assign(j, ended)
        boot = np.zeros(k, np.float32)
        for j, b in enumerate(self.batches):  # cut trajectories continue from the seat's own value
            g, p = np.nonzero(last[j] >= 0)
            if g.size:
                players = np.zeros(b.num_games, np.int64)
                for seat in np.unique(p):
                    players[:] = seat
                    with clock("env"):
                        o = b.observe(players)
                    sel = g[p == seat]
                    with clock("copy"):
                        x = torch.from_numpy(o[sel]).to(self.device)
                    with clock("forward"), torch.inference_mode():
                        boot[last[j][sel, seat]] = net(x)[1].cpu().numpy()
        values = values[:k]
        adv = np.zeros(k, np.float32)
        gae_per_seat(values, rewards[:k], next_idx[:k], done[:k], boot, self.cfg.gamma, self.cfg.lam, adv)
        with clock("copy"):
            dev = {"action": actions[:k], "logp": logp[:k], "adv": adv, "ret": adv + values}
            dev = {key: torch.from_numpy(a).to(self.device) for key, a in dev.items()}
        return {"obs": buf["dev_obs"][:k], "mask": buf["dev_mask"][:k], **dev}

    def _record(self, j: int, ended: np.ndarray, win: np.ndarray) -> None:
        P = self.batches[j].num_players
        for e, gi in enumerate(ended):
            own = self.owner[j][gi]
            kinds = sorted({self.opponents[int(o)].name for o in own if o != LEARNER})
            key = f"{P}p:" + ("self" if not kinds else "+".join(kinds))
            for p in np.flatnonzero(own == LEARNER):
                self.results.setdefault(key, []).append(float(win[e, p] > 0))

    # -------------------------------------------------------------- update
    def update(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        """PPO epochs over the batch (the one update of every loop, ``fast_ppo.ppo_update``)."""
        return ppo_update(batch, lambda i: self.net(batch["obs"][i]), self.net.parameters(), self.opt, self.cfg)

    def iterate(self) -> dict[str, float]:
        """One rollout and one update; returns its numbers."""
        if self.steps >= self.next_snapshot and self.weights.get("snapshot", 0) > 0:
            self.add_snapshot()
            self.next_snapshot += self.cfg.snapshot_every
        t0 = time.perf_counter()
        batch = self.collect(self.cfg.n_steps)
        t1 = time.perf_counter()
        with self.split("update"):
            info = self.update(batch)
        n = int(batch["obs"].shape[0])
        self.steps += n
        info.update(samples=n, rollout_s=t1 - t0, update_s=time.perf_counter() - t1)
        return info

    def agent(self, deterministic: bool = True) -> MLPAgent:
        return self.net.agent(self.layout, deterministic=deterministic)


# ===================================================================== warm start


def collect_teacher(
    game: str | GameSpec, teacher: str, players: Sequence[int], decisions: int, num_envs: int = 32, seed: int = 0
) -> dict[str, np.ndarray]:
    """``decisions`` decisions of ``teacher`` (a name of the game's registry) in every seat, spread over the
    player counts: ``obs``, ``mask``, ``action`` and ``ret`` (the seat's final ``win`` reward)."""
    spec = resolve_game(game)
    agent = Opponent(teacher, make_agent(spec, teacher, seed=seed))
    obs_l, mask_l, act_l, seat_l = [], [], [], []
    ret: list[float] = []
    per = max(1, decisions // len(players))
    for j, p in enumerate(players):
        b = make_batch(spec, num_envs, p, seed + 7 * j)
        mine: list[list[list[int]]] = [[[] for _ in range(p)] for _ in range(b.num_games)]
        start = len(ret)
        while True:  # past the quota, the games under way play to their end (every sample gets its reward)
            cur = b.current_player.astype(np.int64, copy=False)
            live = np.flatnonzero(cur >= 0)
            if live.size == 0:
                break
            obs, masks = b.observe(np.maximum(cur, 0)), b.legal_mask()
            acts = np.zeros(b.num_games, np.int64)
            acts[live] = agent.act(b, live, obs, masks)
            for i in live:
                mine[i][cur[i]].append(len(ret))
                ret.append(0.0)
            obs_l.append(obs[live])
            mask_l.append(masks[live])
            act_l.append(acts[live])
            seat_l.append(cur[live])
            b.step(acts)
            ended = np.flatnonzero(b.done)
            if ended.size:
                win, _ = outcome(b, ended)
                for e, i in enumerate(ended):
                    for q in range(p):
                        for k in mine[i][q]:
                            ret[k] = float(win[e, q])
                        mine[i][q] = []
                if len(ret) - start < per:
                    b.reset(_ended(ended, b.num_games))
    out = {
        "obs": np.concatenate(obs_l),
        "mask": np.concatenate(mask_l),
        "action": np.concatenate(act_l),
        "ret": np.asarray(ret, np.float32),
    }
    return out


def behaviour_clone(
    net: ActorCritic,
    data: dict[str, np.ndarray],
    epochs: int = 4,
    lr: float = 1e-3,
    minibatch: int = 1024,
    seed: int = 0,
) -> dict[str, float]:
    """Fit the policy to the teacher's actions (cross-entropy over the legal actions) and the value to the
    seats' final rewards, with the one cloning loop (:func:`ohmygoods_training.imitation.clone`); returns
    the last epoch's ``loss_pi``, ``loss_v`` and ``accuracy`` (agreement with the teacher)."""

    def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, v = net(obs)
        return logits.masked_fill(~mask, NEG), v

    samples = {"obs": data["obs"], "masks": data["mask"], "actions": data["action"], "returns": data["ret"]}
    stats = clone(net.parameters(), forward, samples, epochs=epochs, minibatch=minibatch, lr=lr, vf_coef=0.25,
                  seed=seed, max_grad_norm=1.0)  # fmt: skip
    return {k: stats[k] for k in ("loss_pi", "loss_v", "accuracy")}


# ===================================================================== evaluation


def evaluate_vs(
    game: str | GameSpec, agent: Any, opponent: str, players: int, games: int, seed: int = 0
) -> tuple[float, float, float]:
    """``agent`` in one seat, ``opponent`` (a name of the game's registry) in the others, seats rotated
    (:func:`ohmygoods_env.framework.matches.play_games`): the agent's win rate (a ``k``-way shared win
    counts ``1/k``) and its 95% Wilson interval."""
    r = play_games(
        game, [agent] + [opponent] * (players - 1), games, seed=seed, names=["agent"] + [opponent] * (players - 1)
    )
    a = r.agents[0]
    return a.win_rate, a.win_lo, a.win_hi


# ===================================================================== command line


def build_parser(prog: str = "python -m ohmygoods_training.selfplay") -> argparse.ArgumentParser:
    d = Config()
    ap = argparse.ArgumentParser(prog=prog, description="masked PPO self-play with a league, any framework game")
    ap.add_argument("--game", default=d.game)
    ap.add_argument(
        "--players",
        default=",".join(map(str, d.players)),
        help="player counts, e.g. 2,3,4,5,6; a count named twice gets twice the games (2,3,4,5,6,6)",
    )
    for name in ("num_envs", "n_steps", "epochs", "minibatch", "max_snapshots", "snapshot_every", "seed"):
        ap.add_argument("--" + name.replace("_", "-"), type=int, default=getattr(d, name))
    for name in ("lr", "gamma", "lam", "clip", "ent_coef", "vf_coef", "max_grad_norm", "margin_coef"):
        ap.add_argument("--" + name.replace("_", "-"), type=float, default=getattr(d, name))
    ap.add_argument("--hidden", default=",".join(map(str, d.hidden)), help="hidden widths, e.g. 128,128")
    ap.add_argument("--league", default=d.league, help="NAME:WEIGHT,...: self, snapshot, or agents by name")
    ap.add_argument("--total-steps", type=int, default=1_000_000, help="learner decisions to train on")
    ap.add_argument("--init", default="", help="start from this checkpoint (NAME.json)")
    ap.add_argument("--bc-teacher", default="", help="warm start: clone this agent's play first (e.g. heuristic)")
    ap.add_argument("--bc-decisions", type=int, default=100_000, help="teacher decisions to clone")
    ap.add_argument("--bc-epochs", type=int, default=6)
    ap.add_argument("--eval-every", type=int, default=500_000, help="learner decisions between evaluations")
    ap.add_argument("--eval-vs", default="random", help="opponent agent names, comma separated")
    ap.add_argument("--eval-games", type=int, default=60, help="games per player count and opponent")
    ap.add_argument("--slow", action="store_true", help="play through the forward models, not a compiled batch")
    ap.add_argument("--threads", type=threads_arg, default=1, metavar="{auto,N}",
                    help="torch and numba threads (auto: every usable core)")  # fmt: skip
    ap.add_argument("--device", choices=DEVICES, default="auto",
                    help="where the network's inference and update run (auto: cuda when torch sees a GPU)")  # fmt: skip
    ap.add_argument("--evaluate", default="", help="no training: evaluate this checkpoint (--eval-vs, --eval-games)")
    ap.add_argument("--out", default="", help="the run folder (needed to train)")
    return ap


def _ints(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"--{what} must be comma-separated ints, got {text!r}") from None


def config_from(args: argparse.Namespace) -> Config:
    kw = {k: getattr(args, k) for k in Config.__dataclass_fields__ if k not in ("players", "hidden", "fast", "extra")}
    return Config(**kw, players=_ints(args.players, "players"), hidden=_ints(args.hidden, "hidden"), fast=not args.slow)


class InputError(ValueError):
    """An option of a self-play run that cannot be used (the message names it and what was expected)."""


#: bounds of the numeric options: dest -> (lowest, highest); every float must be finite
BOUNDS: dict[str, tuple[float, float | None]] = {
    "num_envs": (1, 1 << 14), "n_steps": (1, 1 << 14), "epochs": (1, 1000), "minibatch": (1, 1 << 24),
    "max_snapshots": (1, 1000), "snapshot_every": (1, None), "seed": (0, (1 << 63) - 1), "lr": (0.0, 1.0),
    "gamma": (0.0, 1.0), "lam": (0.0, 1.0), "clip": (0.0, None), "ent_coef": (0.0, None), "vf_coef": (0.0, None),
    "max_grad_norm": (0.0, None), "margin_coef": (0.0, None), "total_steps": (0, None), "bc_decisions": (1, None),
    "bc_epochs": (1, 1000), "eval_every": (1, None), "eval_games": (1, None), "threads": (1, 256),
}  # fmt: skip


def _check_agent(spec: GameSpec, name: str, what: str) -> None:
    """``name`` builds as an agent of the game with no opt-in (``exec`` is refused); else :class:`InputError`."""
    try:
        make_agent(spec, name, seed=0)
    except (ValueError, TypeError, KeyError, LookupError, OSError, ImportError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"{what} {name!r}: {text}"[:600]) from None


def prepare(args: argparse.Namespace) -> tuple[Config, ActorCritic | None]:
    """Every input of a run checked before anything is trained or written: the numbers, the game and its
    player counts, the widths, the league (:func:`~ohmygoods_training.league_spec.parse_entries` and each
    of its agents), ``--eval-vs``, ``--bc-teacher``, ``--out`` and the ``--init`` / ``--evaluate``
    checkpoints (this game's layout). Returns the configuration and the starting network;
    :class:`InputError` names the first bad input."""
    import math

    for dest, (low, high) in BOUNDS.items():
        value = getattr(args, dest)
        flag = "--" + dest.replace("_", "-")
        if (isinstance(value, float) and not math.isfinite(value)) or value < low or (high and value > high):
            raise InputError(f"{flag} {value}: expected a finite number from {low}" + (f" to {high}" if high else ""))
    try:
        spec = resolve_game(args.game)
        cfg = config_from(args)
        for p in cfg.players:
            spec.check_num_players(p)
    except (ValueError, TypeError, KeyError) as exc:
        raise InputError(f"--game {args.game} --players {args.players}: {exc}") from None
    if not cfg.players or not 1 <= len(cfg.hidden) <= 16 or not all(1 <= h <= 4096 for h in cfg.hidden):
        raise InputError(f"--players {args.players} --hidden {args.hidden}: expected player counts, and 1..16 widths "
                         "in 1..4096")  # fmt: skip
    try:
        weights = parse_entries(cfg.league, agents=agent_names(spec))
    except ValueError as exc:
        raise InputError(f"--league {cfg.league!r}: {exc}") from None
    for name in weights:
        if name not in ("self", "snapshot") and weights[name] > 0:
            _check_agent(spec, name, "--league entry")
    for name in (o for o in args.eval_vs.split(",") if o):
        _check_agent(spec, name, "--eval-vs")
    if args.bc_teacher:
        _check_agent(spec, args.bc_teacher, "--bc-teacher")
    try:
        resolve_device(getattr(args, "device", "cpu"))
        check_unreserved(
            args.seed, f"--seed {args.seed}" + (" (--evaluate chooses snapshots)" if args.evaluate else "")
        )
    except (LoopInputError, ValueError) as exc:
        raise InputError(str(exc)) from None
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        raise InputError(f"--out {args.out}: a file is there; expected a folder")
    net = None
    if args.init:
        try:
            net = load_net(args.init, game_layout(spec))
        except (CheckpointError, OSError) as exc:
            raise InputError(f"--init {args.init}: {' '.join(str(exc).split())}") from None
    if args.evaluate:
        try:
            load_policy(args.evaluate, layout=game_layout(spec))
        except (CheckpointError, OSError) as exc:
            raise InputError(f"--evaluate {args.evaluate}: {' '.join(str(exc).split())}") from None
    return cfg, net


def run(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """Train as ``args`` say; writes the run folder; returns the last evaluation."""
    cfg, net = prepare(args)
    _threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sp = SelfPlay(cfg, net, device=getattr(args, "device", "cpu"))
    meta = {"command": command, "config": asdict(cfg), "init": args.init}
    one = cfg.players[0] if len(set(cfg.players)) == 1 else None  # the checkpoints' player count, if only one
    (out / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
    log = open(out / "train.log", "a")
    if args.bc_teacher:
        t = time.perf_counter()
        data = collect_teacher(sp.spec, args.bc_teacher, cfg.players, args.bc_decisions, seed=cfg.seed)
        t_bc = time.perf_counter()
        sp.net.to("cpu")  # the cloning loop reads host tensors; the same parameters go back after
        info = behaviour_clone(sp.net, data, args.bc_epochs, seed=cfg.seed)
        sp.net.to(sp.device)
        rec = {"bc_samples": int(data["obs"].shape[0]), "collect_s": round(t_bc - t, 1)}
        rec.update(clone_s=round(time.perf_counter() - t_bc, 1), **{k: round(v, 4) for k, v in info.items()})
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print("[bc]", rec, flush=True)
        save_net(sp.net, out / "bc.json", sp.layout, players=one, card={"command": command, "warm_start": rec})
    evalf = out / "eval.csv"
    if not evalf.exists():
        evalf.write_text("steps,wall_s,players,opponent,games,rate,low,high\n")
    t0 = time.perf_counter()
    next_eval = args.eval_every
    last: dict[str, Any] = {}

    def evaluate(tag: str) -> None:
        nonlocal last
        agent = sp.agent()
        for opp in [o for o in args.eval_vs.split(",") if o]:
            for p in dict.fromkeys(cfg.players):
                rate, lo, hi = evaluate_vs(sp.spec, agent, opp, p, args.eval_games, seed=12345)
                with open(evalf, "a", newline="") as fh:
                    csv.writer(fh).writerow(
                        [sp.steps, round(time.perf_counter() - t0, 1), p, opp, args.eval_games,
                         round(rate, 4), round(lo, 4), round(hi, 4)]
                    )  # fmt: skip
                last[f"{p}p-{opp}"] = rate
                print(f"[{tag}] steps {sp.steps} {p}p vs {opp}: {rate:.3f} [{lo:.3f}, {hi:.3f}]", flush=True)
        card = {"command": command, "steps": sp.steps, "wall_s": round(time.perf_counter() - t0, 1)}
        save_net(sp.net, out / "last.json", sp.layout, players=one, card=card)
        save_net(sp.net, out / f"step_{sp.steps}.json", sp.layout, players=one, card=card)

    while sp.steps < args.total_steps:
        info = sp.iterate()
        res = {k: round(float(np.mean(v)), 3) for k, v in sorted(sp.results.items()) if len(v) >= 20}
        sp.results = {k: v[-200:] for k, v in sp.results.items()}
        rec = {
            "steps": sp.steps,
            "wall_s": round(time.perf_counter() - t0, 1),
            **{k: round(v, 4) for k, v in info.items()},
        }
        log.write(json.dumps({**rec, "train_win": res}) + "\n")
        log.flush()
        if sp.steps >= next_eval:
            evaluate("eval")
            next_eval += args.eval_every
    evaluate("final")
    return last


def evaluate_checkpoint(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--evaluate PATH``: the checkpoint's greedy policy against each ``--eval-vs`` opponent at each
    player count; prints and returns one row each (win rate, 95% Wilson interval, parity ``1/P``)."""
    _threads(args.threads)
    spec = resolve_game(args.game)
    agent = load_policy(args.evaluate, layout=game_layout(spec))
    rows = []
    for opp in [o for o in args.eval_vs.split(",") if o]:
        for p in _ints(args.players, "players"):
            t = time.perf_counter()
            rate, lo, hi = evaluate_vs(spec, agent, opp, p, args.eval_games, seed=args.seed)
            row = {"players": p, "opponent": opp, "games": args.eval_games, "rate": round(rate, 4),
                   "low": round(lo, 4), "high": round(hi, 4), "parity": round(1 / p, 4),
                   "seconds": round(time.perf_counter() - t, 1)}  # fmt: skip
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None, prog: str = "python -m ohmygoods_training.selfplay") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        prepare(args)
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.evaluate:
        evaluate_checkpoint(args)
        return 0
    if not args.out:
        print(f"{prog}: error: --out RUN_FOLDER is needed to train (or --evaluate CHECKPOINT)", file=sys.stderr)
        return 2
    command = " ".join([prog, *(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))])
    run(args, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
