"""``ohmygoods train ... --plan`` ends with the command that starts the planned run: every option as
given, ``--minutes`` replaced by the planned ``--total-steps`` (read back by the train parser, it gives
the planned configuration)."""

from __future__ import annotations

import re
import shlex

import pytest

pytest.importorskip("torch")

from ohmygoods_env.apps import cli, train  # noqa: E402


def _run_args(argv: list[str]):
    """The run's options as ``ohmygoods train`` reads ``argv`` (with ``--init``: the network's own prior)."""
    front, rest = train._front(argv)
    args = train.build_parser(front.players).parse_args(rest)
    if args.init and "--prior" not in rest:
        args.prior = ""
    return args


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--players", "3", "--minutes", "2"],
        ["--players", "1", "--max-minutes=0.5", "--seed", "7", "--lr", "1e-4", "--out", "runs/my solo"],
        ["--init", "ppo", "--minutes", "1", "--eval-vs", "greedy", "--num-envs", "64"],
        ["--players", "4", "--prior", "none", "--league", "self:0.5,heuristic:0.5", "--total-steps", "5000"],
        ["--players", "2", "--total-steps=900000", "--minutes", "1", "--eval-games", "50", "--no-progress"],
    ],
)
def test_the_printed_command_reproduces_the_planned_run(argv, capsys):
    assert cli.main(["train", *argv, "--plan"]) == 0
    err = capsys.readouterr().err
    found = re.search(r"Start this run with: (.*) \(any option starts it", err)
    assert found, err
    words = shlex.split(found.group(1))
    assert words[:2] == ["ohmygoods", "train"] and "--plan" not in words
    planned = _run_args(argv)
    steps = int(re.search(r"expected: about ([0-9,]+) decisions", err).group(1).replace(",", ""))
    again = _run_args(words[2:])
    assert vars(again) == {**vars(planned), "max_minutes": 0.0, "total_steps": steps}
    assert f"about {steps:,} decisions" in train.plan_text(again)
