"""The slot network's sparse form (``ohmygoods_agents.slotnet.SparseForward``): the dense network's logits of the
legal actions and values up to float rounding, for every player count, with and without the heuristic prior;
the weights read as they are at each call; its sampler; the league snapshot agent that acts through it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ohmygoods_agents.policy_agents import SlotNetAgent, sample_masked
from ohmygoods_agents.slotnet import NEG, SlotNet, SparseForward

from ohmygoods_env.batch import BatchGames, make_rng, random_actions


def _rows(players: int, n: int = 200, steps: int = 40, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the seats to act in ``n`` games after ``steps`` random batch steps (mid-game:
    buildings in play, hands, goods)."""
    g = BatchGames(n, players, seed=seed)
    rng = make_rng(n, seed)
    for _ in range(steps):
        g.step(random_actions(g.masks(copy=False), rng))
        g.reset()
    return g.observe().copy(), g.legal_mask().copy()


def _net(prior: str | None = None, seed: int = 0) -> SlotNet:
    """A slot network whose outputs are not near zero (the policy head starts at gain 0.01)."""
    torch.manual_seed(seed)
    net = SlotNet(prior=prior)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return net.eval()


def _dense(net: SlotNet, obs: np.ndarray, masks: np.ndarray, players: int, prior: np.ndarray | None):
    """The dense forward's logits of the legal actions (in action order), ids and values."""
    with torch.no_grad():
        x = torch.from_numpy(obs)
        h = net.features(x, seats=players)
        logits = net.policy_logits(h, None if prior is None else torch.from_numpy(prior))
        values = net.v(h).squeeze(1)
    width = int(masks.sum(1).max())
    ids = np.zeros((len(obs), width), np.int64)
    valid = np.zeros((len(obs), width), np.bool_)
    for r, m in enumerate(masks):
        legal = np.flatnonzero(m)
        ids[r, : legal.size], valid[r, : legal.size] = legal, True
    lg = torch.gather(logits, 1, torch.from_numpy(ids)).masked_fill(~torch.from_numpy(valid), NEG)
    return lg, ids, valid, values


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("prior", [None, "heuristic"])
def test_the_sparse_form_gives_the_dense_networks_numbers(players, prior):
    obs, masks = _rows(players)
    net = _net(prior)
    choice = np.array([np.flatnonzero(m)[-1] for m in masks]) if prior else None  # any legal action
    logits, ids, valid, values = SparseForward(net)(obs, masks, players, choice)
    d_logits, d_ids, d_valid, d_values = _dense(net, obs, masks, players, choice)
    assert np.array_equal(ids[valid], d_ids[d_valid]) and np.array_equal(valid, d_valid)
    assert np.all(ids[~valid] == 0) and torch.all(logits[torch.from_numpy(~valid)] == NEG)
    scale = float(d_logits[torch.from_numpy(d_valid)].abs().max())
    assert torch.allclose(logits, d_logits, rtol=0, atol=2e-6 * max(scale, 1.0))
    assert torch.allclose(values, d_values, rtol=0, atol=2e-6 * max(float(d_values.abs().max()), 1.0))


def test_seats_beyond_the_player_count_change_nothing():
    """A 2-player row read as a 4-player one (its other seats hold no building): the same bits."""
    obs, masks = _rows(2)
    sparse = SparseForward(_net())
    two = [np.asarray(x).copy() for x in sparse(obs, masks, 2)]
    four = sparse(obs, masks, 4)
    for a, b in zip(two, four, strict=True):
        assert np.array_equal(a, np.asarray(b))


def test_a_call_gives_the_same_bits_again_after_other_batches():
    """The buffers a call returns are reused, never read stale: a batch repeated after others, the same bits."""
    obs, masks = _rows(2)
    sparse = SparseForward(_net())
    first = [np.asarray(x).copy() for x in sparse(obs, masks, 2)]
    sparse(obs[:7], masks[:7], 2)
    sparse(*_rows(3, n=300, seed=9), 3)
    again = sparse(obs, masks, 2)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, np.asarray(b))


def test_a_rows_numbers_do_not_depend_on_its_batch_or_the_thread_count():
    """The whole forward is one kernel (``_sparse_kernels.SLOT_ROWS``) whose serial and parallel twins add each
    row's numbers in one order: a row alone, the same row among others, and either twin give the same bits."""
    from ohmygoods_agents import _sparse_kernels as k

    obs, masks = _rows(3, n=300)
    sparse = SparseForward(_net())
    whole = [np.asarray(x).copy() for x in sparse(obs, masks, 3)]
    for r in (0, 17, 299):
        alone = sparse(obs[r : r + 1], masks[r : r + 1], 3)
        width = alone[0].shape[1]
        for a, b in zip(whole, alone, strict=True):
            assert np.array_equal(a[r : r + 1, :width] if a.ndim == 2 else a[r : r + 1], np.asarray(b))
    timed = k.SLOT_ROWS
    try:
        for kernel in (timed.twin.serial, timed.twin.parallel):
            k.SLOT_ROWS = lambda n, *args, kernel=kernel: kernel(*args)
            for a, b in zip(whole, sparse(obs, masks, 3), strict=True):
                assert np.array_equal(a, np.asarray(b))
    finally:
        k.SLOT_ROWS = timed


