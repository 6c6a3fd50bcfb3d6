"""Twin positions for the hidden-information tests of agents (importable from any test folder:
``tests/conftest.py`` puts ``tests/`` on ``sys.path``).

A twin pair ``(g, h, me)``: ``h`` is ``g`` with hidden cards of the player to move ``me`` swapped
(cards of different resources, so the swap changes what lies where) and another RNG word — the
same information state, another true state (the approach of ``tests/test_infostate.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ohmygoods_env import Game
from ohmygoods_env import layout as L
from ohmygoods_env.infostate import hidden_cards, swap_cards
from ohmygoods_env.policy import info_state_of, make_agent


def hidden_twins(
    n: int,
    seed: int,
    *,
    players: Sequence[int] = (2, 3, 4),
    rules: Sequence[str] = ("omg2", "royal"),
    game_seed: int = 500,
    max_moves: int = 200,
    tries: int = 200,
) -> Iterator[tuple[Game, Game, int]]:
    """Up to ``n`` twin pairs: game ``i`` of ``tries`` has ``players[i % len]`` seats, rules
    ``rules[i % len]`` and seed ``game_seed + i``, played by the heuristic for 5..``max_moves`` moves."""
    rng = np.random.default_rng(seed)
    heur = make_agent("heuristic", seed=0)
    made = 0
    for i in range(tries):
        g = Game(players[i % len(players)], rules[i % len(rules)], seed=game_seed + i)
        for _ in range(int(rng.integers(5, max_moves))):
            if g.done:
                break
            p = g.current_player
            g.step(heur.act(g.observe(p), g.legal_mask(), info_state_of(g.state, p)))
        if g.done or len(g.legal_actions()) < 2:
            continue
        me = g.current_player
        hidden = hidden_cards(g.state, me)
        res = g.cards.buildings[:, 2]
        pairs = [(a, b) for a in hidden for b in hidden if a < b and res[a] != res[b]]
        if len(pairs) < 3:
            continue
        h = g.clone()
        for k in rng.choice(len(pairs), 6, replace=False):
            swap_cards(h.state, *pairs[int(k)])
        h.state[L.F_RNG] ^= 0x3C3C3C3
        assert h.check_invariants() == 0
        assert not np.array_equal(g.state, h.state)
        yield g, h, me
        made += 1
        if made >= n:
            return
