"""framework/matches.py: one loop plays any registered game; seats rotate; per-agent results with Wilson intervals."""

from __future__ import annotations

import numpy as np
import pytest

import ohmygoods_env  # noqa: F401  (registers the games)
from ohmygoods_env.artificium import layout as AL
from ohmygoods_env.framework.game import game_spec
from ohmygoods_env.framework.matches import derive_seed, play_games, play_match, rotating_seats
from ohmygoods_env.framework.stats import wilson


class _Spy:
    """A random agent that records, at the simultaneous card choice of Artificium, whether any seat had
    already laid a card face down when it was asked (A4.1)."""

    name = "spy"
    needs_info_state = False

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.saw_a_face_down_card = False
        self.asked_in_choice = 0

    def act(self, observation, mask, info_state=None) -> int:
        if observation[AL.O_DEC + AL.D_CHOOSE] == 1.0:
            self.asked_in_choice += 1
            seats = observation[AL.O_PLAYERS :].reshape(AL.MAX_PLAYERS, AL.PLAYER_FEATURES)
            self.saw_a_face_down_card |= bool(seats[:, AL.PF_CHOSEN].any())
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(legal.size)])


def test_every_pending_seat_chooses_before_any_choice_is_applied() -> None:
    """A4.1: during the simultaneous choice no seat is asked after another's card went face down."""
    spies = [_Spy(s) for s in range(4)]
    match = play_match(game_spec("artificium").make(4, seed=3), spies)
    assert match.model.done and sum(match.decisions) == len(match.model.record().moves)
    assert sum(s.asked_in_choice for s in spies) > 20
    assert not any(s.saw_a_face_down_card for s in spies)
    assert all(t >= 0 for t in match.thinking)


def test_rotating_seats_puts_each_agent_in_every_seat() -> None:
    seat_of, owner = rotating_seats(6, 3)
    for i in range(6):
        assert [int(owner[i, seat_of[i, k]]) for k in range(3)] == [0, 1, 2]
        assert list(seat_of[i]) == [(k + i) % 3 for k in range(3)]


@pytest.mark.parametrize(("game", "players"), [("artificium", 3), ("ohmygoods", 2)])
def test_play_games_rotates_seats_and_reports_each_agent(game: str, players: int) -> None:
    agents = ["random"] * players
    names = [f"r{k}" for k in range(players)]
    res = play_games(game, agents, 2 * players, seed=8, names=names)
    assert res.names == names and res.parity == pytest.approx(1 / players)
    assert sum(a.won for a in res.agents) == pytest.approx(2 * players)  # shared wins split, every game won
    for k, a in enumerate(res.agents):
        seats = [g["agent_index"].index(k) for g in res.games]
        assert sorted(seats) == sorted(list(range(players)) * 2)
        assert (a.win_lo, a.win_hi) == pytest.approx(wilson(a.won, a.games))
        assert a.wins + a.ties + a.losses == a.games
    assert [g["seed"] for g in res.games] == [derive_seed(8, i) for i in range(2 * players)]
    again = play_games(game, agents, 2 * players, seed=8, names=names)
    assert [g["scores"] for g in again.games] == [g["scores"] for g in res.games]
    assert "win rate" in res.table()


def test_play_games_rejects_bad_arguments_before_playing() -> None:
    with pytest.raises(ValueError, match="num_players must be in 2..6"):
        play_games("artificium", ["random"], 1)
    with pytest.raises(ValueError, match="unknown agent 'nosuch'"):
        play_games("artificium", ["random", "nosuch"], 1)
    with pytest.raises(ValueError, match="names must label"):
        play_games("artificium", ["random", "random"], 1, names=["a"])
    with pytest.raises(ValueError, match="num_games"):
        play_games("artificium", ["random", "random"], 0)
    with pytest.raises(ValueError, match="one agent per seat"):
        play_match(game_spec("artificium").make(2, seed=1), [_Spy(0)])
