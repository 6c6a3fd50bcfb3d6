"""The sparse form of a policy-value network, its common parts: what a network's forward costs when it reads only
what is there.

A game's observation row is mostly zeros and a decision has a few legal actions of many (*Oh my Goods!*: about
95 nonzero of 600 inputs outside the slot block, 3.4 legal actions of 624; *Artificium*: about 25 of 388 and 5
of 401). A network's sparse form computes its function from those alone: the trunk's first layer as a product
over the nonzero inputs (``embedding_bag``, the weight's gradient by a compiled scatter, :class:`RowsProduct`)
and the policy head over the legal actions (``legal_head``), up to float rounding. :class:`SparseHeads` is the
part every network shares (the heads, the sampler, the update's legal logits, the compressed rows of a rollout);
a network's own form adds its trunk: :class:`ohmygoods_agents.slotnet.SparseForward` (the slot network) and
``ohmygoods_training.kits.MLPSparseForward`` (the MLP of every other game). The kernels are
:mod:`ohmygoods_agents._sparse_kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

#: logit of an illegal action (finite: the masked entropy stays NaN-free)
NEG = -1e9


class RowsProduct(torch.autograd.Function):
    """``X W`` for compressed rows ``X`` (constant) and a weight ``W`` (``[inputs, outputs]``, contiguous): forward
    by ``embedding_bag``, the weight's gradient ``Xᵀ G`` by a compiled scatter (torch's backward of
    ``embedding_bag`` with per-sample weights sorts the indices: 11 ms against about 2.4 for 3,770 rows)."""

    @staticmethod
    def forward(ctx: Any, w: torch.Tensor, idx: np.ndarray, val: np.ndarray, offs: np.ndarray) -> torch.Tensor:
        ctx.rows = (idx, val, offs, w.shape)
        m = offs.size - 1
        return nn.functional.embedding_bag(
            torch.from_numpy(idx), w, torch.from_numpy(offs[:m]), mode="sum", per_sample_weights=torch.from_numpy(val)
        )

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        from ._sparse_kernels import rows_transposed_product

        idx, val, offs, shape = ctx.rows
        out = np.empty(tuple(shape), np.float32)
        rows_transposed_product(idx, val, offs, np.ascontiguousarray(grad.numpy()), out)
        return torch.from_numpy(out), None, None, None


class LegalLogits(torch.autograd.Function):
    """The policy head's logits at ``(rows, acts)`` pairs (a minibatch's legal actions): ``W[a] . h[r] + b[a]``,
    forward and backward by compiled loops (``legal_dots``; gathering ``W[a]`` and ``h[r]`` as ``[L, H]`` tensors
    cost three such products in memory and their index-add backward)."""

    @staticmethod
    def forward(ctx: Any, h: torch.Tensor, w: torch.Tensor, b: torch.Tensor, rows: np.ndarray, acts: np.ndarray) -> Any:
        from ._sparse_kernels import legal_dots

        h, w, b = h.contiguous(), w.contiguous(), b.contiguous()
        ctx.save_for_backward(h, w)
        ctx.pairs = (rows, acts, b.shape)
        out = np.empty(rows.size, np.float32)
        legal_dots(h.detach().numpy(), w.detach().numpy(), b.detach().numpy(), rows, acts, out)
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[Any, ...]:
        from ._sparse_kernels import legal_dots_backward

        h, w = ctx.saved_tensors
        rows, acts, b_shape = ctx.pairs
        gh, gw, gb = (
            np.empty(tuple(h.shape), np.float32),
            np.empty(tuple(w.shape), np.float32),
            np.empty(b_shape, np.float32),
        )
        legal_dots_backward(
            np.ascontiguousarray(g.numpy()), h.detach().numpy(), w.detach().numpy(), rows, acts, gh, gw, gb
        )
        return torch.from_numpy(gh), torch.from_numpy(gw), torch.from_numpy(gb), None, None


def rows_product(w: torch.Tensor, idx: np.ndarray, val: np.ndarray, offs: np.ndarray) -> torch.Tensor:
    """:class:`RowsProduct` of a weight ``w`` (any layout, gradients reach it) and compressed rows."""
    return RowsProduct.apply(w.contiguous(), idx, val, offs)


@dataclass
class SparseBatch:
    """A rollout's observations as a sparse form's ``train_forward`` reads them (its ``batch``): per sample its
    nonzero inputs of the first layer's plain columns (``idx`` / ``val``, rows at ``offs``) and, for the slot
    network, its slots that hold a building (``feats``, whose sample, seat and slot in ``where``, rows at
    ``slot_offs``; empty for a network without slots)."""

    n: int
    idx: np.ndarray
    val: np.ndarray
    offs: np.ndarray
    feats: torch.Tensor
    where: np.ndarray
    slot_offs: np.ndarray


class SparseHeads:
    """The common part of a network's sparse form (see the module docstring); ``net`` has a policy head ``pi``
    and a value head ``v`` (``nn.Linear``) and, optionally, a prior (``net.prior``, ``net.prior_gain``: a
    learned bonus on the prior's action). A subclass gives :meth:`features` (host rows to trunk features, no
    gradient), :meth:`batch` and :meth:`train_features` (with gradients).

    Inference (``__call__``, :meth:`values`, :meth:`sample`) serves a training loop's rollout and its league
    snapshots; :meth:`batch` and :meth:`train_forward` its update. CPU, float32, on the calling thread. Each
    call reads the network's parameters as they are. The arrays a call returns are this object's buffers: the
    next call writes over them.
    """

    def __init__(self, net: Any) -> None:
        self.net = net
        self._rows = 0
        self._width = 0
        self._heads_key: tuple[int, ...] | None = None
        self._cap = self._entry_rows = 0
        self._t_key: tuple[int, ...] | None = None
        self._t: tuple[torch.Tensor, ...] = ()
        self._batch_buffers: dict[str, Any] = {}

    # ------------------------------------------------------------------ what a network's form gives
    def features(self, obs: np.ndarray, players: int) -> torch.Tensor:  # pragma: no cover - every form has one
        raise NotImplementedError

    def batch(self, obs: np.ndarray, players: int) -> SparseBatch:  # pragma: no cover - every form has one
        raise NotImplementedError

    def train_features(self, sb: SparseBatch, rows: np.ndarray) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError

    @property
    def obs_width(self) -> int:  # pragma: no cover - every form has one
        """The observation width the network reads."""
        raise NotImplementedError

    # ------------------------------------------------------------------ shared
    def _host_rows(self, obs: Any) -> np.ndarray:
        """``obs`` as contiguous ``float32[n, obs_width]`` (the compiled kernels do not check their bounds: a row
        of another width is refused here, with a ``ValueError`` that names both widths)."""
        obs = np.ascontiguousarray(obs, np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.obs_width:
            raise ValueError(f"observations must have shape (N, {self.obs_width}), got {obs.shape}")
        return obs

    def _host_masks(self, masks: Any, n: int) -> np.ndarray:
        """``masks`` as contiguous ``bool[n, actions]``, refused unless one row per observation and one column
        per action of the policy head."""
        masks = np.ascontiguousarray(masks, np.bool_)
        actions = self.net.pi.out_features
        if masks.shape != (n, actions):
            raise ValueError(f"masks must have shape ({n}, {actions}) for {n} observations, got {masks.shape}")
        return masks

    def _transposed(self, *weights: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``weights`` as ``[inputs, outputs]`` rows: copies, made again when a weight changed (an optimizer step
        or a load bumps its version)."""
        key = tuple(x for w in weights for x in (id(w), w.data_ptr(), w._version))
        if key != self._t_key:
            self._t = tuple(w.detach().t().contiguous() for w in weights)
            self._t_key = key
        return self._t

    def _entries(self, n: int, width: int) -> None:
        """Room for ``n`` rows of at most ``width`` first-layer entries each (``_idx``, ``_val``, ``_offs``)."""
        if n * width > self._cap:
            self._cap = max(n * width, 2 * self._cap)
            self._idx, self._val = np.empty(self._cap, np.int64), np.empty(self._cap, np.float32)
        if n + 1 > self._entry_rows:
            self._entry_rows = max(n + 1, 2 * self._entry_rows)
            self._offs = np.empty(self._entry_rows, np.int64)

    def _bag(self, w: torch.Tensor, entries: int, n: int) -> torch.Tensor:
        """The first layer's product (no bias) over the first ``entries`` entries of ``n`` rows in ``_idx`` /
        ``_val`` / ``_offs``, with its weight ``w`` as ``[inputs, outputs]`` rows."""
        return nn.functional.embedding_bag(
            torch.from_numpy(self._idx[:entries]), w, torch.from_numpy(self._offs[:n]), mode="sum",
            per_sample_weights=torch.from_numpy(self._val[:entries]),
        )  # fmt: skip

    def _heads(self) -> tuple[np.ndarray, ...]:
        """The heads' weights as numpy views (made again when a parameter's storage moved)."""
        pi, v = self.net.pi._parameters, self.net.v._parameters  # the modules' own dictionaries: a few µs a call
        ps = (pi["weight"], pi["bias"], v["weight"], v["bias"])
        key = tuple(p.data_ptr() for p in ps)
        if key != self._heads_key:
            self._head_arrays = tuple(p.detach().numpy() for p in ps)
            self._heads_key = key
        return self._head_arrays

    def _words(self, masks: np.ndarray) -> np.ndarray:
        """The legal masks as ``uint64`` words of eight actions (``legal_head`` passes over illegal actions eight
        at a time); an action count that is no multiple of 8 is padded with illegal actions."""
        masks = np.ascontiguousarray(masks, np.bool_)
        n, a = masks.shape
        if a % 8:
            padded = np.zeros((n, a + 8 - a % 8), np.bool_)
            padded[:, :a] = masks
            masks = padded
        return masks.view(np.uint64)

    def _reserve(self, n: int, width: int) -> None:
        """Room for ``n`` rows of legal logits, ids, valid flags and values, ``width`` actions each."""
        if n + 1 > self._rows or width > self._width:
            self._rows, self._width = max(n + 1, 2 * self._rows), max(width, self._width)
            self._ids = np.empty((self._rows, self._width), np.int64)
            self._valid = np.empty((self._rows, self._width), np.bool_)
            self._out = np.empty((self._rows, self._width), np.float32)
            self._v = np.empty(self._rows, np.float32)

    def _check_prior(self, prior_action: Any) -> None:
        prior = getattr(self.net, "prior", None)
        if (prior is not None) != (prior_action is not None):
            raise ValueError(
                f"this network {'adds' if prior else 'has no'} prior: {'pass' if prior else 'do not pass'} prior_action"
            )

    def __call__(
        self, obs: np.ndarray, masks: np.ndarray, players: int, prior_action: np.ndarray | None = None
    ) -> tuple[torch.Tensor, np.ndarray, np.ndarray, torch.Tensor]:
        """``(legal logits float32[n, K], ids int64[n, K], valid bool[n, K], values float32[n])`` of host rows
        ``obs`` with legal ``masks`` (``bool[n, actions]``): row ``r``'s ``k``-th legal action is ``ids[r, k]``
        with logit ``logits[r, k]`` (the padding: ``valid`` False, id 0, :data:`NEG`). ``players``: every row's
        player count; ``prior_action``: the prior's choices (int64 ``[n]``), required exactly when the network
        has a prior."""
        self._check_prior(prior_action)
        net = self.net
        obs = self._host_rows(obs)
        words = self._words(self._host_masks(masks, obs.shape[0]))
        prior = np.zeros(0, np.int64) if prior_action is None else np.ascontiguousarray(prior_action, np.int64)
        if prior_action is not None and prior.shape != (obs.shape[0],):
            raise ValueError(f"prior_action must have shape ({obs.shape[0]},), got {prior.shape}")
        gain = np.float32(net.prior_gain.item()) if prior_action is not None else np.float32(0.0)
        n = obs.shape[0]
        self._reserve(n, words.shape[1] * 8)
        width = self._legal_rows(obs, words, players, prior, gain)
        logits = torch.from_numpy(self._out[:n, :width])
        return logits, self._ids[:n, :width], self._valid[:n, :width], torch.from_numpy(self._v[:n])

    def _legal_rows(self, obs: np.ndarray, words: np.ndarray, players: int, prior: np.ndarray, gain: Any) -> int:
        """The legal logits, ids and valid flags of rows ``obs`` into this object's buffers (room reserved) and
        their values, as :func:`~ohmygoods_agents._sparse_kernels.legal_head` writes them; returns the width
        used. Here: :meth:`features`, then the heads; a form may do both in one kernel."""
        from ._sparse_kernels import legal_head

        h = self.features(obs, players)
        pw, pb, vw, vb = self._heads()
        return int(legal_head(h.numpy(), pw, pb, vw, vb, words, prior, gain, self._ids, self._valid, self._out,
                              self._v))  # fmt: skip

    def values(self, obs: np.ndarray, players: int) -> torch.Tensor:
        """The value head's outputs for host rows ``obs`` (``float32[n]``)."""
        with torch.no_grad():
            return self.net.v(self.features(obs, players)).squeeze(1)

    def sample(self, logits: torch.Tensor, valid: np.ndarray, gen: torch.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One draw per row from legal ``logits`` (this object's output): ``(column int64[n], log-probability
        float32[n])``. The uniforms come from ``gen`` as :func:`~ohmygoods_agents.policy_agents.sample_masked`
        draws them (one per column), so a seed draws as there."""
        from ._sparse_kernels import sample_legal

        n = logits.shape[0]
        u = torch.rand(logits.shape, generator=gen)
        cols, logp = np.empty(n, np.int64), np.empty(n, np.float32)
        sample_legal(logits.numpy(), valid, u.numpy(), cols, logp)
        return cols, logp

    def rest_batch(self, obs: np.ndarray, lo: int, hi: int, slots: int = 0) -> dict[str, Any]:
        """The compressed rows of a rollout's ``obs`` outside its columns ``lo:hi`` (none: ``lo == hi``), in
        buffers of this object reused from one rollout to the next (room for ``slots`` slot records too), as
        ``{"idx", "val", "offs", "feats", "where"}`` arrays with the entry count ``"entries"``."""
        from ._sparse_kernels import rest_entries

        n, d = obs.shape
        width = d - (hi - lo)
        b = self._batch_buffers
        if b.get("rows", -1) < n or b.get("width", -1) != width or b.get("slots", -1) < slots:  # else reused
            b.update(rows=n, width=width, slots=slots, idx=np.empty(n * width, np.int64),
                     val=np.empty(n * width, np.float32), offs=np.empty(n + 1, np.int64))  # fmt: skip
            if slots:
                from ohmygoods_env import layout as L

                b.update(feats=np.empty((slots, L.SLOT_FEATURES), np.float32), where=np.empty(slots, np.int64))
        b["entries"] = rest_entries(obs, lo, hi, b["idx"], b["val"], b["offs"])
        return b

    def train_forward(
        self,
        sb: SparseBatch,
        rows: np.ndarray,
        ids: torch.Tensor,
        valid: torch.Tensor,
        prior_action: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(legal logits [m, K], values [m])`` of the samples ``rows`` of ``sb`` with gradients to the network's
        parameters: the dense forward's numbers up to float rounding, at the columns ``ids`` (``[m, K]``,
        ``ohmygoods_training.fast_ppo.legal_index``; :data:`NEG` where ``valid`` is False)."""
        net = self.net
        rows = np.ascontiguousarray(rows, np.int64)
        if rows.ndim != 1 or (rows.size and not (0 <= rows.min() and rows.max() < sb.n)):
            raise ValueError(f"rows must be sample ids in [0, {sb.n}) of the batch, got {rows.shape} rows")
        if ids.shape != valid.shape or ids.shape[0] != rows.size:
            raise ValueError(f"ids and valid must both have shape ({rows.size}, K), got {ids.shape} and {valid.shape}")
        h = self.train_features(sb, rows)
        r, c = valid.nonzero(as_tuple=True)
        a = ids[r, c]
        legal = LegalLogits.apply(h, net.pi.weight, net.pi.bias, r.numpy(), a.numpy())
        if getattr(net, "prior", None) is not None:
            if prior_action is None:
                raise ValueError(f"this network adds the {net.prior} agent's choice to its logits: pass prior_action")
            legal = legal + net.prior_gain * (a == prior_action[r]).to(legal.dtype)
        logits = torch.full(ids.shape, NEG, dtype=legal.dtype).index_put((r, c), legal)
        return logits, net.v(h).squeeze(1)

    @staticmethod
    def gather(sb: SparseBatch, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """A minibatch's compressed rows and slot records from a rollout's (``gather_rows``): ``(idx, val, offs,
        slot indices, slot destinations)``."""
        from ._sparse_kernels import gather_rows

        m = rows.size
        width = int(sb.offs[rows + 1].sum() - sb.offs[rows].sum())
        n_slots = int(sb.slot_offs[rows + 1].sum() - sb.slot_offs[rows].sum())
        idx, val, offs = np.empty(width, np.int64), np.empty(width, np.float32), np.empty(m + 1, np.int64)
        sel, dest = np.empty(n_slots, np.int64), np.empty(n_slots, np.int64)
        gather_rows(rows, sb.offs, sb.idx, sb.val, sb.slot_offs, sb.where, idx, val, offs, sel, dest)
        return idx, val, offs, sel, dest


__all__ = ["NEG", "LegalLogits", "RowsProduct", "SparseBatch", "SparseHeads", "rows_product"]
