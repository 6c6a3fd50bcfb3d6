"""Seeds, penalties, flags and limits at every front end (issue 26 §1 unseeded games, §4 bad values).

* A game started without a seed draws fresh entropy, so two unseeded games differ, and the
  seed drawn is where a replay needs it; seeded games stay exactly as they were.
* Every front end takes any seed ``0 <= seed < 2**64`` and deals the same game from it;
  other seeds are a clear ``ValueError`` / ``TypeError``.
* Non-finite penalties, non-bool flags, round caps a state row cannot hold and a dead
  variant switch are refused at construction.
"""

from __future__ import annotations

import numpy as np
import pytest

from ohmygoods_env import layout as L
from ohmygoods_env.batch import BatchGames, episode_seed
from ohmygoods_env.engine import Game
from ohmygoods_env.envs import ENV_ID
from ohmygoods_env.envs import make as make_env
from ohmygoods_env.envs.batched import BatchEnv
from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
from ohmygoods_env.envs.parallel import parallel_env
from ohmygoods_env.envs.pettingzoo_env import raw_env
from ohmygoods_env.envs.sb3 import OhMyGoodsVecEnv
from ohmygoods_env.envs.seat_vec import SeatVecEnv
from ohmygoods_env.envs.vector import OhMyGoodsVectorEnv
from ohmygoods_env.rules import MAX_ROUNDS_LIMIT

BIG = 2**64 - 3  # above 2**63: the top bit set


def _deal(factory) -> bytes:
    return np.asarray(factory()).tobytes()


def _reset(make, state=lambda e: e.games.state):
    """The state dealt by the first ``reset()`` of a fresh env (no seed anywhere)."""
    env = make()
    env.reset()
    return state(env)


UNSEEDED = {
    "Game": lambda: Game(2).state,
    "BatchGames": lambda: BatchGames(2).state,
    "BatchEnv": lambda: BatchEnv(2).reset().observation,
    "aec": lambda: _reset(raw_env, lambda e: e.game.state),
    "parallel": lambda: _reset(parallel_env, lambda e: e.game.state),
    "SeatVecEnv": lambda: _reset(lambda: SeatVecEnv(2)),
    "gymnasium": lambda: _reset(OhMyGoodsEnv),
    "vector": lambda: _reset(lambda: OhMyGoodsVectorEnv(2)),
    "sb3": lambda: _reset(lambda: OhMyGoodsVecEnv(2)),
}


@pytest.mark.parametrize("name", list(UNSEEDED))
def test_unseeded_games_are_dealt_from_fresh_entropy(name):
    """Two games started without a seed differ (one game no longer tells the next one's hidden cards)."""
    deals = {_deal(UNSEEDED[name]) for _ in range(3)}
    assert len(deals) == 3


def test_an_unseeded_game_records_the_seed_it_was_dealt_from():
    g = Game(3)
    assert 0 <= g.seed < 2**64
    rng = np.random.default_rng(0)
    for _ in range(40):
        g.step(int(rng.choice(g.legal_actions())))
    again = Game.replay(g.record())
    assert again.record().seed == g.seed and again.state.tobytes() == g.state.tobytes()
    b = BatchGames(3)
    assert b.state[2].tobytes() == Game(2, seed=episode_seed(b.base_seed, 2, 0)).state.tobytes()
    assert b.game(1).seed == episode_seed(b.base_seed, 1, 0)
    for make in (raw_env, parallel_env):
        e = make()
        e.reset()
        assert Game(2, seed=e.seed_used).state.tobytes() == e.game.state.tobytes()


def test_seeded_games_are_unchanged_and_an_unseeded_reset_continues_the_seeded_stream():
    """Gymnasium's contract: reset() after reset(seed=s) continues s's stream (no fresh entropy then)."""
    assert Game(2, seed=0).hand(0) == Game(2, seed=0).hand(0)
    for make in (raw_env, parallel_env):
        a, b = make(), make()
        for e in (a, b):
            e.reset(seed=11)
            e.reset()
        assert a.game.state.tobytes() == b.game.state.tobytes() and a.seed_used == b.seed_used
    a, b = OhMyGoodsEnv(), OhMyGoodsEnv()
    for e in (a, b):
        e.reset(seed=11)
        e.reset()
    assert a.games.state.tobytes() == b.games.state.tobytes()


