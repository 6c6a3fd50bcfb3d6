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

**The Gumbel root** (``root="gumbel"``; ``ismcts:gumbel:N``): the root of the searching seat
follows Gumbel AlphaZero (Danihelka et al., *Policy improvement by planning with Gumbel*,
ICLR 2022) instead of UCT, the worlds still drawn by ``determinize``:

* an **evaluator** gives priors and values: ``evaluator(world) -> (logits, values)`` with
  ``logits`` ``{seat: float[num_actions]}`` for the world's pending seats and ``values``
  ``float[num_players]`` in [0, 1] (expected win share). Without one, every prior is uniform
  and a value is one uniformly random roll-out (:meth:`ISMCTSAgent.rollout_evaluate`); a game
  with a network passes its own (*Oh my Goods!*: :mod:`ohmygoods_agents.gumbel`). The root is
  evaluated once, in a world of its own; every world that leaves the tree is evaluated once;
* **Gumbel-top-k**: ``k = min(considered, legal actions)`` root actions sampled without
  replacement, the ``k`` largest ``g(a) + logits(a)`` with ``g`` standard Gumbel noise
  (times ``gumbel_scale``; 0 takes the ``k`` likeliest);
* **Sequential Halving** over exactly ``iterations`` simulations: ``ceil(log2 k)`` phases,
  each remaining action visited ``max(1, floor(n / (phases * remaining)))`` times, then the
  better half kept by ``g + logits + sigma(completed Q)``; the phase that starts with two
  actions (or one) spends what is left. A budget smaller than ``k`` visits the candidates in
  order and the final choice is made among all ``k``;
