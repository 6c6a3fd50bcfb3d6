"""What the one self-play loop (:mod:`ohmygoods_training.fast_ppo`) needs of a game beyond the batch-engine protocol.

The loop steps every game through :class:`~ohmygoods_env.framework.batch.BatchEngine` and asks the
game's **training kit** for everything else: the engine's options, the network (its kind, how it
is built, saved, loaded and played as an agent), the league's agents, a prior, shaping potentials,
the evaluation and the warm start. A game names its kit in its tools
(``GameTools.training_kit``, ``"module:object"``); a game without one gets :class:`Kit`, which
serves any registered game:

* the network is :class:`ActorCritic`, a tanh MLP (``--hidden H``: two layers of ``H``) whose policy
  part is an :class:`~ohmygoods_agents.policy_agents.MLPAgent`, saved in the safe format (network
  kind ``mlp``, the game's ``checkpoint_layout``) with its value head beside it;
* league seats are the game's agents by name (:class:`Opponent`: ``act_batch`` on the engine's
  observations, or the row's forward model for an agent that reads an information state);
* the reward is the game's ``win`` reward (the engine's ``rewards``) plus ``margin_coef`` x the score
  margin; no prior, no shaping;
* evaluations play the framework's matches (:func:`evaluate_vs`), the warm start clones a teacher
  with :func:`collect_teacher` and :func:`behaviour_clone`.

*Oh my Goods!*'s kit is :class:`ohmygoods_training.ohmygoods_kit.OhMyGoodsKit`: the slot network,
its heuristic prior, potential shaping, the numba league agents reading its batch engine, its match
statistics and its cloning.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ohmygoods_agents.checkpoint import (
    CheckpointError,
    checkpoint_players,
    game_layout,
    read_checkpoint,
    same_layout,
    save_checkpoint,
)
from ohmygoods_agents.policy_agents import MLPAgent
from ohmygoods_agents.sparse import SparseBatch, SparseHeads, rows_product
from torch import nn

from ohmygoods_env.framework.agents import agent_names, make_agent
from ohmygoods_env.framework.batch import BatchEngine, ModelBatch, has_batch_engine, make_engine
from ohmygoods_env.framework.game import GameSpec, game_tools, resolve_game
from ohmygoods_env.framework.matches import BatchAgent

NEG = -1e9

__all__ = [
    "ActorCritic",
    "Kit",
    "Opponent",
    "RateResult",
    "behaviour_clone",
    "collect_teacher",
    "evaluate_vs",
    "export_policy",
    "game_layout",
    "kit_of",
    "load_net",
    "make_batch",
    "save_net",
]


def make_batch(game: str | GameSpec, n: int, num_players: int, seed: int = 0, fast: bool = True,
               **options: Any) -> BatchEngine:  # fmt: skip
    """``n`` games of ``game`` as a :class:`~ohmygoods_env.framework.batch.BatchEngine`: the batch engine its
    tools name (``GameTools.batch_engine``) where it has one and ``fast``, else
    :class:`~ohmygoods_env.framework.batch.ModelBatch` over its forward models."""
    spec = resolve_game(game)
    if fast and has_batch_engine(spec):
        return make_engine(spec, n, num_players, seed=seed, **options)
    return ModelBatch(spec, n, num_players, seed, **options)


def margins(scores: np.ndarray) -> np.ndarray:
    """Each seat's score minus the best score of the others, ``scores`` float[n, P]."""
    out = np.empty_like(scores)
    for p in range(scores.shape[1]):
        out[:, p] = scores[:, p] - np.delete(scores, p, axis=1).max(axis=1)
    return out


# ===================================================================== the MLP network


