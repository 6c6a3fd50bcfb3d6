"""The one self-play loop of every registered game: a lean masked PPO in plain torch over the batch-engine protocol.

``python -m ohmygoods_training.fast_ppo --players 3 --total-steps 2000000 --out runs/fast3p`` (*Oh my Goods!*),
``python -m ohmygoods_training.fast_ppo --game artificium --players 2,3,4,5,6 --minutes 30 --out runs/art``
(``ohmygoods train [--game NAME]`` runs it).

What it owns:

* :class:`SelfPlayRollout` — ``N`` games per player count, each count in one batch engine stepped
  only through :class:`~ohmygoods_env.framework.batch.BatchEngine` (``current_player``,
  ``observe`` / ``legal_mask`` of given rows, ``step``, ``rewards``, ``reset``, ``episode``). Every
  seat of every game has an owner drawn when the game starts: the learner (shared parameters;
  each of its decisions is a training sample, whatever the seat) or a league opponent (a frozen
  snapshot of the network, or an agent of the game by name). One engine step per batch step:
  learner rows are observed straight into preallocated buffers and answered by one forward (on the
  CPU in float32 through the network's sparse form, ``--sparse-forward``: its kit's
  ``sparse_forward``, :mod:`ohmygoods_agents.sparse`, which the update reads too); opponents are
  answered per owner, batched over their games.
* Per-seat GAE (:func:`gae_per_seat`): the samples of one seat of one game form a trajectory;
  the final reward (the engine's reward mode times ``reward_scale``, plus ``margin_coef`` times the
  score margin) goes to every seat's last decision when the game ends; a trajectory cut by the
  end of a rollout is bootstrapped with the value of that seat's current observation. Seats
  played by opponents leave no samples.
* :class:`FastPPO` — the update (clipped surrogate, value loss, entropy of the masked
  distribution, gradient clipping), snapshots into the league; :func:`run` — evaluations, the
  best network, ``final.json``, the progress bar.
* How it runs (docs/training.md): ``--device`` (:func:`resolve_device`), ``--threads``,
  ``--precision`` (float32, or bfloat16 mixed precision under :func:`autocast` with bucketed row
  counts, :func:`bucket`), ``--overlap`` (the next rollout collected in a thread during the update)
  and ``--pipeline`` (two tables per player count, one table's forward in a forward thread while the
  other steps).

What a game adds is its **training kit** (:mod:`ohmygoods_training.kits`, named by
``GameTools.training_kit``): the engine's options, the network (*Oh my Goods!*:
:class:`ohmygoods_agents.slotnet.SlotNet` with its heuristic prior, checkpoints of network kind
``slotnet``; any other game: an MLP), the league's agents, shaping potentials, the evaluation
and the warm start. The *Oh my Goods!* helpers :func:`save_agent`, :func:`load_net`,
:func:`behaviour_clone` and :func:`evaluate` live here (its kit calls them).

Output of ``--out runs/NAME``: ``eval.csv``, ``last.json`` / ``last.safetensors``,
``best.json`` / ``best.safetensors`` (best win rate against ``--eval-vs``), ``final.json``,
``train.log`` (one JSON line per iteration), ``run.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numba import njit
from ohmygoods_agents.policy_agents import SlotNetAgent, forward_threads, sample_masked
from ohmygoods_agents.reserved import check_unreserved
from ohmygoods_agents.slotnet import NEG, SlotNet
from torch import nn

from ohmygoods_env.rules import DEFAULT_MAX_ROUNDS

from .allocator import keep_freed_memory
from .league_spec import BASELINES, SEARCH_PREFIX, League, keep_snapshot, search_sims
from .stats import AgentResult, SoloResult, match, solo_score

LEARNER = -1


# ===================================================================== network


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy of the masked categorical (illegal actions contribute nothing, no NaN)."""
    logp = torch.log_softmax(logits, dim=1)
    return -(logp.exp() * logp).masked_fill(~mask, 0.0).sum(dim=1)


