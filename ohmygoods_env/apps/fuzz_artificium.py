"""*Artificium*'s implementations of ``ohmygoods demo``, ``fuzz`` and ``train`` (``--game artificium``).

Named by its :data:`~ohmygoods_env.artificium.game_tools.TOOLS` (``commands``); each takes the
command's arguments without ``--game`` and returns the exit status.

* ``demo``: the framework's demo (:mod:`ohmygoods_env.apps.game_demo`): its agents play one
  game, told move by move with :func:`~ohmygoods_env.artificium.render.render_text`;
* ``fuzz``: random games in the compiled loop of :mod:`.fuzz` with every invariant checked
  after each step (A9.8), until ``--steps`` decisions are played;
* ``train``: the framework's self-play loop (``ohmygoods_training.selfplay``) for this game.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from . import NAME

__all__ = ["demo", "fuzz", "train"]


def demo(argv: Sequence[str]) -> int:
    from ..apps.game_demo import main

    return main(argv, game=NAME)


def _fuzz_parser():
    from ..apps.common import comma_ints, int_at_least, parser, seed_arg
    from . import layout as L

    counts = tuple(range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1))
    ap = parser("ohmygoods fuzz --game artificium", "Random games of Artificium with the invariant checks (A9.8).")
    ap.add_argument("--steps", type=int_at_least(1), default=1_000_000, help="decisions to play in total (at least)")
    ap.add_argument(
        "--players", type=comma_ints(counts), default=",".join(map(str, counts)), help="player counts, in turn"
    )
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the games and of the random play")
    ap.add_argument("--chunk", type=int_at_least(1), default=16, help="games played per compiled call")
    return ap


def fuzz(argv: Sequence[str]) -> int:
    """Random games, ``--chunk`` at a time per player count in turn, until ``--steps`` decisions; status 1 on
    a broken invariant (the failing game's player count, seed and code printed)."""
    import time

    from .fuzz import run_fuzz

    args = _fuzz_parser().parse_args(list(argv))
    print("compiling the fuzz kernel (cached after the first run)...", file=sys.stderr)
    run_fuzz(1, args.players[0], args.seed)
    steps = games = 0
    t0 = time.perf_counter()
    k = 0
    while steps < args.steps:
        n = args.players[k % len(args.players)]
        base = (args.seed + k * args.chunk) % (1 << 62)
        rep = run_fuzz(args.chunk, n, base)
        steps, games = steps + rep.steps, games + rep.games
        if rep.code != 0:
            print(
                f"FAILED: code {rep.code} in game {rep.failing_game} of run_fuzz({args.chunk}, {n}, {base}) "
                f"after {games} games, {steps} steps"
            )
            return 1
        k += 1
    seconds = time.perf_counter() - t0
    print(
        f"artificium fuzz: {games} games, {steps} steps, players {','.join(map(str, args.players))}, "
        f"{seconds:.1f} s ({steps / max(seconds, 1e-9):,.0f} steps/s): no invariant broken"
    )
    return 0


def train(argv: Sequence[str]) -> int:
    try:
        from ohmygoods_training.selfplay import main
    except ImportError as exc:
        print(f"ohmygoods train --game {NAME}: needs the training extra ({exc}); pip install 'ohmygoods[train]'")
        return 2
    return main(["--game", NAME, *argv], prog=f"ohmygoods train --game {NAME}")
