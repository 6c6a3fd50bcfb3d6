"""The reserved deal set (``ohmygoods_agents.reserved``): the deals kept for the final figures of shipped
agents. ``ohmygoods evaluate --deals reserved`` plays them; every training loop, recipe and snapshot
choice that asks for their seeds is refused before anything runs (exit 2, one line naming the set)."""

from __future__ import annotations

import json

import pytest
from ohmygoods_agents.evaluation import load_protocol
from ohmygoods_agents.reserved import (
    RESERVED_DEAL_SET,
    RESERVED_SEEDS,
    ReservedSeedError,
    check_unreserved,
    reserved_deals,
    reserved_protocol,
)

from ohmygoods_env.apps import evaluate as ev
from ohmygoods_env.framework.matches import play_games


def test_the_reserved_deals_are_the_deals_of_their_series_seed_and_none_of_the_protocols():
    deals = reserved_deals(2, 3)
    result = play_games("artificium", ["random", "random"], 3, seed=RESERVED_SEEDS.start + 2)
    assert [r["seed"] for r in result.games] == deals  # the same deals play_games deals from the seed
    for game in ("ohmygoods", "artificium"):
        protocol = load_protocol(game=game)
        for n, seeds in protocol.deals.items():
            assert not set(reserved_deals(n, len(seeds))) & set(seeds)
    assert reserved_deals(3, 5) != reserved_deals(4, 5) and reserved_deals(2, 2) == deals[:2]


def test_the_reserved_protocol_keeps_the_schedule_and_names_its_deal_set():
    protocol = load_protocol(game="artificium")
    reserved = reserved_protocol(protocol)
    assert reserved.deal_set == RESERVED_DEAL_SET != protocol.deal_set
    assert (reserved.ladder, reserved.tiers, reserved.version) == (protocol.ladder, protocol.tiers, protocol.version)
    assert {n: len(s) for n, s in reserved.deals.items()} == {n: len(s) for n, s in protocol.deals.items()}
    assert len(reserved_protocol(protocol, 700).deals[2]) == 700  # more than the protocol's 200
    assert reserved_protocol(protocol, 700).deals[2][:200] == reserved.deals[2]


@pytest.mark.parametrize("seed", [RESERVED_SEEDS.start, RESERVED_SEEDS.start + 2, RESERVED_SEEDS.stop - 1])
def test_a_reserved_seed_is_refused_naming_the_set(seed):
    with pytest.raises(ReservedSeedError, match=r"--seed \d+: seed \d+ belongs to the reserved deal set 'reserved'"):
        check_unreserved([5, seed], f"--seed {seed}")


def test_seeds_beside_the_range_pass():
    check_unreserved([RESERVED_SEEDS.start - 1, RESERVED_SEEDS.stop, 0, 12, 2024], "--seed")


def test_evaluate_plays_the_reserved_deals_and_says_so(tmp_path):
    out = tmp_path / "r"
    argv = ["ppo", "--game", "artificium", "--tier", "smoke", "--players", "2", "--deals", "reserved",
            "--opponents", "heuristic", "--workers", "1", "--no-plot", "--no-progress", "--out", str(out)]  # fmt: skip
    assert ev.main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["deal_set"] == report["players"]["2"]["deal_set"] == RESERVED_DEAL_SET
    assert [o["opponent"] for o in report["players"]["2"]["opponents"]] == ["heuristic"]
    games = [json.loads(line) for line in (out / "games_2p.jsonl").read_text().splitlines()]
    assert [g["seed"] for g in games] == reserved_deals(2, 1) * 2  # one deal, once from each seat


def test_evaluate_deals_per_opponent_beyond_the_protocol_set(tmp_path):
    out = tmp_path / "r"
    argv = ["heuristic", "--game", "artificium", "--players", "2", "--deals", "reserved", "--opponents",
            "random", "--deals-per-opponent", "201", "--workers", "1", "--no-plot", "--no-progress",
            "--out", str(out)]  # fmt: skip
    assert ev.main(argv) == 0
    games = [json.loads(line) for line in (out / "games_2p.jsonl").read_text().splitlines()]
    assert len(games) == 402 and sorted({g["seed"] for g in games}) == sorted(reserved_deals(2, 201))


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--opponents", "nobody"], "--opponents: 'nobody' is not a ladder agent of artificium"),
        (["--deals-per-opponent", "201"], "--deals-per-opponent 201: the protocol's deal set holds 200"),
        (["--leaderboard", "--deals", "reserved"], "--leaderboard plays the protocol's deals"),
    ],
)
def test_evaluate_refuses_bad_deal_options(tmp_path, capsys, extra, needle):
    out = tmp_path / "r"
    argv = ["heuristic", "--game", "artificium", "--players", "2", "--no-progress", "--out", str(out), *extra]
    with pytest.raises(SystemExit) as exc:
        ev.main(argv)
    assert exc.value.code == 2 and needle in capsys.readouterr().err and not out.exists()


# ===================================================================== training and snapshot choice refuse them


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "reserved deal set 'reserved'" in err, err
    return err


