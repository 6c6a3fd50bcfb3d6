"""``ohmygoods train --game artificium``: the one loop (fast_ppo) with the game's training kit, the contract of
Oh my Goods!'s command (``--players``, ``--total-steps`` / ``--minutes``, ``--out DIR`` -> ``DIR/final.json``,
``eval.csv``, the plan, ``--recipe``), several player counts in one run, and bad options refused before
anything is written."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from ohmygoods_training import recipe as R  # noqa: E402

from ohmygoods_env.apps import cli  # noqa: E402
from ohmygoods_env.artificium import Game  # noqa: E402
from ohmygoods_env.framework.agents import choose, make_agent  # noqa: E402

pytestmark = pytest.mark.training

TINY = ["--num-envs", "4", "--n-steps", "8", "--hidden", "16", "--eval-games", "2", "--final-games", "2",
        "--no-progress"]  # fmt: skip


def _plays_legal_moves(path, players: int) -> None:
    agent = make_agent("artificium", f"ppo:{path}")
    g = Game(players, 3)
    while not g.done:
        p = g.current_player
        a = choose(agent, g, p)
        assert g.legal_mask(p)[a] == 1
        g.step(a)


def test_a_run_writes_final_json_that_plays_as_an_agent_of_the_game(tmp_path, capsys):
    out = tmp_path / "art"
    argv = ["train", "--game", "artificium", "--players", "2", "--total-steps", "200", "--eval-every", "100", *TINY,
            "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "training plan:" in err and "game artificium" in err and f"{out}/final.json" in err
    desc = json.loads((out / "final.json").read_text())
    assert desc["network"]["kind"] == "mlp" and desc["players"] == 2
    assert [r["opponent"] for r in desc["card"]["final_evaluation"]] == ["random", "heuristic"]
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0] == "steps,wall_s,players,opponent,games,win_rate,lo,hi" and len(rows) >= 3
    run = json.loads((out / "run.json").read_text())
    assert run["steps"] >= 200 and run["final"]["path"] == f"{out}/final.json"
    _plays_legal_moves(out / "final.json", 2)


def test_several_player_counts_train_one_network_and_evaluate_each(tmp_path):
    from ohmygoods_training.fast_ppo import main

    out = tmp_path / "multi"
    argv = ["--game", "artificium", "--players", "2,4", "--total-steps", "100", *TINY, "--out", str(out)]
    assert main(argv) == 0
    rows = [r.split(",") for r in (out / "eval.csv").read_text().splitlines()[1:]]
    assert sorted({r[2] for r in rows}) == ["2", "4"]  # every evaluation at each count
    desc = json.loads((out / "final.json").read_text())
    assert desc.get("players") is None  # one network for both counts: no count recorded
    assert sorted(r["players"] for r in desc["card"]["final_evaluation"]) == [2, 2, 4, 4]
    _plays_legal_moves(out / "final.json", 4)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--players", "7"], "--players 7"),
        (["--prior", "heuristic"], "--prior heuristic: Artificium has no prior"),
        (["--shaping", "1"], "--shaping 1: needs --reward none"),
        (["--league", "self:1,mcts50:1"], "unknown league entry 'mcts50'"),
        (["--eval-vs", "alphazero"], "--eval-vs 'alphazero'"),
    ],
)
def test_bad_options_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, extra, needle):
    out = tmp_path / "bad"
    assert cli.main(["train", "--game", "artificium", "--total-steps", "10", *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not out.exists()


def test_a_reward_mode_the_game_has_not_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "bad"
    with pytest.raises(SystemExit) as stop:
        cli.main(["train", "--game", "artificium", "--reward", "margin", "--out", str(out)])
    assert stop.value.code == 2
    assert "argument --reward: invalid choice: 'margin' (choose from 'win')" in capsys.readouterr().err
    assert not out.exists()


def test_the_shipped_recipe_of_artificiums_network_is_its_two_stages():
    recipe = R.load("artificium-ppo")
    assert recipe.game == "artificium" and recipe.players == (2, 3, 4, 5, 6) and recipe.minutes == 112
    first, second = (s.args for s in recipe.stages)
    assert R.option(first, "--bc-teacher") == "heuristic" and R.option(first, "--seed") == "2"
    assert R.option(second, "--players") == "2,3,4,5,6,6" and recipe.stages[1].init == "stage1:best"


def test_a_recipe_of_the_game_chains_its_stages_and_writes_final_json(tmp_path, capsys):
    stage = "--game artificium --players 2,3 --num-envs 4 --n-steps 8 --hidden 16 --total-steps 60 --eval-games 2"
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({
        "name": "tiny", "game": "artificium", "players": [2, 3],
        "stages": [{"name": "a", "args": stage + " --bc-games 2 --bc-epochs 1"},
                   {"name": "b", "init": "a:best", "args": stage + " --seed 3 --final-games 2"}],
    }))  # fmt: skip
    out = tmp_path / "run"
    assert cli.main(["train", "--game", "artificium", "--recipe", str(path), "--out", str(out), "--no-progress"]) == 0
    assert (out / "a" / "bc.json").is_file() and (out / "b" / "final.json").is_file()
    card = json.loads((out / "final.json").read_text())["card"]
    assert card["recipe"] == "tiny" and len(card["stages"]) == 2 and "--init" in card["stages"][1]
    _plays_legal_moves(out / "final.json", 3)
    with pytest.raises(R.RecipeError, match="players must be an int in 2..6"):
        R.parse({"name": "x", "game": "artificium", "players": 7, "stages": [{"name": "a", "args": stage}]})
    assert np.isfinite(json.loads((out / "b" / "run.json").read_text())["steps"])


def test_goofspiel_trains_at_three_players_and_its_network_plays_as_its_agent(tmp_path, capsys):
    """The third game trains through the same command: its default kit (an MLP), evaluated against random (it
    has no heuristic), the checkpoint's layout sized for the run's player count (its observation grows with the
    seats), and ``ppo:PATH`` (the registry's generic ppo) plays it."""
    from ohmygoods_env.framework.game import resolve_game

    out = tmp_path / "goof"
    argv = ["train", "--game", "goofspiel", "--players", "3", "--total-steps", "200", "--eval-every", "100", *TINY,
            "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    desc = json.loads((out / "final.json").read_text())
    spec = resolve_game("goofspiel")
    assert desc["players"] == 3 and desc["layout"]["obs_dim"] == spec.obs_size(3) != spec.obs_size(2)
    assert [r["opponent"] for r in desc["card"]["final_evaluation"]] == ["random"]
    from ohmygoods_training import kits

    kits._KITS.clear()  # as in a new process: the kit knows no run's player count
    again = tmp_path / "goof2"  # a warm start from it: the layout comes from the checkpoint's player count
    argv = ["train", "--game", "goofspiel", "--players", "3", "--total-steps", "100", "--eval-every", "100", *TINY,
            "--init", str(out / "final.json"), "--out", str(again)]  # fmt: skip
    assert cli.main(argv) == 0 and json.loads((again / "final.json").read_text())["layout"] == desc["layout"]
    agent = make_agent("goofspiel", f"ppo:{out / 'final.json'}")
    g = spec.new_game(3, seed=5)
    while not g.done:
        chosen = {p: choose(agent, g, p) for p in g.pending_players()}
        assert all(g.legal_mask(p)[a] == 1 for p, a in chosen.items())
        g.step_joint(chosen) if len(chosen) > 1 or next(iter(chosen)) != g.current_player else g.step(
            chosen[g.current_player]
        )