class ActorCritic(nn.Module):
    """MLP trunk -> policy logits and a value; the policy part is an :class:`MLPAgent`'s ``layers.K``.

    It speaks the loop's network interface: ``features(x, seats)``, ``policy_logits(h, prior)``, ``v(h)``
    and ``prior`` (None: no prior)."""

    prior = None

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

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(m.out_features for m in self.trunk if isinstance(m, nn.Linear))

    def features(self, x: torch.Tensor, seats: int | None = None) -> torch.Tensor:
        return self.trunk(x)

    def policy_logits(self, h: torch.Tensor, prior_action: torch.Tensor | None = None) -> torch.Tensor:
        return self.pi(h)

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


class MLPSparseForward(SparseHeads):
    """An :class:`ActorCritic`'s sparse form (:mod:`ohmygoods_agents.sparse`): its first layer over the nonzero
    inputs of a row (``embedding_bag``; *Artificium*: about 25 of 388), its policy head over the legal actions
    only (about 5 of 401); the same logits, values and gradients as its dense forward up to float rounding.
    The loop reads it for every game with an MLP (``--sparse-forward``, the rollout's learner rows, the bootstrap
    values and the update)."""

    @property
    def obs_width(self) -> int:
        """The observation width the MLP reads."""
        return int(self.net.trunk[0].in_features)

    def features(self, obs: np.ndarray, players: int = 0) -> torch.Tensor:
        """The trunk's features of host rows ``obs`` (``ActorCritic.features`` up to float rounding)."""
        from ohmygoods_agents._sparse_kernels import rest_entries

        obs = self._host_rows(obs)
        n, d = obs.shape
        self._entries(n, d)
        lin = self.net.trunk[0]
        (w0t,) = self._transposed(lin.weight)
        c = rest_entries(obs, d, d, self._idx, self._val, self._offs)
        with torch.no_grad():
            return self.net.trunk[1:](self._bag(w0t, c, n).add_(lin.bias.detach()))

    def batch(self, obs: np.ndarray, players: int = 0) -> SparseBatch:
        """A rollout's observations read once for :meth:`train_forward`: each row's nonzero inputs (in buffers of
        this object: the next call writes over them)."""
        obs = self._host_rows(obs)
        n, d = obs.shape
        b = self.rest_batch(obs, d, d)
        c = b["entries"]
        none = np.zeros(0, np.int64)
        return SparseBatch(n, b["idx"][:c], b["val"][:c], b["offs"][: n + 1], torch.zeros((0, 1)), none,
                           np.zeros(n + 1, np.int64))  # fmt: skip

    def train_features(self, sb: SparseBatch, rows: np.ndarray) -> torch.Tensor:
        """The trunk's features of the samples ``rows`` of ``sb``, with gradients."""
        idx, val, offs, _, _ = self.gather(sb, rows)
        lin = self.net.trunk[0]
        return self.net.trunk[1:](rows_product(lin.weight.t(), idx, val, offs) + lin.bias)


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


# ===================================================================== league seats over the protocol


class Opponent(BatchAgent):
    """A league seat of any game, named: ``opponent(engine, rows) -> actions`` for the acting seats of ``rows``
    (:class:`ohmygoods_env.framework.matches.BatchAgent`, the batched series player's policy)."""

    def __init__(self, name: str, agent: Any) -> None:
        super().__init__(agent)
        self.name = name


# ===================================================================== evaluation


@dataclass
class RateResult:
    """An agent's win rate against ``opponent`` at ``players`` seats (a ``k``-way shared win counts ``1/k``),
    with its 95% Wilson interval."""

    opponent: str
    players: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.players}p vs {self.opponent:<10} {self.win_rate:6.1%} [{self.ci_low:.1%}, {self.ci_high:.1%}]  "
            f"({self.games} games, {self.seconds:.1f}s)"
        )


