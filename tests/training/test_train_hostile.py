"""Bad inputs of ``ohmygoods train`` are refused before anything runs: exit 2, one line on stderr naming the
input and what was expected, and no output folder. A hostile ``--init`` checkpoint (not JSON, wrong types,
huge shapes, NaN weights, missing tensors, a folder), a bad ``--recipe FILE`` (not JSON, wrong types,
unknown keys, nested junk, a stage that would fail late) and options that used to fail only after the
run had started (``--eval-vs``, ``--league``, ``--bc-teacher``)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from ohmygoods_agents.slotnet import SlotNet  # noqa: E402
from ohmygoods_training.fast_ppo import save_agent  # noqa: E402

from ohmygoods_env.apps import cli  # noqa: E402

TINY = ["--prior", "none", "--total-steps", "8", "--num-envs", "2", "--n-steps", "4", "--eval-games", "1",
        "--eval-vs", "random", "--final-games", "0", "--no-progress"]  # fmt: skip


def _refused(argv: list[str], out: Path, capsys, *needles: str) -> str:
    """``ohmygoods train ARGV`` exits 2 with one line naming ``needles``, and writes no ``out``."""
    code = cli.main(["train", *argv, "--out", str(out)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err[-800:]
    assert len(lines) == 1 and "Traceback" not in err, err[-800:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not out.exists(), "an output was written for a refused run"
    return lines[0]


# ---------------------------------------------------------------------------- --init


@pytest.fixture
def net(tmp_path) -> Path:
    return save_agent(SlotNet(16, 4), tmp_path / "net")


def _desc(path: Path, **changes) -> Path:
    desc = json.loads(path.read_text())
    for key, value in changes.items():
        if key in ("hidden", "embed", "kind", "prior"):
            desc["network"][key] = value
        else:
            desc[key] = value
    path.write_text(json.dumps(desc))
    return path


def _weights(path: Path, edit) -> Path:
    """Rewrite the checkpoint's safetensors file with ``edit(tensors)`` (a dict of float32 arrays)."""
    from safetensors.numpy import load_file, save_file

    wpath = path.with_suffix(".safetensors")
    tensors = load_file(str(wpath))
    edit(tensors)
    save_file(tensors, str(wpath))
    return path


@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        (lambda p: p.write_text("{not json"), "is not a policy checkpoint description"),
        (lambda p: p.write_text("[1, 2]"), "expected a JSON object with format='ohmygoods-policy'"),
        (lambda p: _desc(p, hidden="16"), "network hidden must be an int in 1..4096, got '16'"),
        (lambda p: _desc(p, hidden=10**9), "network hidden must be an int in 1..4096"),
        (lambda p: _desc(p, hidden=4000), "slotnet tensors differ from hidden=4000"),
        (lambda p: _desc(p, players="2"), "players must be an int in 1..16"),
        (lambda p: _desc(p, weights="../elsewhere.safetensors"), "weights must be a file name"),
        (lambda p: _desc(p, layout={"obs_dim": 10**9}), "layout observation size must be an int"),
        (lambda p: _desc(p, prior=["heuristic"]), "network prior"),
        (lambda p: _weights(p, lambda t: t["pi.bias"].fill(np.nan)), "must be finite float32"),
        (lambda p: _weights(p, lambda t: t.pop("v.weight")), "v.weight None"),
        (lambda p: p.with_suffix(".safetensors").write_bytes(struct.pack("<Q", 10**12)), "not a safetensors"),
        (lambda p: p.with_suffix(".safetensors").unlink(), "its weights file"),
    ],
)
def test_a_hostile_init_checkpoint_is_one_line_and_nothing_is_written(net, tmp_path, capsys, damage, needle):
    damage(net)
    _refused(["--players", "2", *TINY, "--init", str(net)], tmp_path / "run", capsys, f"--init {net}", needle)


def test_an_init_that_is_a_folder_or_missing_or_another_network(tmp_path, capsys):
    folder = tmp_path / "dir.json"
    folder.mkdir()
    _refused([*TINY, "--init", str(folder)], tmp_path / "run", capsys, f"--init {folder}", "no policy checkpoint")
    _refused([*TINY, "--init", str(tmp_path)], tmp_path / "run", capsys, "expected NAME.json", "ppo-solo")
    mlp = tmp_path / "mlp.json"
    from ohmygoods_agents.checkpoint import save_checkpoint

    from ohmygoods_env import layout as L

    tensors = {"layers.0.weight": np.zeros((L.N_ACTIONS, L.OBS_DIM), np.float32),
               "layers.0.bias": np.zeros(L.N_ACTIONS, np.float32)}  # fmt: skip
    save_checkpoint(mlp, tensors, "tanh")
    _refused([*TINY, "--init", str(mlp)], tmp_path / "run", capsys, "network kind 'mlp', expected 'slotnet'")


def test_an_init_with_a_prior_the_run_contradicts_is_refused(tmp_path, capsys):
    plain = save_agent(SlotNet(16, 4), tmp_path / "plain")
    argv = [*[a for a in TINY if a not in ("--prior", "none")], "--init", str(plain), "--prior", "heuristic"]
    _refused(argv, tmp_path / "run", capsys, "--prior 'heuristic', but the --init network has prior None")


# ---------------------------------------------------------------------------- --recipe FILE

GOOD_STAGE = {"name": "a", "args": "--players 2 " + " ".join(TINY)}


