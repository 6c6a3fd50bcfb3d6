"""Recipes: the documented runs that made the shipped agents, as files the package ships.

``training/recipes/NAME.json`` (NAME: ``ppo``, ``ppo-long``, ``ppo-3p``, ``ppo-4p``, ``ppo-solo``) holds the
commands of docs/training.md and of each checkpoint's card as **stages** of
:mod:`ohmygoods_training.fast_ppo`: ``args`` (the options of one run, as on its command line,
without ``--out`` and ``--init``), ``init`` (``STAGE:WHICH``: start from the network ``WHICH``
— ``best``, ``last`` or ``bc`` — of an earlier stage) and ``keep`` (which network of the stage a
later one starts from). ``ohmygoods train --recipe NAME --out DIR`` runs the stages into
``DIR/STAGE/`` and writes the last stage's final network (its best one, evaluated again) as
``DIR/final.json`` + ``DIR/final.safetensors``; ``--minutes M`` caps the whole recipe, each
stage's ``--max-minutes`` scaled by the same factor (a warm start, ``--bc-games``, is not capped).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

#: options a recipe's ``args`` may not hold: the runner sets them
RUNNER_OPTIONS: tuple[str, ...] = ("--out", "--init")
KEEP: tuple[str, ...] = ("best", "last", "bc")
PROG = "python -m ohmygoods_training.fast_ppo"


class RecipeError(ValueError):
    """A recipe name or file that cannot be used: what is wrong, and what was expected."""


@dataclass
class Stage:
    """One run of the loop inside a recipe."""

    name: str
    about: str
    args: list[str]
    init: str | None = None  # "STAGE:WHICH"
    keep: str = "best"

    @property
    def minutes(self) -> float:
        """The stage's ``--max-minutes`` (0: none)."""
        return float(option(self.args, "--max-minutes") or 0.0)


@dataclass
class Recipe:
    """A named sequence of stages (see the module docstring)."""

    name: str
    players: int | tuple[int, ...]
    about: str
    shipped: dict[str, Any]
    stages: list[Stage]
    #: the game its stages train (``--game``; the one loop with the game's training kit)
    game: str = "ohmygoods"

    @property
    def minutes(self) -> float:
        return sum(s.minutes for s in self.stages)


def recipes_dir() -> Path:
    """The folder of the shipped recipe files."""
    return Path(str(resources.files("ohmygoods_training") / "recipes"))


def names() -> list[str]:
    """The shipped recipes, by name."""
    return sorted(p.stem for p in recipes_dir().glob("*.json"))


def option(argv: list[str], flag: str) -> str | None:
    """The value of ``flag`` in ``argv`` (``--flag V`` or ``--flag=V``), else None."""
    for i, tok in enumerate(argv):
        if tok == flag and i + 1 < len(argv):
            return argv[i + 1]
        if tok.startswith(flag + "="):
            return tok.split("=", 1)[1]
    return None


def with_option(argv: list[str], flag: str, value: str | None) -> list[str]:
    """``argv`` with ``flag`` set to ``value`` (replaced where present, else appended); ``value`` None:
    the switch ``flag`` alone."""
    out = list(argv)
    if value is None:
        return out if flag in out else [*out, flag]
    for i, tok in enumerate(out):
        if tok == flag and i + 1 < len(out):
            out[i + 1] = value
            return out
        if tok.startswith(flag + "="):
            out[i] = f"{flag}={value}"
            return out
    return [*out, flag, value]


#: the keys of a recipe file and of its stages (anything else is refused)
RECIPE_KEYS: tuple[str, ...] = ("name", "players", "about", "shipped", "stages", "game")
STAGE_KEYS: tuple[str, ...] = ("name", "about", "args", "init", "keep")
#: a recipe's or a stage's name (a stage's is a folder of the run)
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_RECIPE_BYTES = 1 << 20
MAX_STAGES = 16


