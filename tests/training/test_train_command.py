"""``ohmygoods train``: a short run writes ``OUT/final.json`` that plays as ``ppo:OUT/final.json``
everywhere; every shipped recipe is the documented run of its agent and parses into the loop's options;
a recipe run with a tiny cap chains its stages and writes ``final.json``."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest

pytest.importorskip("torch")

from ohmygoods_training import recipe as R  # noqa: E402
from ohmygoods_training.fast_ppo import parse_args  # noqa: E402

from ohmygoods_env.apps import cli  # noqa: E402

SHIPPED = {"ppo": "ppo_2p", "ppo-3p": "ppo_3p", "ppo-4p": "ppo_4p", "ppo-long": "ppo_2p_long", "ppo-solo": "ppo_1p"}
#: options that say where a run writes, starts from, how long it runs or how it is measured
RUN_OPTIONS = ("out", "init", "max_minutes", "total_steps", "threads", "final_games", "no_progress")


def test_the_shipped_recipes_are_the_shipped_agents():
    own = [n for n in R.names() if R.load(n).game == "ohmygoods"]  # other games' recipes: GAME-NAME
    assert own == sorted(SHIPPED)
    assert [n for n in R.names() if n not in own] == ["artificium-ppo"]


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_recipe_parses_into_the_loops_options(name, tmp_path):
    recipe = R.load(name)
    argvs = R.stage_argvs(recipe, tmp_path, minutes=1.0, threads=1)
    assert len(argvs) == len(recipe.stages) >= 1
    minutes = 0.0
    for k, (stage, argv) in enumerate(zip(recipe.stages, argvs, strict=True)):
        args = parse_args(argv)
        assert args.players == recipe.players and args.threads == 1
        assert args.out == str(tmp_path / stage.name)
        if stage.init:  # starts from the network an earlier stage keeps
            src, _, which = stage.init.partition(":")
            assert args.init == str(tmp_path / src / f"{which}.json")
            assert [s.name for s in recipe.stages].index(src) < k
        else:
            assert args.init is None
        assert args.final_games == (0 if k < len(argvs) - 1 else 200)  # only the last stage's counts
        minutes += args.max_minutes
    assert 0 < minutes <= 1.0 + 1e-6  # --minutes caps the recipe


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_recipe_is_the_command_on_its_checkpoints_card(name):
    """Each stage that trains with PPO is the card's command of that stage, up to where it writes,
    where it starts from (the runner sets those) and the thread count."""
    from ohmygoods_agents.checkpoint import shipped_checkpoints

    card = json.loads(shipped_checkpoints()[name].read_text())["card"]
    commands = [s["command"] if isinstance(s, dict) else s.split("  (")[0] for s in card["stages"]]
    recipe = R.load(name)
    assert len(commands) == len(recipe.stages)
    for stage, command in zip(recipe.stages, commands, strict=True):
        theirs = vars(parse_args(shlex.split(command)[3:]))
        ours = vars(parse_args(stage.args))
        skip = RUN_OPTIONS if parse_args(stage.args).total_steps else (*RUN_OPTIONS, "eval_every", "eval_games")
        assert {k: v for k, v in ours.items() if k not in skip} == {k: v for k, v in theirs.items() if k not in skip}
        if ours["total_steps"]:
            assert ours["total_steps"] == theirs["total_steps"] and ours["max_minutes"] == theirs["max_minutes"]


def test_bad_recipes_are_refused_with_what_was_expected(tmp_path):
    with pytest.raises(R.RecipeError, match="unknown recipe 'nope': expected one of artificium-ppo, ppo, ppo-3p"):
        R.load("nope")
    good = {"name": "x", "players": 2, "stages": [{"name": "a", "args": "--players 2"}]}
    assert R.parse(good).stages[0].args == ["--players", "2"]
    with pytest.raises(R.RecipeError, match="sets --out; the runner sets those"):
        R.parse({**good, "stages": [{"name": "a", "args": "--out here"}]})
    with pytest.raises(R.RecipeError, match="starts from 'b:best'; expected EARLIER_STAGE:WHICH"):
        R.parse({**good, "stages": [{"name": "a", "args": "", "init": "b:best"}]})
    with pytest.raises(R.RecipeError, match="expected name, players and stages"):
        R.parse({"name": "x"})


def test_train_writes_final_json_that_plays_as_an_agent_everywhere(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["train", "--players", "2", "--minutes", "0.02", "--num-envs", "16", "--n-steps", "8",
            "--eval-games", "4", "--final-games", "4", "--no-progress", "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    final = out / "final.json"
    assert final.exists() and (out / "final.safetensors").exists()
    assert f"ppo:{final}" in err and err.count("done:") == 1
    card = json.loads(final.read_text())["card"]
    assert [r["opponent"] for r in card["final_evaluation"]] == ["random", "heuristic"]
    assert card["command"].startswith("ohmygoods train --players 2")
    run = json.loads((out / "run.json").read_text())
    assert run["final"]["path"] == str(final)

    from ohmygoods_agents import make_agent

    from ohmygoods_env.batch import BatchGames
    from ohmygoods_env.envs.gym_env import OhMyGoodsEnv
    from ohmygoods_env.policy import BatchPolicy

    pol = BatchPolicy(make_agent(f"ppo:{final}", seed=0))
    games = BatchGames(4, 2, seed=3)
    for _ in range(40):
        live = np.flatnonzero(~games.done)
        acts = pol(games, live)
        assert games.masks()[live][np.arange(live.size), acts].all()
        games.step(acts, rows=live)
    env = OhMyGoodsEnv(opponents=f"ppo:{final}")  # an opponent by name
    obs, _ = env.reset(seed=1)
    obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert obs.shape == env.observation_space.shape
    tour = tmp_path / "tour"
    assert cli.main(["tournament", "--agents", f"random,ppo:{final}", "--games", "2", "--workers", "1",
                     "--no-plots", "--no-progress", "--bootstrap", "0", "--out", str(tour)]) == 0  # fmt: skip
    assert (tour / "games.jsonl").exists()


def test_train_continues_a_saved_network_with_its_own_prior(tmp_path, capsys):
    """``--init`` takes the network's prior (and no warm start) unless ``--prior`` says otherwise."""
    from ohmygoods_agents.slotnet import SlotNet
    from ohmygoods_training.fast_ppo import save_agent

    plain = save_agent(SlotNet(16, 4), tmp_path / "plain")
    argv = ["train", "--players", "2", "--init", str(plain), "--total-steps", "20", "--num-envs", "4",
            "--n-steps", "4", "--eval-games", "2", "--final-games", "0", "--no-progress",
            "--out", str(tmp_path / "r")]  # fmt: skip
    assert cli.main(argv) == 0
    assert "network: from" in capsys.readouterr().err
    card = json.loads((tmp_path / "r" / "final.json").read_text())["card"]
    assert card["config"]["prior"] == "" and card["config"]["hidden"] == 16
    assert cli.main([*argv, "--prior", "heuristic"]) == 2  # refused before anything runs
    assert "--init network has prior None" in capsys.readouterr().err


