"""Self-play with the Gumbel search: the policy learns the search's improved policy, the value the result.

``python -m ohmygoods_training.gumbel train --init ppo --sims 16 --minutes 30 --out runs/gumbel``

Each iteration plays ``--games`` 2-player *Oh my Goods!* games in which every seat moves by the
Gumbel root of IS-MCTS (:class:`ohmygoods_agents.gumbel.GumbelAgent`, ``--sims`` simulations,
the network being trained as its evaluator; the Gumbel noise of the root is the exploration),
then trains the network on the newest ``--buffer`` decisions:

* **policy**: cross-entropy toward the improved policy ``softmax(logits + sigma(completed Q))``
  of the search (:attr:`~ohmygoods_agents.ismcts.GumbelSearch.policy`, over the legal actions);
  the network's heuristic prior adds its logit bonus as it does when playing;
* **value**: the head keeps the meaning the search reads (:mod:`ohmygoods_agents.gumbel`): its
  win share ``sigmoid(VALUE_SLOPE * (v / REWARD_SCALE + potential) + VALUE_BIAS)`` is trained
  by binary cross-entropy toward ``--outcome-weight * result + (1 - --outcome-weight) * search
  value`` (result: win 1, tie 0.5, loss 0; search value: the root's value for the seat).

Decisions with one legal action are not searched and give no sample. The network starts from
``--init`` (default the shipped ``ppo``) and is written in the one checkpoint format
(:func:`ohmygoods_training.fast_ppo.save_agent`): ``last.json`` every iteration and ``itN.json``
at every evaluation. Every ``--eval-every`` iterations the network alone (deterministic) plays
``--eval-games`` games against ``--eval-vs`` with the batched harness
(:func:`ohmygoods_training.stats.match`, seats rotating, ties half, 95% Wilson interval);
``eval.csv`` records the decisions, the games, the process CPU seconds and the wall seconds
of the run at each evaluation, so a curve can be drawn against CPU time.

Three measuring commands sit beside it (docs/training.md, "Gumbel search"):

* ``python -m ohmygoods_training.gumbel calibrate --games 300`` — the fit behind the value head's
  win-share map (``VALUE_SLOPE``, ``VALUE_BIAS`` of :mod:`ohmygoods_agents.gumbel`);

* ``python -m ohmygoods_training.gumbel cost --sims 8,16,32,200`` — milliseconds per searched
  decision at each budget (the network agent against ``ppo``, a few deals);
* ``python -m ohmygoods_training.gumbel match --agent gumbel:200 --opponent mcts1000 --games N`` —
  an agent against a baseline with the batched harness (seats rotating, ties half, Wilson).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch: tiny forwards are fastest single-threaded

import numpy as np  # noqa: E402
import torch  # noqa: E402

from ohmygoods_env import layout as L  # noqa: E402
from ohmygoods_env.engine import Game  # noqa: E402
from ohmygoods_env.policy import info_state_of  # noqa: E402

__all__ = ["GumbelConfig", "Samples", "main", "play_selfplay", "train_step", "value_logit"]

#: seed offset of the evaluation deals (other deals than the training games)
EVAL_SEED = 7919


@dataclass
class GumbelConfig:
    """Options of the loop (the CLI flags have the same names)."""

    sims: int = 16
    games: int = 8
    buffer: int = 10_000
    epochs: int = 1
    minibatch: int = 256
    lr: float = 1e-4
    vf_coef: float = 1.0
    outcome_weight: float = 0.5
    considered: int = 16
    seed: int = 0


@dataclass
class Samples:
    """Searched decisions: inputs of the network and the targets of the search."""

    obs: np.ndarray  # float32 [n, OBS_DIM]
    mask: np.ndarray  # bool [n, N_ACTIONS]
    prior: np.ndarray  # int64 [n]: the heuristic prior's action (-1 without a prior)
    potential: np.ndarray  # float64 [n]: the seat's shaping potential (score margin) at the decision
    policy: np.ndarray  # float32 [n, N_ACTIONS]: the improved policy
    value: np.ndarray  # float32 [n]: the root's value for the seat
    result: np.ndarray  # float32 [n]: the seat's result (1 win, 0.5 tie, 0 loss)

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    @classmethod
    def concat(cls, parts: list[Samples]) -> Samples:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    def tail(self, n: int) -> Samples:
        return Samples(*(getattr(self, f)[-n:] for f in self.__dataclass_fields__))


def play_selfplay(
    net: Any, games: int, sims: int, seed: int, considered: int = 16, value: Any = None
) -> tuple[Samples, dict[str, Any]]:
    """``games`` 2-player games, both seats searching with ``net`` (its values from ``value``, a win-value
    network of :func:`ohmygoods_agents.gumbel.load_win_value`, when given); the searched decisions and a
    summary."""
    from ohmygoods_agents.gumbel import GumbelAgent, potentials
    from ohmygoods_agents.slotnet import make_prior

    net.eval()
    agent = GumbelAgent(net, sims, seed=seed, considered=considered, value=value)
    prior_agent = None if net.prior is None else make_prior(net.prior)
    rows: dict[str, list] = {k: [] for k in Samples.__dataclass_fields__ if k != "result"}
    result: list[float] = []
    steps = 0
    for i in range(games):
        g = Game(2, seed=seed * 100_003 + i)
        seats: list[int] = []
        while not g.done:
            p = g.current_player
            obs, mask, info = g.observe(p), g.legal_mask(), info_state_of(g.state, p)
            a = agent.act(obs, mask, info)
            if int(mask.sum()) > 1:
                s = agent.last_search
                rows["obs"].append(obs)
                rows["mask"].append(mask.astype(np.bool_))
                prior = -1 if prior_agent is None else int(prior_agent.act(obs, mask, info))
                rows["prior"].append(prior)
                rows["potential"].append(potentials(g)[p])
                rows["policy"].append(s.policy.astype(np.float32))
                rows["value"].append(s.value)
                seats.append(p)
            g.step(a)
            steps += 1
        r = (np.asarray(g.rewards("win"), np.float64) + 1.0) / 2.0
        result.extend(float(r[p]) for p in seats)
    samples = Samples(
        obs=np.asarray(rows["obs"], np.float32).reshape(-1, L.OBS_DIM),
        mask=np.asarray(rows["mask"], np.bool_).reshape(-1, L.N_ACTIONS),
        prior=np.asarray(rows["prior"], np.int64),
        potential=np.asarray(rows["potential"], np.float64),
        policy=np.asarray(rows["policy"], np.float32).reshape(-1, L.N_ACTIONS),
        value=np.asarray(rows["value"], np.float32),
        result=np.asarray(result, np.float32),
    )
    return samples, {"games": games, "steps": steps, "decisions": len(samples)}


def value_logit(v: torch.Tensor, potential: torch.Tensor) -> torch.Tensor:
    """The logit of the win share the search reads from value-head outputs ``v`` (:mod:`ohmygoods_agents.gumbel`)."""
    from ohmygoods_agents.gumbel import REWARD_SCALE, VALUE_BIAS, VALUE_SLOPE

    return VALUE_SLOPE * (v / REWARD_SCALE + potential) + VALUE_BIAS


def train_step(
    net: Any, opt: torch.optim.Optimizer, data: Samples, idx: np.ndarray, cfg: GumbelConfig
) -> dict[str, float]:
    """One gradient step on the samples ``idx``: policy cross-entropy plus ``vf_coef`` times the value's."""
    from ohmygoods_agents.slotnet import NEG

    net.train()
    obs = torch.from_numpy(data.obs[idx])
    mask = torch.from_numpy(data.mask[idx])
    prior = torch.from_numpy(data.prior[idx]) if net.prior is not None else None
    target = torch.from_numpy(data.policy[idx])
    h = net.features(obs)
    logits = net.policy_logits(h, prior).masked_fill(~mask, NEG)
    logp = torch.log_softmax(logits, dim=1)
    policy_loss = -(target * logp.masked_fill(~mask, 0.0)).sum(1).mean()
    z = cfg.outcome_weight * torch.from_numpy(data.result[idx]) + (1 - cfg.outcome_weight) * torch.from_numpy(
        data.value[idx]
    )
    logit = value_logit(net.v(h).squeeze(1), torch.from_numpy(data.potential[idx]).float())
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, z)
    loss = policy_loss + cfg.vf_coef * value_loss
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
    opt.step()
    with torch.no_grad():  # how far the target is from the network: KL(target || policy)
        ent = -(target * torch.log(target.clamp_min(1e-12))).sum(1).mean()
    pl, vl = policy_loss.item(), value_loss.item()
    return {"policy_loss": pl, "value_loss": vl, "kl": pl - ent.item()}


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def _load(spec: str) -> Any:
    from .fast_ppo import init_path, load_net

    return load_net(init_path(spec))