def test_a_seed_above_2_63_deals_the_same_game_at_every_front_end():
    want = Game(2, seed=BIG).state.tobytes()
    e = raw_env()
    e.reset(seed=BIG)
    assert e.game.state.tobytes() == want and e.seed_used == BIG
    p = parallel_env()
    p.reset(seed=BIG)
    assert p.game.state.tobytes() == want
    sv = SeatVecEnv(4, seed=BIG)  # game g from seed + g, wrapping below 2**64
    sv.reset()
    for g, s in enumerate([BIG, BIG + 1, BIG + 2, 0]):
        assert sv.games.state[g].tobytes() == Game(2, seed=s).state.tobytes()
        assert sv.games.seed_of(g) == s
    assert sv.seed(2**64 - 1) == [2**64 - 1, 0, 1, 2]
    b = BatchGames(2, seed=0)
    b.start(np.array([1]), [BIG])
    assert b.state[1].tobytes() == want and b.game(1).seed == BIG
    gym = OhMyGoodsEnv()
    gym.reset(seed=BIG, options={"game_seed": BIG})
    assert gym.games.seed_of(0) == BIG and gym.games.game(0).seed == BIG
    v = OhMyGoodsVectorEnv(2)
    v.reset(seed=[BIG, 2**63])
    assert v.games.seed_of(0) == BIG and v.games.seed_of(1) == 2**63
    for env in (BatchEnv(2, seed=BIG).games, OhMyGoodsVecEnv(2, seed=BIG).games):
        assert env.base_seed == BIG and env.seed_of(1) == episode_seed(BIG, 1, 0)


SEEDED = {
    "Game": lambda s: Game(2, seed=s),
    "BatchGames": lambda s: BatchGames(2, seed=s),
    "BatchGames.reset": lambda s: BatchGames(2, seed=1).reset(seed=s),
    "BatchGames.start": lambda s: BatchGames(2, seed=1).start(np.array([0]), [s]),
    "BatchEnv": lambda s: BatchEnv(2, seed=s),
    "BatchEnv.reset": lambda s: BatchEnv(2, seed=1).reset(seed=s),
    "aec": lambda s: raw_env().reset(seed=s),
    "parallel": lambda s: parallel_env().reset(seed=s),
    "SeatVecEnv": lambda s: SeatVecEnv(2, seed=s),
    "SeatVecEnv.seed": lambda s: SeatVecEnv(2).seed(s),
    "gymnasium": lambda s: OhMyGoodsEnv().reset(seed=s),
    "gymnasium game_seed": lambda s: OhMyGoodsEnv().reset(options={"game_seed": s}),
    "vector": lambda s: OhMyGoodsVectorEnv(2).reset(seed=s),
    "vector list": lambda s: OhMyGoodsVectorEnv(2).reset(seed=[1, s]),
    "sb3": lambda s: OhMyGoodsVecEnv(2, seed=s),
    "sb3.seed": lambda s: OhMyGoodsVecEnv(2, seed=1).seed(s),
}


@pytest.mark.parametrize("name", list(SEEDED))
@pytest.mark.parametrize(("seed", "exc"), [(-1, ValueError), (2**64, ValueError), (1.5, TypeError), ("3", TypeError)])
def test_every_front_end_refuses_a_seed_outside_0_to_2_64(name, seed, exc):
    with pytest.raises(exc, match=r"0 <= \S+ < 2\*\*64"):
        SEEDED[name](seed)


NON_FINITE = [float("nan"), float("inf"), -float("inf")]


@pytest.mark.parametrize("penalty", NON_FINITE)
@pytest.mark.parametrize(
    "make",
    [
        lambda p: parallel_env(illegal="penalty", penalty=p),
        lambda p: BatchGames(2, seed=0, illegal="penalty", penalty=p),
        lambda p: BatchEnv(2, seed=0, illegal="penalty", penalty=p),
        lambda p: OhMyGoodsEnv(penalty=p),
    ],
    ids=["parallel", "BatchGames", "BatchEnv", "gymnasium"],
)
def test_non_finite_illegal_action_penalties_are_refused(make, penalty):
    with pytest.raises(ValueError, match="penalty must be a finite number"):
        make(penalty)


