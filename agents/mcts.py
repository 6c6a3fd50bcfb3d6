"""Determinized information-set MCTS over the engine's forward model.

One search runs from the acting player's information state (never the true state):

1. **Determinize.** Each simulation samples a full world consistent with the information
   state with :func:`ohmygoods_env.infostate.determinize` (hidden cards dealt at random, fresh
   chance, random hidden phase-II choices for opponents who already chose).
2. **Select / expand.** The tree is keyed by action sequences from the root (one tree shared
   by all worlds, single-observer ISMCTS). At every node only the actions legal *in the
   sampled world* compete, with UCT on availability counts:
   ``w/n + c * sqrt(ln(available) / n)`` for the player to move there. An untried legal
   action is expanded first — the light greedy policy's choice if untried, else a random one.
3. **Evaluate.** A numba rollout (:func:`ohmygoods_agents._kernels.simulate`) plays the world to the end
   with the light greedy policy for every seat (``eps`` random moves, its own RNG, never the
   game's RNG word) and scores it by R8.3: each seat's value is
   ``(1 - margin_weight) * win share + margin_weight * squashed score margin`` in [0, 1].
4. **Back up** each seat's value along the path; the root action with the most visits is played.

**Network + search** (``policy=``, ``make_agent("mcts:ppo")``): a trained policy's probabilities
``P(a)`` guide the root (one network call per decision) as a progressive bias on UCT,
``Q(a) + c * sqrt(ln N / n(a)) + c_puct * P(a) * sqrt(N) / (1 + n(a))``, after one simulation of
every root action (the likeliest first). The UCT term keeps exploring, so a confident network
cannot hide an action from the search (one rollout is too noisy a value to stop at); below the
root the search is unchanged.

Budget: ``sims`` simulations per decision (default 1000) and/or ``seconds`` of wall time
(whichever ends first). Payments (``D_PAY``) are not searched: they use the heuristic's
least-overpayment rule, which a search cannot improve on at these budgets. With a
simulation budget the agent is deterministic for a given seed and information state.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from ohmygoods_env import core
from ohmygoods_env import infostate as _infostate
from ohmygoods_env import layout as L
from ohmygoods_env.cards import CardSet, default_cards
from ohmygoods_env.framework import jit as _jit
from ohmygoods_env.infostate import determinize

from . import _kernels
from ._kernels import chain_tiers, greedy_action, simulate
from .base import Agent, require_info_state
from .heuristic import HeuristicAgent


@njit(cache=True)
def _step_and_mask(g, C, AS, a, mask):
    """Apply action a (and forced moves if the game auto-applies them); fill the next mask."""
    core.apply_action(g, C, AS, a)
    if g[L.F_AUTO] == 1:
        core.apply_forced(g, C, AS)
    return core.legal_mask(g, C, AS, mask)


class _Node:
    __slots__ = ("children", "n", "w", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.n: dict[int, int] = {}
        self.w: dict[int, float] = {}
        self.avail: dict[int, int] = {}


class MCTSAgent(Agent):
    """Determinized IS-MCTS with greedy rollouts (see module docstring)."""

    name = "mcts"
    needs_info_state = True
    needs_observation = False  # act reads the mask and the information state only

    def __init__(
        self,
        seed: int | None = None,
        sims: int | None = 1000,
        seconds: float | None = None,
        c_uct: float = 0.7,
        eps: float = 0.1,
        margin_weight: float = 0.3,
        cards: CardSet | None = None,
        policy: Agent | None = None,
        c_puct: float = 0.1,
    ) -> None:
        if sims is None and seconds is None:
            raise ValueError("MCTS needs a budget: sims and/or seconds")
        if sims is not None and int(sims) < 1:
            raise ValueError(f"sims must be >= 1, got {sims}")
        if seconds is not None and float(seconds) <= 0:
            raise ValueError(f"seconds must be > 0, got {seconds}")
        self.cards = cards if cards is not None else default_cards()
        self.sims = None if sims is None else int(sims)
        self.seconds = None if seconds is None else float(seconds)
        self.c_uct = float(c_uct)
        self.eps = float(eps)
        self.margin_weight = float(margin_weight)
        self.rng = np.random.default_rng(seed)
        self.tier = chain_tiers(self.cards.buildings)
        self._payer = HeuristicAgent(seed=seed, cards=self.cards)
        if policy is not None and not callable(getattr(policy, "logits", None)):
            raise TypeError(
                "policy must be a policy-network agent with logits() (e.g. make_agent('ppo')), "
                f"got {type(policy).__name__}"
            )
        if not c_puct > 0:
            raise ValueError(f"c_puct must be > 0, got {c_puct}")
        self.policy = policy
        self.c_puct = float(c_puct)
        if policy is not None:  # the network reads the observation (and its prior the information state)
            self.needs_observation = True
            self.name = f"mcts:{getattr(policy, 'name', 'policy')}"
        self.last_sims = 0
        self.last_visits: dict[int, int] = {}  # root visit counts of the last search

    def root_priors(self, observation: np.ndarray | None, mask: np.ndarray, info: np.ndarray) -> dict[int, float]:
        """The policy's probabilities of the legal actions (one network call)."""
        if observation is None:
            raise ValueError(f"the {self.name} agent needs the observation for its policy network, got None")
        logits = self.policy.logits(np.asarray(observation)[None, :], np.asarray(mask)[None, :], info[None, :])
        z = np.asarray(logits, np.float64)[0]
        legal = np.flatnonzero(mask)
        z = z[legal] - z[legal].max()
        p = np.exp(z)
        p /= p.sum()
        return {int(a): float(q) for a, q in zip(legal, p, strict=True)}

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        info = require_info_state(self.name, info_state)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action: the mask is all zero (is the game over?)")
        if legal.size == 1:
            return int(legal[0])
        if int(info[L.F_DEC]) == L.D_PAY:
            return self._payer.act(observation, mask, info)
        priors = None if self.policy is None else self.root_priors(observation, mask, info)
        return self.search(info, legal, priors)

    # ------------------------------------------------------------------ search
    def search(self, info: np.ndarray, root_legal: np.ndarray, priors: dict[int, float] | None = None) -> int:
        C, AS = self.cards.buildings, self.cards.assistants
        me = int(info[L.F_CUR])
        root = _Node()
        world = np.zeros(L.STATE_LEN, np.int32)
        wmask = np.zeros(L.N_ACTIONS, np.int8)
        values = np.zeros(L.MAX_PLAYERS, np.float64)
        word = np.zeros(1, np.int64)
        root_set = {int(a) for a in root_legal}
        c = self.c_uct
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        limit = self.sims if self.sims is not None else 1 << 30
        done = 0
        while done < limit:
            if deadline is not None and done % 16 == 0 and done > 0 and time.perf_counter() >= deadline:
                break
            seed_word = int(self.rng.integers(1, 1 << 31))
            word[0] = int(self.rng.integers(1, 1 << 32))
            determinize(info, C, me, seed_word, world)
            n_legal = core.legal_mask(world, C, AS, wmask)
            node = root
            path: list[tuple[_Node, int, int]] = []
            while world[L.F_DEC] != L.D_OVER:
                p = int(world[L.F_CUR])
                legal_w = np.flatnonzero(wmask)
                if node is root:
                    legal_w = np.array([a for a in legal_w if a in root_set], np.int64)
                    if priors is not None:  # the policy network biases the root (see the module docstring)
                        a = self._root_choice(root, legal_w, priors, done)
                        path.append((root, a, p))
                        if a not in root.n:
                            root.n[a], root.w[a] = 0, 0.0
                            root.children[a] = _Node()
                            n_legal = _step_and_mask(world, C, AS, a, wmask)
                            node = root.children[a]
                            break
                        n_legal = _step_and_mask(world, C, AS, a, wmask)
                        node = root.children[a]
                        continue
                avail = node.avail
                untried = []
                for a in legal_w:
                    a = int(a)
                    avail[a] = avail.get(a, 0) + 1
                    if a not in node.n:
                        untried.append(a)
                if untried:
                    g_a = int(greedy_action(world, C, AS, wmask, n_legal, self.tier, word, 0.0))
                    a = g_a if g_a in untried else untried[int(self.rng.integers(len(untried)))]
                    node.n[a] = 0
                    node.w[a] = 0.0
                    child = node.children[a] = _Node()
                    path.append((node, a, p))
                    n_legal = _step_and_mask(world, C, AS, a, wmask)
                    node = child
                    break
                best, best_a = -1.0, -1
                for a in legal_w:
                    a = int(a)
                    n = node.n[a]
                    u = node.w[a] / n + c * math.sqrt(math.log(avail[a]) / n)
                    if u > best:
                        best, best_a = u, a
                path.append((node, best_a, p))
                n_legal = _step_and_mask(world, C, AS, best_a, wmask)
                node = node.children[best_a]
            simulate(world, C, AS, self.tier, word, self.eps, 100_000, self.margin_weight, values)
            for nd, a, p in path:
                nd.n[a] += 1
                nd.w[a] += values[p]
            done += 1
        self.last_sims = done
        self.last_visits = dict(root.n)
        stats = root.n
        if not stats:
            return int(root_legal[0])
        return max(stats, key=lambda a: (stats[a], root.w[a], -a))

    def _root_choice(self, root: _Node, legal: np.ndarray, priors: dict[int, float], done: int) -> int:
        untried = [int(a) for a in legal if int(a) not in root.n]
        if untried:  # every root action gets one simulation first, the likeliest first
            return max(untried, key=lambda a: (priors.get(a, 0.0), -a))
        log_n = math.log(max(done, 1))
        scale = self.c_puct * math.sqrt(max(done, 1))
        best, best_a = -math.inf, int(legal[0])
        for a in legal:
            a = int(a)
            n = root.n[a]
            u = root.w[a] / n + self.c_uct * math.sqrt(log_n / n) + scale * priors.get(a, 0.0) / (1 + n)
            if u > best:
                best, best_a = u, a
        return best_a


_jit.register(globals(), core, L, _infostate, _kernels)