def test_the_loop_evaluates_the_last_network_once(tmp_path, capsys):
    """Every iteration is evaluated (``--eval-every 1``): the end of the run adds no second row."""
    out = tmp_path / "run"
    argv = ["--players", "2", "--prior", "none", "--num-envs", "4", "--n-steps", "4", "--total-steps", "30",
            "--eval-every", "1", "--eval-games", "2", "--eval-vs", "random", "--final-games", "0",
            "--out", str(out)]  # fmt: skip
    from ohmygoods_training.fast_ppo import main

    assert main(argv) == 0
    steps = [line.split(",")[0] for line in (out / "eval.csv").read_text().splitlines()[1:]]
    assert len(steps) == len(set(steps)) >= 2
    err = capsys.readouterr().err
    assert err.count("done:") == 1 and len([x for x in err.splitlines() if x.startswith("[eval]")]) == len(steps)


@pytest.mark.training
def test_a_recipe_run_with_a_tiny_cap_chains_its_stages_and_writes_final_json(tmp_path):
    out = tmp_path / "p3"
    argv = ["train", "--recipe", "ppo-3p", "--minutes", "0.01", "--eval-games", "2", "--final-games", "2",
            "--no-progress", "--out", str(out)]  # fmt: skip
    assert cli.main(argv) == 0
    for path in ("prior/best.json", "slow/final.json", "final.json", "final.safetensors"):
        assert (out / path).exists(), path
    card = json.loads((out / "final.json").read_text())["card"]
    assert card["recipe"] == "ppo-3p" and len(card["stages"]) == 2
    assert f"--init {out / 'prior' / 'best.json'}" in card["stages"][1]
    from ohmygoods_agents import make_agent

    assert make_agent(f"ppo:{out / 'final.json'}").needs_info_state  # the prior came through both stages
