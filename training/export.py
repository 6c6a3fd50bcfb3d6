"""Ship a checkpoint: a small copy of a MaskablePPO zip plus a JSON card describing it.

``python -m training.export RUN_DIR/best.zip agents/checkpoints/ppo_2p.zip --eval EVAL_DIR/results.json``

The copy drops the optimizer moments (:func:`training.train_ppo.export_checkpoint`); it loads
with ``MaskablePPO.load`` and as the agent ``ppo:PATH``. The JSON next to it (same name,
``.json``) holds the training command, steps and wall time from the run's ``run.json`` and the
evaluation results given with ``--eval``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .train_ppo import export_checkpoint


def ship(src: str | Path, dst: str | Path, eval_json: str | Path | None = None, note: str = "") -> Path:
    """Write ``dst`` (small zip) and ``dst.json``; returns the JSON path."""
    src, dst = Path(src), Path(dst)
    export_checkpoint(src, dst)
    card: dict[str, Any] = {"checkpoint": dst.name, "source": str(src), "size_bytes": dst.stat().st_size}
    for run_json in (src.parent / "run.json", src.parent.parent / "run.json"):
        if run_json.exists():
            run = json.loads(run_json.read_text())
            card["training"] = {
                "command": "python -m training.train_ppo " + " ".join(run.get("argv", [])),
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
    out = dst.with_suffix(".json")
    out.write_text(json.dumps(card, indent=2))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.split("\n")[0])
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--eval", default=None, help="results.json of training.evaluate")
    p.add_argument("--note", default="")
    args = p.parse_args(argv)
    out = ship(args.src, args.dst, args.eval, args.note)
    print(f"wrote {args.dst} ({Path(args.dst).stat().st_size} bytes) and {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
