"""Network + Gumbel search for *Oh my Goods!*: the framework's IS-MCTS with its Gumbel root
(:mod:`ohmygoods_agents.ismcts`), priors and values from a policy-value network.

* :class:`NetworkEvaluator` — the evaluator of a :class:`~ohmygoods_agents.slotnet.SlotNet`
  (the shipped ``ppo`` and every network of :mod:`ohmygoods_training.fast_ppo`): one forward
  pass per world, the observations of every seat in one batch. The pending seat's logits
  (with the network's heuristic prior, read from that seat's redacted information state in
  the world) are the priors; each seat's value ``v`` from its own observation becomes a win
  share (below).
* :class:`RowInformationSet` — the information set of a seat from its redacted state row, the
  ``info_state`` the *Oh my Goods!* harness hands to agents (:func:`ohmygoods_env.policy.info_state_of`):
  ``determinize(seed)`` draws the same worlds as
  :meth:`ohmygoods_env.game_spec.OhMyGoodsModel.determinize` for the same seed.
* :class:`GumbelAgent` — the agent ``gumbel`` (``gumbel:N`` for ``N`` simulations, default 32;
  ``gumbel:N:SPEC`` with another network, e.g. ``gumbel:16:ppo:runs/g/last.json``); it plays
  in both harnesses (a redacted row or a framework :class:`~ohmygoods_env.framework.game.InformationSet`).

**The value head.** The shipped networks' value heads were trained by PPO on the ``margin``
reward times ``REWARD_SCALE`` (0.1) with potential-based shaping (:mod:`ohmygoods_training.shaping`):
``v`` estimates ``0.1 * (final margin - potential now)``, a return, not a win probability; on
its own it tells almost nothing of who wins (a logistic fit of the result on ``v`` has a
cross-entropy of 0.691, coin flips 0.693). With the potential added back,
``margin = v / REWARD_SCALE + potential`` (the potential, the seat's exact score minus the best
other's, read from the world, a determinized one in the search) it does: the win share is
``sigmoid(VALUE_SLOPE * margin + VALUE_BIAS)``, fitted by logistic regression of the result
(win 1, tie 0.5, loss 0) at every decision, both seats, of 300 games of ``ppo`` against itself
(cross-entropy 0.565; docs/training.md, "Gumbel search"). The training loop
:mod:`ohmygoods_training.gumbel` trains the head through the same map, so it keeps its meaning.

**A win value** (``value=``, :func:`load_win_value`): a network whose ``v`` is the logit of the seat's
win probability from its own observation (:mod:`ohmygoods_training.value_head`, trained on the results
of ``ppo`` self-play: held-out cross-entropy 0.504 against the map's 0.540); the search then reads each
seat's win share from it and the priors from ``net``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.cards import CardSet, default_cards
from ohmygoods_env.core import score_player
from ohmygoods_env.engine import Game
from ohmygoods_env.game_spec import OhMyGoodsModel, _seed_word
from ohmygoods_env.infostate import determinize as _determinize
from ohmygoods_env.policy import Agent
from ohmygoods_env.rules import RuleSet

from .ismcts import GumbelSearch, ISMCTSAgent
from .policy_agents import forward_threads

__all__ = [
    "RowISMCTSAgent",
    "REWARD_SCALE",
    "VALUE_BIAS",
    "VALUE_SLOPE",
    "GumbelAgent",
    "NetworkEvaluator",
    "RowInformationSet",
    "gumbel",
    "load_win_value",
    "potentials",
]

#: win share = sigmoid(VALUE_SLOPE * (v / REWARD_SCALE + potential) + VALUE_BIAS) (module docstring)
VALUE_SLOPE = 0.5455
VALUE_BIAS = -0.7966
REWARD_SCALE = 0.1
#: simulations per decision of ``gumbel`` without a number
DEFAULT_SIMULATIONS = 32


def _torch():
    import torch

    return torch


class NetworkEvaluator:
    """``evaluator(world) -> ({pending seat: logits}, win shares per seat)`` of a SlotNet (module docstring).

    ``net`` is a :class:`~ohmygoods_agents.slotnet.SlotNet` or a policy agent holding one
    (``make_agent("ppo")``). It is used as it is: a live network being trained is read at
    its current weights (the caller keeps it in eval mode while searching).
    """

    def __init__(self, net: Any, slope: float = VALUE_SLOPE, bias: float = VALUE_BIAS, value: Any = None) -> None:
        net = getattr(net, "net", net)
        if not all(callable(getattr(net, f, None)) for f in ("features", "policy_logits", "v")):
            raise TypeError(
                f"the Gumbel search needs a policy-value network (a SlotNet, e.g. make_agent('ppo')), got "
                f"{type(net).__name__}: an mlp checkpoint has no value head"
            )
        if value is not None and not all(callable(getattr(value, f, None)) for f in ("features", "v")):
            raise TypeError(
                f"value must be a SlotNet whose v is a win logit (load_win_value), got {type(value).__name__}"
            )
        self.net, self.slope, self.bias = net, float(slope), float(bias)
        #: a win-logit network (:func:`load_win_value`) read in place of the mapped value head, or None
        self.value = value
        #: the value network has the policy network's trunk (a new head only): one trunk pass serves both
        self.shared_trunk = value is not None and _same_trunk(net, value)
        self._prior = None
        if getattr(net, "prior", None) is not None:
            from .slotnet import make_prior

            self._prior = make_prior(net.prior)

    def __call__(self, world: Any) -> tuple[dict[int, np.ndarray], np.ndarray]:
        torch = _torch()
        n = world.num_players
        obs = np.stack([world.observe(p) for p in range(n)]).astype(np.float32)
        pending = [int(p) for p in world.pending_players()]
        prior = None
        if self._prior is not None and pending:
            from .slotnet import prior_actions

            masks = np.stack([world.legal_mask(p) for p in pending])
            infos = np.stack([world.info_state(p) for p in pending])
            prior = prior_actions(self._prior, "the Gumbel search", obs[pending], masks, infos)
        with torch.no_grad(), forward_threads(n):  # a few rows: one thread (no other to wake per layer)
            x = torch.as_tensor(obs)
            h = self.net.features(x)
            logits = self.net.policy_logits(h[pending], prior).double().numpy() if pending else np.zeros((0, 0))
            if self.value is not None:  # each seat's win probability from its own observation
                hv = h if self.shared_trunk else self.value.features(x)
                return {p: logits[i] for i, p in enumerate(pending)}, torch.sigmoid(
                    self.value.v(hv).squeeze(1)
                ).double().numpy()
            v = self.net.v(h).squeeze(1).double().numpy()
        return {p: logits[i] for i, p in enumerate(pending)}, self.win_share(v, potentials(world.game))

    def win_share(self, v: np.ndarray, potential: np.ndarray) -> np.ndarray:
        """The win shares of value-head outputs ``v`` at potentials ``potential`` (module docstring)."""
        return 1.0 / (1.0 + np.exp(-(self.slope * (np.asarray(v) / REWARD_SCALE + potential) + self.bias)))


def _same_trunk(a: Any, b: Any) -> bool:
    """Whether two SlotNets have the same slot encoder and trunk weights (the value one a new head only)."""
    sa, sb = a.state_dict(), b.state_dict()
    keys = [k for k in sa if k.startswith(("slot.", "trunk."))]
    return bool(keys) and all(k in sb and sa[k].shape == sb[k].shape and bool((sa[k] == sb[k]).all()) for k in keys)


#: the card entry of a win-value checkpoint (``ohmygoods_training.value_head``)
WIN_VALUE = "win logit"


def load_win_value(spec: str) -> Any:
    """The win-value network of checkpoint ``spec`` (``NAME.json``), read by the safe checkpoint reader only
    (:func:`ohmygoods_agents.checkpoint.read_checkpoint`): a SlotNet whose ``v`` is the logit of the seat's
    win probability from its own observation (its card says ``value: "win logit"``;
    ``python -m ohmygoods_training.value_head fit`` writes one)."""
    from pathlib import Path

    from .checkpoint import CheckpointError, current_layout, read_checkpoint, same_layout
    from .slotnet import from_tensors

    path = Path(spec).with_suffix(".json")
    tensors, desc = read_checkpoint(path)
    card = desc.get("card")
    if desc["network"].get("kind") != "slotnet" or not isinstance(card, dict) or card.get("value") != WIN_VALUE:
        raise CheckpointError(
            f"{str(path)!r} is not a win-value checkpoint: expected a slotnet whose card says value: {WIN_VALUE!r} "
            "(python -m ohmygoods_training.value_head fit writes one)"
        )
    if not same_layout(desc["layout"], current_layout()):
        raise CheckpointError(f"{str(path)!r} was made for another observation/action layout than this engine's")
    return from_tensors(tensors, desc["network"])


def potentials(game: Game) -> np.ndarray:
    """float64[num_players]: each seat's exact score (buildings, assistants, coins / 5) minus the best
    other seat's, the potential of the ``margin`` shaping (:mod:`ohmygoods_training.shaping`); a solo
    seat's score alone."""
    C, AS = game.cards.buildings, game.cards.assistants
    pairs = [score_player(game.state, C, AS, p) for p in range(game.num_players)]
    ex = np.array([sc + left / 5.0 for sc, left in pairs])
    if ex.size == 1:
        return ex
    out = np.empty_like(ex)
    for p in range(ex.size):
        out[p] = ex[p] - np.delete(ex, p).max()
    return out


