"""One series player per way of playing, one result type (issue 37, item 1).

The framework plays a series one forward model after another (``matches.play_games``) or all games at once
in the game's batch engine (``matches.play_batch``, for every game: its compiled engine or ``ModelBatch``).
*Oh my Goods!*'s ``ohmygoods_env.matches.play_batch`` (old name ``play_games``) is a thin call of the
framework's and keeps its recorded stream. Every series reports ``framework.matches.AgentResult``: a
``k``-way shared win counts ``1/k``; training's ``BaselineResult`` / ``MatchResult`` are deprecated names of it.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from ohmygoods_training import stats

import ohmygoods_env  # noqa: F401  (registers the games)
from ohmygoods_env import matches
from ohmygoods_env.framework import matches as fm
from ohmygoods_env.framework.game import InformationSet, game_names, game_spec, game_tools
from ohmygoods_env.framework.seeds import episode_seed
from ohmygoods_env.framework.stats import win_rate_interval
from ohmygoods_env.policy import BatchPolicy, make_agent


def test_old_names_are_the_same_objects() -> None:
    assert matches.play_games is matches.play_batch
    assert matches.rotating_seats is fm.rotating_seats
    for old in ("BaselineResult", "MatchResult"):
        with pytest.warns(DeprecationWarning, match="AgentResult"):
            assert getattr(stats, old) is fm.AgentResult
    assert fm.AgentResult is not fm.MatchResult  # one finished game, not a series


def _digest(rewards: np.ndarray, seat_of: np.ndarray) -> str:
    return hashlib.sha256(rewards.tobytes() + seat_of.tobytes()).hexdigest()[:16]


def test_the_batched_stream_is_the_recorded_one() -> None:
    """Pinned from the code before the registries, recipes and names became one (commit ab13e27): the same
    rewards and seats, byte for byte, so every training statistic recorded from it replays."""
    agents = [make_agent("random", seed=s) for s in (1, 2, 3)]
    rewards, seat_of = matches.play_batch(agents, 24, 3, "omg2", 5)
    assert _digest(rewards, seat_of) == "75febcad20347a5b"
    assert rewards.sum(axis=0).tolist() == [-8.0, -6.0, -10.0]


@pytest.mark.parametrize(
    ("names", "games", "players", "seed", "digest", "sums"),
    [
        (("random", "random"), 30, 2, 11, "1dc520ee1d8eebd9", [-2.0, 2.0]),
        (("greedy", "heuristic", "random"), 12, 3, 3, "40b3441550240903", [-2.0, -4.0, -6.0]),
        (("heuristic", "greedy", "random", "greedy"), 8, 4, 21, "859c827dd4a7e7be", [0.0, -8.0, -4.0, -4.0]),
        (("greedy",), 6, 1, 2, "e81688d02f0ddd9c", [133.0]),
    ],
)
def test_the_batched_stream_is_that_of_the_games_own_loop(names, games, players, seed, digest, sums) -> None:
    """Pinned from ``play_batch`` on the game's own loop (``policy.play_owned`` over ``BatchGames``, commit
    82edd0c), before it became a call of the framework's batched series player: agents that read the
    information state (greedy, heuristic) included, solo included."""
    agents = [make_agent(n, seed=i + 1) for i, n in enumerate(names)]
    rewards, seat_of = matches.play_batch(agents, games, players, "omg2", seed)
    assert _digest(rewards, seat_of) == digest and rewards.sum(axis=0).tolist() == sums


def _lowest(observation, mask) -> int:
    return int(np.flatnonzero(mask)[0])


def _highest(observation, mask) -> int:
    return int(np.flatnonzero(mask)[-1])


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("game", game_names())
def test_each_batched_game_is_the_forward_model_of_its_seed(game: str, fast: bool) -> None:
    """Every registered game, on its own batch engine and on ModelBatch: game ``i`` of the batched series is
    ``spec.make(P, seed=episode_seed(seed, i, 0))`` played by the same seated agents one model at a time."""
    spec = game_spec(game)
    players = 3 if 3 in range(spec.min_players, spec.max_players + 1) else spec.min_players
    agents = [_lowest, _highest, _lowest][:players]
    res = fm.play_batch(game, agents, 5, seed=9, fast=fast, names=[f"a{k}" for k in range(players)])
    _, owner = fm.rotating_seats(5, players)
    for i, rec in enumerate(res.games):
        model = spec.make(players, seed=episode_seed(9, i, 0))
        fm.play_match(model, [agents[k] for k in owner[i]])
        assert rec["seed"] == episode_seed(9, i, 0) and rec["agent_index"] == [int(k) for k in owner[i]]
        assert rec["scores"] == [fm._score(s) for s in model.scores()] and rec["winners"] == sorted(model.winners())
        assert res.rewards[i].tolist() == model.rewards("win").tolist()
        assert rec["decisions"] == sum(rec["seat_decisions"]) > 0
    assert sum(a.won for a in res.agents) == pytest.approx(5)  # every game's win is shared out once


class _Reader:
    """Records what it is given: an agent that reads its information state."""

    name = "reader"
    needs_info_state = True

    def __init__(self) -> None:
        self.seen: set[type] = set()

    def act(self, observation, mask, info_state=None) -> int:
        self.seen.add(type(info_state))
        return int(np.flatnonzero(mask)[0])


def test_agents_that_read_an_information_state_get_the_games_own_form() -> None:
    """Oh my Goods!'s tools name its batch policy (its agents read the engine's redacted state rows); a game
    without one (Artificium), or ModelBatch, asks such an agent through the row's forward model."""
    assert game_tools("ohmygoods").load("batch_policy") is not None
    assert game_tools("artificium").batch_policy is None
    omg, generic, art = _Reader(), _Reader(), _Reader()
    fm.play_batch("ohmygoods", [omg, "random"], 2, seed=1)
    fm.play_batch("ohmygoods", [generic, "random"], 2, seed=1, fast=False)
    fm.play_batch("artificium", [art, "random"], 2, seed=1)
    assert omg.seen == {np.ndarray} and generic.seen == {InformationSet} and art.seen == {InformationSet}
    policy = BatchPolicy(omg)
    assert game_tools("ohmygoods").load("batch_policy")(policy) is policy  # a policy is used as it is