def _object(value: Any, keys: tuple[str, ...], required: tuple[str, ...], what: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecipeError(
            f"{where}: {what} must be a JSON object with {', '.join(required)}, got {type(value).__name__}"
        )
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise RecipeError(f"{where}: {what} has unknown key(s) {', '.join(map(repr, unknown))[:200]}; expected "
                          f"{', '.join(keys)}")  # fmt: skip
    missing = [k for k in required if k not in value]
    if missing:
        raise RecipeError(f"{where}: {what}: expected name, players and stages of name and args (missing {missing})")
    return value


def _text(value: Any, what: str, where: str, pattern: re.Pattern[str] | None = None) -> str:
    if not isinstance(value, str) or (pattern is not None and not pattern.fullmatch(value)):
        expected = "a string" if pattern is None else f"a name matching {pattern.pattern}"
        raise RecipeError(f"{where}: {what} must be {expected}, got {value!r}"[:300])
    return value


def _stage_options(s: Stage, players: int | tuple[int, ...], where: str, game: str = "ohmygoods") -> None:
    """A stage's ``args`` are options of the loop (its parser) that pass its checks
    (:func:`ohmygoods_training.fast_ppo.check_options`: numbers, league, ``--eval-vs``, ``--bc-teacher``;
    no ``exec:`` or ``sb3:`` agent, which only the command line could allow), for ``players`` players."""
    from ohmygoods_env.framework.agents import check_file_agent

    from .fast_ppo import build_parser, check_options

    parser = build_parser(PROG, game)
    parser.allow_abbrev = False  # "--ou DIR" is not --out

    def refuse(message: str) -> None:
        raise RecipeError(f"{where}: stage {s.name!r}: {message}")

    parser.error = refuse  # type: ignore[method-assign]  # one RecipeError, no usage text and no exit
    if any(tok in ("-h", "--help") for tok in s.args):
        refuse("--help is not an option of a run")
    ns = parser.parse_args(s.args)
    counts = set(ns.players) if isinstance(ns.players, tuple) else {ns.players}
    if counts != (set(players) if isinstance(players, tuple) else {players}):  # a count named twice: more games
        refuse(f"--players {ns.players}, the recipe is for {players} players")
    if ns.game != game:
        refuse(f"--game {ns.game}, the recipe is for {game}")
    named = [("--league entry", e.partition(":")[0].strip()) for e in ns.league.split(",") if e.strip()]
    named += [("--eval-vs", ns.eval_vs), ("--bc-teacher", ns.bc_teacher)]
    try:
        for flag, spec in named:  # only the command line may let an agent run code
            check_file_agent(spec, {}, f"{flag} {spec!r}")
        check_options(ns)
    except ValueError as exc:
        refuse(str(exc))


def parse(data: Any, where: str = "recipe") -> Recipe:
    """A recipe from its JSON object, every field checked: the keys (no others), their types, the stage
    names (each a folder of the run), ``init`` references, runner options and each stage's options
    (:func:`_stage_options`). :class:`RecipeError` names the first problem."""
    data = _object(data, RECIPE_KEYS, ("name", "players", "stages"), "the recipe", where)
    name = _text(data["name"], "name", where, NAME)
    game = _text(data.get("game", "ohmygoods"), "game", where, NAME)
    try:
        from .kits import kit_of

        spec = kit_of(game).spec
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        raise RecipeError(f"{where}: game {game!r}: {' '.join(str(exc).split())}"[:300]) from None
    players = data["players"]
    if isinstance(players, list) and players and all(isinstance(p, int) and not isinstance(p, bool) for p in players):
        players = tuple(players) if len(players) > 1 else players[0]
    counts = players if isinstance(players, tuple) else (players,)
    if (
        isinstance(players, bool)
        or not isinstance(players, (int, tuple))
        or not all(spec.min_players <= p <= spec.max_players for p in counts)
    ):
        raise RecipeError(
            f"{where}: players must be an int in {spec.min_players}..{spec.max_players}, got {players!r} "
            f"(or a list of such counts; the game {spec.name})"[:300]
        )
    about = _text(data.get("about", ""), "about", where)
    shipped = data.get("shipped", {})
    if not isinstance(shipped, dict):
        raise RecipeError(f"{where}: shipped must be an object, got {type(shipped).__name__}")
    raw = data["stages"]
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_STAGES:
        raise RecipeError(f"{where}: stages must be a list of 1..{MAX_STAGES} stages, got {str(raw)[:100]}")
    stages = []
    for k, st in enumerate(raw):
        st = _object(st, STAGE_KEYS, ("name", "args"), f"stage {k}", where)
        sname = _text(st["name"], f"stage {k} name", where, NAME)
        try:
            args = shlex.split(_text(st["args"], f"stage {sname!r} args", where))
        except ValueError as exc:
            raise RecipeError(f"{where}: stage {sname!r} args: {exc}") from None
        init = st.get("init")
        init = None if init is None else _text(init, f"stage {sname!r} init", where)
        keep = _text(st.get("keep", "best"), f"stage {sname!r} keep", where)
        stages.append(Stage(sname, _text(st.get("about", ""), f"stage {sname!r} about", where), args, init, keep))
    seen: dict[str, Stage] = {}
    for s in stages:
        bad = [f for f in RUNNER_OPTIONS if option(s.args, f) is not None]
        if bad:
            raise RecipeError(f"{where}: stage {s.name!r} sets {', '.join(bad)}; the runner sets those")
        if s.keep not in KEEP:
            raise RecipeError(f"{where}: stage {s.name!r} keeps {s.keep!r}; expected one of {', '.join(KEEP)}")
        if s.init is not None:
            src, _, which = s.init.partition(":")
            if src not in seen or which not in KEEP:
                raise RecipeError(
                    f"{where}: stage {s.name!r} starts from {s.init!r}; expected EARLIER_STAGE:WHICH with a stage "
                    f"of {list(seen)} and WHICH one of {', '.join(KEEP)}"
                )
        if s.name in seen:
            raise RecipeError(f"{where}: two stages named {s.name!r}")
        _stage_options(s, players, where, game)
        seen[s.name] = s
    return Recipe(name, players, about, shipped, stages, game)


def load(name: str) -> Recipe:
    """The shipped recipe ``name``, or a recipe file (a path ending in ``.json``), read within JSON limits
    (size, depth, numbers: :func:`ohmygoods_env.files.read_json_file`) and checked (:func:`parse`)."""
    from ohmygoods_env.framework.files import BadJSON, read_json_file

    path = Path(name) if name.endswith(".json") else recipes_dir() / f"{name}.json"
    if name.endswith(".json") and path.exists() and not path.is_file():
        raise RecipeError(f"{path} is not a file; expected a recipe file NAME.json")
    if not path.is_file():
        raise RecipeError(f"unknown recipe {name!r}: expected one of {', '.join(names())} or a recipe file NAME.json")
    try:
        data = read_json_file(path, max_bytes=MAX_RECIPE_BYTES)
    except BadJSON as exc:
        raise RecipeError(f"{path}: not a recipe (expected JSON): {exc}") from None
    except OSError as exc:
        raise RecipeError(f"{path}: cannot read the recipe ({exc.strerror or exc})") from None
    return parse(data, str(path))


def stage_argvs(
    recipe: Recipe,
    out: str | Path,
    minutes: float = 0.0,
    threads: int | None = None,
    overrides: dict[str, str | None] | None = None,
) -> list[list[str]]:
    """The loop's command line of every stage: outputs in ``OUT/STAGE``, ``--init`` from the earlier
    stage, ``--max-minutes`` scaled so that the stages take ``minutes`` in all (when less than the
    recipe's), ``--threads`` and ``overrides`` (flag → value, None for a switch) set in every stage. Stages before the
    last skip the final evaluation (``--final-games 0``): only the last one's counts. The recorded runs' way of
    computing is kept unless a stage or ``overrides`` says otherwise: ``--precision float32`` and ``--sparse-forward
    0``."""
    out = Path(out)
    factor = minutes / recipe.minutes if minutes and recipe.minutes and minutes < recipe.minutes else 1.0
    keep = {s.name: s for s in recipe.stages}
    argvs = []
    for k, s in enumerate(recipe.stages):
        argv = with_option(s.args, "--out", str(out / s.name))
        if s.init:
            src, _, which = s.init.partition(":")
            argv = with_option(argv, "--init", str(out / keep[src].name / f"{which}.json"))
        if s.minutes and factor < 1.0:
            argv = with_option(argv, "--max-minutes", f"{s.minutes * factor:.4g}")
        if threads:
            argv = with_option(argv, "--threads", str(threads))
        if option(argv, "--precision") is None:  # the recorded runs computed in float32 (before --precision)
            argv = with_option(argv, "--precision", "float32")
        if option(argv, "--sparse-forward") is None:
            argv = with_option(argv, "--sparse-forward", "0")  # and read the dense forward (before its sparse form)
        for flag, value in (overrides or {}).items():
            argv = with_option(argv, flag, value)
        if k < len(recipe.stages) - 1:
            argv = with_option(argv, "--final-games", "0")
        argvs.append(argv)
    return argvs


def run(
    recipe: Recipe,
    out: str | Path,
    minutes: float = 0.0,
    threads: int | None = None,
    overrides: dict[str, str | None] | None = None,
    command: str | None = None,
) -> Path:
    """Run every stage, then write the last stage's final network as ``OUT/final.json`` (its card: the
    stages' commands and ``command``, the one that ran the recipe); returns its path."""
    from .fast_ppo import FINAL, parse_args
    from .fast_ppo import run as run_stage
    from .kits import kit_of

    kit = kit_of(recipe.game)

    out = Path(out)
    commands = []
    for s, argv in zip(recipe.stages, stage_argvs(recipe, out, minutes, threads, overrides), strict=True):
        command = " ".join([PROG, *map(shlex.quote, argv)])
        commands.append(command)
        print(f"[recipe {recipe.name}] stage {s.name}: {s.about}\n  {command}", file=sys.stderr, flush=True)
        run_stage(parse_args(argv, PROG), command)
    last = out / recipe.stages[-1].name / f"{FINAL}.json"
    card = json.loads(last.read_text())["card"]
    card.update(recipe=recipe.name, stages=commands, command=command or f"ohmygoods train --recipe {recipe.name}")
    one = recipe.players if isinstance(recipe.players, int) else None
    path = kit.save(kit.load(last), out / FINAL, card, one)
    print(f"[recipe {recipe.name}] {path} (ppo:{path})", file=sys.stderr, flush=True)
    return path


__all__ = ["KEEP", "PROG", "Recipe", "RecipeError", "Stage", "load", "names", "option", "parse", "run", "stage_argvs"]