def _rules_of(row: np.ndarray) -> RuleSet:
    """The rule set a state row was dealt under (players, edition, forced moves, variants, round cap)."""
    variants = int(row[L.F_VARIANTS])
    kwargs: dict[str, Any] = {
        "num_players": int(row[L.F_NP]),
        "edition": "royal" if int(row[L.F_ROYAL]) else "omg2",
        "auto_forced": bool(row[L.F_AUTO]),
        "keep_one": bool(variants & 1),
        "two_for_one": bool(variants & 2),
    }
    if kwargs["num_players"] == 1:
        kwargs["solo_rounds"] = int(row[L.F_MAXR])
    else:
        kwargs["max_rounds"] = int(row[L.F_MAXR])
    return RuleSet(**kwargs)


class RowInformationSet:
    """A seat's information set from its redacted state row (module docstring)."""

    __slots__ = ("cards", "player", "row", "rules")

    def __init__(self, row: np.ndarray, player: int | None = None, cards: CardSet | None = None) -> None:
        self.row = np.asarray(row, np.int32).copy()
        if self.row.shape != (L.STATE_LEN,):
            raise ValueError(f"info_state must be a redacted state row of shape ({L.STATE_LEN},), got {self.row.shape}")
        self.player = int(self.row[L.F_CUR]) if player is None else int(player)
        self.cards = cards if cards is not None else default_cards()
        self.rules = _rules_of(self.row)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def num_actions(self) -> int:
        return L.N_ACTIONS

    def determinize(self, seed: int) -> OhMyGoodsModel:
        out = np.zeros(L.STATE_LEN, np.int32)
        _determinize(self.row, self.cards.buildings, self.player, _seed_word(seed), out)
        return OhMyGoodsModel(Game.from_state(out, self.rules, self.cards, seed=seed))


