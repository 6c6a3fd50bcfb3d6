"""One agent registry for every game (issue 37, item 1): *Oh my Goods!*'s agents live in the framework's
registry (:mod:`ohmygoods_env.framework.agents`) under ``"ohmygoods"``; :mod:`ohmygoods_env.policy` is that
registry with the game filled in; the entry point group ``ohmygoods.game_agents`` declares them, and the
older group ``ohmygoods.agents`` is still read for this game."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import ohmygoods_agents  # noqa: F401  (registers every agent first: the tests below patch copies of the tables)
import pytest

from ohmygoods_env import policy
from ohmygoods_env.framework import agents as fa
from ohmygoods_env.framework.game import DEFAULT_GAME, default_game, game_names

#: every name Oh my Goods! resolved before the registries became one, and the IS-MCTS names
OLD_NAMES = ("heuristic", "mcts", "ppo", "ppo-3p", "greedy", "random", "gumbel")


def _fresh(code: str, tmp_path: Path) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_old_name_resolves_through_the_old_and_the_new_entry_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """In an interpreter that imported no agents package, each name builds the same kind of agent by
    ``ohmygoods_env.policy.make_agent(NAME)`` and by ``framework.agents.make_agent("ohmygoods", NAME)``
    (found through the entry points), ``ppo:PATH`` and ``sb3:PATH`` included."""
    code = f"""
import sys
from ohmygoods_env import policy
from ohmygoods_env.framework import agents as fa
assert "ohmygoods_agents" not in sys.modules
from importlib import resources
path = str(resources.files("ohmygoods_agents") / "checkpoints" / "ppo_2p.json")
for name in {OLD_NAMES!r} + ("ppo:" + path, "ismcts", "ismcts:7"):
    old, new = policy.make_agent(name, seed=0), fa.make_agent("ohmygoods", name, seed=0)
    assert type(old) is type(new), (name, type(old), type(new))
    print(name.split(":")[0], type(old).__name__)
for make in (policy.make_agent, lambda s: fa.make_agent("ohmygoods", s)):
    try:
        make("sb3:model.zip")
    except Exception as e:
        print("sb3", type(e).__name__)
print(sorted(policy.agent_names()) == sorted(fa.agent_names("ohmygoods")))
"""
    lines = _fresh(code, tmp_path).strip().splitlines()
    out = dict(line.split(" ", 1) for line in lines if " " in line)
    assert lines[-1] == "True"
    assert out["heuristic"] == "HeuristicAgent" and out["mcts"] == "MCTSAgent" and out["greedy"] == "GreedyAgent"
    assert out["ppo"] == "SlotNetAgent" and out["ppo-3p"] == "SlotNetAgent" and out["gumbel"] == "GumbelAgent"
    assert out["random"] == "RandomAgent" and out["ismcts"] == "RowISMCTSAgent"
    assert out["sb3"] == "UntrustedCheckpointError"  # resolved to the sb3 factory, which refuses without trust


def test_ohmygoods_random_is_the_engine_rng_agent_by_either_entry() -> None:
    """``random`` of Oh my Goods! draws from the engine's RNG words (recorded streams stay), by both entries."""
    for a in (policy.make_agent("random", seed=3), fa.make_agent("ohmygoods", "random", seed=3)):
        assert isinstance(a, policy.RandomAgent)
    assert not isinstance(fa.make_agent("artificium", "random", seed=3), policy.RandomAgent)
    mask = np.ones(40, np.int8)
    a, b = policy.make_agent("random", seed=3), fa.make_agent("ohmygoods", "random", seed=3)
    assert [a.act(None, mask) for _ in range(20)] == [b.act(None, mask) for _ in range(20)]


def test_one_registration_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``policy.register_agent`` registers in the framework's registry: no second table exists."""
    monkeypatch.setitem(fa._REGISTRY, "ohmygoods", dict(fa._REGISTRY.get("ohmygoods", {})))
    assert not hasattr(policy, "_REGISTRY")

    def factory(arg: str | None = None, *, seed: int | None = None, **kwargs: object) -> policy.RandomAgent:
        return policy.RandomAgent(seed=99 if arg is None else int(arg))

    policy.register_agent("echo", factory, "a test agent")
    assert fa._REGISTRY["ohmygoods"]["echo"][0] is factory
    assert fa.make_agent("ohmygoods", "echo:5")._seed == 5
    assert "echo" in policy.agent_names() and "echo" in fa.agent_names("ohmygoods")
    assert "echo" not in fa.agent_names("artificium")
    with pytest.raises(ValueError, match="unknown agent 'echo'"):
        fa.make_agent("artificium", "echo")
    with pytest.raises(ValueError, match="empty argument"):
        fa.make_agent("ohmygoods", "echo:")