def train(args: argparse.Namespace, value: Any = None) -> dict[str, Any]:
    from ohmygoods_agents.policy_agents import SlotNetAgent

    from .fast_ppo import save_agent
    from .stats import match

    torch.manual_seed(args.seed)
    cfg = GumbelConfig(**{f: getattr(args, f) for f in GumbelConfig.__dataclass_fields__})
    net = _load(args.init)
    if value is None and getattr(args, "value", None):  # main passes the network it checked
        from ohmygoods_agents.gumbel import load_win_value

        value = load_win_value(args.value)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(cfg.seed)
    meta = {"loop": "python -m ohmygoods_training.gumbel train", "command": " ".join(sys.argv), "config": vars(args)}
    t0, c0 = time.perf_counter(), _cpu_seconds()
    buffer: Samples | None = None
    decisions = games = 0
    log = out / "eval.csv"
    fields = ["iteration", "games", "decisions", "cpu_s", "wall_s", "opponent", "eval_games", "win_rate", "ci_low",
              "ci_high", "policy_loss", "value_loss", "kl"]  # fmt: skip
    with open(log, "w", newline="") as fh:
        csv.writer(fh).writerow(fields)

    def evaluate(it: int, losses: dict[str, float]) -> None:
        net.eval()
        r = match(SlotNetAgent(net, name="gumbel-net"), args.eval_vs, args.eval_games, 2, "omg2", seed=EVAL_SEED)
        cpu, wall = _cpu_seconds() - c0, time.perf_counter() - t0
        row = [it, games, decisions, round(cpu, 1), round(wall, 1), args.eval_vs, r.games, round(r.win_rate, 4),
               round(r.ci_low, 4), round(r.ci_high, 4)] + [round(losses.get(k, float("nan")), 4)
               for k in ("policy_loss", "value_loss", "kl")]  # fmt: skip
        with open(log, "a", newline="") as fh:
            csv.writer(fh).writerow(row)
        save_agent(net, out / f"it{it}", {**meta, "iteration": it, "decisions": decisions, "eval": r.as_dict()})
        print(f"it {it}: {decisions} decisions, {games} games, cpu {cpu:.0f}s, wall {wall:.0f}s, {r}", flush=True)

    evaluate(0, {})
    it = 0
    while True:
        it += 1
        samples, info = play_selfplay(
            net, cfg.games, cfg.sims, seed=cfg.seed * 1_000 + it, considered=cfg.considered, value=value
        )
        games += info["games"]
        decisions += info["decisions"]
        buffer = samples if buffer is None else Samples.concat([buffer, samples]).tail(cfg.buffer)
        losses: dict[str, list[float]] = {}
        n = len(buffer)
        for _ in range(cfg.epochs):
            order = rng.permutation(n)
            for s in range(0, n, cfg.minibatch):
                for k, v in train_step(net, opt, buffer, order[s : s + cfg.minibatch], cfg).items():
                    losses.setdefault(k, []).append(v)
        mean = {k: float(np.mean(v)) for k, v in losses.items()}
        save_agent(net, out / "last", {**meta, "iteration": it, "decisions": decisions})
        elapsed = (time.perf_counter() - t0) / 60
        done = elapsed >= args.minutes or (args.iterations and it >= args.iterations)
        if it % args.eval_every == 0 or done:
            evaluate(it, mean)
        if done:
            break
    return {"iterations": it, "games": games, "decisions": decisions, "out": str(out)}


