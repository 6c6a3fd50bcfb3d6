"""The heuristic's moves are pinned: a fixed corpus of positions (random and heuristic play, 1-4 players, both
editions) and the digest of the moves the heuristic chooses there, taken when its decisions ran without the
per-decision caches and shortcuts it has now. A change that alters a single move fails here; one that only
makes it faster does not (``agents/heuristic.py``)."""

from __future__ import annotations

import hashlib
import zlib

import numpy as np
import pytest
from ohmygoods_agents import _heuristic_kernels as K
from ohmygoods_agents.heuristic import HeuristicAgent

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, make_rng, random_actions
from ohmygoods_env.framework import jit as _jit
from ohmygoods_env.policy import info_states_of

#: (players, rules, seed, batch steps, heuristic share of the moves that build the corpus)
CORPUS = ((2, "omg2", 4, 60, 0.0), (3, "omg2", 5, 60, 0.0), (4, "royal", 6, 60, 0.0), (1, "omg2", 7, 40, 0.0),
          (2, "royal", 8, 80, 0.8), (3, "omg2", 9, 80, 0.8))  # fmt: skip
#: sha256 of the int64 moves, agent seed 0 then 17 (the tie-breaks read the seed)
DIGEST = "bddb06723bfb8e2d5f717eeee4c5b589218ac9b49d787ced585013ce317c2177"


def positions() -> list[tuple[np.ndarray, np.ndarray]]:
    """``(masks, information states)`` of the acting seats, batch step after batch step, of every corpus entry."""
    out = []
    for players, rules, seed, steps, share in CORPUS:
        g, rng, guide = BatchGames(32, players, rules, seed=seed), make_rng(32, seed), HeuristicAgent(seed=3)
        pick = np.random.default_rng(seed)
        for _ in range(steps):
            rows = np.flatnonzero(~g.done)
            infos, masks = info_states_of(g.state, rows), g.masks(copy=False)[rows].copy()
            out.append((masks, infos))
            a = random_actions(g.masks(copy=False), rng)
            led = pick.random(rows.size) < share  # these rows play the heuristic's move
            if led.any():
                a[rows[led]] = [guide.act(None, m, i) for m, i in zip(masks[led], infos[led], strict=True)]
            g.step(a)
            g.reset()
    return out


