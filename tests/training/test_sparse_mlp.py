"""The MLP's sparse form (``ohmygoods_training.kits.MLPSparseForward``), the network of every game but *Oh my
Goods!*: its logits of the legal actions, values and gradients are the dense forward's up to float rounding, for
every game the one loop trains with an MLP (an action count that is no multiple of 8 included: *Artificium*'s
401), and the loop runs on it."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
import torch
from ohmygoods_training.fast_ppo import FastPPO, PPOConfig, legal_index, legal_logits
from ohmygoods_training.kits import ActorCritic, MLPSparseForward, kit_of

pytestmark = pytest.mark.training

GAMES = [("artificium", 3), ("goofspiel", 2)]


def _rows(game: str, players: int, n: int = 120, steps: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the live games' seats to act after ``steps`` random steps of ``n`` games."""
    engine = kit_of(game).engine(n, players, 0, argparse.Namespace(fast=True))
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = engine.legal_mask(rows=np.arange(n))
        engine.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
        engine.reset(engine.done.copy())
    live = np.flatnonzero(~engine.done)
    return engine.observe(rows=live).copy(), engine.legal_mask(rows=live).copy()


def _net(obs: np.ndarray, masks: np.ndarray) -> ActorCritic:
    torch.manual_seed(0)
    net = ActorCritic(obs.shape[1], masks.shape[1])
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return net


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_sparse_mlp_gives_the_dense_numbers_and_gradients(game, players):
    obs, masks = _rows(game, players)
    assert obs.any(axis=1).all()
    net = _net(obs, masks)
    sparse = kit_of(game).sparse_forward(net)
    assert isinstance(sparse, MLPSparseForward)
    ids, valid = legal_index(torch.from_numpy(masks))
    logits, got_ids, got_valid, values = sparse(obs, masks, players)
    with torch.no_grad():
        dense_logits, dense_values = net(torch.from_numpy(obs))
    assert np.array_equal(got_ids, ids.numpy()) and np.array_equal(got_valid, valid.numpy())
    assert torch.allclose(logits, legal_logits(dense_logits, ids, valid), atol=2e-6)
    assert torch.allclose(values, dense_values, atol=2e-6)
    assert torch.allclose(sparse.values(obs, players), dense_values, atol=2e-6)

    rows = np.arange(len(obs))[::-1].copy()  # any order
    weights = torch.linspace(-1.0, 1.0, ids.shape[1])

    def loss(lg: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return (torch.log_softmax(lg, 1).masked_fill(~valid[rows], 0.0) * weights).sum() + v.square().sum()

    loss(*sparse.train_forward(sparse.batch(obs), rows, ids[rows], valid[rows])).backward()
    got = {k: p.grad.clone() for k, p in net.named_parameters()}
    net.zero_grad()
    lg, v = net(torch.from_numpy(obs[rows]))
    loss(legal_logits(lg, ids[rows], valid[rows]), v).backward()
    for name, p in net.named_parameters():
        assert torch.allclose(got[name], p.grad, rtol=0, atol=1e-5 * max(float(p.grad.abs().max()), 1e-6)), name


def test_the_loop_trains_artificium_on_its_sparse_form_as_on_its_dense_one():
    """Two iterations of the one loop on *Artificium*, sparse and dense, from one seed: the same sample counts,
    losses within rounding (a sampled move flips only where perturbed logits tie within rounding)."""
    kit = kit_of("artificium")
    base = {**{k: v for k, v in kit.defaults.items() if k in PPOConfig.__dataclass_fields__}, "game": "artificium"}
    base.update(num_envs=8, n_steps=8, minibatch=32, seed=2, league="self:0.8,random:0.2")
    runs = {}
    for sparse in (0, 1):
        ppo = FastPPO(PPOConfig(**base, sparse_forward=sparse))
        assert (ppo.rollout._sparse_forward(ppo.net) is not None) == bool(sparse)
        runs[sparse] = [ppo.iterate() for _ in range(2)]
    for a, b in zip(runs[0], runs[1], strict=True):
        assert a["samples"] == b["samples"]
        for key in ("pg_loss", "v_loss", "entropy"):
            assert a[key] == pytest.approx(b[key], rel=1e-3, abs=1e-6), key


def test_the_mlp_form_refuses_rows_of_another_width():
    obs, masks = _rows("artificium", 3, n=12, steps=4)
    sparse = MLPSparseForward(_net(obs, masks))
    with pytest.raises(ValueError, match=rf"observations must have shape \(N, {obs.shape[1]}\)"):
        sparse(obs[:, :-1], masks, 3)
    with pytest.raises(ValueError, match=rf"masks must have shape \({len(obs)}, {masks.shape[1]}\)"):
        sparse(obs, masks[:, :-1], 3)