def cost(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Milliseconds per searched decision of ``gumbel:N`` (``N`` in ``--sims``; and of ``--baselines``) against
    ``ppo``: the process's
    CPU time (what the search costs) and the wall time (what a player waits, longer on a loaded machine)."""
    from ohmygoods_env.policy import make_agent

    from .league_spec import opponent_agent

    net = make_agent("ppo")
    rows = []
    for sims in [*args.sims, *args.baselines]:
        value = {"value": args.value} if args.value else {}
        agent = (
            make_agent(f"gumbel:{sims}", seed=args.seed, **value) if isinstance(sims, int) else opponent_agent(sims, 0)
        )
        wall = cpu = 0.0
        searched = 0
        for i in range(args.games):
            g = Game(2, seed=args.seed * 1000 + i)
            while not g.done:
                p = g.current_player
                obs, mask, info = g.observe(p), g.legal_mask(), info_state_of(g.state, p)
                if p == i % 2 and int(mask.sum()) > 1:
                    t, c = time.perf_counter(), time.process_time()
                    a = agent.act(obs, mask, info)
                    wall += time.perf_counter() - t
                    cpu += time.process_time() - c
                    searched += 1
                else:
                    a = net.act(obs, mask, info)
                g.step(a)
        rows.append({"sims": sims, "decisions": searched, "cpu_ms_per_decision": round(1000 * cpu / searched, 1),
                     "wall_ms_per_decision": round(1000 * wall / searched, 1)})  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    return rows


def calibrate(args: argparse.Namespace) -> dict[str, Any]:
    """The win-share map of :mod:`ohmygoods_agents.gumbel`: a logistic fit of each seat's result (1, 0.5, 0)
    on ``v / REWARD_SCALE + potential`` at every decision of ``--games`` games of ``ppo`` (sampling) against
    itself, and for comparison the fit on the raw value ``v`` alone (cross-entropies in nats)."""
    from ohmygoods_agents.gumbel import REWARD_SCALE, potentials

    from ohmygoods_env.policy import make_agent

    ppo = make_agent("ppo", seed=1, deterministic=False)
    v_all, pot_all, result = [], [], []
    for gi in range(args.games):
        g = Game(2, seed=args.seed + gi)
        rows = []
        while not g.done:
            p = g.current_player
            with torch.no_grad():
                v = ppo.net.v(ppo.net.features(torch.as_tensor(np.stack([g.observe(0), g.observe(1)])))).squeeze(1)
            rows.append((v.numpy().astype(np.float64), potentials(g)))
            g.step(ppo.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p)))
        r = (np.asarray(g.rewards("win"), np.float64) + 1.0) / 2.0
        for v, pot in rows:
            v_all.extend(v)
            pot_all.extend(pot)
            result.extend(r)
    v, pot, y = (torch.tensor(x, dtype=torch.float64) for x in (v_all, pot_all, result))

    def fit(x: torch.Tensor) -> tuple[float, float, float]:
        a = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
        b = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([a, b], max_iter=300)

        def closure() -> torch.Tensor:
            opt.zero_grad()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(a * x + b, y)
            loss.backward()
            return loss

        opt.step(closure)
        return round(a.item(), 4), round(b.item(), 4), round(closure().item(), 4)

    slope, bias, ce = fit(v / REWARD_SCALE + pot)
    _, _, raw = fit(v)
    out = {"samples": len(result), "slope": slope, "bias": bias, "cross_entropy": ce, "raw_value_cross_entropy": raw}
    print(json.dumps(out), flush=True)
    return out


def run_match(args: argparse.Namespace) -> dict[str, Any]:
    from ohmygoods_env.policy import make_agent

    from .stats import match

    keys = ("c_scale", "c_visit", "considered", "gumbel_scale", "value")
    search = {k: getattr(args, k) for k in keys if getattr(args, k) is not None}
    if args.value is not None:  # a missing or wrong file: one line, before any game
        from ohmygoods_agents.checkpoint import CheckpointError
        from ohmygoods_agents.gumbel import load_win_value

        try:
            search["value"] = load_win_value(args.value)
        except (OSError, CheckpointError) as exc:
            print(f"--value {args.value}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    agent = make_agent(args.agent, seed=args.seed, **search)  # search options: gumbel agents only
    t0 = _cpu_seconds()
    r = match(agent, args.opponent, args.games, 2, "omg2", seed=args.seed).as_dict()  # mcts1000: 1,000 simulations
    search.pop("value", None)
    r.update(agent=args.agent, seed=args.seed, cpu_s=round(_cpu_seconds() - t0, 1), value=args.value, **search)
    print(json.dumps(r), flush=True)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(r, indent=1) + "\n")
    return r


def _sims_list(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}") from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"expected numbers >= 1, got {text!r}")
    return out


def build_parser() -> argparse.ArgumentParser:
    from ohmygoods_env.argtypes import int_at_least

    p = argparse.ArgumentParser(prog="python -m ohmygoods_training.gumbel", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="self-play with the Gumbel search")
    t.add_argument("--init", default="ppo", help="starting network: NAME.json or a shipped agent")
    t.add_argument("--sims", type=int_at_least(1), default=16, help="simulations per searched decision")
    t.add_argument("--games", type=int_at_least(1), default=8, help="self-play games per iteration")
    t.add_argument("--buffer", type=int_at_least(1), default=10_000, help="newest decisions trained on")
    t.add_argument("--epochs", type=int_at_least(1), default=1, help="passes over the buffer per iteration")
    t.add_argument("--minibatch", type=int_at_least(1), default=256, help="samples per gradient step")
    t.add_argument("--lr", type=float, default=1e-4, help="Adam learning rate")
    t.add_argument("--vf-coef", type=float, default=1.0, help="weight of the value loss")
    t.add_argument("--outcome-weight", type=float, default=0.5, help="value target: share of the result")
    t.add_argument("--considered", type=int_at_least(1), default=16, help="root actions sampled (Gumbel-top-k)")
    t.add_argument("--minutes", type=float, default=30.0, help="stop after this wall time")
    t.add_argument("--iterations", type=int_at_least(0), default=0, help="stop after this many iterations (0: none)")
    t.add_argument("--eval-every", type=int_at_least(1), default=10, help="iterations between evaluations")
    t.add_argument("--eval-games", type=int_at_least(1), default=200, help="games per evaluation")
    t.add_argument("--eval-vs", default="heuristic", help="opponent of the evaluations")
    t.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the games and the updates")
    t.add_argument("--out", default="runs/gumbel", help="output folder")
    t.add_argument(
        "--value", default=None,
        help="the search's values from this win-value checkpoint (value_head fit; frozen), not the network's head",
    )  # fmt: skip
    c = sub.add_parser("cost", help="milliseconds per searched decision")
    c.add_argument("--sims", type=_sims_list, default=[8, 16, 32, 200], help="budgets, comma separated")
    c.add_argument("--games", type=int_at_least(1), default=2, help="games per budget (the agent in one seat)")
    c.add_argument(
        "--baselines",
        type=lambda t: [x for x in t.split(",") if x],
        default=[],
        help="other agents timed the same way, comma separated (mcts1000: MCTS with 1,000 simulations)",
    )
    c.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the deals and the search")
    c.add_argument("--value", default=None, help="the gumbel agents' values from this win-value checkpoint")
    k = sub.add_parser("calibrate", help="fit the value head's win-share map (ppo against itself)")
    k.add_argument("--games", type=int_at_least(1), default=300, help="games of ppo against itself")
    k.add_argument("--seed", type=int_at_least(0), default=900_000, help="seed of the first deal")
    m = sub.add_parser("match", help="an agent against a baseline (seats rotating, ties half, Wilson)")
    m.add_argument("--agent", default="gumbel:200", help="agent spec")
    m.add_argument("--opponent", default="mcts1000", help="opponent (mctsN: N simulations)")
    m.add_argument("--games", type=int_at_least(1), default=20, help="games")
    m.add_argument("--seed", type=int_at_least(0), default=31_000, help="seed of the deals (fresh: one no choice saw)")
    m.add_argument("--out", default="", help="write the result as JSON here")
    m.add_argument("--c-scale", type=float, default=None, help="sigma's c_scale of a gumbel agent (default 1)")
    m.add_argument("--c-visit", type=float, default=None, help="sigma's c_visit of a gumbel agent (default 50)")
    m.add_argument("--considered", type=int_at_least(1), default=None, help="root actions of a gumbel agent (16)")
    m.add_argument("--gumbel-scale", type=float, default=None, help="root Gumbel noise of a gumbel agent (1; 0: none)")
    m.add_argument(
        "--value", default=None, help="a gumbel agent's values from this win-value checkpoint (value_head fit)"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    if args.command == "train":
        if not 0.0 <= args.outcome_weight <= 1.0:
            print(f"--outcome-weight {args.outcome_weight}: expected a number in 0..1", file=sys.stderr)
            return 2
        value = None
        if args.value is not None:  # a missing or wrong file: one line, before any game
            from ohmygoods_agents.checkpoint import CheckpointError
            from ohmygoods_agents.gumbel import load_win_value

            try:
                value = load_win_value(args.value)
            except (CheckpointError, OSError, ValueError) as exc:
                print(f"--value {args.value}: {' '.join(str(exc).split())}", file=sys.stderr)
                return 2
        print(json.dumps(train(args, value)))
    elif args.command == "cost":
        cost(args)
    elif args.command == "calibrate":
        calibrate(args)
    else:
        run_match(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
