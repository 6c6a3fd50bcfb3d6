"""Determinism: a game depends only on its seed and its actions (DESIGN: chance inside the state)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ohmygoods_env import core
from ohmygoods_env import layout as L
from ohmygoods_env.engine import Game, GameRecord, seed_bits
from ohmygoods_env.rules import RuleSet


def _play(n, rules, seed, policy_seed, auto=True, limit=None):
    """Play with actions from a policy RNG; return (actions, states, observations)."""
    rng = np.random.default_rng(policy_seed)
    g = Game(n, rules=rules, seed=seed, auto_forced=auto)
    states, obs = [g.state.tobytes()], []
    while not g.done and (limit is None or len(g.actions) < limit):
        obs.append(b"".join(g.observe(p).tobytes() for p in range(n)))
        g.step(int(rng.choice(g.legal_actions())))
        states.append(g.state.tobytes())
    return g, states, obs


def _replay(n, rules, seed, actions, auto=True):
    g = Game(n, rules=rules, seed=seed, auto_forced=auto)
    states, obs = [g.state.tobytes()], []
    for a in actions:
        obs.append(b"".join(g.observe(p).tobytes() for p in range(n)))
        g.step(a)
        states.append(g.state.tobytes())
    return g, states, obs


@pytest.mark.parametrize("n,rules,auto", [(2, "omg2", True), (3, "royal", False), (4, "omg2", False)])
def test_same_seed_and_actions_same_states_and_observations(n, rules, auto):
    """Identical seed + actions give identical state rows and observations at every step,
    whatever the global random state and whatever other games ran in between."""
    g, states, obs = _play(n, rules, seed=77, policy_seed=5, auto=auto, limit=600)
    np.random.seed(123)
    random.seed(456)
    for s in range(3):  # other games in between
        _play(n, rules, seed=s, policy_seed=s, auto=auto, limit=50)
    np.random.rand(1000)
    random.random()
    h, states2, obs2 = _replay(n, rules, 77, g.actions, auto=auto)
    assert states2 == states and obs2 == obs


def test_different_seeds_differ():
    a, b = Game(2, seed=1), Game(2, seed=2)
    assert a.state.tobytes() != b.state.tobytes()


def test_record_replay_reproduces_exactly():
    """A game record (rules + seed + actions) replays to the identical final state."""
    for n, rules in ((2, "royal"), (3, "omg2"), (4, "royal")):
        g, _, _ = _play(n, rules, seed=2024 + n, policy_seed=n)
        assert g.done
        rec = g.record()
        again = Game.replay(GameRecord.from_dict(rec.to_dict()))
        assert again.state.tobytes() == g.state.tobytes()
        assert again.scores() == g.scores() and again.winners() == g.winners()
        assert again.actions == g.actions


def test_replay_of_a_corrupted_record_raises():
    g, _, _ = _play(2, "omg2", seed=8, policy_seed=8, limit=40)
    rec = g.record()
    rec.actions[10] = L.N_ACTIONS - 1 if rec.actions[10] != L.N_ACTIONS - 1 else 0
    with pytest.raises(ValueError):
        Game.replay(rec)


def test_clone_is_independent_and_restore_undoes():
    g = Game(3, seed=31)
    snap = g.clone()
    before = g.state.tobytes()
    for _ in range(30):
        g.step(g.legal_actions()[0])
    assert snap.state.tobytes() == before
    g.restore(snap)
    assert g.state.tobytes() == before and g.actions == []


def test_batch_position_and_size_do_not_matter():
    """A game in row 3 of a batch of 5 is identical to the same game alone: each row carries
    its own RNG word, and the kernels touch only the row they are given."""
    g = Game(2, seed=99)
    C, AS = g.cards.buildings, g.cards.assistants
    S = np.zeros((5, L.STATE_LEN), np.int32)
    for i, seed in enumerate((5, 6, 7, 99, 8)):
        core.init_game(S[i], C, AS, seed_bits(seed), 2, 0, 1, 60)
    assert S[3].tobytes() == g.state.tobytes()
    rng = np.random.default_rng(0)
    mask = np.zeros(L.N_ACTIONS, np.int8)
    for _ in range(300):
        for i in range(5):
            if core.legal_mask(S[i], C, AS, mask):
                a = int(rng.choice(np.flatnonzero(mask)))
                assert core.step_checked(S[i], C, AS, a) == 0
                if i == 3:
                    g.step(a)
        assert S[3].tobytes() == g.state.tobytes()


_INTERPRETED_SCRIPT = r"""
import hashlib, warnings
import numpy as np
warnings.simplefilter("ignore")  # uint64 RNG arithmetic wraps (as intended) and numpy says so
from ohmygoods_env import Game
from ohmygoods_env.batch import BatchGames, make_rng, random_actions

