"""The slot-encoder policy-value network (``network.kind = "slotnet"`` in a policy checkpoint).

One small encoder, shared by every building slot, reads each ``SLOT_FEATURES`` record of the
observation's ``O_SLOTS`` block (empty slots contribute nothing: the encoding is multiplied
by the slot's ``SF_PRESENT`` flag). My own slots stay in slot order (actions name slots);
each other seat's slots are summed, so that part is invariant to the order of its buildings.
The rest of the observation joins them in a two-layer trunk with a policy head
(``N_ACTIONS`` logits) and a value head.

===========================  =======================================================
tensor                       shape
===========================  =======================================================
``slot.0.weight/bias``       ``[embed, SLOT_FEATURES]`` / ``[embed]``
``slot.2.weight/bias``       ``[embed, embed]`` / ``[embed]``
``trunk.0.weight/bias``      ``[hidden, REST_DIM + (MAX_SLOTS + MAX_PLAYERS - 1) * embed]``
``trunk.2.weight/bias``      ``[hidden, hidden]``
``pi.weight/bias``           ``[N_ACTIONS, hidden]``
``v.weight/bias``            ``[1, hidden]``
``prior_gain``               ``[1]`` (only with a prior, below)
===========================  =======================================================

``REST_DIM`` is ``OBS_DIM`` minus the ``O_SLOTS`` block. Trained by :mod:`ohmygoods_training.fast_ppo`.
A network is built for this engine's layout, or for the layout a checkpoint records
(``layout=``: its observation blocks and action count; the ``O_SLOTS`` block must be this
engine's), so a checkpoint of an earlier layout can still be read, run and converted.

**A rule-based prior** (``network.prior = "heuristic"``; residual policy learning): the
network also gets the action the heuristic agent (:mod:`ohmygoods_agents.heuristic`) would choose from
the same information state, and adds ``prior_gain`` (a learned scalar) to that action's
logit. A new network with a prior plays like the heuristic from its first update (its own
logits start near 0); training learns where to deviate. The prior reads the acting seat's
information state only (never hidden information), so an agent with a prior needs the
information state (``needs_info_state``); it costs one heuristic decision (well under 1 ms)
per network call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ohmygoods_env import layout as L

from .sparse import NEG, SparseBatch, SparseHeads, rows_product

SLOT_END = L.O_SLOTS + L.MAX_PLAYERS * L.MAX_SLOTS * L.SLOT_FEATURES
REST_DIM = L.OBS_DIM - (SLOT_END - L.O_SLOTS)
#: name of the observation block the slot encoder reads (``O_SLOTS``)
SLOT_BLOCK = next(n for n, o, _ in L.OBS_BLOCKS if o == L.O_SLOTS)
#: rule-based priors a network can add to its logits (``network.prior``)
PRIORS: tuple[str, ...] = ("heuristic",)


def make_prior(name: str) -> Any:
    """The agent that suggests the prior action: a deterministic :class:`~ohmygoods_agents.heuristic.HeuristicAgent`."""
    if name not in PRIORS:
        raise ValueError(f"unknown network prior {name!r}: expected one of {list(PRIORS)}")
    from .heuristic import HeuristicAgent

    return HeuristicAgent(seed=0)


def prior_actions(prior: Any, who: str, observations: Any, masks: Any, info_states: Any) -> torch.Tensor | None:
    """The choices of ``prior`` (an agent from :func:`make_prior`, or None) for a batch, as int64 ``[n]``.

    Returns None without a prior; with one, the acting seats' information states are required.
    """
    if prior is None:
        return None
    if info_states is None:
        raise ValueError(
            f"{who} needs info_states: it adds the {prior.name} agent's choice to its network; pass info_states "
            "(the acting seats' redacted state rows, ohmygoods_env.policy.info_state_of)"
        )
    return torch.as_tensor(np.asarray(prior.act_batch(observations, masks, info_states)), dtype=torch.int64)


def layout_dims(layout: dict[str, Any] | None = None) -> tuple[int, int, int, int]:
    """``(obs_dim, slot block offset, rest dim, n_actions)`` of a checkpoint layout (default: this engine's).

    Raises ``ValueError`` when the layout has no slot block of this engine's size.
    """
    if layout is None:
        return L.OBS_DIM, L.O_SLOTS, REST_DIM, L.N_ACTIONS
    size = SLOT_END - L.O_SLOTS
    block = [(o, k) for n, o, k in layout["obs_blocks"] if n == SLOT_BLOCK]
    if not block or block[0][1] != size:
        raise ValueError(f"layout {layout.get('version')!r} has no observation block {SLOT_BLOCK!r} of {size} entries")
    return int(layout["obs_dim"]), int(block[0][0]), int(layout["obs_dim"]) - size, int(layout["n_actions"])


class SlotNet(nn.Module):
    """Policy-value network (see the module docstring); ``forward(obs, mask) -> (masked logits, value)``."""

    def __init__(
        self,
        hidden: int = 128,
        embed: int = 16,
        prior: str | None = None,
        prior_gain: float = 4.0,
        layout: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.hidden, self.embed = int(hidden), int(embed)
        if prior is not None and prior not in PRIORS:
            raise ValueError(f"unknown network prior {prior!r}: expected one of {list(PRIORS)} or None")
        self.prior = prior
        _, self.o_slots, rest_dim, n_actions = layout_dims(layout)
        self.slot = nn.Sequential(nn.Linear(L.SLOT_FEATURES, embed), nn.ReLU(), nn.Linear(embed, embed), nn.ReLU())
        n_in = rest_dim + (L.MAX_SLOTS + L.MAX_PLAYERS - 1) * embed
        self.trunk = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v.weight, 1.0)
        if prior is not None:
            self.prior_gain = nn.Parameter(torch.tensor([float(prior_gain)]))

    def features(self, obs: torch.Tensor, seats: int | None = None) -> torch.Tensor:
        """Trunk features of ``obs``. ``seats``: the player count of every row, when known: the seats an
        observation has beyond it hold no building, so their encodings are zeros and are put in place
        without running the slot encoder on them (the same features up to float rounding, cheaper for fewer
        than 4 players: 2 players -22 % of the features' forward and backward time)."""
        b, o, end = obs.shape[0], self.o_slots, self.o_slots + SLOT_END - L.O_SLOTS
        slots = obs[:, o:end].reshape(b, L.MAX_PLAYERS, L.MAX_SLOTS, L.SLOT_FEATURES)
        if seats is not None and 1 <= seats < L.MAX_PLAYERS:
            slots = slots[:, :seats]
        e = self.slot(slots) * slots[..., L.SF_PRESENT : L.SF_PRESENT + 1]  # empty slots add nothing
        mine = e[:, 0].reshape(b, -1)  # my slots in slot order: actions name them
        others = e[:, 1:].sum(dim=2).reshape(b, -1)  # per other seat: a sum over its buildings
        if others.shape[1] < (L.MAX_PLAYERS - 1) * self.embed:  # the seats beyond the player count: zeros
            others = nn.functional.pad(others, (0, (L.MAX_PLAYERS - 1) * self.embed - others.shape[1]))
        rest = torch.cat((obs[:, :o], obs[:, end:]), dim=1)
        return self.trunk(torch.cat((rest, mine, others), dim=1))

    def policy_logits(self, h: torch.Tensor, prior_action: torch.Tensor | None = None) -> torch.Tensor:
        """Unmasked logits from trunk features ``h``; with a prior, ``prior_gain`` is added to the
        logit of ``prior_action`` (int64 ``[n]``, the prior's legal choice per row)."""
        logits = self.pi(h)
        if self.prior is None:
            return logits
        logits = logits.float()  # under autocast the products are bfloat16; the bonus is added in float32
        if prior_action is None:
            raise ValueError(f"this network adds the {self.prior} agent's choice to its logits: pass prior_action")
        return logits.scatter_add(1, prior_action.reshape(-1, 1), self.prior_gain.expand(h.shape[0], 1))

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, prior_action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features(obs)
        return self.policy_logits(h, prior_action).masked_fill(~mask, NEG), self.v(h).squeeze(1)

    def description(self) -> dict[str, Any]:
        """The checkpoint's ``network`` entry."""
        d: dict[str, Any] = {"kind": "slotnet", "hidden": self.hidden, "embed": self.embed}
        if self.prior is not None:
            d["prior"] = self.prior
        d["output"] = "action logits, value"
        return d


class SparseForward(SparseHeads):
    """A :class:`SlotNet`'s sparse form (:mod:`ohmygoods_agents.sparse`): the same logits of the legal actions,
    values and gradients, up to float rounding, at a fraction of the dense forward's arithmetic.

    The trunk's first layer reads its nonzero inputs only (about 95 of the 600 observation inputs outside the
    slot block, and the encodings of the slots that hold a building, the slot encoder run on those alone); the
    policy head computes the legal actions' logits only. Inference (``__call__``, :meth:`values`) is one
    compiled call that releases the GIL (``_sparse_kernels.SLOT_ROWS``), on one thread or numba's, whichever
    has been faster; a row's numbers do not depend on the other rows of its batch nor on the thread count.
    :meth:`features` gives the trunk's features as a tensor (through ``embedding_bag``), :meth:`batch` and
    :meth:`train_features` the update's forward with gradients. The training loop's rollout
    (:class:`ohmygoods_training.fast_ppo.FastPPO`), its league snapshots and its update read it
    (docs/performance.md, *The sparse forward*). The transposed weight copies are renewed whenever a
    weight changed (an optimizer step or a load bumps its version).
    """

    def __init__(self, net: SlotNet) -> None:
        super().__init__(net)
        self._slot_cap = 0
        self._counts = np.empty(0, np.int64)
        self._kernel_key: tuple[int, ...] | None = None
        self._kernel_arrays: tuple[np.ndarray, ...] = ()

    @property
    def obs_width(self) -> int:
        """The observation width of the network's layout (the slot block and the rest)."""
        blocks = (L.MAX_SLOTS + L.MAX_PLAYERS - 1) * self.net.embed
        return self.net.trunk[0].in_features - blocks + (SLOT_END - L.O_SLOTS)

    def _weights(self) -> tuple[torch.Tensor, ...]:
        """``(slot W1ᵀ, slot W2ᵀ, trunk W0ᵀ, trunk W2ᵀ, slot b1, slot b2, trunk b0, trunk b2)``: the products'
        weights as ``[inputs, outputs]`` rows and the biases, as tensors over :meth:`_kernel_weights`' arrays."""
        return tuple(torch.from_numpy(a) for a in self._kernel_weights())

    def _reserve_slots(self, n: int, players: int) -> None:
        """Room for the present slots of ``n`` rows of ``players``-player games."""
        slots = n * min(players, L.MAX_PLAYERS) * L.MAX_SLOTS
        if slots > self._slot_cap:
            self._slot_cap = max(slots, 2 * self._slot_cap)
            self._feats = np.empty((self._slot_cap, L.SLOT_FEATURES), np.float32)
            self._where = np.empty(self._slot_cap, np.int64)

    def _kernel_weights(self) -> tuple[np.ndarray, ...]:
        """:meth:`_weights` as the kernel reads them: the transposed copies' arrays (made again when a weight
        changed) and numpy views of the biases (made again when a bias's storage moved). The parameters are
        looked up at each call, through the modules' own dictionaries (a call's fixed cost: about 25 µs through
        :meth:`_weights` and ``numpy()``, a few here)."""
        slot, trunk = self.net.slot._modules, self.net.trunk._modules
        lins = (slot["0"], slot["2"], trunk["0"], trunk["2"])
        ws = tuple(m._parameters["weight"] for m in lins)
        bs = tuple(m._parameters["bias"] for m in lins)
        key = tuple(x for w in ws for x in (id(w), w.data_ptr(), w._version)) + tuple(b.data_ptr() for b in bs)
        if key != self._kernel_key:
            ts = tuple(w.detach().t().contiguous().numpy() for w in ws)
            self._kernel_arrays = (*ts, *(b.detach().numpy() for b in bs))
            self._kernel_key = key
        return self._kernel_arrays

    def _reserve_counts(self, n: int) -> None:
        """Room for ``n`` rows' legal counts (:meth:`_legal_rows`)."""
        if n > self._counts.shape[0]:
            self._counts = np.empty(max(n, 2 * self._counts.shape[0]), np.int64)

    def features(self, obs: np.ndarray, players: int = L.MAX_PLAYERS) -> torch.Tensor:
        """The trunk's features of host rows ``obs`` (:meth:`SlotNet.features` up to float rounding);
        ``players``: every row's player count (its seats beyond hold no building)."""
        from . import _sparse_kernels as k

        net = self.net
        obs = self._host_rows(obs)
        n, players = obs.shape[0], int(players)
        end = net.o_slots + SLOT_END - L.O_SLOTS
        width = obs.shape[1] - (end - net.o_slots) + (L.MAX_SLOTS + L.MAX_PLAYERS - 1) * net.embed
        self._entries(n, width)
        self._reserve_slots(n, players)
        w1t, w2t, w0t, wt2t, b1, b2, b0, bt2 = self._weights()
        with torch.no_grad():
            m = k.present_slots(obs, players, net.o_slots, self._feats, self._where)
            feats = torch.from_numpy(self._feats[:m])
            # the slot encoder on the slots that hold a building, times their present flag (as SlotNet.features)
            enc = torch.addmm(b1, feats, w1t).relu_()
            enc = torch.addmm(b2, enc, w2t).relu_().mul_(feats[:, L.SF_PRESENT : L.SF_PRESENT + 1])
            c = k.trunk_entries(obs, net.o_slots, end, enc.numpy(), self._where[:m], self._idx, self._val, self._offs)
            return torch.addmm(bt2, self._bag(w0t, c, n).add_(b0).relu_(), wt2t).relu_()

    def __call__(
        self, obs: np.ndarray, masks: np.ndarray, players: int = L.MAX_PLAYERS, prior_action: np.ndarray | None = None
    ) -> tuple[torch.Tensor, np.ndarray, np.ndarray, torch.Tensor]:
        return super().__call__(obs, masks, players, prior_action)

    def _legal_rows(self, obs: np.ndarray, words: np.ndarray, players: int, prior: np.ndarray, gain: Any) -> int:
        """The whole forward in one compiled call (``_sparse_kernels.SLOT_ROWS``: for every 16 rows, the slot
        encoder over their slots that hold a building, then each row's trunk and heads), which releases the GIL
        and runs on one thread or numba's, whichever has been faster."""
        from . import _sparse_kernels as k

        n = obs.shape[0]
        self._reserve_counts(n)
        w1t, w2t, w0t, wt2t, b1, b2, b0, bt2 = self._kernel_weights()
        pw, pb, vw, vb = self._heads()
        return int(k.SLOT_ROWS(n, obs, words, int(players), self.net.o_slots, w1t, b1, w2t, b2, w0t, b0, wt2t, bt2,
                               pw, pb, vw, vb, prior, gain,
                               self._ids, self._valid, self._out, self._v, self._counts))  # fmt: skip

    def values(self, obs: np.ndarray, players: int = L.MAX_PLAYERS) -> torch.Tensor:
        """The value head's outputs for host rows ``obs`` (``float32[n]``, a new tensor), from the same kernel
        as :meth:`__call__` asked for no legal action."""
        obs = self._host_rows(obs)
        n = obs.shape[0]
        self._reserve(n, 8)
        self._legal_rows(obs, np.zeros((n, 0), np.uint64), players, np.zeros(0, np.int64), np.float32(0.0))
        return torch.from_numpy(self._v[:n].copy())

    # ------------------------------------------------------------------ the update
    def batch(self, obs: np.ndarray, players: int = L.MAX_PLAYERS) -> SparseBatch:
        """A rollout's observations (``float32[n, OBS_DIM]``, every row a ``players``-player game) read once for
        :meth:`train_forward`: each row's nonzero inputs outside the slot block and its slots that hold a
        building (in buffers of this object: the next call writes over them)."""
        from . import _sparse_kernels as k

        net = self.net
        obs = self._host_rows(obs)
        n, players = obs.shape[0], int(players)
        end = net.o_slots + SLOT_END - L.O_SLOTS
        b = self.rest_batch(obs, net.o_slots, end, slots=n * min(players, L.MAX_PLAYERS) * L.MAX_SLOTS)
        m = k.present_slots(obs, players, net.o_slots, b["feats"], b["where"])
        where = b["where"][:m]
        slot_offs = np.searchsorted(where // (L.MAX_PLAYERS * L.MAX_SLOTS), np.arange(n + 1)).astype(np.int64)
        c = b["entries"]
        return SparseBatch(n, b["idx"][:c], b["val"][:c], b["offs"][: n + 1], torch.from_numpy(b["feats"][:m]), where,
                           slot_offs)  # fmt: skip

    def train_features(self, sb: SparseBatch, rows: np.ndarray) -> torch.Tensor:
        """The trunk's features of the samples ``rows`` of ``sb``, with gradients: the first layer over the
        nonzero inputs (:func:`~ohmygoods_agents.sparse.rows_product`), the slot encoder over the slots that
        hold a building."""
        net = self.net
        m = rows.size
        idx, val, offs, sel, dest = self.gather(sb, rows)
        # index_select: about half the time of advanced indexing here
        feats = sb.feats.index_select(0, torch.from_numpy(sel))
        enc = torch.relu(net.slot[0](feats))
        enc = torch.relu(net.slot[2](enc)) * feats[:, L.SF_PRESENT : L.SF_PRESENT + 1]
        blocks = L.MAX_SLOTS + L.MAX_PLAYERS - 1
        slots = enc.new_zeros((m * blocks, net.embed)).index_add(0, torch.from_numpy(dest), enc)
        w0 = net.trunk[0].weight
        rest = w0.shape[1] - blocks * net.embed
        z = rows_product(w0[:, :rest].t(), idx, val, offs)
        z = z + nn.functional.linear(slots.reshape(m, blocks * net.embed), w0[:, rest:], net.trunk[0].bias)
        return net.trunk[3](net.trunk[2](torch.relu(z)))


class PolicyLogits(nn.Module):
    """``x -> logits`` of a :class:`SlotNet` (unmasked): the form a checkpoint's agent calls."""

    def __init__(self, net: SlotNet) -> None:
        super().__init__()
        self.inner = net

    def forward(self, x: torch.Tensor, prior_action: torch.Tensor | None = None) -> torch.Tensor:
        return self.inner.policy_logits(self.inner.features(x), prior_action)


def expected_shapes(
    hidden: int, embed: int, prior: str | None = None, layout: dict[str, Any] | None = None
) -> dict[str, tuple[int, ...]]:
    """Tensor name → shape of a :class:`SlotNet` of these widths (and prior) on ``layout`` (default: this one)."""
    _, _, rest_dim, n_actions = layout_dims(layout)
    n_in = rest_dim + (L.MAX_SLOTS + L.MAX_PLAYERS - 1) * embed
    shapes = {
        "slot.0.weight": (embed, L.SLOT_FEATURES),
        "slot.0.bias": (embed,),
        "slot.2.weight": (embed, embed),
        "slot.2.bias": (embed,),
        "trunk.0.weight": (hidden, n_in),
        "trunk.0.bias": (hidden,),
        "trunk.2.weight": (hidden, hidden),
        "trunk.2.bias": (hidden,),
        "pi.weight": (n_actions, hidden),
        "pi.bias": (n_actions,),
        "v.weight": (1, hidden),
        "v.bias": (1,),
    }
    if prior is not None:
        shapes["prior_gain"] = (1,)
    return shapes


def from_tensors(tensors: dict[str, Any], network: dict[str, Any], layout: dict[str, Any] | None = None) -> SlotNet:
    """A :class:`SlotNet` (eval mode) from checkpoint arrays, its ``network`` description and its ``layout``."""
    net = SlotNet(int(network["hidden"]), int(network["embed"]), network.get("prior"), layout=layout)
    net.load_state_dict({k: torch.as_tensor(np.asarray(v, np.float32)) for k, v in tensors.items()})
    return net.eval()


__all__ = [
    "NEG",
    "PRIORS",
    "REST_DIM",
    "SLOT_BLOCK",
    "SLOT_END",
    "PolicyLogits",
    "SlotNet",
    "SparseBatch",
    "SparseForward",
    "expected_shapes",
    "from_tensors",
    "layout_dims",
    "make_prior",
    "prior_actions",
]