def _recipe(tmp_path: Path, data) -> Path:
    path = tmp_path / "r.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ("{not json", "not a recipe (expected JSON)"),
        ("[" * 5000 + "]" * 5000, "nested deeper than"),
        ('{"name": "x", "players": ' + "9" * 5000 + ', "stages": []}', "a number of 5000 characters"),
        ([], "the recipe must be a JSON object with name, players, stages, got list"),
        ({"name": "x", "players": "2", "stages": [GOOD_STAGE]}, "players must be an int in 1..4, got '2'"),
        ({"name": "x", "players": 2, "stages": [GOOD_STAGE], "evil": 1}, "unknown key(s) 'evil'"),
        ({"name": "x", "players": 2, "stages": [{**GOOD_STAGE, "allow_exec": True}]}, "unknown key(s) 'allow_exec'"),
        ({"name": "x", "players": 2, "stages": "abc"}, "stages must be a list of 1..16 stages"),
        ({"name": "x", "players": 2, "stages": [[["deep"]]]}, "stage 0 must be a JSON object"),
        ({"name": ["x"], "players": 2, "stages": [GOOD_STAGE]}, "name must be a name matching"),
        ({"name": "x", "players": 2, "stages": [{**GOOD_STAGE, "name": "../../up"}]}, "stage 0 name must be a name"),
        ({"name": "x", "players": 2, "stages": [{**GOOD_STAGE, "args": ["--players", "2"]}]}, "args must be a string"),
        ({"name": "x", "players": 2, "stages": [{**GOOD_STAGE, "args": "--lr '1e-3"}]}, "No closing quotation"),
        ({"name": "x", "players": 2, "stages": [{**GOOD_STAGE, "about": {"a": 1}}]}, "about must be a string"),
        ({"name": "x", "players": 2, "shipped": [1], "stages": [GOOD_STAGE]}, "shipped must be an object"),
    ],
)
def test_a_bad_recipe_file_is_one_line_and_nothing_is_written(tmp_path, capsys, data, needle):
    path = _recipe(tmp_path, data)
    _refused(["--recipe", str(path)], tmp_path / "run", capsys, f"--recipe {path}", needle)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ("--bogus 1", "unrecognized arguments: --bogus 1"),
        ("--ou elsewhere", "unrecognized arguments: --ou elsewhere"),
        ("--help", "--help is not an option of a run"),
        ("--players 3", "--players 3, the recipe is for 2 players"),
        ("--eval-vs nobody", "--eval-vs 'nobody'"),
        ("--league self:1,nobody:1", "unknown league entry 'nobody'"),
        ("--bc-games 2 --bc-teacher nobody", "--bc-teacher 'nobody'"),
        ("--lr nan", "--lr nan: expected a finite number"),
        ("--num-envs 0", "--num-envs 0: expected a number in 1..65536"),
    ],
)
def test_a_stage_that_would_fail_late_is_refused_before_the_first_stage_runs(tmp_path, capsys, args, needle):
    """The old runner found these only when the stage started (after the stages before it had trained)."""
    second = {"name": "b", "args": f"--players 2 {' '.join(TINY)} {args}", "init": "a:best"}
    path = _recipe(tmp_path, {"name": "x", "players": 2, "stages": [GOOD_STAGE, second]})
    _refused(["--recipe", str(path)], tmp_path / "run", capsys, "stage 'b'", needle)


def test_a_recipe_that_is_a_folder_is_refused(tmp_path, capsys):
    (tmp_path / "r.json").mkdir()
    _refused(["--recipe", str(tmp_path / "r.json")], tmp_path / "run", capsys, "is not a file")


# ---------------------------------------------------------------------------- options checked late before


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--eval-vs", "nobody"], "--eval-vs 'nobody'"),
        (["--eval-vs", "ppo:/no/such.json"], "--eval-vs 'ppo:/no/such.json'"),
        (["--league", "self:1,nobody:1"], "--league 'self:1,nobody:1': unknown league entry 'nobody'"),
        (["--league", "self:-1"], "negative weight"),
        (["--league", "mcts0:1"], "league entry 'mcts0'"),
        (["--bc-games", "2", "--bc-teacher", "nobody"], "--bc-teacher 'nobody'"),
        (["--bc-games", "2", "--prior", "heuristic"], "a warm start clones into a network without a prior"),
        (["--minutes", "nan"], "--max-minutes nan: expected a finite number"),
        (["--hidden", "100000"], "--hidden 100000: expected a number in 1..4096"),
    ],
)
def test_options_that_failed_after_the_run_started_are_refused_first(tmp_path, capsys, argv, needle):
    _refused(["--players", "2", *TINY, *argv], tmp_path / "run", capsys, needle)


def test_an_out_that_is_a_file_is_refused_and_kept(tmp_path, capsys):
    out = tmp_path / "run"
    out.write_text("mine")
    assert cli.main(["train", *TINY, "--out", str(out)]) == 2
    assert "--out" in capsys.readouterr().err and out.read_text() == "mine"


def test_the_loop_module_refuses_the_same_inputs(tmp_path, capsys):
    from ohmygoods_training.fast_ppo import main

    out = tmp_path / "run"
    assert main(["--players", "2", *TINY, "--eval-vs", "nobody", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--eval-vs 'nobody'" in err and not out.exists()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--opponents", "random,nobody"], "--opponents 'random,nobody': unknown league entry 'nobody'"),
        (["--eval-opponents", "random,nobody"], "--eval-opponents 'nobody'"),
        (["--best-vs", "nobody"], "--best-vs 'nobody'"),
        (["--bc-games", "2", "--bc-teacher", "nobody"], "--bc-teacher 'nobody'"),
        (["--resume", "/no/such.zip", "--trust-pickle"], "--resume /no/such.zip: no such file"),
    ],
)
def test_the_maskable_loop_checks_its_agents_before_it_starts(tmp_path, capsys, argv, needle):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "--algo", "maskable-ppo", "--total-steps", "10", *argv, "--out", str(out)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and needle in err, err[-600:]
    assert not out.exists()
