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
===========================  =======================================================

``REST_DIM`` is ``OBS_DIM`` minus the ``O_SLOTS`` block. Trained by :mod:`training.fast_ppo`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from ohmygoods_env import layout as L

SLOT_END = L.O_SLOTS + L.MAX_PLAYERS * L.MAX_SLOTS * L.SLOT_FEATURES
REST_DIM = L.OBS_DIM - (SLOT_END - L.O_SLOTS)
#: logit of an illegal action (finite: the masked entropy stays NaN-free)
NEG = -1e9


class SlotNet(nn.Module):
    """Policy-value network (see the module docstring); ``forward(obs, mask) -> (masked logits, value)``."""

    def __init__(self, hidden: int = 128, embed: int = 16) -> None:
        super().__init__()
        self.hidden, self.embed = int(hidden), int(embed)
        self.slot = nn.Sequential(nn.Linear(L.SLOT_FEATURES, embed), nn.ReLU(), nn.Linear(embed, embed), nn.ReLU())
        n_in = REST_DIM + (L.MAX_SLOTS + L.MAX_PLAYERS - 1) * embed
        self.trunk = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, L.N_ACTIONS)
        self.v = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pi.weight, 0.01)
        nn.init.zeros_(self.pi.bias)
        nn.init.orthogonal_(self.v.weight, 1.0)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        b = obs.shape[0]
        slots = obs[:, L.O_SLOTS : SLOT_END].reshape(b, L.MAX_PLAYERS, L.MAX_SLOTS, L.SLOT_FEATURES)
        e = self.slot(slots) * slots[..., L.SF_PRESENT : L.SF_PRESENT + 1]  # empty slots add nothing
        mine = e[:, 0].reshape(b, -1)  # my slots in slot order: actions name them
        others = e[:, 1:].sum(dim=2).reshape(b, -1)  # per other seat: a sum over its buildings
        rest = torch.cat((obs[:, : L.O_SLOTS], obs[:, SLOT_END:]), dim=1)
        return self.trunk(torch.cat((rest, mine, others), dim=1))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features(obs)
        return self.pi(h).masked_fill(~mask, NEG), self.v(h).squeeze(1)

    def description(self) -> dict[str, Any]:
        """The checkpoint's ``network`` entry."""
        return {"kind": "slotnet", "hidden": self.hidden, "embed": self.embed, "output": "action logits, value"}


class PolicyLogits(nn.Module):
    """``x -> logits`` of a :class:`SlotNet` (unmasked): the form a checkpoint's agent calls."""

    def __init__(self, net: SlotNet) -> None:
        super().__init__()
        self.inner = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner.pi(self.inner.features(x))


def expected_shapes(hidden: int, embed: int) -> dict[str, tuple[int, ...]]:
    """Tensor name → shape of a :class:`SlotNet` of these widths on this layout."""
    return {k: tuple(v.shape) for k, v in SlotNet(hidden, embed).state_dict().items()}


def from_tensors(tensors: dict[str, Any], network: dict[str, Any]) -> SlotNet:
    """A :class:`SlotNet` (eval mode) from checkpoint arrays and its ``network`` description."""
    net = SlotNet(int(network["hidden"]), int(network["embed"]))
    net.load_state_dict({k: torch.as_tensor(np.asarray(v, np.float32)) for k, v in tensors.items()})
    return net.eval()


__all__ = ["NEG", "REST_DIM", "SLOT_END", "PolicyLogits", "SlotNet", "expected_shapes", "from_tensors"]
