"""Which rows one ``ohmygoods bench`` run measures, in which order, at which batch sizes."""

from __future__ import annotations

from ..framework.game import game_names, game_tools
from . import anchors, engine, forward, marl
from .table import Row

__all__ = ["SIZES", "fill_games", "suite"]

#: batch sizes of the ``BatchGames.step`` rows by default
SIZES = (1, 16, 256, 1024, 4096, 16384)


def suite(sizes: tuple[int, ...] = SIZES, seconds: float = 2.0, with_anchors: bool = True) -> list[Row]:
    """Our rows (one ``BatchGames.step`` row per size, then the other modes, front ends and envs, then each
    game's own rows, ``GameTools.bench_rows``: *Artificium*'s engine, then every registered game's forward
    model), then the anchors."""
    big, mid, small = max(sizes), min(max(sizes), 1024), min(max(sizes), 256)
    rows = [engine.bench_batch(size, seconds) for size in sizes]
    rows.append(engine.bench_batch(big, seconds, mode="play_random"))
    rows.append(engine.bench_batch(small, seconds, mode="whole_games"))
    rows.append(engine.bench_batch(mid, seconds, mode="observe"))
    rows.append(engine.bench_batch(mid, seconds, mode="observe_seats"))
    rows.extend(marl.table_rows(mid, seconds))
    rows.append(engine.bench_vecenv(small, seconds))
    rows.append(engine.bench_game(seconds))
    rows.append(engine.bench_gym(seconds))
    rows.append(engine.bench_aec(seconds))
    for name in game_names():  # each game's own rows, as its tools name them (Artificium's compiled engine)
        own = game_tools(name).load("bench_rows")
        if own is not None:
            rows.extend(own(seconds))
    rows.extend(forward.forward_rows(seconds))  # every registered game's forward model, the generic row
    if with_anchors:
        rows += [anchors.bench_pgx(seconds), anchors.bench_openspiel(seconds), anchors.bench_pz_connect_four(seconds)]
    return rows


def fill_games(rows: list[Row], decisions_per_game: float) -> list[Row]:
    """Our rows' games/s: decisions/s over the mean decisions of a random game (a window can be shorter than a game).
    The rows of Oh my Goods!'s batch engine and envs are those named ``ohmygoods ...`` (the name prefix of
    :mod:`.engine` and :mod:`.marl`); every other game's rows count their games themselves."""
    for r in rows:
        if r.name.startswith("ohmygoods") and r.decisions:
            r.games = r.decisions / decisions_per_game
    return rows