def test_win_shares_split_a_shared_win() -> None:
    rewards = np.array([[1, 1, -1], [0, 0, 0], [1, -1, -1], [-1, 1, -1]], np.float32)
    assert fm.win_shares(rewards).tolist() == [[0.5, 0.5, 0], [1 / 3] * 3, [1, 0, 0], [0, 1, 0]]


def test_the_one_result_counts_a_k_way_shared_win_as_one_kth() -> None:
    """Three players: a win alone, a 2-way and a 3-way shared win, a loss. Training's old result counted the
    2-way shared win as a win and the 3-way tie as half (2.5 of 4 games); the one result counts 1 + 1/2 + 1/3."""
    r = fm.agent_result("a", [1.0, 0.5, 1 / 3, 0.0], scores=[20, 18, 15, 9])
    assert (r.wins, r.ties, r.losses, r.games) == (1, 2, 1, 4)
    assert r.won == pytest.approx(11 / 6) and r.win_rate == pytest.approx(11 / 24)
    assert (r.ci_low, r.ci_high) == (r.win_lo, r.win_hi) and r.win_lo < r.win_rate < r.win_hi
    assert r.score_mean == pytest.approx(15.5) and math.isnan(r.seconds_per_decision)
    with pytest.raises(ValueError, match="share of the win is in"):
        fm.agent_result("a", [1.5])
    with pytest.raises(ValueError, match="at least one game"):
        fm.agent_result("a", [])


def test_a_shared_win_in_three_player_series_counts_one_kth() -> None:
    """Goofspiel's three-player games share wins often: each agent's ``won`` is the sum of its 1/k shares."""
    res = fm.play_batch("goofspiel", ["random"] * 3, 40, seed=2)
    assert any(len(g["winners"]) > 1 for g in res.games)
    for k, a in enumerate(res.agents):
        seats = [(g, g["agent_index"].index(k)) for g in res.games]
        assert a.won == pytest.approx(sum(1 / len(g["winners"]) for g, s in seats if s in g["winners"]))
        assert a.ties == sum(1 for g, s in seats if s in g["winners"] and len(g["winners"]) > 1)
        assert a.wins + a.ties + a.losses == 40


@pytest.mark.parametrize(("wins", "ties", "games"), [(6, 2, 10), (0, 3, 7), (12, 0, 12), (0, 0, 5), (40, 11, 97)])
def test_with_two_players_it_is_the_win_rate_with_ties_counting_half(wins: int, ties: int, games: int) -> None:
    shares = [1.0] * wins + [0.5] * ties + [0.0] * (games - wins - ties)
    r = fm.agent_result("a", shares)
    assert (r.wins, r.ties, r.losses) == (wins, ties, games - wins - ties)
    assert (r.win_rate, r.win_lo, r.win_hi) == win_rate_interval(wins, ties, games)


def test_training_statistics_are_the_one_result() -> None:
    """``stats.match`` reports the framework's AgentResult; its dict and line are those the checkpoint cards
    and training logs record."""
    r = stats.match(make_agent("greedy", seed=0), "random", 16, 2, "omg2", 7)
    assert isinstance(r, fm.AgentResult) and (r.wins, r.ties, r.losses) == (16, 0, 0)
    assert list(r.as_dict()) == list(fm.BASELINE_KEYS) and r.as_dict()["opponent"] == "random"
    assert list(fm.BASELINE_KEYS) == [
        "opponent", "games", "wins", "ties", "losses", "win_rate", "ci_low", "ci_high", "seconds"
    ]  # fmt: skip
    assert "vs random" in str(r) and "W16 T0 L0 of 16" in str(r)


def test_batched_series_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_players must be in 2..6"):
        fm.play_batch("artificium", ["random"], 1)
    with pytest.raises(ValueError, match="unknown agent 'nosuch'"):
        fm.play_batch("artificium", ["random", "nosuch"], 1)
    with pytest.raises(ValueError, match="names must label"):
        fm.play_batch("artificium", ["random", "random"], 1, names=["a"])
    with pytest.raises(ValueError, match="num_games"):
        fm.play_batch("artificium", ["random", "random"], 0)
    with pytest.raises(ValueError, match="need 2 agents"):
        matches.play_batch([make_agent("random")], 2, 2)
    with pytest.raises(TypeError, match="an agent needs act"):
        fm.play_batch("goofspiel", [object(), "random"], 1)
