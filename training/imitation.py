"""Behaviour-cloning warm start: fit a MaskablePPO policy (and its value head) to a teacher agent's play.

:func:`collect` plays ``games`` games in one :class:`~ohmygoods_env.batch.BatchGames`, every
seat played by the teacher (default: the heuristic, given each player's information state),
and records at every decision the acting player's observation, legal mask and the
teacher's action. With ``eps > 0`` a share of the moves actually played are random legal
moves (the label stays the teacher's choice), so the data also covers states the teacher
would not reach. Value targets are the seat's final reward (``reward_mode`` times
``reward_scale``) discounted by ``gamma`` per later decision of that seat.

:func:`clone` is the one behaviour-cloning loop of both training loops: it minimises the
cross-entropy of the masked policy on the teacher's actions plus ``vf_coef`` times the value
error, with Adam. :func:`pretrain` runs it on an SB3 policy before PPO starts (``train_ppo
--bc-games``); :func:`ohmygoods_training.fast_ppo.behaviour_clone` on a
:class:`~ohmygoods_agents.slotnet.SlotNet` (``--bc-games``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.policy import BatchPolicy

from .league_spec import opponent_agent
from .shaping import potentials


def collect(
    games: int,
    num_players: int = 2,
    rules: str = "omg2",
    teacher: str = "heuristic",
    reward_mode: str = "margin",
    reward_scale: float = 0.1,
    gamma: float = 0.995,
    eps: float = 0.1,
    seed: int = 0,
    batch: int = 64,
    shaped: bool = False,
) -> dict[str, np.ndarray]:
    """Teacher play: ``obs float16[N, OBS_DIM]``, ``masks bool[N, N_ACTIONS]``, ``actions``, ``returns``.

    With ``shaped`` the returns are those of potential-based shaping (:mod:`ohmygoods_training.shaping`):
    the discounted final reward minus the seat's potential at the decision, both times ``reward_scale``.
    """
    teacher_policy = BatchPolicy(opponent_agent(teacher, seed))
    rng = np.random.default_rng(seed)
    words = make_rng(batch, seed + 1)
    obs_l, mask_l, act_l, ret_l, phi_l = [], [], [], [], []
    done_games = 0
    start = 0
    while done_games < games:
        n = min(batch, games - done_games)
        g = BatchGames(n, num_players, rules, seed + 7 * start + 1, illegal="raise", reward_mode=reward_mode)
        owner_seat: list[tuple[int, int]] = []  # (game, seat) of each record of this batch
        first = len(act_l)
        rewards = np.zeros((n, num_players), np.float32)
        rows = np.arange(n, dtype=np.int64)
        while True:
            live = rows[~g.done]
            if live.size == 0:
                break
            seats = g.state[live, L.F_CUR].astype(np.int64)
            masks = g.masks()[live]
            labels = teacher_policy(g, live)
            obs_l.append(g.observe(rows=live).astype(np.float16))
            mask_l.append(masks.astype(np.bool_))
            act_l.append(labels)
            owner_seat.extend(zip(live.tolist(), seats.tolist(), strict=True))
            if shaped:
                phi_l.append(potentials(g, live, seats, reward_mode) * reward_scale)
            played = labels.copy()
            noisy = rng.random(live.size) < eps
            if noisy.any():
                played[noisy] = random_actions(np.ascontiguousarray(masks[noisy]), words[: int(noisy.sum())])
            r, _, _ = g.step(played, rows=live)
            rewards += r
        # discounted final reward per record: count later decisions of the same seat in the same game
        recs = np.asarray(owner_seat, np.int64).reshape(-1, 2)
        later = np.zeros(len(recs), np.int64)
        seen: dict[tuple[int, int], int] = {}
        for k in range(len(recs) - 1, -1, -1):
            key = (int(recs[k, 0]), int(recs[k, 1]))
            later[k] = seen.get(key, 0)
            seen[key] = later[k] + 1
        ret_l.append(rewards[recs[:, 0], recs[:, 1]] * reward_scale * gamma**later)
        assert sum(len(a) for a in act_l[first:]) == len(recs)
        done_games += n
        start += 1
    return {
        "obs": np.concatenate(obs_l),
        "masks": np.concatenate(mask_l),
        "actions": np.concatenate(act_l),
        "returns": (np.concatenate(ret_l) - (np.concatenate(phi_l) if shaped else 0.0)).astype(np.float32),
    }


def clone(
    parameters: Iterable[torch.nn.Parameter],
    forward: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
    data: dict[str, np.ndarray],
    epochs: int = 3,
    minibatch: int = 1024,
    lr: float = 1e-3,
    vf_coef: float = 0.5,
    seed: int = 0,
    log: Callable[[dict[str, float]], Any] | None = None,
    adam_eps: float = 1e-5,
    max_grad_norm: float = 0.5,
) -> dict[str, float]:
    """The one behaviour-cloning loop: fit a policy-value network to a teacher's play (:func:`collect`).

    ``forward(obs, mask) -> (logits, values)`` gives the network's logits with illegal actions
    masked (any large negative) and its value per row. The loss is the cross-entropy of the masked
    policy on the teacher's actions plus ``vf_coef`` times the squared value error on the recorded
    returns, minimised by Adam over minibatches in a seeded order. Returns the last epoch's
    ``loss_pi``, ``loss_v`` and ``accuracy`` (share of decisions whose most likely action is the
    teacher's); ``log`` gets them after every epoch.
    """
    params = list(parameters)
    opt = torch.optim.Adam(params, lr=lr, eps=adam_eps)
    n = len(data["actions"])
    gen = torch.Generator().manual_seed(int(seed))
    stats: dict[str, float] = {}
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen).numpy()
        tot = np.zeros(3)
        for s in range(0, n, minibatch):
            i = perm[s : s + minibatch]
            obs = torch.from_numpy(data["obs"][i].astype(np.float32))
            mask = torch.from_numpy(np.asarray(data["masks"][i], np.bool_))
            act = torch.from_numpy(data["actions"][i].astype(np.int64))
            ret = torch.from_numpy(np.asarray(data["returns"][i], np.float32))
            logits, values = forward(obs, mask)
            lp = torch.log_softmax(logits, 1)
            loss_pi = -lp.gather(1, act[:, None]).mean()
            loss_v = ((values - ret) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            (loss_pi + vf_coef * loss_v).backward()
            torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
            opt.step()
            tot += [loss_pi.item() * len(i), loss_v.item() * len(i), float((logits.argmax(1) == act).sum())]
        loss_pi_m, loss_v_m, acc = (float(x) for x in tot / n)
        stats = {"epoch": epoch + 1, "loss_pi": loss_pi_m, "loss_v": loss_v_m, "accuracy": acc}
        if log is not None:
            log(stats)
    return stats


def pretrain(
    policy: Any, data: dict[str, np.ndarray], epochs: int = 3, batch_size: int = 512, **options: Any
) -> dict[str, float]:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the data with :func:`clone` (``options``: its ``lr``,
    ``vf_coef``, ``seed``, ``log``); returns the last epoch's losses and accuracy."""

    def forward(obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        dist = policy.get_distribution(obs, action_masks=mask.numpy())
        return dist.distribution.logits, policy.predict_values(obs).flatten()

    policy.train()
    options.setdefault("adam_eps", 1e-8)  # torch's default, as SB3 policies were always cloned
    stats = clone(policy.parameters(), forward, data, epochs, batch_size, **options)
    policy.set_training_mode(False)
    return stats


def warm_start(policy: Any, games: int, args: Any, scale: float) -> dict[str, float]:
    """Collect teacher games and pretrain ``policy`` (used by ``train_ppo --bc-games``)."""
    t0 = time.perf_counter()
    data = collect(games, args.players, args.rules, args.bc_teacher, args.reward, scale, args.gamma, seed=args.seed)
    t1 = time.perf_counter()
    print(f"[bc] {len(data['actions'])} decisions from {games} games in {t1 - t0:.0f}s", file=sys.stderr, flush=True)
    stats = pretrain(
        policy,
        data,
        epochs=args.bc_epochs,
        seed=args.seed,
        log=lambda s: print(f"[bc] {s}", file=sys.stderr, flush=True),
    )
    stats.update(decisions=len(data["actions"]), seconds=round(time.perf_counter() - t0, 1))
    return stats


__all__ = ["clone", "collect", "pretrain", "warm_start"]
