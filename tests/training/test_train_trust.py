"""No file a training run reads can enable code execution: a recipe's stage naming an ``exec:`` or
``sb3:`` agent (``--eval-vs``, ``--bc-teacher``, a league entry), an ``--init`` checkpoint that is a
pickle-carrying Stable-Baselines3 zip, and a league of the self-play loop naming ``exec`` are refused
before anything runs (exit 2, one line, no marker file created, no output). ``ohmygoods train`` has no
option that allows either, so its command line refuses them too."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("torch")

from ohmygoods_env.apps import cli  # noqa: E402

TINY = ["--prior", "none", "--total-steps", "8", "--num-envs", "2", "--n-steps", "4", "--eval-games", "1",
        "--final-games", "0", "--no-progress"]  # fmt: skip


def _exec(marker: Path) -> str:
    """An ``exec:`` agent whose program, if it ever started, would create ``marker``."""
    return f"exec:{sys.executable} -c open({str(marker)!r},'w')"


class _Payload:
    """Unpickling this creates the marker file (what a hostile SB3 zip carries)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _evil_zip(path: Path, marker: Path) -> Path:
    """A Stable-Baselines3-shaped zip whose ``data`` holds a pickle that creates ``marker`` when loaded."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps({"policy_class": {":type:": "x", ":serialized:": blob}}))
        zf.writestr("policy.pth", b"")
    return path


def _refused(argv: list[str], out: Path, marker: Path, capsys, needle: str, main=None) -> None:
    code = (main or cli.main)(argv)
    err = capsys.readouterr().err
    assert code == 2, err[-800:]
    assert len(err.strip().splitlines()) == 1 and needle in err, err[-800:]
    assert not marker.exists(), "a file the run read started a program or unpickled its payload"
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--eval-vs", "--bc-teacher", "--league"])
def test_a_recipe_cannot_start_a_program(tmp_path, capsys, flag):
    marker = tmp_path / "marker"
    spec = _exec(marker)
    extra = {
        "--eval-vs": f"--eval-vs {json.dumps(spec)}",
        "--bc-teacher": f"--bc-games 2 --bc-teacher {json.dumps(spec)}",
        "--league": f"--league {json.dumps('self:0.5,' + spec)}",
    }[flag]
    recipe = {"name": "x", "players": 2, "stages": [{"name": "a", "args": f"--players 2 {' '.join(TINY)} {extra}"}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    out = tmp_path / "run"
    _refused(["train", "--recipe", str(path), "--out", str(out)], out, marker, capsys, f"--recipe {path}")


@pytest.mark.parametrize("flag", ["--eval-vs", "--bc-teacher"])
def test_a_recipe_cannot_unpickle_a_zip(tmp_path, capsys, flag):
    marker = tmp_path / "marker"
    spec = f"sb3:{_evil_zip(tmp_path / 'evil.zip', marker)}"
    extra = f"--eval-vs {spec}" if flag == "--eval-vs" else f"--bc-games 2 --bc-teacher {spec}"
    recipe = {"name": "x", "players": 2, "stages": [{"name": "a", "args": f"--players 2 {' '.join(TINY)} {extra}"}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    out = tmp_path / "run"
    _refused(["train", "--recipe", str(path), "--out", str(out)], out, marker, capsys, "would unpickle a file")


def test_the_train_command_line_has_no_way_to_allow_either(tmp_path, capsys):
    marker, out = tmp_path / "marker", tmp_path / "run"
    base = ["train", "--players", "2", *TINY, "--out", str(out)]
    _refused([*base, "--eval-vs", _exec(marker)], out, marker, capsys, "would run a program")
    evil = _evil_zip(tmp_path / "evil.zip", marker)
    _refused([*base, "--bc-games", "2", "--bc-teacher", f"sb3:{evil}"], out, marker, capsys, "Stable-Baselines3 zip")


def test_an_init_checkpoint_cannot_be_a_pickle(tmp_path, capsys):
    marker, out = tmp_path / "marker", tmp_path / "run"
    evil = _evil_zip(tmp_path / "evil.zip", marker)
    base = ["train", "--players", "2", *TINY, "--eval-vs", "random", "--out", str(out)]
    _refused([*base, "--init", str(evil)], out, marker, capsys, "Stable-Baselines3 zip")
    _refused([*base, "--init", str(tmp_path / "evil")], out, marker, capsys, "no checkpoint")  # only evil.zip there


@pytest.mark.parametrize("flag", ["--league", "--eval-vs", "--bc-teacher"])
def test_the_self_play_loop_starts_no_program_from_its_options(tmp_path, capsys, flag):
    from functools import partial

    from ohmygoods_env.apps.game_train import main as game_train

    main = partial(game_train, game="artificium")  # ohmygoods train --game artificium: the one loop

    marker, out = tmp_path / "marker", tmp_path / "run"
    spec = _exec(marker)
    value = {"--league": "self:1,exec:1", "--eval-vs": spec, "--bc-teacher": spec}[flag]
    argv = ["--players", "2", "--num-envs", "2", "--n-steps", "4", "--total-steps", "4", "--eval-games", "1",
            flag, value, "--out", str(out)]  # fmt: skip
    _refused(argv, out, marker, capsys, flag, main=main)


def test_a_checkpoint_description_cannot_point_at_a_pickle_or_opt_in(tmp_path, capsys):
    """A description naming a zip as its weights, and claiming ``trust_pickle`` / ``allow_exec``, is refused."""
    from ohmygoods_agents.slotnet import SlotNet
    from ohmygoods_training.fast_ppo import save_agent

    marker, out = tmp_path / "marker", tmp_path / "run"
    _evil_zip(tmp_path / "evil.zip", marker)
    path = save_agent(SlotNet(16, 4), tmp_path / "net", players=2)
    desc = json.loads(path.read_text())
    desc.update(weights="evil.zip", trust_pickle=True, allow_exec=True)
    path.write_text(json.dumps(desc))
    base = ["train", "--players", "2", *TINY, "--eval-vs", "random", "--out", str(out)]
    _refused([*base, "--init", str(path)], out, marker, capsys, "weights must be a file name NAME.safetensors")