def evaluate_vs(
    game: str | GameSpec, agent: Any, opponent: str, players: int, games: int, seed: int = 0
) -> tuple[float, float, float]:
    """``agent`` in one seat, ``opponent`` (a name of the game's registry) in the others, seats rotated
    (:func:`ohmygoods_env.framework.matches.play_games`): the agent's win rate (a ``k``-way shared win
    counts ``1/k``) and its 95% Wilson interval."""
    from ohmygoods_env.framework.matches import play_games

    r = play_games(
        game, [agent] + [opponent] * (players - 1), games, seed=seed, names=["agent"] + [opponent] * (players - 1)
    )
    a = r.agents[0]
    return a.win_rate, a.win_lo, a.win_hi


# ===================================================================== warm start


def collect_teacher(
    game: str | GameSpec,
    teacher: str,
    players: Sequence[int],
    decisions: int = 0,
    num_envs: int = 32,
    seed: int = 0,
    games: int = 0,
) -> dict[str, np.ndarray]:
    """``teacher`` (a name of the game's registry) in every seat, spread over the player counts, until
    ``decisions`` decisions (or, with ``games``, that many finished games) per count; the games under way
    play to their end. ``obs``, ``mask``, ``action`` and ``ret`` (the seat's final ``win`` reward)."""
    spec = resolve_game(game)
    agent = Opponent(teacher, make_agent(spec, teacher, seed=seed))
    obs_l, mask_l, act_l = [], [], []
    ret: list[float] = []
    per = max(1, decisions // len(players))
    per_games = max(1, -(-games // len(players))) if games else 0
    for j, p in enumerate(players):
        b = make_batch(spec, min(num_envs, per_games) if per_games else num_envs, p, seed + 7 * j)
        mine: list[list[list[int]]] = [[[] for _ in range(p)] for _ in range(b.num_games)]
        start, finished = len(ret), 0
        while True:
            cur = b.current_player.astype(np.int64, copy=False)
            live = np.flatnonzero(cur >= 0)
            if live.size == 0:
                break
            obs, masks = b.observe(np.maximum(cur, 0)), b.legal_mask()
            acts = np.zeros(b.num_games, np.int64)
            acts[live] = agent(b, live)
            for i in live:
                mine[i][cur[i]].append(len(ret))
                ret.append(0.0)
            obs_l.append(obs[live])
            mask_l.append(masks[live])
            act_l.append(acts[live])
            b.step(acts)
            ended = np.flatnonzero(b.done)
            if ended.size:
                win = np.asarray(b.rewards, np.float32)[ended]
                for e, i in enumerate(ended):
                    for q in range(p):
                        for k in mine[i][q]:
                            ret[k] = float(win[e, q])
                        mine[i][q] = []
                finished += ended.size
                more = finished < per_games if per_games else len(ret) - start < per
                if more:
                    mask = np.zeros(b.num_games, np.bool_)
                    mask[ended] = True
                    b.reset(mask)
    return {
        "obs": np.concatenate(obs_l),
        "mask": np.concatenate(mask_l),
        "action": np.concatenate(act_l),
        "ret": np.asarray(ret, np.float32),
    }


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
    from . import imitation

    def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, v = net(obs)
        return logits.masked_fill(~mask, NEG), v

    samples = {"obs": data["obs"], "masks": data["mask"], "actions": data["action"], "returns": data["ret"]}
    stats = imitation.clone(net.parameters(), forward, samples, epochs=epochs, minibatch=minibatch, lr=lr,
                            vf_coef=0.25, seed=seed, max_grad_norm=1.0)  # fmt: skip
    return {k: stats[k] for k in ("loss_pi", "loss_v", "accuracy")}


# ===================================================================== the kits


class Kit:
    """The training kit of any registered game (see the module docstring); :class:`OhMyGoodsKit` overrides it."""

    #: the network kind its checkpoints hold
    network = "mlp"
    #: ``--reward`` modes (the engine's ``rewards`` is the first, ``win``), ``--shaping`` modes, ``--prior`` names
    reward_modes: tuple[str, ...] = ("win",)
    shaped_modes: tuple[str, ...] = ()
    priors: tuple[str, ...] = ()
    #: several player counts in one run (one batch engine per count; one observation size)
    several_counts = True
    #: the loop's options only some games read (``fast_ppo.KIT_OPTIONS``) that this one does
    own_options: tuple[str, ...] = ()
    #: help texts of the loop's options that read otherwise for this game
    option_help: dict[str, str] = {"hidden": "width of the two hidden layers of the MLP"}
    #: the loop's defaults for this game (over :class:`~ohmygoods_training.fast_ppo.PPOConfig`'s)
    defaults: dict[str, Any] = {
        "players": (2,), "num_envs": 64, "n_steps": 64, "epochs": 3, "minibatch": 2048, "gamma": 1.0,
        "reward": "win", "reward_scale": 1.0, "margin_coef": 0.05, "league": "self:0.5,snapshot:0.3,random:0.2",
        "max_snapshots": 6, "snapshot_every": 300_000, "eval_vs": "heuristic", "eval_games": 100,
    }  # fmt: skip

    def __init__(self, game: str | GameSpec) -> None:
        self.spec = resolve_game(game)
        if self.defaults.get("eval_vs") == "heuristic" and "heuristic" not in agent_names(self.spec):
            # a game without a heuristic (Goofspiel) is evaluated against random by default
            self.defaults = {**self.defaults, "eval_vs": "random", "bc_teacher": "random"}

    def choices(self) -> dict[str, tuple[Any, ...]]:
        """The choices of the loop's options for this game."""
        return {"reward": self.reward_modes, "sparse_forward": (0, 1)}

    # -------------------------------------------------------------- engines
    def engine(self, num_games: int, num_players: int, seed: int, cfg: Any) -> BatchEngine:
        """The batch engine of one player count (its rewards: the ``win`` reward)."""
        return make_batch(self.spec, num_games, num_players, seed, fast=getattr(cfg, "fast", True))

    def solo_stats(self, engine: BatchEngine, ended: np.ndarray) -> dict[str, list[float]]:
        """Numbers of finished one-seat games logged besides the score."""
        return {}

    # -------------------------------------------------------------- network
    def new_net(self, cfg: Any) -> ActorCritic:
        p = cfg.players if isinstance(cfg.players, int) else cfg.players[0]
        hidden = cfg.hidden if isinstance(cfg.hidden, tuple) else (int(cfg.hidden),) * 2
        return ActorCritic(int(self.spec.obs_size(p)), int(self.spec.num_actions), hidden)

    def sparse_forward(self, net: Any) -> Any:
        """The sparse form of ``net`` that the loop reads (``--sparse-forward``; a
        :class:`~ohmygoods_agents.sparse.SparseHeads`: :class:`MLPSparseForward` for the MLP), or None: the
        dense forward."""
        return MLPSparseForward(net) if isinstance(net, ActorCritic) else None

    def layout(self, players: int | None = None) -> dict[str, Any]:
        """The game's checkpoint layout at ``players`` seats (default: its fewest)."""
        return game_layout(self.spec, players)

    def net_layout(self, net: Any) -> dict[str, Any]:
        """The layout of ``net``: the game's at the first player count whose observation is the network's
        input width (a game whose observation grows with the seats, as Goofspiel's, has one per count)."""
        width = int(net.trunk[0].in_features)
        spec = self.spec
        for p in range(spec.min_players, spec.max_players + 1):
            if int(spec.obs_size(p)) == width:
                return self.layout(p)
        return self.layout()

    def save(self, net: Any, path: str | Path, meta: dict[str, Any], players: int | None) -> Path:
        return save_net(net, Path(path).with_suffix(".json"), self.net_layout(net), players=players, card=meta or {})

    def load(self, path: str | Path) -> Any:
        path = Path(path).with_suffix(".json")
        return load_net(path, self.layout(checkpoint_players(path)))

    def config_from_net(self, cfg: Any, net: Any) -> None:
        """The run's configuration takes the saved network's widths."""
        cfg.hidden = tuple(net.hidden)

    def agent(self, net: Any, deterministic: bool = True, seed: int = 0, name: str = "ppo") -> Any:
        return net.agent(self.net_layout(net), deterministic=deterministic, seed=seed, name=name)

    # -------------------------------------------------------------- league
    def league(self, text: str, max_snapshots: int) -> Any:
        from .league_spec import League

        return League.parse(text, max_snapshots, agents=agent_names(self.spec))

    def league_agent(self, name: str, seed: int) -> Opponent:
        return Opponent(name, make_agent(self.spec, name, seed=seed))

    #: league entries whose seats can be answered in worker processes (``--league-workers``): agents whose
    #: choice is a function of their seed and the decision's inputs (none here)
    poolable: tuple[str, ...] = ()

    def pooled_agent(self, name: str, seed: int, workers: int) -> Any:
        """The league agent ``name`` (one of :attr:`poolable`) answering in ``workers`` processes."""
        raise ValueError(f"{self.spec.title} has no league agent that runs in worker processes")

    def pooled_prior(self, name: str, workers: int) -> Any:
        """The network prior ``name`` answering in ``workers`` processes (None: this game's prior stays here)."""
        return None

    def snapshot(self, net: Any, seed: int, sparse: bool = False) -> Opponent:
        """A frozen copy of ``net`` as a league seat (``sparse``: through the network's sparse form, where the kit
        has one: :meth:`sparse_forward`)."""
        return Opponent("snapshot", self.agent(net, deterministic=False, seed=seed, name="snapshot"))

    def check_agent(self, name: str) -> None:
        """Raises when ``name`` is no agent of the game (``exec`` needs an opt-in and is refused)."""
        make_agent(self.spec, name, seed=0)

    def prior(self, name: str) -> Any:
        raise ValueError(f"{self.spec.name} has no network prior")

    def potentials(self, engine: BatchEngine, rows: np.ndarray, seats: np.ndarray, mode: str) -> np.ndarray:
        raise ValueError(f"{self.spec.name} has no shaping potentials")

    # -------------------------------------------------------------- evaluation, warm start
    def evaluate(self, net: Any, opponent: str, games: int, players: int, rules: str, seed: int) -> RateResult:
        t = time.perf_counter()
        rate, lo, hi = evaluate_vs(self.spec, self.agent(_host(net)), opponent, players, games, seed=seed)
        return RateResult(opponent, players, games, float(rate), float(lo), float(hi), time.perf_counter() - t)

    def teacher_data(self, args: Any, cfg: Any) -> tuple[dict[str, np.ndarray], int]:
        """``--bc-games`` games of ``--bc-teacher`` in every seat (:func:`collect_teacher`) and their decisions."""
        counts = (cfg.players,) if isinstance(cfg.players, int) else cfg.players
        data = collect_teacher(self.spec, args.bc_teacher, counts, games=args.bc_games, seed=cfg.seed + 1)
        return data, int(data["obs"].shape[0])

    def clone(self, net: Any, data: dict[str, np.ndarray], args: Any, cfg: Any, log: Any = None) -> dict[str, float]:
        """Fit ``net`` (on the host) to the teacher's play; the last epoch's numbers."""
        return behaviour_clone(net, data, args.bc_epochs, seed=cfg.seed)


def _host(net: Any) -> Any:
    if all(p.device.type == "cpu" for p in net.parameters()):
        return net
    return copy.deepcopy(net).to("cpu")


_KITS: dict[str, Kit] = {}


def kit_of(game: str | GameSpec) -> Kit:
    """The training kit of ``game``: the object its tools name (``GameTools.training_kit``, a :class:`Kit`
    class or instance), else :class:`Kit`."""
    spec = resolve_game(game)
    kit = _KITS.get(spec.name)
    if kit is None:
        named = game_tools(spec).load("training_kit")
        kit = named(spec) if isinstance(named, type) else (named if named is not None else Kit(spec))
        _KITS[spec.name] = kit
    return kit