* **completed Q**: a visited action's mean value for the seat, an unvisited one's the mixed
  value ``(v + N / sum_visited pi * sum_visited pi(b) q(b)) / (1 + N)`` (``v`` the evaluator's
  value of the node, ``pi`` the prior, ``N`` the node's visits), min-max rescaled over the
  legal actions (``rescale``), then ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``;
* the action played is the remaining one with the largest ``g + logits + sigma(completed Q)``;
  the **improved policy** ``softmax(logits + sigma(completed Q))`` over the legal actions, the
  root's value and the statistics are kept in :attr:`ISMCTSAgent.last_search`
  (:class:`GumbelSearch`), the training target of :mod:`ohmygoods_training.gumbel`;
* below the root every pending seat picks ``argmax(pi'(a) - N(a) / (1 + sum N))`` with
  ``pi'`` that node's improved policy for the seat (the deterministic rule of Gumbel MuZero),
  from its own statistics (decoupled at simultaneous choices, as with UCT).

Nothing in the search reads the true state: the target of two games that differ only in what
the seat cannot see is the same for the same seed (``tests/agents/test_gumbel.py``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ohmygoods_env.framework.agents import register_agent
from ohmygoods_env.framework.checks import optional_seed
from ohmygoods_env.framework.game import ForwardModel

__all__ = ["GumbelSearch", "ISMCTSAgent", "completed_q", "halving_visits"]

#: ``evaluator(world) -> ({seat: logits float[num_actions]} of the pending seats, values float[num_players] in [0, 1])``
Evaluator = Callable[[ForwardModel], tuple[Mapping[int, np.ndarray], np.ndarray]]
ROOTS: tuple[str, ...] = ("uct", "gumbel")


class _Node:
    """Per-seat statistics (visits, value, availability per action) and children by joint action."""

    __slots__ = ("children", "logits", "stats", "value")

    def __init__(self) -> None:
        self.children: dict[tuple[tuple[int, int], ...], _Node] = {}
        self.stats: dict[int, np.ndarray] = {}  # seat -> float64[3, num_actions]: n, w, avail
        self.logits: Mapping[int, np.ndarray] = {}  # gumbel: the evaluator's priors per pending seat
        self.value: np.ndarray | None = None  # gumbel: the evaluator's values per seat

    def seat_stats(self, seat: int, num_actions: int) -> np.ndarray:
        s = self.stats.get(seat)
        if s is None:
            s = self.stats[seat] = np.zeros((3, num_actions), np.float64)
        return s


def completed_q(
    n: np.ndarray, w: np.ndarray, logits: np.ndarray, value: float, rescale: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``(completed Q, prior)`` of one seat's actions at one node (arrays over those actions).

    ``n`` visits, ``w`` summed values, ``logits`` the evaluator's logits of the same actions and
    ``value`` its value of the node for the seat. A visited action's Q is ``w / n``; an
    unvisited one's the mixed value of Danihelka et al. (appendix D):
    ``(value + N / sum_visited prior * sum_visited prior * q) / (1 + N)``. With ``rescale`` the
    result is min-max scaled to [0, 1] (all 0 when the values are equal).
    """
    z = logits - logits.max()
    prior = np.exp(z)
    prior /= prior.sum()
    seen = n > 0
    total = float(n.sum())
    q = np.zeros_like(prior)
    q[seen] = w[seen] / n[seen]
    if seen.any():
        mass = float(prior[seen].sum())
        mixed = (value + total * float((prior[seen] * q[seen]).sum()) / max(mass, 1e-12)) / (1.0 + total)
    else:
        mixed = float(value)
    q[~seen] = mixed
    if rescale:
        lo, hi = float(q.min()), float(q.max())
        q = (q - lo) / (hi - lo) if hi - lo > 1e-12 else np.zeros_like(q)
    return q, prior


def halving_visits(budget: int, k: int) -> list[int]:
    """Visits per remaining action in each Sequential Halving phase for ``budget`` simulations and ``k``
    candidates: ``max(1, budget // (phases * remaining))`` per phase, ``phases = ceil(log2 k)``; the phase
    with at most two actions left gets the rest (rounded up: the search stops at ``budget`` exactly)."""
    phases = max(1, math.ceil(math.log2(k))) if k > 1 else 1
    out, left, rem = [], budget, k
    while left > 0:
        per = math.ceil(left / rem) if rem <= 2 else max(1, budget // (phases * rem))
        out.append(per)
        left -= per * rem
        rem = max(1, math.ceil(rem / 2))
    return out


@dataclass
class GumbelSearch:
    """What one Gumbel search found for its seat (:attr:`ISMCTSAgent.last_search`); arrays over all actions."""

    action: int
    policy: np.ndarray  # improved policy softmax(logits + sigma(completed Q)), 0 on illegal actions
    prior: np.ndarray  # softmax of the root logits over the legal actions
    q: np.ndarray  # completed Q (not rescaled), 0 on illegal actions
    visits: np.ndarray  # root visits of the seat's actions
    considered: np.ndarray  # the k actions sampled by Gumbel-top-k, best first
    value: float  # the root's value for the seat: (v + sum N q) / (1 + sum N)
    simulations: int


class ISMCTSAgent:
    """Determinized single-observer IS-MCTS with decoupled UCT at simultaneous choices (module docstring);
    ``root="gumbel"``: the Gumbel root with Sequential Halving (module docstring)."""

    name = "ismcts"
    needs_info_state = True
    needs_observation = False

    def __init__(
        self,
        iterations: int = 200,
        seconds: float | None = None,
        c: float = 0.7,
        seed: int | None = None,
        *,
        root: str = "uct",
        evaluator: Evaluator | None = None,
        considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 1.0,
        gumbel_scale: float = 1.0,
        rescale: bool = False,
    ) -> None:
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"iterations must be an int >= 1, got {iterations!r}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise ValueError(f"seconds must be None or a number > 0, got {seconds!r}")
        if root not in ROOTS:
            raise ValueError(f"root must be one of {list(ROOTS)}, got {root!r}")
        if evaluator is not None and root != "gumbel":
            raise ValueError("an evaluator is read by the Gumbel root only: pass root='gumbel' with it")
        if evaluator is not None and not callable(evaluator):
            raise TypeError(f"evaluator must be callable world -> (logits, values), got {type(evaluator).__name__}")
        if isinstance(considered, bool) or not isinstance(considered, int) or considered < 1:
            raise ValueError(f"considered must be an int >= 1 (root actions sampled), got {considered!r}")
        for what, v in (("c_visit", c_visit), ("c_scale", c_scale), ("gumbel_scale", gumbel_scale)):
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and math.isfinite(v)):
                raise ValueError(f"{what} must be a finite number >= 0, got {v!r}")
        self.iterations, self.seconds, self.c = iterations, seconds, float(c)
        self.root, self.evaluator, self.considered = root, evaluator, considered
        self.c_visit, self.c_scale, self.gumbel_scale = float(c_visit), float(c_scale), float(gumbel_scale)
        self.rescale = bool(rescale)
        self.last_search: GumbelSearch | None = None
        if root == "gumbel":
            self.name = "ismcts:gumbel"
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
        if legal.size == 1 and self.root == "uct":
            return int(legal[0])
        return self.search(info_state, legal)

    def __call__(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        return self.act(observation, mask, info_state)

    # ------------------------------------------------------------------ search
    def search(self, info_state: Any, legal: np.ndarray) -> int:
        """The root action chosen for seat ``info_state.player`` among ``legal``: the most visited (UCT),
        or the Gumbel root's choice (``root="gumbel"``, which also fills :attr:`last_search`)."""
        if self.root == "gumbel":
            return self._gumbel_search(info_state, np.asarray(legal, np.int64))
        me = int(info_state.player)
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        for _ in range(self.iterations):
            world = self._world(info_state, me)
            self._iterate(root, world)
            if deadline is not None and time.perf_counter() > deadline:
                break
        visits = root.stats[me][0]
        return int(legal[np.argmax(visits[legal])])

    def _world(self, info_state: Any, me: int) -> ForwardModel:
        world = info_state.determinize(int(self._rng.integers(0, 2**63 - 1)))
        if me not in world.pending_players():
            raise RuntimeError(f"a determinized world does not wait for player {me}: determinize is off")
        return world

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
        self._backup(path, value)

    @staticmethod
    def _backup(path: list[tuple[_Node, dict[int, int]]], value: np.ndarray) -> None:
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

    # ------------------------------------------------------------------ the Gumbel root
    def rollout_evaluate(self, world: ForwardModel) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """The evaluator without a network: uniform priors, values of one random roll-out of a copy."""
        logits = {q: np.zeros(world.num_actions, np.float64) for q in world.pending_players()}
        end = world.clone()
        self._rollout(end)
        return logits, (np.asarray(end.rewards("win"), np.float64) + 1.0) / 2.0

    def _evaluate(self, world: ForwardModel) -> tuple[Mapping[int, np.ndarray], np.ndarray]:
        if self.evaluator is None:
            return self.rollout_evaluate(world)
        logits, values = self.evaluator(world)
        values = np.asarray(values, np.float64)
        if values.shape != (world.num_players,):
            raise ValueError(f"the evaluator gave values of shape {values.shape}, expected ({world.num_players},)")
        return logits, values

    def _sigma(self, q: np.ndarray, n: np.ndarray) -> np.ndarray:
        return (self.c_visit + float(n.max(initial=0.0))) * self.c_scale * q

    def _improved(self, node: _Node, seat: int, legal: np.ndarray, num_actions: int) -> tuple[np.ndarray, ...]:
        """``(logits, sigma(completed Q), completed Q unscaled, prior)`` of ``seat``'s ``legal`` actions at ``node``."""
        s = node.seat_stats(seat, num_actions)
        z = node.logits.get(seat)
        logits = np.zeros(legal.size) if z is None else np.asarray(z, np.float64)[legal]
        value = 0.5 if node.value is None else float(node.value[seat])
        n, w = s[0, legal], s[1, legal]
        q, prior = completed_q(n, w, logits, value, self.rescale)
        raw = q if not self.rescale else completed_q(n, w, logits, value, False)[0]
        return logits, self._sigma(q, n), raw, prior

    def _select_gumbel(self, node: _Node, world: ForwardModel, seat: int) -> int:
        """Below the root: ``argmax(pi'(a) - N(a) / (1 + sum N))`` over the seat's legal actions in ``world``."""
        legal = np.flatnonzero(world.legal_mask(seat))
        if legal.size == 1:
            node.seat_stats(seat, world.num_actions)
            return int(legal[0])
        logits, sig, _, _ = self._improved(node, seat, legal, world.num_actions)
        x = logits + sig
        pi = np.exp(x - x.max())
        pi /= pi.sum()
        n = node.stats[seat][0, legal]
        return int(legal[np.argmax(pi - n / (1.0 + n.sum()))])

    def _simulate(self, root: _Node, info_state: Any, me: int, action: int) -> None:
        """One world: ``me`` plays ``action`` at the root, the tree's rule below, one evaluation (or the end)."""
        world = self._world(info_state, me)
        path: list[tuple[_Node, dict[int, int]]] = []
        node: _Node | None = root
        leaf: _Node | None = None
        while node is not None and not world.done:
            joint = {q: action if node is root and q == me else self._select_gumbel(node, world, q)
                     for q in world.pending_players()}  # fmt: skip
            path.append((node, joint))
            world.step_joint(joint)
            key = tuple(sorted(joint.items()))
            child = node.children.get(key)
            if child is None:
                leaf = node.children[key] = _Node()
                node = None
            else:
                node = child
        if world.done:
            value = (np.asarray(world.rewards("win"), np.float64) + 1.0) / 2.0
        else:
            leaf.logits, value = self._evaluate(world)  # type: ignore[union-attr]
            leaf.value = value  # type: ignore[union-attr]
        self._backup(path, value)

    def _gumbel_search(self, info_state: Any, legal: np.ndarray) -> int:
        me = int(info_state.player)
        num_actions = int(info_state.num_actions)
        root = _Node()
        root.logits, root.value = self._evaluate(self._world(info_state, me))
        root.seat_stats(me, num_actions)
        z = root.logits.get(me)
        logits = np.zeros(legal.size) if z is None else np.asarray(z, np.float64)[legal]
        g = self._rng.gumbel(size=legal.size) * self.gumbel_scale
        k = min(self.considered, legal.size)
        order = np.argsort(-(g + logits), kind="stable")[:k]  # indices into legal, best first
        remaining = list(order)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done, budget = 0, self.iterations
        for per in halving_visits(budget, k) if legal.size > 1 else []:
            for _ in range(per):
                for i in remaining:
                    if done >= budget or (deadline is not None and done and time.perf_counter() > deadline):
                        break
                    self._simulate(root, info_state, me, int(legal[i]))
                    done += 1
            if done >= budget or (deadline is not None and time.perf_counter() > deadline) or len(remaining) == 1:
                break
            _, sig, _, _ = self._improved(root, me, legal, num_actions)
            remaining.sort(key=lambda i: -(g[i] + logits[i] + sig[i]))
            remaining = remaining[: max(1, math.ceil(len(remaining) / 2))]
        _, sig, raw, prior = self._improved(root, me, legal, num_actions)
        best = int(legal[max(remaining, key=lambda i: (g[i] + logits[i] + sig[i], -i))])
        x = logits + sig
        pi = np.exp(x - x.max())
        pi /= pi.sum()
        n, w = root.stats[me][0], root.stats[me][1]
        self.last_search = GumbelSearch(
            action=best,
            policy=_full(pi, legal, num_actions),
            prior=_full(prior, legal, num_actions),
            q=_full(raw, legal, num_actions),
            visits=n.copy(),
            considered=legal[order].copy(),
            value=float((float(root.value[me]) + float(w.sum())) / (1.0 + float(n.sum()))),
            simulations=done,
        )
        return best


def _full(x: np.ndarray, legal: np.ndarray, num_actions: int) -> np.ndarray:
    out = np.zeros(num_actions, np.float64)
    out[legal] = x
    return out


def ismcts(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> ISMCTSAgent:
    """``ismcts`` (200 iterations), ``ismcts:N`` (``N`` iterations), ``ismcts:gumbel`` / ``ismcts:gumbel:N``
    (the Gumbel root, roll-out values, ``N`` simulations): the registry's factory."""
    if arg is not None:
        head, _, tail = arg.partition(":")
        if head == "gumbel":
            kwargs["root"] = "gumbel"
            arg = tail or None
        if arg is not None:
            try:
                kwargs["iterations"] = int(arg)
            except ValueError:
                raise ValueError(
                    f"ismcts takes a number of iterations or gumbel[:N] (ismcts:N, ismcts:gumbel:N), got ismcts:{arg}"
                ) from None
    return ISMCTSAgent(seed=seed, **kwargs)


register_agent(
    "*", "ismcts", ismcts, "information-set MCTS over any game (ismcts:N: N iterations; ismcts:gumbel:N: Gumbel root)"
)
