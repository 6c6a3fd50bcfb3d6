"""*Oh my Goods!*'s training kit (:class:`OhMyGoodsKit`, named by its tools' ``training_kit``): what the one
self-play loop (:mod:`ohmygoods_training.fast_ppo`) needs of it beyond its batch engine."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from ohmygoods_env.framework.batch import BatchEngine, make_engine

from .fast_ppo import CHOICES, behaviour_clone, evaluate, load_net, save_agent
from .kits import Kit

__all__ = ["OhMyGoodsKit"]


class OhMyGoodsKit(Kit):
    """*Oh my Goods!*: the slot network (:mod:`ohmygoods_agents.slotnet`) with its heuristic prior, the engine's
    reward modes and potential shaping (:mod:`ohmygoods_training.shaping`), league agents as
    :class:`~ohmygoods_env.policy.BatchPolicy` over its batch engine (``mctsN`` included), the match
    statistics of :mod:`ohmygoods_training.stats` and the cloning of :mod:`ohmygoods_training.imitation`."""

    network = "slotnet"
    reward_modes = ("margin", "score", "win")
    priors = ("heuristic",)
    several_counts = False
    defaults: dict[str, Any] = {}
    own_options = ("rules", "max_rounds", "bc_eps")
    option_help: dict[str, str] = {}

    def choices(self) -> dict[str, tuple[Any, ...]]:
        return CHOICES  # its players, rule sets, reward modes, shaping

    @property
    def shaped_modes(self) -> tuple[str, ...]:  # type: ignore[override]
        from .shaping import SHAPED_MODES

        return tuple(SHAPED_MODES)

    def engine(self, num_games: int, num_players: int, seed: int, cfg: Any) -> BatchEngine:
        return make_engine(self.spec, num_games, num_players, seed, rules=cfg.rules, illegal="raise",
                           reward_mode=cfg.reward, max_rounds=cfg.max_rounds)  # fmt: skip

    def solo_stats(self, engine: Any, ended: np.ndarray) -> dict[str, list[float]]:
        from ohmygoods_env import layout as L

        return {"rounds": engine.state[ended, L.F_ROUND].tolist()}

    def new_net(self, cfg: Any) -> Any:
        from ohmygoods_agents.slotnet import SlotNet

        return SlotNet(cfg.hidden, cfg.embed, cfg.prior or None, cfg.prior_gain)

    def sparse_forward(self, net: Any) -> Any:
        from ohmygoods_agents.slotnet import SlotNet, SparseForward

        return SparseForward(net) if isinstance(net, SlotNet) else None

    def save(self, net: Any, path: str | Path, meta: dict[str, Any], players: int | None) -> Path:
        return save_agent(net, path, meta, players=players)

    def load(self, path: str | Path) -> Any:
        return load_net(path)

    def config_from_net(self, cfg: Any, net: Any) -> None:
        cfg.hidden, cfg.embed, cfg.prior = net.hidden, net.embed, net.prior or ""
        if net.prior is not None:
            cfg.prior_gain = round(float(net.prior_gain.detach()), 4)

    def agent(self, net: Any, deterministic: bool = True, seed: int = 0, name: str = "ppo") -> Any:
        from ohmygoods_agents.policy_agents import SlotNetAgent

        return SlotNetAgent(net, deterministic=deterministic, seed=seed, name=name)

    def league(self, text: str, max_snapshots: int) -> Any:
        from .league_spec import League

        return League.parse(text, max_snapshots)

    #: the heuristic decides in Python: ``--league-workers`` answers its seats in worker processes
    poolable = ("heuristic",)

    def pooled_agent(self, name: str, seed: int, workers: int) -> Any:
        from .league_pool import PooledPolicy

        return PooledPolicy(name, seed, workers)

    def pooled_prior(self, name: str, workers: int) -> Any:
        from .league_pool import PooledPolicy

        return PooledPolicy(name, 0, workers, role="prior")

    def league_agent(self, name: str, seed: int) -> Any:
        from ohmygoods_env.policy import BatchPolicy

        from .league_spec import opponent_agent

        return BatchPolicy(opponent_agent(name, seed))

    def snapshot(self, net: Any, seed: int, sparse: bool = False) -> Any:
        from ohmygoods_agents.policy_agents import SlotNetAgent

        from ohmygoods_env.policy import BatchPolicy

        # on the learner's device: a GPU run's snapshots answer their seats there (the batch copied over and the
        # logits back), the CPU's on the host (sparse: through the network's sparse form)
        frozen = copy.deepcopy(net).eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        return BatchPolicy(SlotNetAgent(frozen, deterministic=False, seed=seed, name="snapshot", sparse=sparse))

    def check_agent(self, name: str) -> None:
        from .league_spec import opponent_agent

        opponent_agent(name, 0)

    def prior(self, name: str) -> Any:
        from ohmygoods_agents.slotnet import make_prior

        from ohmygoods_env.policy import BatchPolicy

        return BatchPolicy(make_prior(name))

    def potentials(self, engine: Any, rows: np.ndarray, seats: np.ndarray, mode: str) -> np.ndarray:
        from .shaping import potentials

        return potentials(engine, rows, seats, mode)

    def evaluate(self, net: Any, opponent: str, games: int, players: int, rules: str, seed: int) -> Any:
        return evaluate(net, opponent, games, players, rules, seed)

    def teacher_data(self, args: Any, cfg: Any) -> tuple[dict[str, np.ndarray], int]:
        from .imitation import collect

        data = collect(
            args.bc_games, cfg.players, cfg.rules, args.bc_teacher, cfg.reward, cfg.reward_scale, cfg.gamma,
            eps=args.bc_eps, seed=cfg.seed + 1, shaped=bool(cfg.shaping),
        )  # fmt: skip
        return data, len(data["actions"])

    def clone(self, net: Any, data: dict[str, np.ndarray], args: Any, cfg: Any, log: Any = None) -> dict[str, float]:
        return behaviour_clone(net, data, args.bc_epochs, seed=cfg.seed, log=log)
