"""A digest pin of whole batched random games: ``BatchGames`` states, masks, rewards, flags and
decision counts after every step, for solo and 2-4 players, both editions, the variants, forced
moves shown, ``max_steps`` cuts, the illegal-action penalty, ``rows=`` subsets and
``play_random``, on the serial (small batch) and the parallel (``PARALLEL_MIN`` and up) kernels.

The digests were computed on the engine before its step path was optimised: any change to what a
step writes (a state word, a mask entry, a reward, a flag, the decision count) changes them.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from ohmygoods_env.batch import PARALLEL_MIN, BatchGames, make_rng, random_actions

# (name, games, players, rules, options of BatchGames)
CASES = [
    ("solo", 24, 1, "omg2", {}),
    ("2p", 24, 2, "omg2", {}),
    ("3p-royal", 24, 3, "royal", {}),
    ("4p-variants", 24, 4, "omg2", {"keep_one": True, "two_for_one": True}),
    ("2p-unforced", 24, 2, "omg2", {"auto_forced": False, "reward_mode": "score"}),
    ("3p-cut", 24, 3, "omg2", {"max_steps": 150, "reward_mode": "margin"}),
    ("2p-penalty", 24, 2, "royal", {"illegal": "penalty", "penalty": -2.5}),
    ("2p-parallel", PARALLEL_MIN + 32, 2, "omg2", {}),
    ("4p-parallel", PARALLEL_MIN + 32, 4, "royal", {"two_for_one": True, "reward_mode": "score"}),
    ("solo-parallel", PARALLEL_MIN + 32, 1, "omg2", {"illegal": "penalty"}),
]

PINS = {
    "solo": "4d19a6898f601c98012f4a8a72deb23f1f8201dddb0409eb56b18ddaedc8b0d1",
    "2p": "af9bee28e81d3a4693ee05560784ab32fc77fec483de407fa4002c748e2675fe",
    "3p-royal": "0c6accb4434eff29ee397c95c2c8c465474c6a43ec6c2396e37cf2bf8b4ef661",
    "4p-variants": "2d607e633ec4b19d873a279f531b2fd97d822fe7d35563ca953a352a2a53cbaa",
    "2p-unforced": "7bb6f010ff82fcf0e01db5880630031cef2443175e68299603a808e89724bfb0",
    "3p-cut": "79f87d6e6fefcfffc18e2a96da4e42a8a32d7026fe3d208a67f0a4cb8e848af7",
    "2p-penalty": "610026a7b0b9c78d4a6e746539afb3789ecf6ce575189003c4d3bc7fe0f76673",
    "2p-parallel": "f83e06029c2c76e59785e70f2baf938221fc524a31b774c065ce8fae26d997be",
    "4p-parallel": "99985aae4e7328ba5497faab4e7481bcdbbf126f2f4f8df477abd0f92476f1a9",
    "solo-parallel": "a3d52cc56a8775ca585ec96620ce2438d008c634d42c68196c8dfd916f0781a1",
}

STEPS = 400  # twice as many with 4 players (longer games): every case ends games and resets them


def batch_digest(n: int, players: int, rules: str, options: dict, steps: int = STEPS) -> str:
    """SHA-256 of everything ``BatchGames`` exposes after each of ``steps`` calls of random play.

    Most calls step every game with masked random actions; every 7th steps a subset of rows,
    every 11th plays one random action per game with ``play_random``; in penalty mode every 13th
    gives one game an illegal action. Finished games are reset after each call.
    """
    b = BatchGames(n, players, rules, seed=2024 + players, **options)
    rng = make_rng(n, 77)
    pick = np.random.default_rng(players)
    actions = np.empty(n, np.int64)
    h = hashlib.sha256()
    for t in range(steps):
        random_actions(b.masks(copy=False), rng, actions)
        if t % 11 == 5:
            out = b.play_random(rng)
        elif t % 7 == 3:
            rows = np.flatnonzero(pick.random(n) < 0.5)
            out = b.step(actions[rows], rows=rows)
        else:
            if options.get("illegal") == "penalty" and t % 13 == 0:
                i = int(pick.integers(n))
                illegal = np.flatnonzero(b.masks(copy=False)[i] == 0)
                actions[i] = illegal[int(pick.integers(illegal.size))]
            out = b.step(actions)
        for a in (*out, b.state, b.masks(copy=False), b.current_player, b.decisions, b.penalised):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(b.reset().tobytes())
    return h.hexdigest()


@pytest.mark.parametrize(("name", "n", "players", "rules", "options"), CASES, ids=[c[0] for c in CASES])
def test_batched_random_games_match_their_pin(name: str, n: int, players: int, rules: str, options: dict) -> None:
    assert batch_digest(n, players, rules, options, steps=STEPS * (2 if players == 4 else 1)) == PINS[name]


def test_the_pin_sees_a_changed_step() -> None:
    """The digest is sensitive: one more step, or another edition, changes it."""
    base = batch_digest(8, 2, "omg2", {}, steps=30)
    assert batch_digest(8, 2, "omg2", {}, steps=31) != base
    assert batch_digest(8, 2, "royal", {}, steps=30) != base
