"""Information-set MCTS over the framework's game interface: one search for every registered game.

The agent plays any :class:`~ohmygoods_env.framework.game.ForwardModel` through the agent
protocol ``act(observation, mask, info_state)``, where ``info_state`` is the seat's
:class:`~ohmygoods_env.framework.game.InformationSet` (the front ends of
:mod:`ohmygoods_env.framework.envs` pass it to agents with ``needs_info_state``). It never
sees the true state:

1. **Determinize.** Every iteration samples a world with ``info_state.determinize(seed)``:
   hidden cards re-dealt and other seats' undisclosed choices re-drawn by the game, so the
   world agrees with everything the seat has seen and with nothing else.
2. **Select.** One tree shared by all worlds, keyed by the joint actions from the root
   (single-observer IS-MCTS). At a node every *pending* seat of the world chooses from its
   **own** statistics at that node (decoupled UCT): UCT with availability counts,
   ``w/n + c * sqrt(ln(available) / n)``, over the actions legal for that seat in this
   world, untried ones first. The chosen actions are applied together with ``step_joint``.
3. **Expand, roll out.** The first joint action that leaves the tree adds one node; the
   world is then played to the end with uniformly random legal actions.
4. **Back up.** Each seat's value (the ``win`` reward mapped to [0, 1]) is added to the
   statistics of the action that seat chose at each node of the path.

Simultaneous moves are handled soundly: during a simultaneous choice a seat's action is
selected from its own statistics only, never conditioned on what another pending seat
chose in the same step (those choices are made independently, by their own statistics in
the same world, and applied together). At the root the searching seat's choice is searched
in its own information set; the other pending seats' choices are sampled by their own
bandits, and choices they already made face down in the real game are re-drawn by
``determinize``, never read. The root action with the most visits is played.

Budget: ``iterations`` worlds per decision (default 200) and/or ``seconds`` of wall time,
whichever ends first. With an iteration budget the agent is deterministic for a given seed.
Importing this module registers ``ismcts`` (``ismcts:N`` for ``N`` iterations) for every
game in the registry of :mod:`ohmygoods_env.framework.agents`; the entry point group
``ohmygoods.game_agents`` (``pyproject.toml``) lets that registry find it without the import.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ohmygoods_env.checks import optional_seed
from ohmygoods_env.framework.agents import register_agent
from ohmygoods_env.framework.game import ForwardModel

__all__ = ["ISMCTSAgent"]


class _Node:
    """Per-seat statistics (visits, value, availability per action) and children by joint action."""

    __slots__ = ("children", "stats")

    def __init__(self) -> None:
        self.children: dict[tuple[tuple[int, int], ...], _Node] = {}
        self.stats: dict[int, np.ndarray] = {}  # seat -> float64[3, num_actions]: n, w, avail

    def seat_stats(self, seat: int, num_actions: int) -> np.ndarray:
        s = self.stats.get(seat)
        if s is None:
            s = self.stats[seat] = np.zeros((3, num_actions), np.float64)
        return s


class ISMCTSAgent:
    """Determinized single-observer IS-MCTS with decoupled UCT at simultaneous choices (module docstring)."""

    name = "ismcts"
    needs_info_state = True
    needs_observation = False

    def __init__(
        self,
        iterations: int = 200,
        seconds: float | None = None,
        c: float = 0.7,
        seed: int | None = None,
    ) -> None:
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"iterations must be an int >= 1, got {iterations!r}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise ValueError(f"seconds must be None or a number > 0, got {seconds!r}")
        self.iterations, self.seconds, self.c = iterations, seconds, float(c)
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart the agent's random stream (``None``: fresh entropy)."""
        self._rng = np.random.default_rng(optional_seed(seed))

    # ------------------------------------------------------------------ protocol
    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        if info_state is None or not callable(getattr(info_state, "determinize", None)):
            raise ValueError(
                "the ismcts agent searches from the seat's information set: pass "
                "info_state=ohmygoods_env.framework.game.InformationSet(model, seat) "
                "(the framework's front ends and framework.agents.choose do)"
            )
        legal = np.flatnonzero(np.asarray(mask))
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over, or not this seat's turn?)")
        if legal.size == 1:
            return int(legal[0])
        return self.search(info_state, legal)

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return self.act(observation, mask, info_state)

    # ------------------------------------------------------------------ search
    def search(self, info_state: Any, legal: np.ndarray) -> int:
        """The most visited root action of seat ``info_state.player`` among ``legal``."""
        me = int(info_state.player)
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        for _ in range(self.iterations):
            world = info_state.determinize(int(self._rng.integers(0, 2**63 - 1)))
            if me not in world.pending_players():
                raise RuntimeError(f"a determinized world does not wait for player {me}: determinize is off")
            self._iterate(root, world)
            if deadline is not None and time.perf_counter() > deadline:
                break
        visits = root.stats[me][0]
        return int(legal[np.argmax(visits[legal])])

    def _iterate(self, root: _Node, world: ForwardModel) -> None:
        path: list[tuple[_Node, dict[int, int]]] = []
        node: _Node | None = root
        while node is not None and not world.done:
            joint = {q: self._select(node, world, q) for q in world.pending_players()}
            path.append((node, joint))
            world.step_joint(joint)
            key = tuple(sorted(joint.items()))
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                node = None  # expanded: roll out from here
            else:
                node = child
        self._rollout(world)
        value = (np.asarray(world.rewards("win"), np.float64) + 1.0) / 2.0
        for nd, joint in path:
            for q, a in joint.items():
                s = nd.stats[q]
                s[0, a] += 1.0
                s[1, a] += value[q]

    def _select(self, node: _Node, world: ForwardModel, seat: int) -> int:
        legal = np.flatnonzero(world.legal_mask(seat))
        s = node.seat_stats(seat, world.num_actions)
        s[2, legal] += 1.0
        n = s[0, legal]
        untried = legal[n == 0]
        if untried.size:
            return int(untried[self._rng.integers(untried.size)])
        ucb = s[1, legal] / n + self.c * np.sqrt(np.log(s[2, legal]) / n)
        return int(legal[np.argmax(ucb)])

    def _rollout(self, world: ForwardModel) -> None:
        rng = self._rng
        while not world.done:
            joint = {}
            for q in world.pending_players():
                legal = np.flatnonzero(world.legal_mask(q))
                joint[q] = int(legal[rng.integers(legal.size)])
            world.step_joint(joint)


def ismcts(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> ISMCTSAgent:
    """``ismcts`` (200 iterations) or ``ismcts:N`` (``N`` iterations): the registry's factory."""
    if arg is not None:
        try:
            kwargs["iterations"] = int(arg)
        except ValueError:
            raise ValueError(f"ismcts:N takes a number of iterations, got ismcts:{arg}") from None
    return ISMCTSAgent(seed=seed, **kwargs)


register_agent("*", "ismcts", ismcts, "information-set MCTS over any game (ismcts:N: N iterations)")