h = hashlib.sha256()
for seed, n, rules in ((0, 2, "omg2"), (1, 3, "royal"), (2, 4, "omg2")):
    g = Game(n, rules, seed=seed)
    rng = np.random.default_rng(seed)
    while not g.done:
        legal = np.flatnonzero(g.legal_mask())
        g.step(int(legal[rng.integers(legal.size)]))
        h.update(g.observe(g.current_player if not g.done else 0).tobytes())
    h.update(g.state.tobytes())
b = BatchGames(3, num_players=2, seed=5)
r = make_rng(3, 6)
for _ in range(40):
    b.step(random_actions(b.masks(), r))
    b.play_random(r)
h.update(b.state.tobytes() + b.observe().tobytes() + b.decisions.tobytes())
print(h.hexdigest())
"""


def test_interpreted_engine_matches_compiled() -> None:
    """DESIGN: the rules run uncompiled under ``NUMBA_DISABLE_JIT=1`` (debugging, coverage) with
    the same results: integer wrap-around, RNG words and observations agree byte for byte."""
    import os
    import subprocess
    import sys

    def run(disable_jit: str) -> str:
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable_jit)
        out = subprocess.run(
            [sys.executable, "-c", _INTERPRETED_SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    compiled, interpreted = run("0"), run("1")
    assert len(compiled) == 64 and compiled == interpreted


def test_copied_and_pickled_game_plays_like_the_original():
    """#9.2: a deep-copied or unpickled Game taken mid-game plays on identically."""
    import copy
    import pickle

    g = Game(3, seed=11)
    rng = np.random.default_rng(0)
    for _ in range(60):
        g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    twins = [copy.deepcopy(g), pickle.loads(pickle.dumps(g))]
    while not g.done:
        a = int(rng.choice(np.flatnonzero(g.legal_mask())))
        for t in [g, *twins]:
            t.step(a)
    for t in twins:
        assert t.done and np.array_equal(t.state, g.state) and t.scores() == g.scores()
        assert np.array_equal(t.rewards(), g.rewards()) and not np.shares_memory(t.state, g.state)


def test_seeds_do_not_collide():
    """#9.9: each game has 64 bits of RNG state seeded bijectively from a 64-bit seed, so no two
    of the seeds 0..199,999 deal the same game (a 32-bit state gave 5 colliding pairs here)."""
    from ohmygoods_env.batch import BatchGames

    n = 200_000
    b = BatchGames(1, seed=0)
    rows = np.arange(1, dtype=np.int64)
    seen: dict[bytes, int] = {}
    chunk = BatchGames(5000, seed=0)
    for start in range(0, n, 5000):
        chunk.start(np.arange(5000), np.arange(start, start + 5000))
        deals = chunk.state[:, L.F_LOC : L.F_DECK + L.N_CARDS]  # where every card is, and the deck order
        for j in range(5000):
            key = deals[j].tobytes() + chunk.state[j, L.F_FIRST].tobytes()
            assert key not in seen, (seen.get(key), start + j)
            seen[key] = start + j
    assert len(seen) == n
    a, c = Game(2, seed=12158), Game(2, seed=16372)  # the same game under the 32-bit state
    assert a.state.tobytes() != c.state.tobytes() and a.hand(0) != c.hand(0)
    b.start(rows, np.array([12158]))
    assert b.state[0].tobytes() == a.state.tobytes()


def test_seed_bits_cover_every_64_bit_seed_and_refuse_the_rest():
    assert seed_bits(2**64 - 1) == -1 and seed_bits(2**63) == -(2**63) and seed_bits(5) == 5
    for bad in (-1, 2**64, 2**70, -(2**70)):
        with pytest.raises(ValueError, match=r"seed must be an int in 0 <= seed < 2\*\*64, got"):
            seed_bits(bad)
    with pytest.raises(TypeError, match="seed must be an int"):
        seed_bits(1.5)


def test_a_record_keeps_the_variants_and_the_seed_and_replays_through_json():
    """A variant game (R10.1, R10.2) dealt from a fresh seed replays from its JSON record."""
    import json

    g = Game(2, keep_one=True, two_for_one=True)
    rng = np.random.default_rng(1)
    while not g.done:
        g.step(int(rng.choice(g.legal_actions())))
    d = json.loads(json.dumps(g.record().to_dict()))
    assert d["keep_one"] is True and d["two_for_one"] is True and d["seed"] == g.seed
    again = Game.replay(GameRecord.from_dict(d))
    assert again.rules == g.rules and again.state.tobytes() == g.state.tobytes()
    old = {k: v for k, v in d.items() if k not in ("keep_one", "two_for_one")}  # written before the keys
    assert GameRecord.from_dict(old).rules == RuleSet(2)