@pytest.mark.parametrize("seed", [RESERVED_SEEDS.start + 2, RESERVED_SEEDS.start - 7919])  # its own, its evaluations'
def test_the_fast_loop_refuses_a_reserved_seed(tmp_path, capsys, seed):
    pytest.importorskip("torch")
    from ohmygoods_training.fast_ppo import main

    out = tmp_path / "run"
    argv = ["--players", "2", "--prior", "none", "--total-steps", "8", "--num-envs", "2", "--n-steps", "4",
            "--eval-games", "1", "--final-games", "0", "--no-progress", "--seed", str(seed),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert f"--seed {seed}" in _one_line(capsys) and not out.exists()


def test_a_recipe_stage_with_a_reserved_seed_is_refused():
    pytest.importorskip("torch")
    from ohmygoods_training import recipe as R

    data = json.loads((R.recipes_dir() / "ppo.json").read_text())
    data["stages"][0]["args"] += f" --seed {RESERVED_SEEDS.start + 2}"
    with pytest.raises(R.RecipeError, match="reserved deal set 'reserved'"):
        R.parse(data)


def test_selfplay_training_and_snapshot_choice_refuse_a_reserved_seed(tmp_path, capsys):
    pytest.importorskip("torch")
    from ohmygoods_training.fast_ppo import main as loop
    from ohmygoods_training.selfplay import main

    seed = str(RESERVED_SEEDS.start + 2)
    out = tmp_path / "run"
    train = ["--game", "artificium", "--players", "2", "--total-steps", "8", "--seed", seed, "--out", str(out)]
    assert loop(train) == 2
    assert f"--seed {seed}" in _one_line(capsys) and not out.exists()
    ckpt = "agents/checkpoints/artificium/ppo.json"
    choose = ["--game", "artificium", "--evaluate", ckpt, "--players", "2", "--eval-games", "2", "--seed", seed]
    assert main(choose) == 2
    assert "--evaluate chooses snapshots" in _one_line(capsys)
    capsys.readouterr()


def test_the_checkpoint_evaluator_refuses_a_reserved_seed(capsys):
    pytest.importorskip("torch")
    from ohmygoods_training.evaluate import main

    assert main(["agents/checkpoints/ppo_2p.json", "--games", "2", "--seed", str(RESERVED_SEEDS.start)]) == 2
    _one_line(capsys)


def test_deals_per_opponent_is_checked_against_the_counts_the_agent_plays(tmp_path, capsys):
    """``ppo`` plays 2 players only: 76 deals are refused for 4 players (75 in the set), not for ``ppo``."""
    pytest.importorskip("torch")
    out = tmp_path / "r"
    argv = ["--opponents", "heuristic", "--deals-per-opponent", "76", "--workers", "1", "--no-plot", "--no-progress"]
    with pytest.raises(SystemExit) as exc:
        ev.main(["heuristic", "--players", "4", *argv, "--out", str(out)])
    assert exc.value.code == 2 and "the protocol's deal set holds 75" in capsys.readouterr().err and not out.exists()
    assert ev.main(["ppo", *argv, "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert list(report["players"]) == ["2"] and report["players"]["2"]["opponents"][0]["games"] == 152
    assert report["deal_set"] == load_protocol().deal_set


def _shipped_cards() -> list[tuple[str, dict]]:
    from ohmygoods_agents.checkpoint import shipped_checkpoints

    folder = shipped_checkpoints()["ppo"].parent
    paths = sorted([*folder.glob("*.json"), *folder.glob("*/*.json")])
    return [(f"{p.parent.name}/{p.name}", json.loads(p.read_text(encoding="utf-8"))["card"]) for p in paths]


@pytest.mark.parametrize(("name", "card"), _shipped_cards())
def test_every_shipped_card_quotes_reserved_figures_that_add_up(name, card):
    """Each shipped network's card holds its figures on the reserved deals (issue 39, item 4): the deal set,
    the command that played them, and counts that give the rate and the 95% Wilson interval quoted."""
    from ohmygoods_env.framework.stats import wilson

    reserved = card["reserved_evaluation"]
    assert reserved["deal_set"] == RESERVED_DEAL_SET, name
    for r in reserved["results"]:
        assert r["command"].startswith("ohmygoods evaluate ") and "--deals reserved" in r["command"], name
        if r["players"] == 1:
            assert r["score_lo"] <= r["score_mean"] <= r["score_hi"], name
            continue
        assert r["games"] == r["deals"] * r["players"], (name, r["opponent"])  # each deal once from every seat
        assert r["win_lo"] <= r["win_rate"] <= r["win_hi"], (name, r["opponent"])
        if "wins" in r and r["players"] == 2:  # two seats: a tie is half a win
            assert r["wins"] + r["ties"] + r["losses"] == r["games"], (name, r["opponent"])
            won = r["wins"] + r["ties"] / 2
            assert abs(r["win_rate"] - won / r["games"]) < 1e-4, (name, r["opponent"])
            lo, hi = wilson(won, r["games"])
            assert abs(r["win_lo"] - lo) < 1e-4 and abs(r["win_hi"] - hi) < 1e-4, (name, r["opponent"])