class RowISMCTSAgent(ISMCTSAgent):
    """The framework's IS-MCTS (``ismcts``) for *Oh my Goods!*'s harnesses: an ``info_state`` given as the
    redacted state row (:func:`ohmygoods_env.policy.info_state_of`) becomes a :class:`RowInformationSet`;
    a framework :class:`~ohmygoods_env.framework.game.InformationSet` is searched as it is."""

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        if info_state is not None and not callable(getattr(info_state, "determinize", None)):
            info_state = RowInformationSet(np.asarray(info_state))
        return super().act(observation, mask, info_state)


class GumbelAgent(Agent):
    """A policy-value network with the Gumbel root of the framework's IS-MCTS (module docstring).

    ``simulations`` per decision (exactly, by Sequential Halving); ``search`` options go to
    :class:`~ohmygoods_agents.ismcts.ISMCTSAgent` (``considered``, ``c_visit``, ``c_scale``,
    ``gumbel_scale``). :attr:`last_search` holds the last decision's improved policy and value.
    """

    needs_info_state = True
    needs_observation = False

    def __init__(
        self,
        network: Any = None,
        simulations: int = DEFAULT_SIMULATIONS,
        seed: int | None = None,
        name: str | None = None,
        value: Any = None,
        **search: Any,
    ) -> None:
        if network is None:
            from ohmygoods_env.policy import make_agent

            network = make_agent("ppo")
        if isinstance(value, str):
            value = load_win_value(value)
        self.evaluator = NetworkEvaluator(network, value=value)
        self.search = ISMCTSAgent(iterations=simulations, seed=seed, root="gumbel", evaluator=self.evaluator, **search)
        self.simulations = simulations
        self.name = name or f"gumbel:{simulations}"

    def seed(self, seed: int | None = None) -> None:
        self.search.seed(seed)

    @property
    def last_search(self) -> GumbelSearch | None:
        return self.search.last_search

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        if info_state is None:
            raise ValueError(
                f"the {self.name} agent searches from the seat's information state: pass info_state = "
                "ohmygoods_env.policy.info_state_of(game.state, player) or a framework InformationSet"
            )
        if not callable(getattr(info_state, "determinize", None)):
            info_state = RowInformationSet(np.asarray(info_state))
        return self.search.act(observation, mask, info_state)


def gumbel(arg: str | None = None, *, seed: int | None = None, **kwargs: Any) -> GumbelAgent:
    """``gumbel`` (``ppo``, 32 simulations), ``gumbel:N`` or ``gumbel:N:SPEC`` (network ``SPEC``): the factory.

    ``value=PATH`` (a keyword) reads the values from a win-value checkpoint (:func:`load_win_value`)."""
    return _factory("gumbel", arg, seed, kwargs)


def _factory(kind: str, arg: str | None, seed: int | None, kwargs: dict[str, Any]) -> GumbelAgent:
    from ohmygoods_env.policy import make_agent

    sims, spec = DEFAULT_SIMULATIONS, "ppo"
    if arg is not None:
        head, _, tail = arg.partition(":")
        try:
            sims = int(head)
        except ValueError:
            raise ValueError(f"{kind}:N[:SPEC] takes a number of simulations first, got {kind}:{arg}") from None
        if sims < 1:
            raise ValueError(f"{kind}:N needs N >= 1 simulations, got {kind}:{arg}")
        spec = tail or spec
    name = f"{kind}:{sims}" + (f":{spec}" if spec != "ppo" else "")
    return GumbelAgent(make_agent(spec, seed=seed), sims, seed=seed, name=name, **kwargs)
