"""Pins of the PettingZoo AEC envs' whole behaviour: a digest of every step of whole random games.

Each trace records, at every step of two games (the first reset seeded, the second dealt from
the env's own draw): the agent, ``last()`` (observation, mask, cumulative reward, flags, info)
and, every few steps, every agent's ``observe``, ``rewards``, ``terminations``, ``truncations``,
``infos`` and ``_cumulative_rewards``; the dead steps at the end; the game's action record; and
the exact words of the errors a bad action gets (wrong type, out of range, illegal, a non-None
action of a terminated agent), each with the state, the agent and the record checked unchanged.
The digests were computed on the env before its step path was made faster; any change of
observations, masks, rewards, flags, infos, agent order or error words changes them.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers "goofspiel")
from ohmygoods_env.envs.pettingzoo_env import env, raw_env
from ohmygoods_env.framework.envs import aec_env


def _feed(h: hashlib._Hash, x: object) -> None:
    """Hash ``x`` by value: arrays by dtype, shape and bytes; dicts by sorted key; sequences in order."""
    if isinstance(x, np.ndarray):
        h.update(f"A{x.dtype.str}{x.shape}".encode())
        h.update(x.tobytes())
    elif isinstance(x, dict):
        h.update(b"{")
        for k in sorted(x, key=str):
            _feed(h, str(k))
            _feed(h, x[k])
        h.update(b"}")
    elif isinstance(x, (list, tuple)):
        h.update(b"[")
        for v in x:
            _feed(h, v)
        h.update(b"]")
    else:
        h.update(f"{type(x).__name__}:{x!r};".encode())


def _snapshot(e: object) -> tuple:
    """What a refused action must leave unchanged: the game's record, every agent's observation, the flags."""
    u = e.unwrapped
    seen = tuple(u.observe(a)["observation"].tobytes() for a in u.possible_agents)
    return (repr(u.game.record()), seen, e.agent_selection, dict(e.rewards), dict(e.terminations), dict(e.infos))


def _errors(e: object, h: hashlib._Hash, bad: list[object]) -> None:
    """Step each bad action: the error's type and words go into the hash; nothing may change."""
    before = _snapshot(e)
    for action in bad:
        with pytest.raises((TypeError, ValueError)) as info:
            e.step(action)
        _feed(h, (type(info.value).__name__, str(info.value)))
        assert _snapshot(e) == before


def trace_digest(e: object, seed: int, games: int = 2) -> str:
    """The sha256 of two whole games' trace (see the module docstring)."""
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    u = e.unwrapped
    n_actions = int(u.action_space(u.possible_agents[0]).n)
    for k in range(games):
        e.reset(seed=seed if k == 0 else None)
        _feed(h, ("reset", u.seed_used, list(e.agents), e.agent_selection))
        i = 0
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            _feed(h, (agent, obs, reward, term, trunc, info))
            mask = obs["action_mask"]
            if i % 7 == 0:
                obs["observation"][:] = -1.0  # the caller owns what it got: no later answer changes
                obs["action_mask"][:] = 1
                again = e.last()
                assert again[0]["observation"] is not obs["observation"]
                _feed(h, again)
                mask = again[0]["action_mask"]
                _feed(h, {a: u.observe(a) for a in e.agents})
                _feed(h, (e.rewards, e.terminations, e.truncations, e.infos, e._cumulative_rewards))
            if i in (3, 40) and not (term or trunc):
                illegal = [int(a) for a in np.flatnonzero(mask == 0)[:2]]
                _errors(e, h, ["3", 1.0, True, None, [1], n_actions, -1, 2**70, np.int64(n_actions), *illegal])
            if term or trunc:
                if i % 2 == 0:
                    _errors(e, h, [int(np.flatnonzero(mask == 0)[0])])  # a terminated agent steps None only
                e.step(None)
            else:
                a = int(rng.choice(np.flatnonzero(mask)))
                e.step(np.int64(a) if i % 5 == 1 else a)  # numpy integers are actions too
            i += 1
        _feed(h, ("over", i, e.agents, e.rewards, e.infos, e._cumulative_rewards, repr(u.game.record())))
    return h.hexdigest()


#: (maker, game, players, rules) -> digest, computed on the env before its step path was made faster
PINS = {
    ("env", "ohmygoods", 1, "omg2"): "c587c3a48fe50e08859d8484e61053c9c95c3b2366f87826b4e608e1e28f8532",
    ("env", "ohmygoods", 2, "omg2"): "340f616f1aa6019de12efc42d3af0441faa50708b3a007849529ada2b0c034e0",
    ("env", "ohmygoods", 2, "royal"): "cd10ddc82276e15a4973669c5710fae60c074cbd2e71dbaae8a60ab0ecc61507",
    ("env", "ohmygoods", 3, "omg2"): "5bd9fae2065d58b237aae1b4f0d58b61410ed70725824cdb146bde59c02b98c1",
    ("env", "ohmygoods", 4, "royal"): "4cff68522f78890a5c8c466c328e6f17612e118fb2278e9d7ed8162643c25372",
    ("raw_env", "ohmygoods", 3, "royal"): "d9d227b2592beab8e5a35fa053d79e3b5959c913e58143e11c6c9fcfbf5a61b6",
    ("aec_env", "ohmygoods", 2, "omg2"): "340f616f1aa6019de12efc42d3af0441faa50708b3a007849529ada2b0c034e0",
    ("aec_env", "ohmygoods", 4, "omg2"): "c13f099c7cf6c51f51e12fab7fc77d75d6aef88eb6bf0f0421c3dd9560605856",
    ("aec_env", "goofspiel", 3, None): "0439f5360d4fbcae1987e3e8968cf6e7ec6a400794f5760a8b9f09ba69e0d727",
    ("aec_env", "artificium", 2, None): "5e313b5aaa53d6b4e019077c2d8172c172784a451c918d33582ca516317c1287",
}


def _make(maker: str, game: str, n: int, rules: str | None) -> object:
    if maker == "env":
        return env(num_players=n, rules=rules)
    if maker == "raw_env":
        return raw_env(num_players=n, rules=rules)
    return aec_env(game, num_players=n) if rules is None else aec_env(game, num_players=n, rules=rules)


@pytest.mark.parametrize("key", list(PINS), ids=lambda k: "-".join(str(x) for x in k))
def test_whole_games_match_the_pinned_digest(key: tuple) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = trace_digest(_make(*key), seed=7 + key[2])
    assert got == PINS[key]
