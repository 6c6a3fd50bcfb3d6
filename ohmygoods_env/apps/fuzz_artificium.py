"""``ohmygoods fuzz --game artificium``: random games of *Artificium* with every invariant checked.

Named by *Artificium*'s tools (``GameTools.commands``); it gets the command's arguments without
``--game``. The games are played by the compiled loop of :mod:`ohmygoods_env.artificium.fuzz`
(a uniformly random legal action, a random pending seat during the face-down choice), which
checks the invariants of A9.8 after every step, that an illegal action is refused with the state
unchanged, and that the game ends after round 4: ``--chunk`` games at a time, one player count
of ``--players`` after another, until ``--steps`` decisions are played. The exit status is 1 when
a game broke an invariant (the failing game's call is printed, so it can be played again).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from ..artificium import layout as L
from .common import comma_ints, int_at_least, parser, seed_arg

__all__ = ["main"]


def _parser():
    counts = tuple(range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1))
    ap = parser("ohmygoods fuzz --game artificium", "Random games of Artificium with the invariant checks (A9.8).")
    ap.add_argument("--steps", type=int_at_least(1), default=1_000_000, help="decisions to play in total (at least)")
    ap.add_argument(
        "--players", type=comma_ints(counts), default=",".join(map(str, counts)), help="player counts, in turn"
    )
    ap.add_argument("--seed", type=seed_arg, default=0, help="seed of the games and of the random play")
    ap.add_argument("--chunk", type=int_at_least(1), default=16, help="games played per compiled call")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``ohmygoods fuzz --game artificium``; returns 1 on a broken invariant."""
    from ..artificium.fuzz import run_fuzz

    args = _parser().parse_args(None if argv is None else list(argv))
    print("compiling the fuzz kernel (cached after the first run)...", file=sys.stderr)
    run_fuzz(1, args.players[0], args.seed)
    steps = games = k = 0
    t0 = time.perf_counter()
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