@pytest.mark.parametrize("players", [2, 4])
def test_the_trunk_features_as_a_tensor(players):
    """``SparseForward.features`` (the trunk's features through ``embedding_bag``): the dense network's."""
    obs, _ = _rows(players)
    net = _net()
    with torch.no_grad():
        dense = net.features(torch.from_numpy(obs), seats=players)
    got = SparseForward(net).features(obs, players)
    assert torch.allclose(got, dense, rtol=0, atol=2e-6 * max(float(dense.abs().max()), 1.0))


def test_the_values_are_those_of_a_call():
    obs, masks = _rows(2)
    sparse = SparseForward(_net())
    values = sparse.values(obs, 2)
    assert torch.equal(values, sparse(obs, masks, 2)[3])
    assert values.data_ptr() != sparse(obs, masks, 2)[3].data_ptr()  # a new tensor, not the next call's buffer


def test_a_trunk_wider_than_a_rows_inputs():
    """A hidden width above the trunk's input count (the kernel's scratch holds either layer's entries)."""
    obs, masks = _rows(2, n=20)
    torch.manual_seed(1)
    net = SlotNet(hidden=1024).eval()
    logits, ids, valid, values = SparseForward(net)(obs, masks, 2)
    d_logits, d_ids, d_valid, d_values = _dense(net, obs, masks, 2, None)
    assert np.array_equal(ids[valid], d_ids[d_valid])
    assert torch.allclose(logits, d_logits, rtol=0, atol=1e-5) and torch.allclose(values, d_values, rtol=0, atol=1e-5)


def test_the_weights_are_read_as_they_are_at_each_call():
    """After an optimizer step (the first layer's transposed copy renewed) and after a load, the sparse form
    follows the network."""
    obs, masks = _rows(2, n=64)
    net = _net()
    sparse = SparseForward(net)
    before = sparse(obs, masks, 2)[0].clone()
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    loss = net(torch.from_numpy(obs), torch.from_numpy(masks))[1].square().sum()
    loss.backward()
    opt.step()
    after = sparse(obs, masks, 2)[0]
    assert not torch.allclose(before, after)
    assert torch.allclose(after, _dense(net, obs, masks, 2, None)[0], atol=2e-6)
    net.load_state_dict(_net(seed=5).state_dict())
    assert torch.allclose(sparse(obs, masks, 2)[0], _dense(net, obs, masks, 2, None)[0], atol=2e-6)


def test_the_prior_action_is_asked_for_exactly_when_the_network_has_a_prior():
    obs, masks = _rows(2, n=8)
    with pytest.raises(ValueError, match="has no prior: do not pass prior_action"):
        SparseForward(_net())(obs, masks, 2, np.zeros(8, np.int64))
    with pytest.raises(ValueError, match="adds prior: pass prior_action"):
        SparseForward(_net("heuristic"))(obs, masks, 2)


def test_the_sampler_draws_as_sample_masked_and_gives_the_log_probability():
    """The same uniforms as ``sample_masked`` from the same generator (one per column), so the same draws; the
    log-probability is the log-softmax of the drawn column over the legal ones."""
    obs, masks = _rows(2, n=300)
    sparse = SparseForward(_net())
    logits, ids, valid, _ = sparse(obs, masks, 2)
    cols, logp = sparse.sample(logits, valid, torch.Generator().manual_seed(11))
    want = sample_masked(logits, torch.Generator().manual_seed(11)).numpy()
    assert np.array_equal(cols, want)
    assert (
        valid[np.arange(len(cols)), cols].all() and masks[np.arange(len(cols)), ids[np.arange(len(cols)), cols]].all()
    )
    ref = torch.log_softmax(logits, 1).gather(1, torch.from_numpy(cols)[:, None]).squeeze(1).numpy()
    assert np.allclose(logp, ref, atol=1e-6)


def test_the_sampler_follows_the_softmax():
    """20,000 draws from one row of three legal actions: each action's share within 4 standard errors."""
    logits = torch.tensor([[0.5, -1.0, 1.2, NEG]], dtype=torch.float32).repeat(20_000, 1)
    valid = np.tile(np.array([[True, True, True, False]]), (20_000, 1))
    sparse = SparseForward(_net())
    cols, _ = sparse.sample(logits, valid, torch.Generator().manual_seed(0))
    p = torch.softmax(logits[0, :3], 0).numpy()
    share = np.bincount(cols, minlength=4) / cols.size
    assert share[3] == 0
    assert np.all(np.abs(share[:3] - p) < 4 * np.sqrt(p * (1 - p) / cols.size))


