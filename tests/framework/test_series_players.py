"""One name per match concept (issue 37, item 1): the framework's ``play_games`` is the series player of every
game; *Oh my Goods!*'s batched fast path is ``matches.play_batch`` (its old name ``play_games`` is the same
function) and keeps its recorded stream; ``framework.matches.MatchResult`` is one finished game and training's
series against a baseline is ``BaselineResult`` (old name ``MatchResult``, the same class)."""

from __future__ import annotations

import hashlib

from ohmygoods_training import stats

from ohmygoods_env import matches
from ohmygoods_env.framework import matches as fm
from ohmygoods_env.policy import make_agent


def test_old_names_are_the_same_objects() -> None:
    assert matches.play_games is matches.play_batch
    assert stats.MatchResult is stats.BaselineResult and stats.BaselineResult is not fm.MatchResult
    assert matches.rotating_seats is fm.rotating_seats


def test_the_batched_stream_is_the_recorded_one() -> None:
    """Pinned from the code before the registries, recipes and names became one (commit ab13e27): the same
    rewards and seats, byte for byte, so every training statistic recorded from it replays."""
    agents = [make_agent("random", seed=s) for s in (1, 2, 3)]
    rewards, seat_of = matches.play_batch(agents, 24, 3, "omg2", 5)
    assert hashlib.sha256(rewards.tobytes() + seat_of.tobytes()).hexdigest()[:16] == "75febcad20347a5b"
    assert rewards.sum(axis=0).tolist() == [-8.0, -6.0, -10.0]


def test_baseline_result_counts_from_the_batch() -> None:
    r = stats.match(make_agent("greedy", seed=0), "random", 16, 2, "omg2", 7)
    assert isinstance(r, stats.BaselineResult) and (r.wins, r.ties, r.losses) == (16, 0, 0)
    assert r.as_dict()["opponent"] == "random" and "W16 T0 L0 of 16" in str(r)