def test_the_older_entry_point_group_is_still_read_for_ohmygoods(monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party package that declares ``copycat`` in ``ohmygoods.agents`` resolves for Oh my Goods! only."""
    ep = metadata.EntryPoint("copycat", "ohmygoods_agents.registry:greedy", policy.ENTRY_POINT_GROUP)
    real = metadata.entry_points
    monkeypatch.setattr(
        fa.metadata, "entry_points", lambda group: [ep] if group == policy.ENTRY_POINT_GROUP else real(group=group)
    )
    monkeypatch.setitem(fa._REGISTRY, "ohmygoods", dict(fa._REGISTRY.get("ohmygoods", {})))
    fa._REGISTRY["ohmygoods"].pop("copycat", None)
    assert "copycat" in policy.agent_names() and "copycat" not in fa.agent_names("artificium")
    assert type(policy.make_agent("copycat", seed=0)).__name__ == "GreedyAgent"
    assert fa._REGISTRY["ohmygoods"]["copycat"][1].startswith("from the entry point")
    with pytest.raises(ValueError, match="unknown agent 'copycat'"):
        fa.make_agent("artificium", "copycat")


@pytest.mark.parametrize("players", [2, 3])
def test_ismcts_plays_whole_ohmygoods_games_legally_in_both_harnesses(players: int) -> None:
    """``ismcts:N`` through the game's own harness (redacted state rows, ``matches.play_game``; the engine
    raises on an illegal action) and through the framework's (``InformationSet``, ``play_match``)."""
    from ohmygoods_env.framework.matches import play_games
    from ohmygoods_env.matches import play_game

    agents = [policy.make_agent("ismcts:8", seed=1)] + [policy.make_agent("random", seed=s) for s in range(players - 1)]
    g, _, decisions = play_game(agents, players, "omg2", seed=players)
    assert g.done and decisions[0] > 10 and g.check_invariants() == 0
    res = play_games("ohmygoods", ["ismcts:8"] + ["random"] * (players - 1), players, seed=2)
    assert [r["decisions"] > 10 for r in res.games] == [True] * players


def test_default_game_is_defined_once_from_the_registry() -> None:
    assert DEFAULT_GAME == default_game() == "ohmygoods" and DEFAULT_GAME in game_names()
    from ohmygoods_agents import evaluation, external, tournament

    from ohmygoods_env.apps import evaluate as app_evaluate
    from ohmygoods_env.apps import tournament as app_tournament

    for module in (evaluation, external, tournament, app_evaluate, app_tournament):
        assert "DEFAULT_GAME = " not in Path(module.__file__).read_text(encoding="utf-8"), module.__name__
        assert module.DEFAULT_GAME == DEFAULT_GAME


#: the ohmygoods.agents group as pyproject.toml declared it before the registries became one (commit ab13e27)
OLD_GROUP = {
    "greedy": "GreedyAgent",
    "gumbel": "GumbelAgent",
    "heuristic": "HeuristicAgent",
    "mcts": "MCTSAgent",
    "ppo": "SlotNetAgent",
    "ppo-3p": "SlotNetAgent",
    "ppo-4p": "SlotNetAgent",
    "ppo-solo": "SlotNetAgent",
}


def test_every_old_name_resolves_from_a_package_declaring_the_older_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution that still declares the old names in ``ohmygoods.agents`` (and nothing in the new group)
    resolves each of them, with the registry emptied but for ``random``."""
    eps = [
        metadata.EntryPoint(name, f"ohmygoods_agents.registry:{name.replace('-', '_')}", policy.ENTRY_POINT_GROUP)
        for name in OLD_GROUP
    ]
    real = fa.metadata.entry_points

    def entry_points(**kw):  # the agent groups as that distribution declares them; numba's as installed
        if kw.get("group") == policy.ENTRY_POINT_GROUP:
            return eps
        return [] if kw.get("group") == fa.ENTRY_POINT_GROUP else real(**kw)

    monkeypatch.setattr(fa.metadata, "entry_points", entry_points)
    monkeypatch.setattr(
        fa, "_REGISTRY", {"*": dict(fa._REGISTRY["*"]), "ohmygoods": {"random": fa._REGISTRY["ohmygoods"]["random"]}}
    )
    monkeypatch.setattr(fa, "_LOADED_PROVIDERS", {"ohmygoods_agents.registry"})  # imported already: no re-registration
    assert set(OLD_GROUP) <= set(policy.agent_names())
    for name, cls in OLD_GROUP.items():
        assert type(policy.make_agent(name, seed=0)).__name__ == cls, name
        assert fa._REGISTRY["ohmygoods"][name][1] == f"from the entry point {eps[list(OLD_GROUP).index(name)].value}"


def test_a_generic_entry_used_for_one_game_does_not_hide_another_games_own_entry(monkeypatch) -> None:
    """The generic ``ppo`` entry (``ppo:PATH`` of a game with no ppo of its own) loaded for Goofspiel leaves
    *Oh my Goods!*'s own ``ppo`` entry first for that game, even while the latter is not loaded yet."""
    import ohmygoods_env.goofspiel.game_spec  # noqa: F401  (registers goofspiel)

    monkeypatch.setattr(fa, "_REGISTRY", {k: dict(v) for k, v in fa._REGISTRY.items()})
    fa._REGISTRY.get("ohmygoods", {}).pop("ppo", None)
    with pytest.raises(ValueError, match="Goofspiel ships no network"):
        fa.make_agent("goofspiel", "ppo")  # loads the generic entry for Goofspiel
    assert "ppo" in fa._REGISTRY["goofspiel"] and "ppo" not in fa._REGISTRY.get("*", {})
    assert type(fa.make_agent("ohmygoods", "ppo", seed=0)).__name__ == "SlotNetAgent"  # its own shipped network