def test_the_league_snapshot_agent_acts_through_the_sparse_form():
    """``SlotNetAgent(sparse=True)``: the deterministic moves of the dense agent (argmax of the same logits up to
    rounding), legal sampled moves, and a network on another device refused."""
    obs, masks = _rows(2, n=300)
    net = _net()
    dense = SlotNetAgent(net).act_batch(obs, masks)
    sparse = SlotNetAgent(net, sparse=True).act_batch(obs, masks)
    assert np.array_equal(dense, sparse)
    sampled = SlotNetAgent(net, deterministic=False, seed=3, sparse=True).act_batch(obs, masks)
    assert masks[np.arange(len(obs)), sampled].all()
    with pytest.raises(ValueError, match="shape"):
        SlotNetAgent(net, sparse=True).act_batch(obs, masks[:, :-8])
    with pytest.raises(ValueError, match="on the CPU"):
        SlotNetAgent(SlotNet().to("meta"), sparse=True)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("prior", [None, "heuristic"])
def test_the_update_forward_gives_the_dense_networks_gradients(players, prior):
    """``train_forward`` over a minibatch of rows in any order: the dense forward's legal logits and values
    up to rounding, and the same gradients for every parameter (to about 1e-6 of each tensor's largest)."""
    from ohmygoods_training.fast_ppo import legal_index, legal_logits

    obs, masks = _rows(players, n=300)
    net = _net(prior)
    ids, valid = legal_index(torch.from_numpy(masks))
    rows = torch.randperm(300, generator=torch.Generator().manual_seed(players))[:200]
    choice = torch.tensor([int(np.flatnonzero(m)[0]) for m in masks]) if prior else None
    weights = torch.linspace(-1.0, 1.0, ids.shape[1])

    def loss(logits: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        logp = torch.log_softmax(logits, 1).masked_fill(~valid[rows], 0.0)
        return (logp * weights).sum() + values.square().sum()

    h = net.features(torch.from_numpy(obs)[rows], seats=players)
    dense_logits = legal_logits(net.policy_logits(h, None if prior is None else choice[rows]), ids[rows], valid[rows])
    dense_values = net.v(h).squeeze(1)
    loss(dense_logits, dense_values).backward()
    dense_grads = {k: p.grad.clone() for k, p in net.named_parameters()}
    net.zero_grad()
    sparse = SparseForward(net)
    sb = sparse.batch(obs, players)
    logits, values = sparse.train_forward(
        sb, rows.numpy(), ids[rows], valid[rows], None if prior is None else choice[rows]
    )
    assert torch.allclose(logits, dense_logits, atol=2e-6) and torch.allclose(values, dense_values, atol=2e-6)
    loss(logits, values).backward()
    for name, p in net.named_parameters():
        scale = float(dense_grads[name].abs().max())
        assert torch.allclose(p.grad, dense_grads[name], rtol=0, atol=1e-5 * max(scale, 1e-6)), name


def test_malformed_inputs_are_refused_before_the_kernels_read_them():
    """The compiled kernels do not check their bounds: rows of another width, masks of another shape, a prior of
    another length, sample ids outside the batch and mismatched columns are refused in one line each."""
    from ohmygoods_training.fast_ppo import legal_index

    obs, masks = _rows(2, n=16)
    net = _net()
    sparse = SparseForward(net)
    with pytest.raises(ValueError, match=rf"observations must have shape \(N, {obs.shape[1]}\), got \(16, 100\)"):
        sparse(obs[:, :100], masks, 2)
    with pytest.raises(ValueError, match=r"observations must have shape"):
        sparse.values(obs[0], 2)  # one row, not a batch
    with pytest.raises(ValueError, match=r"masks must have shape \(16, 624\) for 16 observations, got \(15, 624\)"):
        sparse(obs, masks[:15], 2)
    with pytest.raises(ValueError, match=r"masks must have shape \(16, 624\)"):
        sparse(obs, masks[:, :-8], 2)
    with pytest.raises(ValueError, match=r"prior_action must have shape \(16,\), got \(3,\)"):
        SparseForward(_net("heuristic"))(obs, masks, 2, np.zeros(3, np.int64))
    with pytest.raises(ValueError, match=r"observations must have shape"):
        sparse.batch(obs[:, :-1], 2)
    ids, valid = legal_index(torch.from_numpy(masks))
    sb = sparse.batch(obs, 2)
    with pytest.raises(ValueError, match=r"rows must be sample ids in \[0, 16\)"):
        sparse.train_forward(sb, np.array([0, 16]), ids[:2], valid[:2])
    with pytest.raises(ValueError, match=r"ids and valid must both have shape \(2, K\)"):
        sparse.train_forward(sb, np.array([0, 1]), ids[:3], valid[:3])
    with pytest.raises(ValueError, match=r"observations must have shape"):
        SlotNetAgent(net, sparse=True).act_batch(obs[:, :-1], masks)
    after = sparse(obs, masks, 2)  # still answers, the same as a fresh form
    fresh = SparseForward(net)(obs, masks, 2)
    assert torch.equal(after[0], fresh[0]) and torch.equal(after[3], fresh[3])


def test_a_minibatchs_gather_gives_the_same_bits_on_one_thread_or_several():
    """The update's gather of a minibatch's entries and slots (``gather_rows``) as serial and parallel twins: the
    same outputs, each row's entries as the rollout holds them."""
    from ohmygoods_agents import _sparse_kernels as k

    obs, _ = _rows(3, n=300)
    sb = SparseForward(_net()).batch(obs, 3)
    rows = np.random.default_rng(0).permutation(sb.n)[:257]
    sizes = (
        int(sb.offs[rows + 1].sum() - sb.offs[rows].sum()),
        int(sb.slot_offs[rows + 1].sum() - sb.slot_offs[rows].sum()),
    )
    got = []
    for kernel in (k.GATHER_ROWS.twin.serial, k.GATHER_ROWS.twin.parallel):
        out = (np.empty(sizes[0], np.int64), np.empty(sizes[0], np.float32), np.empty(rows.size + 1, np.int64),
               np.empty(sizes[1], np.int64), np.empty(sizes[1], np.int64))  # fmt: skip
        kernel(rows, sb.offs, sb.idx, sb.val, sb.slot_offs, sb.where, *out, np.empty(rows.size, np.int64))
        got.append(out)
    for a, b in zip(*got, strict=True):
        assert np.array_equal(a, b)
    assert k.gather_rows(rows, sb.offs, sb.idx, sb.val, sb.slot_offs, sb.where, *got[0]) == sizes
    idx, val, offs = got[0][:3]
    for q, r in enumerate(rows[:20]):  # each row's entries as the rollout holds them
        assert np.array_equal(idx[offs[q] : offs[q + 1]], sb.idx[sb.offs[r] : sb.offs[r + 1]])


def test_the_updates_legal_logits_and_their_gradients():
    """``sparse.LegalLogits`` (compiled dot products at a minibatch's (row, action) pairs) against the same logits
    gathered in tensors: values and the gradients of ``h``, the weight and the bias, repeated pairs included."""
    from ohmygoods_agents.sparse import LegalLogits

    g = torch.Generator().manual_seed(5)
    h = torch.randn(40, 128, generator=g, requires_grad=True)
    w = torch.randn(624, 128, generator=g, requires_grad=True)
    b = torch.randn(624, generator=g, requires_grad=True)
    rows = torch.randint(0, 40, (300,), generator=g)
    acts = torch.randint(0, 624, (300,), generator=g)
    up = torch.randn(300, generator=g)
    got = LegalLogits.apply(h, w, b, rows.numpy(), acts.numpy())
    (got * up).sum().backward()
    grads = [t.grad.clone() for t in (h, w, b)]
    for t in (h, w, b):
        t.grad = None
    want = (w.index_select(0, acts) * h.index_select(0, rows)).sum(1) + b.index_select(0, acts)
    (want * up).sum().backward()
    assert torch.allclose(got, want, rtol=0, atol=1e-4)
    for mine, theirs in zip(grads, (h.grad, w.grad, b.grad), strict=True):
        assert torch.allclose(mine, theirs, rtol=0, atol=1e-4)


def test_an_empty_batch():
    """No rows: empty outputs of width 1 (as before the one-call forward), values of none; no pair: no logit."""
    from ohmygoods_agents.sparse import LegalLogits

    obs, masks = _rows(2, n=4, steps=2)
    sparse = SparseForward(_net())
    logits, ids, valid, values = sparse(obs[:0], masks[:0], 2)
    assert logits.shape == (0, 1) and ids.shape == (0, 1) and valid.shape == (0, 1) and values.shape == (0,)
    assert sparse.values(obs[:0], 2).shape == (0,)
    h = torch.zeros(3, 128, requires_grad=True)
    out = LegalLogits.apply(h, torch.zeros(624, 128), torch.zeros(624), np.zeros(0, np.int64), np.zeros(0, np.int64))
    out.sum().backward()
    assert out.shape == (0,) and torch.equal(h.grad, torch.zeros(3, 128))