@pytest.mark.parametrize("value", ["no", "false", "0", 0, 1, None])
@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("autoreset", lambda v: BatchEnv(2, seed=0, autoreset=v)),
        ("auto_forced", lambda v: raw_env(auto_forced=v)),
        ("auto_forced", lambda v: parallel_env(auto_forced=v)),
        ("auto_forced", lambda v: BatchGames(2, seed=0, auto_forced=v)),
        ("keep_one", lambda v: Game(2, seed=0, keep_one=v)),
        ("two_for_one", lambda v: SeatVecEnv(2, two_for_one=v)),
        ("copy", lambda v: BatchGames(2, seed=0).masks(copy=v)),
        ("parallel", lambda v: make_env(ENV_ID, parallel=v)),
    ],
)
def test_flags_are_bools_and_anything_else_is_a_type_error(name, make, value):
    with pytest.raises(TypeError, match=rf"{name} must be a bool"):
        make(value)


def test_batch_env_autoreset_no_is_not_autoreset_on():
    env = BatchEnv(2, seed=0, autoreset=False)
    assert env.autoreset is False
    with pytest.raises(TypeError, match="autoreset must be a bool"):
        BatchEnv(2, seed=0, autoreset="no")


@pytest.mark.parametrize("rounds", [2**31, 2**32 + 3, 2**63])
@pytest.mark.parametrize(
    "make",
    [
        lambda r: Game(2, seed=0, max_rounds=r),
        lambda r: BatchGames(2, seed=0, max_rounds=r),
        lambda r: raw_env(max_rounds=r),
        lambda r: OhMyGoodsEnv(max_rounds=r),
    ],
    ids=["Game", "BatchGames", "aec", "gymnasium"],
)
def test_round_caps_a_state_row_cannot_hold_are_refused(make, rounds):
    limit = rf"max_rounds must be a positive int of at most {MAX_ROUNDS_LIMIT} .*got {rounds}"
    with pytest.raises(ValueError, match=limit):
        make(rounds)


def test_the_largest_round_cap_is_held_exactly():
    g = Game(2, seed=0, max_rounds=MAX_ROUNDS_LIMIT)
    assert int(g.state[L.F_MAXR]) == MAX_ROUNDS_LIMIT
    rng = np.random.default_rng(0)
    while g.round < 3:  # a cap that wrapped below zero would end the game in round 1
        assert not g.done
        g.step(int(rng.choice(g.legal_actions())))


# ------------------------------------------------------------------ SeatVecEnv rows


def _seat_vec_actions():
    env = SeatVecEnv(2, seed=1)
    env.reset()
    masks = env.action_masks()
    good = np.array([int(np.flatnonzero(m)[0]) for m in masks], dtype=object)
    cur = env.games.state[:, L.F_CUR].astype(int)
    acting = [g * 2 + int(cur[g]) for g in range(2)]
    waiting = [r for r in range(4) if r not in acting]
    return env, good, acting, waiting


@pytest.mark.parametrize(
    ("bad", "exc", "shown"),
    [
        (1.5, TypeError, "1.5"),
        (float("nan"), TypeError, "nan"),
        ("3", TypeError, "'3'"),
        (None, TypeError, "None"),
        (True, TypeError, "True"),
        (10**6, ValueError, "1000000"),
        (-1, ValueError, "-1"),
        (2**70, ValueError, str(2**70)),
    ],
)
def test_seat_vec_errors_name_the_row_and_the_value(bad, exc, shown):
    env, good, acting, waiting = _seat_vec_actions()
    before = env.games.state.copy()
    for row in (waiting[-1], acting[-1]):
        actions = good.copy()
        actions[row] = bad
        with pytest.raises(exc, match=rf"row {row}\b.*{shown}"):
            env.step(actions)
        assert np.array_equal(env.games.state, before)


def test_seat_vec_a_legal_id_on_a_waiting_row_and_an_illegal_one_on_an_acting_row_name_the_row():
    env, good, acting, waiting = _seat_vec_actions()
    actions = good.copy()
    actions[waiting[0]] = 0
    with pytest.raises(ValueError, match=rf"row {waiting[0]} .*must be A_WAIT .*got 0"):
        env.step(actions)
    actions = good.copy()
    illegal = next(a for a in range(L.N_ACTIONS - 1) if not env.action_masks()[acting[1], a])
    actions[acting[1]] = illegal
    with pytest.raises(ValueError, match=rf"row {acting[1]} \(game 1, seat \d\): game 1: action {illegal} "):
        env.step(actions)
