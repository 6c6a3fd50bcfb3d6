"""Ship and convert policy checkpoints in the safe format (:mod:`ohmygoods_agents.checkpoint`).

=====================================================  ==============================================
command                                                what it does
=====================================================  ==============================================
``python -m ohmygoods_training.export sb3 ZIP OUT.json``         the actor of a MaskablePPO zip as a checkpoint
                                                       (``OUT.json`` + ``OUT.safetensors``); nothing
                                                       in the zip is unpickled. ``--eval`` adds a
                                                       ``ohmygoods_training.evaluate`` results.json, ``--name``
                                                       a short name (shipped agents), ``--layout-of``
                                                       the layout of another checkpoint (a zip
                                                       trained on an older layout)
``python -m ohmygoods_training.export convert IN.json OUT.json``  map a checkpoint to this engine's layout by
                                                       block / action-range name, then check that it
                                                       acts like ``IN`` (``--positions``, 0: skip)
``python -m ohmygoods_training.export verify IN.json OUT.json``  that check alone
=====================================================  ==============================================

``IN`` and ``OUT`` may be the same file: the original is copied aside first, and ``OUT`` is
written only when the check passes. The shipped 2-player agent after a layout
change: ``python -m ohmygoods_training.export convert agents/checkpoints/ppo_2p.json
agents/checkpoints/ppo_2p.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ohmygoods_agents.checkpoint import CheckpointError, read_checkpoint, read_description

from .convert import convert_checkpoint, export_sb3, verify_conversion


def ship(
    src: str | Path,
    dst: str | Path,
    eval_json: str | Path | None = None,
    note: str = "",
    name: str | None = None,
    layout: dict[str, Any] | None = None,
    players: int | None = None,
) -> Path:
    """Export the MaskablePPO zip ``src`` as the checkpoint ``dst`` with a card (and ``players``, the
    player count it was trained for, when given); returns the JSON path."""
    src = Path(src)
    card: dict[str, Any] = {}
    for run_json in (src.parent / "run.json", src.parent.parent / "run.json"):
        if run_json.exists():
            run = json.loads(run_json.read_text())
            card["training"] = {
                "command": "python -m ohmygoods_training.train_ppo " + " ".join(run.get("argv", [])),
                "timesteps_total_run": run.get("timesteps"),
                "wall_s_total_run": run.get("wall_s"),
                "warm_start": run.get("warm_start"),
            }
            break
    if src.stem.startswith("step_"):
        card["timesteps"] = int(src.stem[5:])
    if eval_json is not None:
        card["evaluation"] = json.loads(Path(eval_json).read_text())
    if note:
        card["note"] = note
    fields: dict[str, Any] = {"card": card}
    if players is not None:
        fields["players"] = players
    if name:
        fields["name"] = name
    return export_sb3(src, dst, layout=layout, **fields)


def convert(src: str | Path, dst: str | Path, positions: int = 300, seed: int = 0) -> dict[str, Any]:
    """Convert ``src`` to the engine's layout as ``dst`` and check it on ``positions`` positions."""
    with tempfile.TemporaryDirectory() as tmp:
        s = Path(src).with_suffix(".json")
        desc = read_description(s)
        keep = Path(tmp) / s.name
        shutil.copy(s, keep)
        if isinstance(desc, dict) and isinstance(desc.get("weights"), str):
            shutil.copy(s.parent / Path(desc["weights"]).name, Path(tmp) / Path(desc["weights"]).name)
        staged = Path(tmp) / "staged" / Path(dst).with_suffix(".json").name
        staged.parent.mkdir()
        out, notes = convert_checkpoint(keep, staged)
        check = verify_conversion(keep, out, positions=positions, seed=seed) if positions > 0 else None
        if check is not None and (check["positions"] == 0 or check["agree"] != check["positions"]):
            return {"out": None, "notes": notes, "check": check}
        final = Path(dst).with_suffix(".json")
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(out.with_suffix(".safetensors"), final.with_suffix(".safetensors"))
        shutil.copy(out, final)
    return {"out": str(final), "notes": notes, "check": check}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ohmygoods_training.export", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("sb3", help="a MaskablePPO zip as a safe checkpoint (nothing is unpickled)")
    a.add_argument("src")
    a.add_argument("dst")
    a.add_argument("--eval", default=None, help="results.json of ohmygoods_training.evaluate")
    a.add_argument("--note", default="")
    a.add_argument("--name", default=None, help="short agent name (shipped agents: ppo, ppo-3p, ...)")
    a.add_argument("--layout-of", default=None, help="take the layout from this checkpoint (zip of an older layout)")
    c = sub.add_parser("convert", help="map a checkpoint to this engine's layout, then check it")
    c.add_argument("src")
    c.add_argument("dst")
    c.add_argument("--positions", type=int, default=300, help="positions compared after converting (0: none)")
    c.add_argument("--seed", type=int, default=0)
    v = sub.add_parser("verify", help="compare the actions of ORIGINAL and CONVERTED")
    v.add_argument("original")
    v.add_argument("converted")
    v.add_argument("--positions", type=int, default=300)
    v.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for n in ("positions",):
        if getattr(args, n, 0) < 0:
            p.error(f"--{n} must be >= 0")
    try:
        if args.command == "sb3":
            layout = read_checkpoint(args.layout_of)[1]["layout"] if args.layout_of else None
            out = ship(args.src, args.dst, args.eval, args.note, args.name, layout)
            print(f"wrote {out} and {out.with_suffix('.safetensors')}")
            return 0
        if args.command == "convert":
            r = convert(args.src, args.dst, args.positions, args.seed)
            print(f"wrote {r['out']}" if r["out"] else f"not written: {args.dst} (the check failed)")
            for note in r["notes"] or ["layouts are the same: weights copied"]:
                print(f"  {note}")
            check = r["check"]
        else:
            check = verify_conversion(args.original, args.converted, args.positions, args.seed)
    except (CheckpointError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if check is not None:
        print(
            f"check: {check['agree']} of {check['positions']} positions choose the same action "
            f"({check['skipped']} positions skipped: the layout change touches them)"
        )
        if check["agree"] != check["positions"] or check["positions"] == 0:
            print("error: the converted policy does not act like the original", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
