"""The benchmarks: one timer, one row type, and every row ``ohmygoods bench`` prints.

==================  =============================================================================
module              what it owns
==================  =============================================================================
:mod:`.timer`       the one timer (:func:`~.timer.timed`, :class:`~.timer.Tally`): wall-clock and
                    CPU time, rates; every row below and the training rows are measured with it
:mod:`.table`       the row type :class:`~.table.Row` and the plain-text table
:mod:`.engine`      our rows: ``BatchGames`` (step, play_random, whole games, observe), the SB3
                    ``VecEnv``, the ``Game`` loop, the Gymnasium and PettingZoo AEC envs
:mod:`.marl`        the multi-agent rows: ``SeatVecEnv`` and ``BatchEnv`` next to step + observe
:mod:`.forward`     the generic row: any registered game's forward model in random play (games/s),
                    one row per game, so a game from its own folder gets one without code
:mod:`.anchors`     Pgx, OpenSpiel and PettingZoo classic (the optional ``bench`` extra)
:mod:`.suite`       which rows one run measures, in which order
:mod:`.targets`     the speed targets of docs/performance.md, judged on the rows of one run
:mod:`.machine`     the machine line and the cold/warm compile times
==================  =============================================================================

The training rows (``ohmygoods bench --train``) need torch and live in the training layer,
``ohmygoods_training.bench_train``, on the same timer. The command line
(``ohmygoods_env.apps.bench``) only turns its arguments into rows and prints the table.

The rows, and what one timed call does:

==========================================  ==================================================
row                                         what one timed iteration does
==========================================  ==================================================
``BatchGames.step``, B = 1 ... 16384        a numba kernel draws one random legal action per
                                            game from the masks (own xorshift64 words, not the
                                            games' RNG), ``step`` applies them (checked, forced
                                            moves auto-applied), finished games are reset
``BatchGames.play_random``                  the same, with the random choice made inside the
                                            step kernel (no checks, no Python per action)
``play_random, whole games``                each call plays every game of the batch to its end
                                            inside the kernel: a game's state stays in cache
                                            for its whole course (the engine's ceiling)
``BatchGames.step + observe()``             the ``step`` row plus every game's observation
``BatchGames.step + observe_seats()``       the ``step`` row plus every seat's observation and
                                            mask (the bytes ``SeatVecEnv`` returns)
``SeatVecEnv`` / ``BatchEnv``               the all-seats front ends (:mod:`.marl`)
``OhMyGoodsVecEnv`` (SB3)                   learner step with masked random actions, random
                                            opponents inside the batch, observations, resets
``Game`` loop                               Python loop over one game: ``legal_mask``, numpy
                                            random choice, ``step``
Gymnasium ``OhMyGoodsEnv``                  ``action_masks`` / ``step`` loop of the single-agent
                                            env; the random opponent moves inside ``step``
PettingZoo AEC (``envs.pettingzoo_env``)    ``agent_iter`` / ``last`` / ``step`` loop
``interface: GAME, random, 2p``             a whole game of that registered game through its forward
                                            model: ``spec.make``, ``legal_mask``, numpy random
                                            choice, ``step`` (:mod:`.forward`)
Pgx ``connect_four`` B=1024 (CPU)           ``jit(vmap(step))`` with random legal actions
OpenSpiel ``hearts``                        Python loop over ``pyspiel`` states
PettingZoo classic ``connect_four_v3``      ``agent_iter`` loop
==========================================  ==================================================

Counting: a *decision* is one applied action, forced moves (auto-applied, exactly one legal
action) included; an *agent step* is one action chosen by a caller. The anchors have no
forced moves, so both columns are equal there. Games/s counts finished games; for our rows,
whose timed window may be shorter than a game, it is decisions/s divided by the mean number
of decisions of a random 2-player game (measured first, over 1024 games played out).

``dec/CPU-s`` divides decisions by the CPU time this process used (all its threads): when
other work shares the machine, wall-clock rates fall and this column shows by how much.

Anchors that are not installed (``pip install -e ".[bench]"``: Pgx with jax, OpenSpiel, and
pygame-ce for PettingZoo's ``connect_four_v3``) are listed as skipped with the reason. The
compile line starts Python twice in a subprocess with an empty numba cache directory (cold:
everything compiles) and again with the filled one (warm), timing import, set-up and a first step.
"""

from __future__ import annotations

from .table import Row, format_table
from .timer import Rates, Tally, timed

__all__ = ["Rates", "Row", "Tally", "format_table", "timed"]