def moves(seed: int, corpus: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    agent = HeuristicAgent(seed=seed)
    return np.array([agent.act(None, m, i) for masks, infos in corpus for m, i in zip(masks, infos, strict=True)])


def test_the_heuristic_plays_the_pinned_moves():
    corpus = positions()
    got = np.concatenate([moves(0, corpus), moves(17, corpus)]).astype(np.int64)
    assert got.size > 10_000
    assert hashlib.sha256(got.tobytes()).hexdigest() == DIGEST


def test_a_batch_gets_the_moves_of_its_rows_one_by_one_and_leaves_its_inputs_alone():
    corpus = positions()[::7]
    agent = HeuristicAgent(seed=5)
    for masks, infos in corpus:
        keep_masks, keep_infos = masks.copy(), infos.copy()
        batch = agent.act_batch(None, masks, infos)
        assert batch.dtype == np.int64
        assert np.array_equal(batch, [agent.act(None, m, i) for m, i in zip(masks, infos, strict=True)])
        assert masks[np.arange(len(batch)), batch].all()  # legal
        assert np.array_equal(masks, keep_masks) and np.array_equal(infos, keep_infos)
    assert agent.act_batch(None, np.zeros((0, corpus[0][0].shape[1]), bool), corpus[0][1][:0]).shape == (0,)


def test_bad_batches_are_refused_in_one_line():
    masks, infos = positions()[3]
    agent = HeuristicAgent(seed=0)
    with pytest.raises(ValueError, match="reads the acting player's information state"):
        agent.act_batch(None, masks, None)
    with pytest.raises(ValueError, match=r"info_states must have shape \(N, \d+\) and masks \(N, \d+\), got"):
        agent.act_batch(None, masks[:2], infos[:3])
    with pytest.raises(ValueError, match=r"info_states must have shape"):
        agent.act_batch(None, masks, infos[:, :10])
    empty = masks.copy()
    empty[1] = False
    with pytest.raises(ValueError, match="no legal action: a mask is all zero"):
        agent.act_batch(None, empty, infos)
    with pytest.raises(ValueError, match="no legal action: the mask is all zero"):
        agent.act(None, empty[1], infos[1])


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({L.F_CUR: 7}, "acting seat"),
        ({L.F_NP: 0}, "acting seat"),
        ({L.F_LOC + 5: 999}, "card location"),
        ({"nb": L.MAX_SLOTS + 3}, "building count"),
        ({"nb": 1, "bld0": 500}, "building card"),
        ({L.F_DEC: L.D_CHAIN, L.F_CHAIN_SLOT: 20}, "chain slot"),
        ({L.F_DEC: L.D_PAY, L.F_PAY_DUE: 10**6}, "coins due"),
        ({L.F_DEC: L.D_HIRE, L.F_A_CARD: 99, "hire": True}, "assistant card or side"),
    ],
)
def test_a_malformed_information_state_is_refused_naming_its_field_and_nothing_changes(fields, text):
    """The compiled rules index tables by these fields: out of range, the row is refused in one line (never read
    past a table), and the caller's arrays are left as they were."""
    masks, infos = positions()[3]
    masks, infos = masks.copy(), infos.copy()
    me = int(infos[1, L.F_CUR])
    for key, value in fields.items():
        if key == "nb":
            infos[1, L.F_NB + me] = value
        elif key == "bld0":
            infos[1, L.F_BLD + me * L.MAX_SLOTS] = value
        elif key == "hire":
            masks[1, L.A_HIRE] = True
        else:
            infos[1, key] = value
    keep_masks, keep_infos = masks.copy(), infos.copy()
    agent = HeuristicAgent(seed=0)
    with pytest.raises(ValueError, match=rf"information state row 1 is not one of this game: .*{text}.*expected"):
        agent.act_batch(None, masks, infos)
    with pytest.raises(ValueError, match=rf"row 0 is not one of this game: .*{text}"):
        agent.act(None, masks[1], infos[1])
    assert np.array_equal(masks, keep_masks) and np.array_equal(infos, keep_infos)
    with pytest.raises(ValueError, match=r"mask must have shape \(624,\), got \(623,\)"):
        agent.act(None, masks[0][:-1], infos[0])


def test_the_tie_break_word_is_the_rows_crc32_plus_the_agents_seed_word():
    """The compiled word equals the reference: ``zlib.crc32`` of the row's bytes plus the seed's word, modulo
    2**32, never 0 (rows of odd and even length: the kernel reads eight bytes a step)."""
    rng = np.random.default_rng(1)
    for width in (0, 1, 2, 7, L.STATE_LEN):
        rows = rng.integers(-(2**31), 2**31, size=(40, width), dtype=np.int64).astype(np.int32)
        for seed in (0, 17, -5, 2**40 + 3):
            agent = HeuristicAgent(seed=seed)
            for row in rows:
                want = ((seed * 0x9E3779B1 + zlib.crc32(row.tobytes())) & 0xFFFFFFFF) or 1
                assert K.tie_word(row.view(np.uint32), agent.seed_word) == want


def test_one_thread_and_many_choose_the_same_moves():
    """The heuristic's kernel over rows has a serial and a parallel twin (``framework.jit.Timed`` runs the faster
    one): both give each row the move it gets alone."""
    corpus = positions()[::5]
    masks = np.concatenate([m for m, _ in corpus])
    infos = np.ascontiguousarray(np.concatenate([i for _, i in corpus]))
    assert infos.shape[0] >= 2 * _jit.PARALLEL_MIN
    agent = HeuristicAgent(seed=9)
    got = {}
    for name in ("serial", "parallel"):
        out = np.full(infos.shape[0], -1, np.int64)
        kernel = getattr(K.DECIDE_ROWS.twin, name)
        kernel(infos, infos.view(np.uint32), masks, agent.seed_word, *agent._tables, out)
        got[name] = out
    assert np.array_equal(got["serial"], got["parallel"])
    assert np.array_equal(
        got["serial"][:300], [agent.act(None, m, i) for m, i in zip(masks[:300], infos[:300], strict=True)]
    )