def legal_index(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(ids [n, K], valid [n, K])``: each row's legal action ids first (ascending), padded to the
    largest legal count ``K`` of the batch; ``valid`` marks the real entries.

    The update and the rollout work on these ``K`` columns instead of all ``N_ACTIONS``: the
    softmax, entropy and sampling cost scale with the legal actions (a few dozen at most). A mask on the
    CPU goes through :func:`legal_index_host` (a rollout's 7,579 x 624 masks: 1.7 ms against 15 ms for the
    tensor form, whose ``sum`` casts the booleans to int64 first); on another device, :func:`legal_index_device`.
    """
    if mask.device.type == "cpu":
        ids, valid = legal_index_host(np.ascontiguousarray(mask.numpy()))
        return torch.from_numpy(ids), torch.from_numpy(valid)
    return legal_index_device(mask)


def legal_index_device(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`legal_index` in tensor operations, where ``mask`` is (a GPU's)."""
    counts = mask.sum(1)
    k = max(1, int(counts.max()))
    r, c = mask.nonzero(as_tuple=True)  # row-major: each row's ids ascending
    j = torch.arange(r.shape[0], device=mask.device) - (torch.cumsum(counts, 0) - counts)[r]
    ids = torch.zeros((mask.shape[0], k), dtype=torch.int64, device=mask.device)
    valid = torch.zeros((mask.shape[0], k), dtype=torch.bool, device=mask.device)
    ids[r, j] = c
    valid[r, j] = True
    return ids, valid


@njit(cache=True, nogil=True)  # runs in the forward thread of a pipelined rollout
def legal_index_host(masks):
    """:func:`legal_index` of a host ``bool[n, A]`` array, as numpy ``(ids int64[n, K], valid bool[n, K])``:
    the same ids and padding, without torch's ``nonzero`` (and, for a device, without its syncs)."""
    n, a_count = masks.shape
    k = 1
    for r in range(n):
        c = 0
        for a in range(a_count):
            if masks[r, a]:
                c += 1
        k = max(k, c)
    ids = np.zeros((n, k), np.int64)
    valid = np.zeros((n, k), np.bool_)
    for r in range(n):
        j = 0
        for a in range(a_count):
            if masks[r, a]:
                ids[r, j] = a
                valid[r, j] = True
                j += 1
    return ids, valid


def legal_logits(logits: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """The logits of the legal ids (padding at ``NEG``): ``[n, K]``."""
    return logits.gather(1, ids).masked_fill(~valid, NEG)


#: the agent of a live :class:`SlotNet` (its earlier name here)
NetAgent = SlotNetAgent


def ppo_terms(
    logp_all: torch.Tensor,
    pos: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    v: torch.Tensor,
    ret: torch.Tensor,
    valid: torch.Tensor,
    clip: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The terms of the PPO loss of one minibatch, over the legal columns (:func:`legal_index`):
    ``(policy loss, value loss, entropy, share of clipped ratios)``.

    ``logp_all`` are the log-probabilities of the legal columns, ``pos`` the taken action's
    column, ``old_logp`` its log-probability when it was sampled; the advantages are
    normalised within the minibatch (a single sample is left as it is).
    """
    lp = logp_all.gather(1, pos[:, None]).squeeze(1)
    if adv.numel() > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = torch.exp(lp - old_logp)
    pg = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
    vl = 0.5 * ((v - ret) ** 2).mean()
    ent = -(logp_all.exp() * logp_all).masked_fill(~valid, 0.0).sum(1).mean()
    return pg, vl, ent, ((ratio - 1).abs() > clip).float().mean()


def ppo_update(
    batch: dict[str, torch.Tensor],
    forward: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
    params: Iterable[torch.nn.Parameter],
    opt: torch.optim.Optimizer,
    cfg: Any,
) -> dict[str, float]:
    """The one PPO update of every loop: ``cfg.epochs`` passes over ``batch`` in near-equal minibatches
    of about ``cfg.minibatch`` samples (a 1-sample remainder would make the advantage normalisation
    divide by a NaN standard deviation), :func:`ppo_terms` with ``cfg.clip``, the loss
    ``pg + cfg.vf_coef * v - cfg.ent_coef * entropy``, gradients clipped to ``cfg.max_grad_norm``.
    ``forward(rows) -> (logits, values)`` is the network on the batch rows ``rows``; a ``forward`` whose
    ``legal`` attribute is True is called ``forward(rows, ids, valid)`` with the rows' legal columns
    (:func:`legal_index`) and returns the logits of those columns (``NEG`` where not ``valid``). Returns the
    mean losses of the last epoch; a non-finite loss raises ``FloatingPointError``."""
    params = list(params)
    n = batch["obs"].shape[0]
    device = batch["obs"].device
    out: dict[str, float] = {}
    ids, valid = legal_index(batch["mask"])
    pos = ((ids == batch["action"][:, None]) & valid).to(torch.int8).argmax(1)  # the action's column
    for _ in range(cfg.epochs):
        perm = torch.randperm(n)  # drawn on the CPU whatever the device: the same minibatches on every device
        sums, count = np.zeros(4), 0
        for i in torch.tensor_split(perm, max(1, round(n / cfg.minibatch))):
            i = i.to(device)
            iv = valid[i]
            if getattr(forward, "legal", False):  # the logits of the legal columns only
                logits, v = forward(i, ids[i], iv)
                logp_all = torch.log_softmax(logits, 1)
            else:
                logits, v = forward(i)
                logp_all = torch.log_softmax(legal_logits(logits, ids[i], iv), 1)
            pg, vl, ent, clipped = ppo_terms(
                logp_all, pos[i], batch["logp"][i], batch["adv"][i], v, batch["ret"][i], iv, cfg.clip
            )
            loss = pg + cfg.vf_coef * vl - cfg.ent_coef * ent
            if not torch.isfinite(loss):
                raise FloatingPointError(f"PPO loss is {loss.item()} (policy {pg.item()}, value {vl.item()})")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            opt.step()
            sums += torch.stack((pg, vl, ent, clipped)).detach().cpu().numpy()  # one device sync, not four
            count += 1
        out = dict(zip(("pg_loss", "v_loss", "entropy", "clip_frac"), sums / max(count, 1), strict=True))
    return out


# ===================================================================== GAE


@njit(cache=True)
def gae_per_seat(values, rewards, next_idx, done, boot, gamma, lam, adv):
    """Advantages over interleaved per-seat trajectories, written into ``adv``; returns nothing.

    Sample ``i``'s successor in its own trajectory (same game, same seat) is ``next_idx[i]``
    (always ``> i``), or -1. ``done[i]``: the game ended after this seat's decision ``i``
    (``rewards[i]`` is that seat's final reward). Otherwise, with no successor, the
    trajectory was cut by the rollout and ``boot[i]`` is the value it continues from.
    """
    for i in range(values.shape[0] - 1, -1, -1):
        if done[i]:
            adv[i] = rewards[i] - values[i]
        elif next_idx[i] >= 0:
            j = next_idx[i]
            adv[i] = rewards[i] + gamma * values[j] - values[i] + gamma * lam * adv[j]
        else:
            adv[i] = rewards[i] + gamma * boot[i] - values[i]


# ===================================================================== device, threads, time split

#: what ``--device`` takes: ``auto`` is CUDA when ``torch.cuda.is_available()``, else the CPU
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda")
#: the parts of a training iteration that :class:`Split` times, in the order the benchmark prints them
PARTS: tuple[str, ...] = ("env", "copy", "forward", "prior", "opponents", "update")
#: what each part holds (``ohmygoods bench --train`` prints it)
PART_HELP: dict[str, str] = {
    "env": "the engine: step, observations and masks (fast_ppo: of the learner's rows only), games restarted",
    "copy": "host to device / numpy to torch: the learner's rows into the network's input",
    "forward": "the learner's policy inference and sampling (values and log-probabilities back on the host)",
    "prior": "the prior agent's choice for each learner decision (networks with a prior)",
    "opponents": "league seats: snapshots, baselines, searches (their own observations and forwards)",
    "update": "the PPO epochs over the rollout",
    "other": "the rest of the iteration: league draws, rewards, GAE, bookkeeping (total minus the parts)",
}


def resolve_device(spec: str | torch.device) -> torch.device:
    """The device of ``--device``: ``auto`` is ``cuda`` when ``torch.cuda.is_available()``, else ``cpu``;
    ``cuda`` without CUDA (or anything else) is an :class:`InputError`."""
    text = str(spec)
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if text == "cpu":
        return torch.device("cpu")
    if text == "cuda" or text.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise InputError(
                f"--device {text}: torch {torch.__version__} sees no CUDA device on this machine "
                "(expected --device cpu or auto, or a CUDA build of torch with a GPU)"
            )
        return torch.device(text)
    raise InputError(f"--device {text}: expected one of {', '.join(DEVICES)}")


#: what ``--precision`` takes: ``auto`` is ``bfloat16`` where the device computes it natively
#: (:func:`native_bfloat16`), else ``float32``
PRECISIONS: tuple[str, ...] = ("auto", "float32", "bfloat16")


def native_bfloat16(device: torch.device) -> bool:
    """Whether ``device`` multiplies bfloat16 matrices in hardware: a CUDA GPU that torch says supports
    bfloat16, or a CPU with AVX512-BF16 or AMX tiles (torch's own CPU checks). Elsewhere torch emulates
    bfloat16, which is slower than float32."""
    if device.type == "cuda":
        try:
            return bool(torch.cuda.is_bf16_supported())
        except (AssertionError, RuntimeError):  # a CPU build of torch, or no driver: no device to compute on
            return False
    if device.type != "cpu":
        return False
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


#: bfloat16 forwards run on a few row counts only (:func:`bucket`; a copy of the last row pads a minibatch,
#: the rollout reads the rows after its own in its buffer): oneDNN prepares its bfloat16 kernels for each
#: new shape, which costs more than the product itself when every call has another row count (a forward of
#: 150-300 rows of varying count: 6.5 us a row, in buckets of 64 rows: 2.6, at one fixed count: 2.2)
BUCKET = 64


def bucket(n: int) -> int:
    """``n`` rounded up to a multiple of :data:`BUCKET`, or of an eighth of the largest power of two not above
    ``n`` when that is coarser: at most 8 row counts per doubling, at most 1/8 of the rows padding."""
    n = int(n)
    step = max(BUCKET, (1 << max(n.bit_length() - 1, 0)) // 8)
    return -(-n // step) * step


def resolve_precision(spec: str | torch.dtype, device: torch.device) -> torch.dtype:
    """The compute type of ``--precision`` on ``device``: ``float32``, ``bfloat16``, or ``auto``
    (:func:`native_bfloat16` decides); anything else is an :class:`InputError`."""
    if isinstance(spec, torch.dtype):
        spec = str(spec).removeprefix("torch.")
    text = str(spec)
    if text == "auto":
        return torch.bfloat16 if native_bfloat16(torch.device(device)) else torch.float32
    if text in ("float32", "bfloat16"):
        return getattr(torch, text)
    raise InputError(f"--precision {text}: expected one of {', '.join(PRECISIONS)}")


def autocast(device: torch.device, dtype: torch.dtype) -> Any:
    """The context the network's matrix products run in: ``torch.autocast`` to ``dtype`` on ``device``'s
    type for ``bfloat16`` (weights, optimizer state and the loss stay float32: mixed precision), nothing
    for ``float32``. Autocast is per thread: the overlapped collector enters its own."""
    if dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(torch.device(device).type, dtype=dtype)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity where the OS says; else the machine's count)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def threads_arg(text: str) -> int:
    """``--threads``: ``auto`` (every usable core, :func:`usable_cores`) or a count of at least 1."""
    if str(text).strip() == "auto":
        return usable_cores()
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected auto or an integer >= 1, got {text!r}")
    return n


class Split:
    """Wall-clock seconds per part of the training loop (:data:`PARTS`), summed over the timed sections.

    ``with split("env"): ...`` adds the block's time to that part. The clock is ``time.perf_counter``
    (the benchmark timer's default wall clock). On CUDA, copies and kernels run asynchronously: a
    part's time is what the host waited, the rest shows in the part that synchronises (``forward``,
    which brings the sampled actions back).
    """

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        #: wall-clock seconds per part
        self.seconds: dict[str, float] = dict.fromkeys(PARTS, 0.0)
        #: CPU seconds of this process per part (what other processes on the machine disturb least)
        self.cpu_seconds: dict[str, float] = dict.fromkeys(PARTS, 0.0)

    @contextmanager
    def __call__(self, part: str) -> Iterator[None]:
        t, c = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.seconds[part] += time.perf_counter() - t
            self.cpu_seconds[part] += time.process_time() - c


# ===================================================================== rollouts


class _Table:
    """One player count of a rollout: its batch engine and who owns each seat of each game."""

    def __init__(self, engine: Any, owner: np.ndarray) -> None:
        self.engine, self.owner = engine, owner
        self.N, self.P = int(engine.num_games), int(engine.num_players)


class SelfPlayRollout:
    """``num_games`` games per player count with per-seat owners; collects the learner's decisions (see the module
    docstring). The games are stepped through the batch-engine protocol only
    (:class:`~ohmygoods_env.framework.batch.BatchEngine`); the game's training kit
    (:func:`~ohmygoods_training.kits.kit_of`) builds the engines and supplies the league's agents, the prior
    and the shaping potentials."""

    def __init__(
        self,
        net: Any,
        num_games: int,
        num_players: int | tuple[int, ...],
        rules: str = "omg2",
        league: League | None = None,
        reward: str = "margin",
        reward_scale: float = 0.1,
        seed: int = 0,
        gamma: float = 0.995,
        lam: float = 0.95,
        shaping: bool = False,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        device: str | torch.device = "cpu",
        *,
        game: str = "ohmygoods",
        margin_coef: float = 0.0,
        fast: bool = True,
        pipeline: bool = False,
        league_workers: int = 0,
        sparse: bool = True,
    ) -> None:
        from .kits import kit_of

        self.kit = kit_of(game)
        #: the learner's forwards read the network's sparse form where its kit has one (``--sparse-forward``: the
        #: kit's ``sparse_forward``, :mod:`ohmygoods_agents.sparse`; on the CPU in float32), else its dense forward
        self.sparse = bool(sparse)
        self._sparse_of: dict[int, tuple[Any, Any]] = {}
        #: the games of each player count in two tables: one table's forward runs in a second thread (the
        #: forward thread) while this one asks the league's seats and steps the engine of the other
        self.pipeline = bool(pipeline)
        self._pool: Any = None
        self.net = net
        #: where the network runs (its parameters must be there); the engine and the league stay on the host
        self.device = torch.device(device)
        self.split = Split()
        self._buffers: dict[str, Any] = {}
        #: the network reads device buffers that each step's rows are copied into (True off the CPU; a test
        #: sets it on the CPU to run the copying path of a GPU)
        self.staged = self.device.type != "cpu"
        #: the compute type of the network's forwards here (the learner and the bootstrap values):
        #: ``torch.bfloat16`` runs them under :func:`autocast`; their outputs come back as float32
        self.dtype = torch.float32
        if shaping and reward not in self.kit.shaped_modes:
            modes = " or ".join(self.kit.shaped_modes) or "none (this game has no shaping)"
            raise ValueError(f"shaping needs --reward {modes}, got {reward!r}")
        self.shaping = bool(shaping)
        self.reward_mode = reward
        self.margin_coef = float(margin_coef)
        self.gamma, self.lam = float(gamma), float(lam)
        counts = (int(num_players),) if isinstance(num_players, (int, np.integer)) else tuple(num_players)
        self.N, self.P = int(num_games), counts[0]
        self.league = league if league is not None else League()
        self.reward_scale = float(reward_scale)
        # options of the engines: what the game's kit reads (Oh my Goods!'s rules, reward mode, round cap)
        opts = argparse.Namespace(rules=rules, reward=reward, max_rounds=max_rounds, fast=fast)
        # the first count's games deal from ``seed``, count j's from seed + 1000 j (its own deals)
        halves = 2 if self.pipeline else 1
        if self.N < halves:
            raise ValueError(
                f"a pipelined rollout plays its games in two tables: expected num_games >= 2, got {self.N}"
            )
        # a pipelined count's second table deals from seed + 1000 j + 500
        engines = [
            self.kit.engine(self.N // halves + (h < self.N % halves), p, seed + 1000 * j + 500 * h, opts)
            for j, p in enumerate(counts)
            for h in range(halves)
        ]
        dims = {e.num_players: e.obs_dim for e in engines}
        if len(set(dims.values())) > 1:
            raise ValueError(
                f"one network needs one observation size, {self.kit.spec.name} has {dims} by player count: "
                "train one player count per run"
            )
        self.rng = np.random.default_rng(seed)
        self.gen = torch.Generator().manual_seed(int(seed))
        # owners: -1 learner, else an index into self.opponents (name, policy(engine, rows))
        self.opponents: list[tuple[str, Any]] = []
        self._fixed_idx: dict[str, int] = {}  # baselines and searches: one agent each
        self._fixed = [n for n in self.league.weights if n != "snapshot"]
        for k, name in enumerate(self._fixed):
            if self.league.weights[name] > 0:
                self._fixed_idx[name] = len(self.opponents)
                if league_workers > 0 and name in self.kit.poolable:  # its seats answered in worker processes
                    agent = self.kit.pooled_agent(name, seed + 17 * k, int(league_workers))
                else:
                    agent = self.kit.league_agent(name, seed + 17 * k)
                self.opponents.append((name, agent))
        self.snapshots: list[int] = []
        # a network with a prior: the prior's choice for every learner decision (a training input)
        self.prior = self.kit.prior(net.prior) if getattr(net, "prior", None) is not None else None
        if self.prior is not None and league_workers > 0:  # the prior's choices in worker processes too
            self.prior = self.kit.pooled_prior(net.prior, int(league_workers)) or self.prior
        self.tables = [_Table(e, np.full((e.num_games, e.num_players), LEARNER, np.int64)) for e in engines]
        for j, t in enumerate(self.tables):
            self._assign(np.arange(t.N), j)
        self.stats: dict[str, list[float]] = {}
        self.games_done = 0

    @property
    def games(self) -> Any:
        """The batch engine of the first player count (the only one of a one-count run)."""
        return self.tables[0].engine

    @property
    def owner(self) -> np.ndarray:
        """Who plays each seat of the first player count's games (-1: the learner)."""
        return self.tables[0].owner

    # -------------------------------------------------------------- league
    def add_snapshot(self) -> None:
        """Freeze the current network into the league (the oldest beyond ``max_snapshots`` is replaced)."""
        sparse = self._sparse_forward(self.net) is not None  # its seats answered as the learner's rows are
        entry = ("snapshot", self.kit.snapshot(self.net, int(self.rng.integers(1 << 31)), sparse=sparse))
        keep_snapshot(self.opponents, self.snapshots, entry, self.league.max_snapshots)

    def _assign(self, rows: np.ndarray, j: int = 0) -> None:
        """Draw the owners of every seat of the games in ``rows`` of player count ``j`` (one learner seat at least)."""
        if rows.size == 0:
            return
        P = self.tables[j].P
        names = ["self", "snapshot", *self._fixed]
        w = np.array([self.league.self_share] + [self.league.weights.get(n, 0.0) for n in names[1:]])
        if not self.snapshots:  # its seats are the learner's until the first snapshot (a copy would be the same net)
            w[0] += w[1]
            w[1] = 0.0
        w = w / w.sum()
        draw = self.rng.choice(len(names), size=(rows.size, P), p=w)
        keep = self.rng.integers(P, size=rows.size)  # the seat that is surely the learner's
        draw[np.arange(rows.size), keep] = 0
        owner = np.full(draw.shape, LEARNER, np.int64)
        for k, name in enumerate(names[1:], start=1):
            sel = draw == k
            if not sel.any():
                continue
            if name == "snapshot":
                owner[sel] = np.asarray(self.snapshots)[self.rng.integers(len(self.snapshots), size=int(sel.sum()))]
            else:
                owner[sel] = self._fixed_idx[name]
        self.tables[j].owner[rows] = owner

    def _buffer(self, cap: int) -> dict[str, Any]:
        """The rollout's observation and mask buffers, allocated once for ``cap`` samples (again only when a
        longer rollout needs more): each learner row is observed straight into its sample's place.

        On the CPU the network reads these buffers as they are; on CUDA they are pinned host memory and
        each step's rows are copied once into the device buffers the update then reads.
        """
        b = self._buffers
        if b.get("cap", 0) < cap or b.get("staged") != self.staged:
            b.clear()
            pin = self.device.type == "cuda"
            staged = self.staged
            obs_dim, n_actions = self.games.obs_dim, self.games.n_actions
            # BUCKET rows past the end: a bfloat16 forward reads up to a whole bucket (:func:`bucket`)
            host_obs = torch.zeros((cap + BUCKET, obs_dim), dtype=torch.float32, pin_memory=pin)
            host_mask = torch.empty((cap, n_actions), dtype=torch.bool, pin_memory=pin)
            host_prior = torch.full((cap,), -1, dtype=torch.int64, pin_memory=pin)
            b.update(cap=cap, staged=staged, host_obs=host_obs, host_mask=host_mask, host_prior=host_prior)
            b.update(obs=host_obs.numpy(), masks=host_mask.numpy(), prior=host_prior.numpy())
            if staged:
                b.update(
                    dev_obs=torch.zeros((cap + BUCKET, obs_dim), dtype=torch.float32, device=self.device),
                    dev_mask=torch.empty((cap, n_actions), dtype=torch.bool, device=self.device),
                    dev_prior=torch.empty((cap,), dtype=torch.int64, device=self.device),
                )
            else:
                b.update(dev_obs=host_obs, dev_mask=host_mask, dev_prior=host_prior)
        return b

    def swap_buffers(self) -> None:
        """Let the next :meth:`collect` write into a second set of buffers, so that the views of the last
        rollout (``obs``, ``mask``, ``prior``) stay as they are while the next one is collected (the
        overlapped loop, :class:`FastPPO` with ``overlap``, updates on one while it collects the other)."""
        spare = getattr(self, "_spare", {})
        self._spare, self._buffers = self._buffers, spare

    def _to_device(self, b: dict[str, Any], name: str, lo: int, hi: int) -> torch.Tensor:
        """Rows ``lo:hi`` of buffer ``name`` where the network reads them: on the CPU the buffer itself, on
        another device its device buffer, the new rows copied there once (asynchronously, from pinned memory)."""
        dev = b["dev_" + name][lo:hi]
        if self.staged:
            dev.copy_(b["host_" + name][lo:hi], non_blocking=True)
        return dev

    # -------------------------------------------------------------- collecting
    def _forward_pool(self) -> Any:
        """The forward thread of a pipelined rollout (None otherwise), started on first use."""
        if not self.pipeline:
            return None
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            # torch's thread count is per thread under OpenMP: the forward thread takes this one's, so its
            # products split (and round) as they would here
            self._pool = ThreadPoolExecutor(1, "forward", initializer=torch.set_num_threads,
                                            initargs=(torch.get_num_threads(),))  # fmt: skip
        return self._pool

    def close(self) -> None:
        """Stop the forward thread of a pipelined rollout and the worker processes of pooled league seats
        (no-ops otherwise)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        from .league_pool import PooledPolicy

        for agent in [a for _, a in self.opponents] + [self.prior]:
            if isinstance(agent, PooledPolicy):
                agent.close()

    def _sparse_forward(self, net: Any) -> Any:
        """The sparse form of ``net`` that the learner's forwards read (None: its dense forward): where the
        rollout asks for it, the kit has one for this network, and the forwards run on the CPU in float32."""
        if not self.sparse or self.device.type != "cpu" or self.dtype != torch.float32:
            return None
        got = self._sparse_of.get(id(net))
        if got is None or got[0] is not net:
            got = self._sparse_of[id(net)] = (net, self.kit.sparse_forward(net))
        return got[1]

    def _act(
        self, net: Any, x: torch.Tensor, pa: torch.Tensor | None, masks: np.ndarray, n: int, P: int, clock: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The learner's forward over one table step's ``n`` rows (``x`` may hold a bucket's padding after
        them): the sampled actions, their log-probabilities and the values, as numpy arrays. Actions are
        sampled on the host with the rollout's generator, so a seed draws the same on every device (and, in
        the one forward thread of a pipelined rollout, in the order the steps were started)."""
        timer = clock("forward") if clock is not None else contextlib.nullcontext()
        sparse = self._sparse_forward(net)
        if sparse is not None:  # the host's rows through the network's sparse form: the same numbers, rounded
            with timer, torch.inference_mode(), forward_threads(n, self.device):
                lg, ids, valid, v = sparse(x.numpy()[:n], masks, P, None if pa is None else pa.numpy()[:n])
                c, lp = sparse.sample(lg, valid, self.gen)
            return ids[np.arange(n), c], lp, v.numpy().copy()  # its buffers: the next forward writes over them
        with timer, torch.inference_mode(), forward_threads(n, self.device):
            with autocast(self.device, self.dtype):
                h = net.features(x, seats=P)  # every row is a P-player game: no slot encoding of empty seats
                v = net.v(h).squeeze(1)[:n]
                logits = net.policy_logits(h, pa)[:n]
            ids_np, valid_np = legal_index_host(masks)  # from the host's copy of the masks
            ids, valid = torch.from_numpy(ids_np), torch.from_numpy(valid_np)
            dev_ids, dev_valid = ids.to(self.device), valid.to(self.device)
            lg = legal_logits(logits.float(), dev_ids, dev_valid)
            lg, v = lg.cpu(), v.float().cpu()
            c = sample_masked(lg, self.gen)
            a = ids.gather(1, c[:, None]).squeeze(1)
            lp = torch.log_softmax(lg, 1).gather(1, c[:, None]).squeeze(1)
        return a.numpy(), lp.numpy(), v.numpy()

    def collect(self, n_steps: int) -> dict[str, torch.Tensor]:
        """Play ``n_steps`` batch steps of every player count; returns the learner's samples with advantages
        and returns.

        Keys: ``obs``, ``mask``, ``action``, ``prior`` (the prior's action; -1 without a prior),
        ``logp``, ``value``, ``adv``, ``ret``, ``reward`` (the final reward on a seat's last
        decision of a game, else 0; with shaping, the shaped rewards), ``done``, ``next`` (the
        seat's next sample or -1), ``where`` (game slot, seat, episode of the slot; the slot of a
        later player count counts on from the earlier counts' slots) and ``phi`` (the seat's
        potential at the decision; 0 without shaping). ``obs``, ``mask``, ``action``, ``prior``,
        ``logp``, ``adv`` and ``ret`` are on the rollout's device, the rest on the host. ``obs``,
        ``mask`` and ``prior`` are views of the rollout's buffers: the next ``collect`` writes over
        them (copy them to keep them). Each part's time goes to :attr:`split`.
        """
        clock = self.split
        cap = sum(t.N for t in self.tables) * n_steps
        buf = self._buffer(cap)
        obs, masks, prior = buf["obs"], buf["masks"], buf["prior"]
        prior[:cap] = -1
        actions = np.empty(cap, np.int64)
        logp = np.empty(cap, np.float32)
        values = np.empty(cap, np.float32)
        rewards = np.zeros(cap, np.float32)
        done = np.zeros(cap, np.bool_)
        next_idx = np.full(cap, -1, np.int64)
        where = np.empty((cap, 3), np.int64)  # game slot, seat, episode of the slot
        phi = np.zeros(cap, np.float64)  # the seat's potential at each decision (shaping)
        lasts = [np.full((t.N, t.P), -1, np.int64) for t in self.tables]
        acts = [np.zeros(t.N, np.int64) for t in self.tables]
        offsets = np.cumsum([0] + [t.N for t in self.tables])
        k = 0
        net = self.net
        amp = autocast(self.device, self.dtype)  # the bootstrap values' forward (the steps' own: _act)
        pool = self._forward_pool()

        def launch(j: int) -> tuple[Any, ...]:
            """Table ``j``'s learner rows observed and their forward started (in the forward thread when
            pipelined); the bookkeeping that needs the sample ids, not the actions."""
            nonlocal k
            t = self.tables[j]
            g, P, last = t.engine, t.P, lasts[j]
            live = np.flatnonzero(~g.done).astype(np.int64)
            cur = g.current_player[live].astype(np.int64)
            who = t.owner[live, cur]
            lrn = who == LEARNER
            rows, seats = live[lrn], cur[lrn]
            n = rows.size
            if not n:
                return live, who, lrn, rows, None, None
            with clock("env"):
                g.observe(rows=rows, out=obs[k : k + n])
                g.legal_mask(rows=rows, out=masks[k : k + n])
            pa = None
            if self.prior is not None:
                with clock("prior"):
                    prior[k : k + n] = self.prior(g, rows)
            m = n if self.dtype == torch.float32 else bucket(n)  # bfloat16: a whole bucket of rows
            with clock("copy"):
                x = self._to_device(buf, "obs", k, k + m)
                self._to_device(buf, "mask", k, k + n)  # for the update, which reads the masks there
                if self.prior is not None:
                    pa = self._to_device(buf, "prior", k, k + n)
                    if m > n:
                        pa = torch.cat((pa, pa.new_zeros(m - n)))
            idx = np.arange(k, k + n)
            k += n
            args = (net, x, pa, masks[idx[0] : idx[-1] + 1], n, P)
            job = pool.submit(self._act, *args) if pool is not None else self._act(*args, clock=clock)
            prev = last[rows, seats]
            has = prev >= 0
            next_idx[prev[has]] = idx[has]
            if self.shaping:  # the previous decision earns the change of potential since
                phi[idx] = self.kit.potentials(g, rows, seats, self.reward_mode)
                rewards[prev[has]] += self.reward_scale * (phi[idx[has]] - phi[prev[has]])
            last[rows, seats] = idx
            where[idx, 0], where[idx, 1], where[idx, 2] = rows + offsets[j], seats, g.episode[rows]
            return live, who, lrn, rows, idx, job

        def land(j: int, started: tuple[Any, ...]) -> None:
            """Table ``j``'s step: the learner's actions in, the league's seats asked, the engine stepped,
            finished games rewarded, restarted and re-seated."""
            t = self.tables[j]
            g, act, live, who, lrn, rows, idx, job = t.engine, acts[j], *started
            if idx is not None:
                if pool is not None:
                    with clock("forward"):  # pipelined: what this thread waited for the forward thread
                        job = job.result()
                actions[idx], logp[idx], values[idx] = job
                act[rows] = actions[idx]
            opp_rows, opp_who = live[~lrn], who[~lrn]
            if opp_rows.size:
                with clock("opponents"):
                    for o in np.unique(opp_who):
                        sel = opp_rows[opp_who == o]
                        act[sel] = self.opponents[int(o)][1](g, sel)
            with clock("env"):
                g.step(act)  # every row: finished games ignore their action
            ended = live[g.done[live]]
            if ended.size:
                self._finish(j, ended, lasts[j], rewards, done, phi)
                with clock("env"):
                    g.reset(np.isin(np.arange(t.N), ended))
                self._assign(ended, j)

        if pool is None:
            for _ in range(n_steps):
                for j in range(len(self.tables)):
                    land(j, launch(j))
        else:  # one table's forward runs in the forward thread while this one steps the other tables
            started: list[Any] = [None] * len(self.tables)
            for _ in range(n_steps):
                for j in range(len(self.tables)):
                    if started[j] is not None:
                        land(j, started[j])
                    started[j] = launch(j)
            for j in range(len(self.tables)):
                land(j, started[j])
        # trajectories cut by the end of the rollout continue from the value of the seat's own view
        boot = np.zeros(cap, np.float32)
        for j, t in enumerate(self.tables):
            g, last = t.engine, lasts[j]
            cut_g, cut_p = np.nonzero(last >= 0)
            if cut_g.size:
                cut = last[cut_g, cut_p]
                if self.shaping:
                    now = self.kit.potentials(g, cut_g, cut_p, self.reward_mode)
                    rewards[cut] += self.reward_scale * (now - phi[cut])
                with clock("env"):
                    o = g.observe(players=cut_p.astype(np.int64), rows=cut_g.astype(np.int64))
                with clock("copy"):
                    o = torch.from_numpy(o).to(self.device)
                sparse = self._sparse_forward(net)
                with clock("forward"), torch.inference_mode(), amp, forward_threads(len(o), self.device):
                    if sparse is not None:
                        v = sparse.values(o.numpy(), t.P)
                    else:
                        v = net.v(net.features(o, seats=t.P)).squeeze(1).float().cpu()
                boot[cut] = v.numpy()
        adv = np.zeros(k, np.float32)
        gae_per_seat(values[:k], rewards[:k], next_idx[:k], done[:k], boot[:k], self.gamma, self.lam, adv)
        with clock("copy"):
            if self.prior is None and self.staged:
                buf["dev_prior"][:k].fill_(-1)
            dev = {
                "action": torch.from_numpy(actions[:k]),
                "logp": torch.from_numpy(logp[:k]),
                "adv": torch.from_numpy(adv),
                "ret": torch.from_numpy(adv + values[:k]),
            }
            dev = {key: t.to(self.device) for key, t in dev.items()}
        return {
            "obs": buf["dev_obs"][:k],
            "mask": buf["dev_mask"][:k],
            "prior": buf["dev_prior"][:k],
            **dev,
            "value": torch.from_numpy(values[:k]),
            "reward": torch.from_numpy(rewards[:k]),
            "done": torch.from_numpy(done[:k]),
            "next": torch.from_numpy(next_idx[:k]),
            "where": torch.from_numpy(where[:k]),
            "phi": torch.from_numpy(phi[:k]),
        }

    def _finish(
        self, j: int, ended: np.ndarray, last: np.ndarray, rewards: np.ndarray, done: np.ndarray, phi: np.ndarray
    ) -> None:
        """Deliver the final rewards of the games in ``ended`` (of player count ``j``) to every learner seat's
        last decision: the engine's reward (its mode) times ``reward_scale``, plus ``margin_coef`` times the
        score margin."""
        t = self.tables[j]
        r = t.engine.rewards[ended]  # [n, P]
        win = r
        if self.margin_coef:
            from .kits import margins

            r = r * self.reward_scale + self.margin_coef * margins(np.asarray(t.engine.scores(), np.float32)[ended])
            scale = 1.0
        else:
            scale = self.reward_scale
        for p in range(t.P):
            idx = last[ended, p]
            has = idx >= 0
            i = idx[has]
            rewards[i] = r[has, p] * scale
            if self.shaping:  # the final reward minus the potential the shaped rewards already paid
                rewards[i] -= self.reward_scale * phi[i]
            done[i] = True
        last[ended] = -1
        # training-time outcomes of the learner seats, per kind of the other seats
        if t.P == 1:  # solo (R10.3): the training-time score instead of a win rate
            self.stats.setdefault("score", []).extend(win[:, 0].tolist())
            for key, values in self.kit.solo_stats(t.engine, ended).items():
                self.stats.setdefault(key, []).extend(values)
            self.games_done += ended.size
            return
        prefix = f"{t.P}p:" if len({u.P for u in self.tables}) > 1 else ""
        for e, gi in enumerate(ended):
            own = t.owner[gi]
            kinds = {self.opponents[int(o)][0] for o in own if o != LEARNER}
            key = prefix + ("self" if not kinds else "+".join(sorted(kinds)))
            for p in np.flatnonzero(own == LEARNER):
                mine = win[e, p]  # win and margin rewards: > 0 for the winner, 0 for a tie
                w = 1.0 if mine > 0 else (0.5 if mine == 0 else 0.0)
                self.stats.setdefault(key, []).append(w)
        self.games_done += ended.size


# ===================================================================== PPO


@dataclass
class PPOConfig:
    """Hyperparameters of :class:`FastPPO` (the CLI flags have the same names)."""

    players: int | tuple[int, ...] = 2
    rules: str = "omg2"
    num_envs: int = 256
    n_steps: int = 32
    epochs: int = 2
    minibatch: int = 4096
    lr: float = 3e-4
    gamma: float = 0.995
    lam: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward: str = "margin"
    reward_scale: float = 0.1
    #: 1: potential-based shaping (:mod:`ohmygoods_training.shaping`), a reward at every decision
    shaping: int = 0
    #: the round cap of the training games (R8.4); evaluation keeps the default
    max_rounds: int = DEFAULT_MAX_ROUNDS
    hidden: int = 128
    embed: int = 16
    #: ``heuristic``: add the heuristic's choice to the logits (:mod:`ohmygoods_agents.slotnet`); empty: none
    prior: str = ""
    #: the prior's starting logit bonus (a learned parameter)
    prior_gain: float = 4.0
    league: str = "self:0.6,snapshot:0.3,heuristic:0.03,greedy:0.04,random:0.03"
    max_snapshots: int = 5
    snapshot_every: int = 200_000
    seed: int = 0
    #: the game (its training kit, :func:`ohmygoods_training.kits.kit_of`, supplies the network and the league)
    game: str = "ohmygoods"
    #: added to the final reward: this times the score margin (own score minus the best other)
    margin_coef: float = 0.0
    #: 1: the rollout's forwards and the update read the network's sparse form (its kit's: :class:`SparseForward`
    #: for the slot network, ``kits.MLPSparseForward`` for the MLP; CPU, float32): the same numbers up to float
    #: rounding, faster; 0: the dense forward
    sparse_forward: int = 1


class FastPPO:
    """The learner: the game's network (:class:`SlotNet` for *Oh my Goods!*), a :class:`SelfPlayRollout` and
    an Adam optimizer.

    ``overlap`` (``--overlap``): the next rollout is collected in a background thread while the
    update of the last one runs, by a frozen copy of the network from before that update (:attr:`behaviour`;
    its log-probabilities are the samples' ``logp``, so the PPO ratio stays that of the policy that played:
    one update of policy lag). Iteration ``k`` updates on rollout ``k`` while rollout ``k + 1`` is collected;
    the first iteration collects its rollout first. On the CPU the collector's numba kernels run on one thread
    and torch's thread count is the process's (``--threads``), shared by the update and the collector's
    forwards; on CUDA the update runs on the GPU, the collector keeps every numba thread and runs its copies
    and forwards on a stream of its own.
    """

    def __init__(
        self,
        cfg: PPOConfig,
        net: Any | None = None,
        device: str | torch.device = "cpu",
        *,
        overlap: bool = False,
        precision: str | torch.dtype = "float32",
        pipeline: bool = False,
        league_workers: int = 0,
    ) -> None:
        from .kits import kit_of

        self.cfg = cfg
        self.kit = kit_of(cfg.game)
        #: where the network's inference and update run (:func:`resolve_device`); checkpoints are saved from the host
        self.device = resolve_device(device)
        #: the compute type of the network's forwards and update (:func:`resolve_precision`, :func:`autocast`)
        self.dtype = resolve_precision(precision, self.device)
        torch.manual_seed(cfg.seed)
        self.net = net if net is not None else self.kit.new_net(cfg)
        self.net.to(self.device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, eps=1e-5)
        league = self.kit.league(cfg.league, cfg.max_snapshots)
        self.rollout = SelfPlayRollout(
            self.net, cfg.num_envs, cfg.players, cfg.rules, league, cfg.reward, cfg.reward_scale, cfg.seed,
            cfg.gamma, cfg.lam, bool(cfg.shaping), cfg.max_rounds, self.device, game=cfg.game,
            margin_coef=cfg.margin_coef, fast=getattr(cfg, "fast", True), pipeline=pipeline,
            league_workers=league_workers, sparse=bool(cfg.sparse_forward),
        )  # fmt: skip
        self.rollout.dtype = self.dtype
        self.steps = 0
        self.next_snapshot = 0
        self.timing = {"rollout_s": 0.0, "update_s": 0.0}
        #: the overlapped loop (see the class): its frozen network, its collector thread, the next rollout
        self.overlap = bool(overlap)
        self.behaviour: Any | None = None
        self._collector: Any | None = None
        self._pending: tuple[dict[str, torch.Tensor], float] | None = None
        #: CUDA: the collector's own stream (its copies and forwards do not queue behind the update's kernels)
        self._stream: Any | None = None
        if self.overlap:
            from concurrent.futures import ThreadPoolExecutor

            import numba

            self.behaviour = copy.deepcopy(self.net)
            for p in self.behaviour.parameters():
                p.requires_grad_(False)
            self.rollout.net = self.behaviour  # the collector plays (and snapshots) the frozen copy
            # on the CPU the update takes the cores and the collector's kernels run on one thread; on a GPU the
            # update runs there and the collector's kernels keep every numba thread of the process
            n = 1 if self.device.type == "cpu" else numba.get_num_threads()
            self._collector = ThreadPoolExecutor(
                1, "collector", initializer=_collector_threads, initargs=(n, torch.get_num_threads())
            )
            if self.device.type == "cuda":
                self._stream = torch.cuda.Stream(self.device)

    def update(self, batch: dict[str, torch.Tensor]) -> dict[str, float]:
        """PPO epochs over the batch (:func:`ppo_update`); returns mean losses of the last epoch."""

        seats = self.cfg.players if isinstance(self.cfg.players, int) else None
        amp = autocast(self.device, self.dtype)
        # bfloat16: the observations cast once (autocast casts them at the network's first products anyway; the
        # slot sums then round in bfloat16, within 1e-3 of the outputs); gathering a minibatch moves half the
        # bytes (in float32 the gather was a quarter of a bfloat16 update's CPU time)
        obs = batch["obs"] if self.dtype == torch.float32 else batch["obs"].to(self.dtype)

        def forward(i: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            n = i.shape[0]
            if self.dtype != torch.float32 and bucket(n) > n:  # whole buckets: copies of the last row pad
                i = torch.cat((i, i[-1:].expand(bucket(n) - n)))
            with amp:  # bfloat16: the products in it, the loss in float32 from these outputs
                h = self.net.features(obs[i], seats=seats)
                pa = batch["prior"][i] if self.net.prior is not None else None
                logits, v = self.net.policy_logits(h, pa), self.net.v(h).squeeze(1)
            return logits[:n].float(), v[:n].float()

        sparse = self.rollout._sparse_forward(self.net)
        if sparse is not None:  # the network's sparse form, as the rollout's forwards (--sparse-forward)
            # each sample's nonzero inputs, read once (several player counts: each row's absent seats are empty)
            sb = sparse.batch(batch["obs"].numpy(), *(() if seats is None else (seats,)))

            def forward_legal(i: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> tuple[Any, Any]:
                pa = batch["prior"][i] if self.net.prior is not None else None
                return sparse.train_forward(sb, i.numpy(), ids, valid, pa)

            forward_legal.legal = True  # type: ignore[attr-defined]
            return ppo_update(batch, forward_legal, self.net.parameters(), self.opt, self.cfg)
        return ppo_update(batch, forward, self.net.parameters(), self.opt, self.cfg)

    def _snapshot_due(self) -> None:
        if self.steps >= self.next_snapshot and self.rollout.league.weights.get("snapshot", 0) > 0:
            self.rollout.add_snapshot()
            self.next_snapshot += self.cfg.snapshot_every

    def _collect_timed(self) -> tuple[dict[str, torch.Tensor], float]:
        t = time.perf_counter()
        if self._stream is None:
            batch = self.rollout.collect(self.cfg.n_steps)
        else:  # CUDA: on the collector's stream, after the weights the learner's stream copied in; done at return
            self._stream.wait_stream(torch.cuda.default_stream(self.device))
            with torch.cuda.stream(self._stream):
                batch = self.rollout.collect(self.cfg.n_steps)
            self._stream.synchronize()
        return batch, time.perf_counter() - t

    def iterate(self) -> dict[str, float]:
        """One rollout and one update; returns its numbers (``overlap``: the update of the rollout collected
        during the last iteration, while the next is collected; ``rollout_s`` is the collector's time,
        ``iter_s`` the iteration's)."""
        if self.overlap:
            return self._iterate_overlapped()
        self._snapshot_due()
        t0 = time.perf_counter()
        batch = self.rollout.collect(self.cfg.n_steps)
        t1 = time.perf_counter()
        with self.rollout.split("update"):
            info = self.update(batch)
        t2 = time.perf_counter()
        n = int(batch["obs"].shape[0])
        self.steps += n
        self.timing["rollout_s"] += t1 - t0
        self.timing["update_s"] += t2 - t1
        info.update(samples=n, rollout_s=t1 - t0, update_s=t2 - t1)
        return info

    def _iterate_overlapped(self) -> dict[str, float]:
        t0 = time.perf_counter()
        if self._pending is None:  # the first rollout: nothing to overlap it with
            self.behaviour.load_state_dict(self.net.state_dict())  # the network as it is now (a warm start)
            self._snapshot_due()
            self._pending = self._collect_timed()
        batch, rollout_s = self._pending
        self._pending = None
        self._snapshot_due()  # from the frozen copy, which the learner's network equals now
        self.rollout.swap_buffers()  # the next rollout leaves this one's observations and masks alone
        job = self._collector.submit(self._collect_timed)
        t1 = time.perf_counter()
        try:
            with self.rollout.split("update"):
                info = self.update(batch)
            t2 = time.perf_counter()
        finally:
            self._pending = job.result()  # the collector's error, if any, raises here
        self.behaviour.load_state_dict(self.net.state_dict())  # the next rollout's policy: this update's result
        n = int(batch["obs"].shape[0])
        self.steps += n
        self.timing["rollout_s"] += rollout_s
        self.timing["update_s"] += t2 - t1
        info.update(samples=n, rollout_s=rollout_s, update_s=t2 - t1, iter_s=time.perf_counter() - t0)
        return info

    def close(self) -> None:
        """Stop the overlapped loop's collector thread and the pipelined rollout's forward thread (no-ops
        otherwise); the rollout the collector holds is dropped."""
        if self._collector is not None:
            self._collector.shutdown(wait=True)
            self._collector, self._pending = None, None
        self.rollout.close()

    def agent(self, deterministic: bool = True) -> Any:
        """The network as an agent (on the host: a copy when it trains on another device)."""
        return self.kit.agent(host_net(self.net), deterministic=deterministic, seed=0, name="fast_ppo")

    @property
    def counts(self) -> tuple[int, ...]:
        """The run's player counts."""
        return (self.cfg.players,) if isinstance(self.cfg.players, int) else tuple(self.cfg.players)


def host_net(net: Any) -> Any:
    """``net`` itself when it is on the CPU, else a copy there (agents and evaluations run on the host)."""
    if all(p.device.type == "cpu" for p in net.parameters()):
        return net
    return copy.deepcopy(net).to("cpu")


# ===================================================================== warm start


def behaviour_clone(net: SlotNet, data: dict[str, np.ndarray], epochs: int = 3, **options: Any) -> dict[str, float]:
    """Fit ``net`` to a teacher's play (:func:`ohmygoods_training.imitation.collect`) with the one cloning loop,
    :func:`ohmygoods_training.imitation.clone` (``options``: its ``minibatch``, ``lr``, ``vf_coef``, ``seed``,
    ``log``): cross-entropy of the masked policy on the teacher's actions plus ``vf_coef`` times the
    value error on the recorded returns. Returns the last epoch's losses and the share of decisions
    where the network's most likely action is the teacher's."""
    if net.prior is not None:
        raise ValueError("behaviour cloning is for networks without a prior (a prior network starts as its teacher)")
    from .imitation import clone

    def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = net.features(obs)
        return net.pi(h).masked_fill(~mask, NEG), net.v(h).squeeze(1)

    net.train()
    return clone(net.parameters(), forward, data, epochs, **options)


# ===================================================================== checkpoints


def save_agent(net: SlotNet, path: str | Path, meta: dict[str, Any] | None = None, players: int | None = None) -> Path:
    """Write the policy checkpoint ``PATH.json`` + ``PATH.safetensors`` (:mod:`ohmygoods_agents.checkpoint`,
    network kind ``slotnet``); ``meta`` goes into its ``card``, ``players`` (the player count it was
    trained for) to the top, where ``ohmygoods evaluate`` reads it. Returns the JSON path.

    It loads with ``make_agent("ppo:PATH.json")`` and runs no code when loaded.
    """
    from ohmygoods_agents.checkpoint import save_checkpoint

    tensors = {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}
    return save_checkpoint(
        Path(path).with_suffix(".json"), tensors, "relu", network=net.description(), players=players, card=meta or {}
    )


def load_net(path: str | Path) -> SlotNet:
    """The :class:`~ohmygoods_agents.slotnet.SlotNet` of a checkpoint written by :func:`save_agent`
    (checked on load)."""
    from ohmygoods_agents.checkpoint import (
        CONVERT_COMMAND,
        CheckpointError,
        current_layout,
        read_checkpoint,
        same_layout,
    )
    from ohmygoods_agents.slotnet import from_tensors

    tensors, desc = read_checkpoint(Path(path).with_suffix(".json"))
    if desc["network"].get("kind") != "slotnet":
        raise CheckpointError(f"{path}: network kind {desc['network'].get('kind')!r}, expected 'slotnet'")
    if not same_layout(desc["layout"], current_layout()):
        raise CheckpointError(
            f"{path}: made for observation/action layout {desc['layout'].get('version')!r}, this engine has "
            f"{current_layout()['version']!r}; convert it: {CONVERT_COMMAND}"
        )
    return from_tensors(tensors, desc["network"])


# ===================================================================== CLI

#: help texts of the :class:`PPOConfig` flags
CONFIG_HELP: dict[str, str] = {
    "players": "players per game (1: solo, R10.3)",
    "rules": "rule set",
    "num_envs": "games played side by side",
    "n_steps": "batch steps per rollout (each game's seats to act, all at once)",
    "epochs": "passes over each rollout",
    "minibatch": "samples per minibatch",
    "lr": "Adam learning rate",
    "gamma": "discount factor",
    "lam": "GAE lambda",
    "clip": "PPO clip range",
    "ent_coef": "entropy bonus of the masked distribution",
    "vf_coef": "value loss weight",
    "max_grad_norm": "gradient norm clip",
    "reward": "final reward: margin (own score minus the best other), score or win",
    "reward_scale": "factor of the reward",
    "shaping": "1: potential-based shaping, a reward at every decision (reward margin or score)",
    "max_rounds": "round cap of the training games (R8.4); evaluation keeps 60",
    "hidden": "width of the trunk",
    "embed": "width of the slot encoder",
    "prior": "none: a plain network; heuristic: the heuristic's choice gets a learned logit bonus, so a new network "
    "plays like it",
    "prior_gain": "starting logit bonus of the prior",
    "league": "who plays the other seats: self (the learner), snapshot, heuristic, greedy, random, mctsN with weights",
    "max_snapshots": "frozen snapshots kept in the league",
    "snapshot_every": "learner decisions between snapshots",
    "seed": "seed of the games, the league and the network",
    "game": "the game (its training kit: network, league agents, evaluation; ohmygoods_training.kits)",
    "margin_coef": "added to the final reward: this times the score margin (own score minus the best other)",
    "sparse_forward": "1: the rollout's forwards and the update read the network's nonzero inputs and legal actions "
    "only (CPU, float32; the same numbers up to rounding, faster); 0: its dense forward, as runs before this option",
}
CHOICES: dict[str, tuple[Any, ...]] = {
    "players": (1, 2, 3, 4),
    "rules": ("omg2", "royal"),
    "reward": ("margin", "score", "win"),
    "shaping": (0, 1),
    "sparse_forward": (0, 1),
}
#: file stem of the network a run hands over: the best evaluated one, evaluated again on other deals
FINAL = "final"
#: seed offsets of the evaluations during training and of the final one (other deals)
EVAL_SEED, FINAL_SEED = 7919, 104729


def _prior_arg(text: str) -> str:
    """``--prior``: ``none`` (or empty) for no prior, else the name of the prior."""
    if text not in ("", "none", "heuristic"):
        raise argparse.ArgumentTypeError(f"expected none or heuristic, got {text!r}")
    return "" if text in ("", "none") else text


def players_arg(text: str) -> int | tuple[int, ...]:
    """``--players`` of a game that trains several counts in one run: ``3`` or ``2,3,4`` (a count named twice
    gets a second batch of games)."""
    try:
        counts = tuple(int(x) for x in str(text).split(",") if x.strip())
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected a player count or counts such as 2,3,4, got {text!r}")
    return counts[0] if len(counts) == 1 else counts


#: the options that only a game with that feature takes (hidden from the help of other games)
KIT_ONLY: dict[str, str] = {"prior": "priors", "prior_gain": "priors", "shaping": "shaped_modes", "embed": "priors"}
#: options that only the games whose kit names them in ``own_options`` read (hidden from the others' help)
KIT_OPTIONS: tuple[str, ...] = ("rules", "max_rounds", "bc_eps")


def game_of(argv: list[str] | None) -> str:
    """The ``--game`` of ``argv`` (default ``ohmygoods``)."""
    argv = list(argv or [])
    for i, tok in enumerate(argv):
        if tok == "--game" and i + 1 < len(argv):
            return argv[i + 1]
        if tok.startswith("--game="):
            return tok.split("=", 1)[1]
    return PPOConfig.game


def build_parser(
    prog: str = "python -m ohmygoods_training.fast_ppo", game: str | None = None
) -> argparse.ArgumentParser:
    """The options of the loop (also those of ``ohmygoods train``) for ``game`` (default *Oh my Goods!*): its
    training kit's defaults and choices; ``--help`` shows each default once."""
    from ohmygoods_env.argtypes import DefaultsFormatter, int_at_least

    from .kits import kit_of

    game = game or PPOConfig.game
    try:
        kit = kit_of(game)
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        raise InputError(f"--game {game}: {' '.join(str(exc).split())}") from None
    p = argparse.ArgumentParser(
        prog=prog,
        description=f"A lean masked PPO in plain torch on the batch engine of {kit.spec.title}.",
        formatter_class=DefaultsFormatter,
    )
    kit_choices = kit.choices()
    for f, default in asdict(PPOConfig()).items():
        default = kit.defaults.get(f, default)
        choices = kit_choices.get(f)
        kind = players_arg if f == "players" and kit.several_counts else type(default)
        helptext = kit.option_help.get(f, CONFIG_HELP[f])
        if f == "game":
            default, choices, kind = kit.spec.name, None, str
        elif f in KIT_OPTIONS and f not in kit.own_options or f in KIT_ONLY and not getattr(kit, KIT_ONLY[f]):
            helptext = argparse.SUPPRESS  # a feature this game has not
        if f == "players" and kit.several_counts:
            default = default if isinstance(default, int) else ",".join(map(str, default))
        p.add_argument("--" + f.replace("_", "-"), type=kind, default=default, help=helptext, choices=choices)
    if kit.several_counts:  # the parsed default: an int or a tuple, as players_arg gives
        p.set_defaults(players=players_arg(str(p.get_default("players"))))
    p.set_defaults(prior=PPOConfig.prior)
    for a in p._actions:
        if a.dest == "prior":  # "none" on the command line: no prior
            a.type, a.metavar = _prior_arg, "{none,heuristic}"  # checked by _prior_arg
    p.add_argument("--total-steps", type=int_at_least(0), default=1_000_000, help="learner decisions (samples)")
    p.add_argument(
        "--minutes",
        "--max-minutes",
        dest="max_minutes",
        type=float,
        default=0.0,
        help="stop training after this wall time (0: no limit); the final evaluation comes after",
    )
    p.add_argument("--eval-every", type=int_at_least(1), default=250_000, help="learner decisions between evaluations")
    p.add_argument("--eval-games", type=int_at_least(1), default=kit.defaults.get("eval_games", 200),
                   help="games per evaluation (per player count)")  # fmt: skip
    p.add_argument("--eval-vs", default=kit.defaults.get("eval_vs", "heuristic"),
                   help="opponent of the evaluations; the best network beats it most")  # fmt: skip
    p.add_argument(
        "--final-games",
        type=int_at_least(0),
        default=200,
        help="games of the final evaluation of the best network (against random and --eval-vs; 0: none)",
    )
    p.add_argument(
        "--threads", type=threads_arg, default=1, metavar="{auto,N}",
        help="torch and numba threads (auto: every usable core)",
    )  # fmt: skip
    p.add_argument(
        "--device", choices=DEVICES, default="auto",
        help="where the network's inference and update run (auto: cuda when torch sees a GPU, else cpu)",
    )  # fmt: skip
    p.add_argument(
        "--precision", choices=PRECISIONS, default="float32",
        help="compute type of the network's forwards and update (default float32): bfloat16 runs them in mixed "
        "precision (weights, optimizer and loss stay float32); auto: bfloat16 where the device computes it natively "
        "(a CUDA GPU with bfloat16, a CPU with AVX512-BF16 or AMX), else float32",
    )  # fmt: skip
    p.add_argument(
        "--pipeline", action="store_true",
        help="play the games of each player count in two tables: one table's network forward runs in a second "
        "thread while the league's seats and the engine step the other (a second core; other deals than without)",
    )  # fmt: skip
    p.add_argument(
        "--league-workers", type=int_at_least(0), default=0, metavar="N",
        help="answer the league's slow Python seats and the network prior (Oh my Goods!'s heuristic) in N worker "
        "processes: the same moves, on other cores (0: in this process)",
    )  # fmt: skip
    p.add_argument(
        "--overlap", action="store_true",
        help="collect the next rollout in a second thread while the update runs, with the network from before "
        "that update (one update of policy lag; on the CPU --threads is torch's count and the collector's numba 1, "
        "on CUDA the collector keeps every thread)",
    )  # fmt: skip
    p.add_argument("--init", default=None, help="start from a saved network: NAME.json or a shipped agent (ppo, ...)")
    p.add_argument("--bc-games", type=int_at_least(0), default=0,
                   help="warm start: clone this many games of --bc-teacher first")  # fmt: skip
    p.add_argument(
        "--bc-teacher", default=kit.defaults.get("bc_teacher", "heuristic"), help="teacher of the warm start"
    )
    p.add_argument("--bc-epochs", type=int_at_least(1), default=4, help="passes of the warm start")
    eps_help = "share of random moves played (labels stay the teacher's)"
    eps_help = eps_help if "bc_eps" in kit.own_options else argparse.SUPPRESS
    p.add_argument("--bc-eps", type=float, default=0.1, help=eps_help)
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it shows on a terminal only)")
    p.add_argument("--out", default="runs/fast", help="output folder")
    return p


def parse_args(argv: list[str] | None, prog: str = "python -m ohmygoods_training.fast_ppo") -> argparse.Namespace:
    """Parsed options of the loop for the ``--game`` of ``argv`` (usage errors exit with status 2)."""
    try:
        parser = build_parser(prog, game_of(argv))
    except InputError as exc:
        build_parser(prog).error(str(exc))
    return parser.parse_args(argv)


def init_path(spec: str, game: str = "ohmygoods") -> Path:
    """The checkpoint of ``--init``: a path (``.json`` optional) or the short name of a shipped agent
    (:class:`InputError` for neither, and for an SB3 ``.zip``: loading one can run code)."""
    from ohmygoods_agents.checkpoint import untrusted_zip_message

    if Path(spec).suffix == ".zip":
        raise InputError(f"--init {spec}: {untrusted_zip_message(spec)}")
    path = Path(spec).with_suffix(".json")
    if path.exists():
        return path
    from ohmygoods_env.framework.game import game_tools

    found = game_tools(game).load("checkpoints")
    shipped = dict(found()) if found is not None else {}
    if spec in shipped:
        return Path(str(shipped[spec]))
    raise InputError(
        f"--init {spec}: no checkpoint {path} and no shipped agent of that name; expected NAME.json (next to "
        f"NAME.safetensors) or one of {', '.join(sorted(shipped)) or 'none (this game ships none)'}"
    )


class InputError(ValueError):
    """An option of a training run that cannot be used (the message names it and what was expected):
    found by :func:`check_options` / :func:`prepare` before anything is trained or written."""


#: bounds of the loop's numeric options: dest -> (lowest, highest) (None: no bound); every float must be finite
BOUNDS: dict[str, tuple[float | None, float | None]] = {
    "num_envs": (1, 1 << 16), "n_steps": (1, 1 << 16), "epochs": (1, 1000), "minibatch": (1, 1 << 24),
    "lr": (0.0, 1.0), "gamma": (0.0, 1.0), "lam": (0.0, 1.0), "clip": (0.0, None), "ent_coef": (0.0, None),
    "vf_coef": (0.0, None), "max_grad_norm": (0.0, None), "reward_scale": (None, None), "max_rounds": (1, 1000),
    "hidden": (1, 4096), "embed": (1, 4096), "prior_gain": (None, None), "max_snapshots": (1, 1000),
    "snapshot_every": (1, None), "seed": (0, (1 << 63) - 1), "max_minutes": (0.0, None), "bc_eps": (0.0, 1.0),
}  # fmt: skip


def check_agent(spec: str, what: str, game: str = "ohmygoods") -> None:
    """``spec`` names an agent of ``game`` the loop can build (*Oh my Goods!*:
    :func:`~ohmygoods_training.league_spec.opponent_agent`), without any opt-in (``exec:`` and ``sb3:`` are
    refused); else :class:`InputError` naming ``what``."""
    from ohmygoods_env.framework.agents import agent_names

    from .kits import kit_of

    kit = kit_of(game)
    try:
        kit.check_agent(spec)
    except (ValueError, TypeError, KeyError, LookupError, OSError, ImportError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        names = (
            "heuristic, greedy, random, mctsN, ppo, ppo:PATH.json"
            if kit.network == "slotnet"
            else ", ".join(n for n in agent_names(kit.spec) if n != "exec")
        )
        raise InputError(f"{what} {spec!r}: {text} (expected an agent name: {names})"[:600]) from None


def check_options(args: argparse.Namespace) -> None:
    """The loop's options that need no file: numbers within :data:`BOUNDS`, the league spec, the
    evaluation opponent (``--eval-vs``, with other players) and the warm start's teacher (``--bc-teacher``,
    with ``--bc-games``). The one check of these, for the command line and for a recipe's stages;
    :class:`InputError` names the first bad option."""
    for dest, (low, high) in BOUNDS.items():
        value = getattr(args, dest)
        flag = "--" + dest.replace("_", "-")
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{flag} {value}: expected a finite number")
        if (low is not None and value < low) or (high is not None and value > high):
            where = f"from {low}" if high is None else (f"up to {high}" if low is None else f"in {low}..{high}")
            raise InputError(f"{flag} {value}: expected a number {where}")
    from .kits import kit_of

    game = getattr(args, "game", PPOConfig.game)
    try:
        kit = kit_of(game)
        counts = (args.players,) if isinstance(args.players, int) else tuple(args.players)
        for p in counts:
            kit.spec.check_num_players(p)
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        raise InputError(f"--game {game} --players {args.players}: {' '.join(str(exc).split())}") from None
    if len(counts) > 1 and not kit.several_counts:
        raise InputError(f"--players {args.players}: {kit.spec.title} trains one player count per run")
    try:
        league = kit.league(args.league, args.max_snapshots)
    except ValueError as exc:
        raise InputError(f"--league {args.league!r}: {exc}") from None
    for name in (n for n in league.weights if n != "snapshot" and league.weights[n] > 0):
        check_agent(name, "--league entry", game)
    if args.reward not in kit.reward_modes:
        raise InputError(f"--reward {args.reward}: {kit.spec.title} has {', '.join(kit.reward_modes)}")
    if args.shaping and args.reward not in kit.shaped_modes:
        modes = " or ".join(kit.shaped_modes) or "none: this game has no shaping potentials"
        raise InputError(f"--shaping {args.shaping}: needs --reward {modes}")
    if args.prior and args.prior not in kit.priors:
        raise InputError(f"--prior {args.prior}: {kit.spec.title} has {', '.join(kit.priors) or 'no prior'}")
    try:  # the games, the evaluations that choose the best network and the final one: never the reserved deals
        check_unreserved((args.seed, args.seed + EVAL_SEED, args.seed + FINAL_SEED), f"--seed {args.seed}")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if max(counts) > 1:
        check_agent(args.eval_vs, "--eval-vs", game)
    check_agent(args.bc_teacher, "--bc-teacher", game)  # even unused (no --bc-games): never a program to start


def prepare(args: argparse.Namespace) -> tuple[PPOConfig, Any | None]:
    """Every input of a run checked before anything is trained or written (:func:`check_options`, the
    output folder, the ``--init`` checkpoint and its prior): the run's configuration and its starting
    network (``--init``: its widths and prior decide). :class:`InputError` names the first bad input."""
    from ohmygoods_agents.checkpoint import CheckpointError

    check_options(args)
    device = resolve_device(getattr(args, "device", "cpu"))
    resolve_precision(getattr(args, "precision", "float32"), device)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {args.out}: a file is there; expected a folder (new or of an earlier run)")
    from .kits import kit_of

    cfg = PPOConfig(**{f: getattr(args, f) for f in asdict(PPOConfig()) if hasattr(args, f)})
    kit = kit_of(cfg.game)
    try:
        net = kit.load(init_path(args.init, cfg.game)).train() if args.init else None
    except (CheckpointError, OSError) as exc:
        text = " ".join(str(exc).split())
        raise InputError(f"--init {args.init}: {text}") from None
    if net is not None:  # the saved network decides its widths and prior; the run's card says so
        if cfg.prior and cfg.prior != net.prior:
            raise InputError(
                f"--prior {cfg.prior!r}, but the --init network has prior {net.prior!r}: "
                "drop --prior or pass --prior none"
            )
        kit.config_from_net(cfg, net)
    if args.bc_games and cfg.prior:
        raise InputError(
            f"--bc-games {args.bc_games}: a warm start clones into a network without a prior; this one has prior "
            f"{cfg.prior!r} (expected --prior none, or no --bc-games)"
        )
    return cfg, net


def evaluate(net: SlotNet, opponent: str, games: int, players: int, rules: str, seed: int) -> AgentResult | SoloResult:
    """Deterministic policy in one seat against ``players - 1`` copies of ``opponent`` (seats
    rotating); alone (``players == 1``) its mean solo score."""
    was = net.training
    net.eval()
    try:
        if players == 1:
            return solo_score(SlotNetAgent(host_net(net), name="fast_ppo"), games, rules, seed=seed)
        return match(SlotNetAgent(host_net(net), name="fast_ppo"), opponent, games, players, rules, seed=seed)
    finally:
        net.train(was)


def plot_learning_curves(runs: dict[str, str | Path], png: str | Path, title: str = "") -> Path:
    """One PNG: win rate (95% Wilson band) against the evaluation opponent over learner steps, per run.

    ``runs`` maps a label to a run directory holding ``eval.csv``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, d in runs.items():
        with (Path(d) / "eval.csv").open() as f:
            rows = list(csv.DictReader(f))
        x = np.array([int(r["steps"]) for r in rows]) / 1e6
        key = "win_rate" if "win_rate" in rows[0] else "mean_score"  # solo runs log the mean score
        y, lo, hi = (np.array([float(r[k]) for r in rows]) for k in (key, "lo", "hi"))
        ax.plot(x, y, marker="o", label=label if key == "mean_score" else f"{label} (vs {rows[0]['opponent']})")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.set_xlabel("learner decisions (millions)")
    if key == "win_rate":
        ax.set_ylabel("win rate, ties half")
        ax.set_ylim(0, 1)
    else:
        ax.set_ylabel("mean solo score")
    ax.grid(alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return png


def counts_of(cfg: PPOConfig) -> tuple[int, ...]:
    """The distinct player counts of a run, in order."""
    return tuple(dict.fromkeys((cfg.players,) if isinstance(cfg.players, int) else cfg.players))


def evaluations(net: Any, opponent: str, games: int, cfg: PPOConfig, seed: int) -> list[Any]:
    """The network against ``opponent`` at each player count of the run (the game's kit plays them; alone:
    the solo score)."""
    from .kits import kit_of

    kit = kit_of(cfg.game)
    return [kit.evaluate(net, "solo" if p == 1 else opponent, games, p, cfg.rules, seed) for p in counts_of(cfg)]


def final_evaluation(net: Any, args: argparse.Namespace, cfg: PPOConfig) -> list[Any]:
    """The network against random and ``--eval-vs`` (alone: its solo score) in ``--final-games`` games on
    deals the evaluations during training did not play, at each player count of the run."""
    if not args.final_games:
        return []
    seed = cfg.seed + FINAL_SEED
    if counts_of(cfg) == (1,):
        return evaluations(net, "solo", args.final_games, cfg, seed)
    opponents = dict.fromkeys(["random", args.eval_vs])
    return [r for o in opponents for r in evaluations(net, o, args.final_games, cfg, seed)]


def _threads(n: int) -> None:
    """Torch's and numba's threads: two runs side by side with 2 numba threads each on a 2-core machine
    spend most of their time waiting for each other's threads. Numba's first ``set_num_threads`` starts its
    thread pool, which resets the OpenMP thread count torch shares; so numba's threads are set first."""
    import numba

    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))
    torch.set_num_threads(max(1, n))


def _collector_threads(n: int = 1, torch_threads: int | None = None) -> None:
    """The overlapped loop's collector thread: its numba kernels on ``n`` threads (:class:`FastPPO` gives 1 on
    the CPU, where the update takes the cores) and torch's on ``torch_threads`` (the main thread's count): both
    counts are per thread (numba's, and torch's under OpenMP), so a new thread sets its own."""
    import numba

    numba.set_num_threads(max(1, min(int(n), numba.config.NUMBA_NUM_THREADS)))
    if torch_threads is not None:
        torch.set_num_threads(max(1, int(torch_threads)))


def _warm_start(ppo: FastPPO, args: argparse.Namespace, out: Path, meta: dict[str, Any], say: Any) -> None:
    """``--bc-games``: clone the teacher's play into the network (written as ``bc.json``)."""
    cfg, t0 = ppo.cfg, time.perf_counter()
    data, n = ppo.kit.teacher_data(args, cfg)
    say(f"[bc] {n} decisions of {args.bc_teacher} in {time.perf_counter() - t0:.0f}s")
    ppo.net.to("cpu")  # the cloning loop reads host tensors; the same parameters go back to the device after
    bc = ppo.kit.clone(ppo.net, data, args, cfg, log=lambda st: say(f"[bc] {st}"))
    ppo.net.to(ppo.device)
    del data
    bc_card = {**meta, "bc": bc, "bc_games": args.bc_games, "teacher": args.bc_teacher}
    ppo.kit.save(ppo.net, out / "bc", bc_card, _one_count(cfg))
    with (out / "train.log").open("a") as f:
        print(json.dumps({"bc": bc, "bc_games": args.bc_games, "wall_s": round(time.perf_counter() - t0, 1)}), file=f)


def _one_count(cfg: PPOConfig) -> int | None:
    """The player count a checkpoint records: the run's, if it trains only one."""
    counts = counts_of(cfg)
    return counts[0] if len(counts) == 1 else None


def _eval_row(path: Path, steps: int, wall: float, r: Any) -> None:
    """Append one row to ``eval.csv`` (header on a new file)."""
    from .kits import RateResult

    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.writer(f)
        if isinstance(r, RateResult):  # any game: the player count, the win rate with a shared win counting 1/k
            if new:
                w.writerow(["steps", "wall_s", "players", "opponent", "games", "win_rate", "lo", "hi"])
            w.writerow([steps, round(wall, 1), r.players, r.opponent, r.games, round(r.win_rate, 4),
                        round(r.ci_low, 4), round(r.ci_high, 4)])  # fmt: skip
        elif isinstance(r, SoloResult):  # solo: the mean score in the win-rate columns' place
            if new:
                w.writerow(["steps", "wall_s", "opponent", "games", "mean_score", "lo", "hi"])
            w.writerow([steps, round(wall, 1), "solo", r.games, r.mean, r.ci_low, r.ci_high])
        else:
            if new:
                w.writerow(["steps", "wall_s", "opponent", "games", "wins", "ties", "losses", "win_rate", "lo", "hi"])
            w.writerow([steps, round(wall, 1), r.opponent, r.games, r.wins, r.ties, r.losses, r.win_rate,
                        r.ci_low, r.ci_high])  # fmt: skip


class _Progress:
    """A tqdm bar on stderr (a terminal only, or never with ``--no-progress``): over the wall time when
    ``--minutes`` is set, else over the learner decisions; messages go above it."""

    def __init__(self, args: argparse.Namespace) -> None:
        from tqdm import tqdm

        from ohmygoods_env.framework.progress import progress_bar

        self.by_time = bool(args.max_minutes)
        total = 60 * args.max_minutes if self.by_time else args.total_steps
        self.bar = progress_bar(
            total, enabled=not args.no_progress, unit="s" if self.by_time else "dec", unit_scale=not self.by_time,
            dynamic_ncols=True, mininterval=1.0,
            bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s{postfix}" if self.by_time else None,
        )  # fmt: skip
        self._write = tqdm.write
        self.last_eval = ""

    def say(self, text: str) -> None:
        self._write(text, file=sys.stderr)
        sys.stderr.flush()

    def update(self, steps: int, wall: float) -> None:
        now = min(wall, self.bar.total) if self.by_time else steps
        self.bar.update(now - self.bar.n)
        rate = f"{steps / max(wall, 1e-9):,.0f}/s"
        self.bar.set_postfix_str(f"{steps:,} decisions {rate}" + (f" | {self.last_eval}" if self.last_eval else ""))

    def close(self) -> None:
        self.bar.close()


def _result_text(r: AgentResult | SoloResult) -> str:
    return " ".join(str(r).split("  (")[0].split())


def run(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """Train as ``args`` say, evaluate the best network again and write it as ``OUT/final.json``;
    returns what ``run.json`` holds."""
    cfg, net = prepare(args)
    _threads(args.threads)
    freed = keep_freed_memory()  # the update's large tensors reused, not mapped afresh (training/allocator.py)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ppo = FastPPO(
        cfg, net, device=getattr(args, "device", "cpu"), overlap=getattr(args, "overlap", False),
        precision=getattr(args, "precision", "float32"), pipeline=getattr(args, "pipeline", False),
        league_workers=getattr(args, "league_workers", 0),
    )  # fmt: skip
    meta: dict[str, Any] = {"command": command}
    progress = _Progress(args)
    t0 = time.perf_counter()
    if args.bc_games:
        _warm_start(ppo, args, out, meta, progress.say)
    best, last_eval = -math.inf, -1
    csv_path = out / "eval.csv"

    kit, players = ppo.kit, _one_count(cfg)

    def do_eval() -> None:
        nonlocal best, last_eval
        rs = evaluations(ppo.net, args.eval_vs, args.eval_games, cfg, seed=cfg.seed + EVAL_SEED)
        wall = time.perf_counter() - t0
        last_eval = ppo.steps
        for r in rs:
            _eval_row(csv_path, ppo.steps, wall, r)
            progress.say(f"[eval] {ppo.steps} steps {wall:.0f}s {r}")
        progress.last_eval = " | ".join(_result_text(r) for r in rs)
        ev = rs[0].as_dict() if len(rs) == 1 else [r.as_dict() for r in rs]
        m = {**meta, "steps": ppo.steps, "wall_s": round(wall, 1), "eval": ev, "config": asdict(cfg)}
        kit.save(ppo.net, out / "last", m, players)
        rate = float(np.mean([r.win_rate for r in rs]))  # several counts: the mean of their win rates
        if rate > best:
            best = rate
            kit.save(ppo.net, out / "best", m, players)

    next_eval = args.eval_every
    with (out / "train.log").open("a") as log:
        while ppo.steps < args.total_steps:
            info = ppo.iterate()
            wall = time.perf_counter() - t0
            st = ppo.rollout.stats
            wr = {k: round(float(np.mean(v)), 3) for k, v in st.items() if len(v) >= 10}
            ppo.rollout.stats = {k: v for k, v in st.items() if len(v) < 10}
            line = {"steps": ppo.steps, "wall_s": round(wall, 1), "sps": round(ppo.steps / wall), **info}
            line["train_wr"] = wr
            print(json.dumps(line), file=log, flush=True)
            progress.update(ppo.steps, wall)
            if ppo.steps >= next_eval:
                do_eval()
                while next_eval <= ppo.steps:
                    next_eval += args.eval_every
            if args.max_minutes and wall > 60 * args.max_minutes:
                break
    ppo.close()  # the overlapped loop's collector: its rollout in flight is not trained on
    if last_eval != ppo.steps:  # the last iteration's network, unless it was just evaluated
        do_eval()
    progress.close()
    train_s = time.perf_counter() - t0
    final_net = kit.load(out / "best")
    chosen = json.loads((out / "best.json").read_text())["card"]
    final = final_evaluation(final_net, args, cfg)
    card = {
        **chosen,
        "chosen": f"the best of the run's evaluations against {args.eval_vs} ({args.eval_games} games each)",
        "final_evaluation": [r.as_dict() for r in final],
    }
    kit.save(final_net, out / FINAL, card, players)
    info = {
        "args": vars(args),
        "command": command,
        "steps": ppo.steps,
        "train_s": round(train_s, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
        "final": {"path": f"{out / FINAL}.json", "steps": chosen.get("steps"), "evaluation": card["final_evaluation"]},
        **ppo.timing,
        "device": str(ppo.device),
        "threads": torch.get_num_threads(),
        "overlap": ppo.overlap,
        "precision": str(ppo.dtype).removeprefix("torch."),
        "pipeline": ppo.rollout.pipeline,
        "league_workers": getattr(args, "league_workers", 0),
        "freed_memory": freed,
        "split_s": {k: round(v, 4) for k, v in ppo.rollout.split.seconds.items()},
    }
    (out / "run.json").write_text(json.dumps(info, indent=2))
    lines = [
        f"done: {ppo.steps:,} learner decisions in {train_s / 60:.1f} min ({ppo.steps / max(train_s, 1e-9):,.0f}/s); "
        f"{out / FINAL}.json is the network of {chosen.get('steps', 0):,} decisions (ppo:{out / FINAL}.json)"
    ]
    lines += [f"  final evaluation, other deals: {r}" for r in final]
    print("\n".join(lines), file=sys.stderr, flush=True)
    return info


def main(argv: list[str] | None = None, prog: str = "python -m ohmygoods_training.fast_ppo") -> int:
    """Train (see ``--help``); returns 0."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv, prog)
    try:
        prepare(args)
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    run(args, " ".join([prog, *argv]))
    return 0


__all__ = [
    "BASELINES",
    "DEVICES",
    "PRECISIONS",
    "PARTS",
    "Split",
    "FINAL",
    "SEARCH_PREFIX",
    "FastPPO",
    "InputError",
    "League",
    "NetAgent",
    "PPOConfig",
    "SelfPlayRollout",
    "SlotNet",
    "SlotNetAgent",
    "ppo_update",
    "build_parser",
    "check_agent",
    "check_options",
    "final_evaluation",
    "gae_per_seat",
    "host_net",
    "init_path",
    "legal_index",
    "legal_logits",
    "load_net",
    "main",
    "masked_entropy",
    "parse_args",
    "plot_learning_curves",
    "prepare",
    "resolve_device",
    "resolve_precision",
    "native_bfloat16",
    "autocast",
    "run",
    "sample_masked",
    "save_agent",
    "search_sims",
    "threads_arg",
    "usable_cores",
]

if __name__ == "__main__":
    sys.exit(main())
