"""Compiled pieces of :class:`~ohmygoods_agents.slotnet.SparseForward`: a slot network's inference over host rows
with its trunk's first layer read as a sparse product and its policy head over the legal actions only.

A mid-game observation row (2 players) has about 95 nonzero of its 600 inputs outside the slot block and
about 7 of its 18 slots hold a building; a row has 3.4 legal actions of 624 on average.
:func:`_slot_rows` (:data:`SLOT_ROWS`) is the inference of the rollout, the league's snapshots and the bootstrap
values: the whole forward in one call, the slot encoder on the slots that hold a building, each row's first
layer over its nonzero inputs, the second over the first's positive outputs, the legal actions' logits only.
:func:`present_slots` and :func:`trunk_entries` give :meth:`~ohmygoods_agents.slotnet.SparseForward.features`
(the trunk's features as a tensor: the slots that hold a building, then each row's nonzero first-layer inputs
in compressed-row form for ``torch.nn.functional.embedding_bag``); :func:`legal_head` the heads over the
legal actions from such features (every network's sparse form, ``sparse.SparseHeads``). The update's pieces
(:func:`rest_entries`, :func:`gather_rows`, :func:`rows_transposed_product`) read a rollout once and serve its
minibatches. Together they give the dense network's numbers up to float rounding (sums in another order)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ohmygoods_env import layout as L
from ohmygoods_env.framework import jit as _jit


@njit(cache=True, nogil=True)
def present_slots(obs, players, o_slots, feats, where):
    """The slots of ``obs`` (``float32[n, OBS_DIM]``) that hold a building (``present`` not 0), seats below
    ``players`` only, row by row: their features into ``feats`` (``[m, SLOT_FEATURES]``) and ``row * MAX_PLAYERS *
    MAX_SLOTS + seat * MAX_SLOTS + slot`` into ``where``. Returns ``m``."""
    n = obs.shape[0]
    S, F = L.MAX_SLOTS, L.SLOT_FEATURES
    m = 0
    for r in range(n):
        for p in range(min(players, L.MAX_PLAYERS)):
            for s in range(S):
                base = o_slots + (p * S + s) * F
                if obs[r, base + L.SF_PRESENT] != 0.0:
                    for j in range(F):
                        feats[m, j] = obs[r, base + j]
                    where[m] = (r * L.MAX_PLAYERS + p) * S + s
                    m += 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _rest_row(x, o_slots, slot_end, idx, val, c):
    """Row ``x``'s nonzero entries outside its columns ``o_slots:slot_end`` appended at ``c`` of ``idx`` (the
    column, those after the block shifted down to follow the ones before it) and ``val``, without a branch on
    the data (every entry is written, the count moves only past a nonzero); returns the new count."""
    for j in range(o_slots):
        v = x[j]
        idx[c] = j
        val[c] = v
        c += v != 0.0
    for j in range(slot_end, x.shape[0]):
        v = x[j]
        idx[c] = j - slot_end + o_slots
        val[c] = v
        c += v != 0.0
    return c


@njit(cache=True, nogil=True, inline="always")
def _append(idx, val, c, col0, v):
    """The entries of vector ``v`` at columns ``col0 + d`` appended at ``c`` of ``idx`` / ``val`` without a branch on
    the data (every entry is written, the count moves only past a nonzero); returns the new count."""
    for d in range(v.shape[0]):
        e = v[d]
        idx[c] = col0 + d
        val[c] = e
        c += e != 0.0
    return c


@njit(cache=True, nogil=True)
def trunk_entries(obs, o_slots, slot_end, enc, where, idx, val, offs):
    """The nonzero inputs of the trunk's first layer for each row of ``obs`` (``float32[n, OBS_DIM]``):
    entries ``offs[r]:offs[r + 1]`` of ``idx`` (the input column) and ``val`` (its value).

    The trunk's input is ``[rest, mine, others]`` (:meth:`SlotNet.features`): ``rest`` the observation
    without its slot block, ``mine`` the encodings of my slots in slot order, ``others`` each other seat's
    encodings summed. ``enc`` holds the encodings of the slots that hold a building (:func:`present_slots`
    found them, ``where`` says whose), in row order; every other slot's encoding is zeros. Written without
    branches on the data (fresh rows defeat the branch predictor). Returns the number of entries."""
    n, D = obs.shape
    S, embed = L.MAX_SLOTS, enc.shape[1]
    mine0 = D - (slot_end - o_slots)
    others0 = mine0 + S * embed
    acc = np.zeros((L.MAX_PLAYERS, embed), np.float32)
    c = 0
    q = 0
    for r in range(n):
        offs[r] = c
        c = _rest_row(obs[r], o_slots, slot_end, idx, val, c)
        acc[:] = 0.0
        while q < where.size and where[q] // (L.MAX_PLAYERS * S) == r:
            p, s = (where[q] // S) % L.MAX_PLAYERS, where[q] % S
            if p == 0:  # my slots in slot order: actions name them
                c = _append(idx, val, c, mine0 + s * embed, enc[q])
            else:
                for d in range(embed):
                    acc[p, d] += enc[q, d]
            q += 1
        for p in range(1, L.MAX_PLAYERS):
            c = _append(idx, val, c, others0 + (p - 1) * embed, acc[p])
    offs[n] = c
    return c


@njit(cache=True, nogil=True, inline="always")
def _dot(x, y, H):
    """``x . y`` over ``H`` entries as eight interleaved partial sums (lanes ``d % 8``) added in lane order:
    independent sums the compiler packs into one vector register, in an order fixed on every machine."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = np.float32(0.0)
    top = H - H % 8
    for d in range(0, top, 8):
        s0 += x[d] * y[d]
        s1 += x[d + 1] * y[d + 1]
        s2 += x[d + 2] * y[d + 2]
        s3 += x[d + 3] * y[d + 3]
        s4 += x[d + 4] * y[d + 4]
        s5 += x[d + 5] * y[d + 5]
        s6 += x[d + 6] * y[d + 6]
        s7 += x[d + 7] * y[d + 7]
    for d in range(top, H):
        s0 += x[d] * y[d]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(cache=True, nogil=True, inline="always")
def _legal_row(h, W, b, words, prior, gain, ids, valid, out):
    """One row's legal actions (``words``: its mask as ``uint64`` words) in action order: their ids, valid flags and
    logits ``W h + b`` (plus ``gain`` on action ``prior``; -1: none) from column 0 on; returns their count."""
    H = h.shape[0]
    k = 0
    for q in range(words.shape[0]):
        word = words[q]
        if word == 0:
            continue
        for a in range(8 * q, 8 * q + 8):
            if (word >> np.uint64(8 * (a - 8 * q))) & np.uint64(0xFF):
                z = _dot(h, W[a], H) + b[a]
                if a == prior:
                    z += gain
                ids[k] = a
                valid[k] = True
                out[k] = z
                k += 1
    return k


@njit(cache=True, nogil=True)
def _pad_rows(counts, ids, valid, out):
    """Pad every row after its ``counts[r]`` legal actions up to the largest count (at least 1): id 0, ``valid``
    False, a ``-1e9`` logit. Returns that width."""
    k_max = 1
    for r in range(counts.size):
        k_max = max(k_max, counts[r])
    for r in range(counts.size):
        for q in range(counts[r], k_max):
            ids[r, q] = 0
            valid[r, q] = False
            out[r, q] = np.float32(-1e9)
    return k_max


@njit(cache=True, nogil=True)
def legal_head(h, W, b, Wv, bv, words, prior, gain, ids, valid, out, values):
    """The policy logits of each row's legal actions, in action order: ``out[r, k]`` is the logit of action
    ``ids[r, k]`` (``W h + b``, plus ``gain`` when it is the row's ``prior`` action; ``prior`` empty: no
    prior), and the value head's output ``Wv h + bv`` into ``values``. ``words``: the legal masks
    (``bool[n, A]``, ``A`` a multiple of 8) viewed as ``uint64[n, A / 8]``, so that a row's illegal actions
    are passed over eight at a time. Returns the width used, ``K`` (the largest legal count, at least 1):
    columns ``:K`` are written, a row's padding after its legal actions with id 0, ``valid`` False and a
    ``-1e9`` logit."""
    n = words.shape[0]
    H = h.shape[1]
    counts = np.empty(n, np.int64)
    for r in range(n):
        values[r] = _dot(h[r], Wv[0], H) + bv[0]
        pr = prior[r] if prior.size else -1
        counts[r] = _legal_row(h[r], W, b, words[r], pr, gain, ids[r], valid[r], out[r])
    return _pad_rows(counts, ids, valid, out)


@njit(cache=True, nogil=True, inline="always")
def _axpy_entries(acc, w, idx, val, c):
    """``acc += sum_e val[e] * w[idx[e]]`` over entries ``:c``, four entries a pass (one load and store of
    ``acc`` for four rows of ``w``; the four products added pairwise, then to ``acc``), in entry order."""
    H = acc.shape[0]
    e = 0
    while e + 4 <= c:
        v0, v1, v2, v3 = val[e], val[e + 1], val[e + 2], val[e + 3]
        w0, w1, w2, w3 = w[idx[e]], w[idx[e + 1]], w[idx[e + 2]], w[idx[e + 3]]
        for o in range(H):
            acc[o] += (v0 * w0[o] + v1 * w1[o]) + (v2 * w2[o] + v3 * w3[o])
        e += 4
    while e < c:
        v, wr = val[e], w[idx[e]]
        for o in range(H):
            acc[o] += v * wr[o]
        e += 1


@njit(cache=True, nogil=True, inline="always")
def _column_layer(t, b, wt, d, x, m):
    """Output ``d`` of a layer (``wt``: its ``[inputs, outputs]`` weight, ``b`` that output's bias) for ``m``
    inputs side by side (``x[j, q]``: input ``q``'s ``j``-th value): ``t[q] = b + sum_j wt[j, d] x[j, q]``, in
    ``j`` order."""
    for q in range(m):
        t[q] = b
    for j in range(x.shape[0]):
        w, f = wt[j, d], x[j]
        for q in range(m):
            t[q] += w * f[q]


#: rows of one task of :func:`_slot_rows` (its slots encoded together, its scratch arrays made once)
ROW_CHUNK = 16


@_jit.twin
def _slot_rows(obs, words, players, o_slots, w1t, b1, w2t, b2, w0t, b0, wt2t, bt2, pw, pb, vw, vb, prior, gain,
               ids, valid, out, values, counts):  # fmt: skip
    """A :class:`~ohmygoods_agents.slotnet.SlotNet`'s values and legal logits for the rows of ``obs``
    (``float32[n, OBS_DIM]``, every row a ``players``-player game) in one pass, as :func:`legal_head` writes
    them (``words``: the legal masks as ``uint64`` words; ``prior`` empty or the prior's action per row, its
    logit raised by ``gain``); ``counts``: each row's legal count. Returns the width used (the largest legal
    count, at least 1).

    One task per :data:`ROW_CHUNK` rows: the slot encoder on its rows' slots that hold a building, all of them
    at once with the slots along the inner loop; then, row by row, the trunk's first layer over the row's
    nonzero inputs (the observation outside the slot block, its own slots' encodings in slot order, each other
    seat's summed), the second layer over the first's positive outputs, and the heads. The weights are
    ``[inputs, outputs]`` rows (``w1t``, ``w2t``, ``w0t``, ``wt2t``) and the heads' ``[outputs, inputs]``
    (``pw``, ``vw``). A row's numbers are added in one order whatever its batch and the thread count, and
    equal the dense network's up to float rounding."""
    n, D = obs.shape
    S, F = L.MAX_SLOTS, L.SLOT_FEATURES
    E, H = b1.shape[0], b0.shape[0]
    seats = min(players, L.MAX_PLAYERS)
    slot_end = o_slots + L.MAX_PLAYERS * S * F
    mine0 = D - (slot_end - o_slots)
    others0 = mine0 + S * E
    width = max(mine0 + (S + L.MAX_PLAYERS - 1) * E, H)  # a row's entries of either layer
    cap = ROW_CHUNK * seats * S
    for ch in prange((n + ROW_CHUNK - 1) // ROW_CHUNK):
        r0, r1 = ch * ROW_CHUNK, min(n, (ch + 1) * ROW_CHUNK)
        ft = np.empty((F, cap), np.float32)  # the features of the task's slots that hold a building, as columns
        ht = np.empty((E, cap), np.float32)
        enc = np.empty((cap, E), np.float32)
        u = np.empty(cap, np.float32)
        idx = np.empty(width, np.int64)
        val = np.empty(width, np.float32)
        oth = np.empty(E, np.float32)
        acc = np.empty(H, np.float32)
        h = np.empty(H, np.float32)
        m = 0
        for r in range(r0, r1):
            for p in range(seats):
                for s in range(S):
                    base = o_slots + (p * S + s) * F
                    if obs[r, base + L.SF_PRESENT] != 0.0:
                        for j in range(F):
                            ft[j, m] = obs[r, base + j]
                        m += 1
        for d in range(E):
            t = ht[d]
            _column_layer(t, b1[d], w1t, d, ft, m)
            for q in range(m):
                t[q] = max(t[q], np.float32(0.0))
        for d in range(E):
            _column_layer(u, b2[d], w2t, d, ht, m)
            present = ft[L.SF_PRESENT]
            for q in range(m):
                enc[q, d] = max(u[q], np.float32(0.0)) * present[q]
        q = 0
        for r in range(r0, r1):
            x = obs[r]
            c = _rest_row(x, o_slots, slot_end, idx, val, 0)
            for p in range(seats):
                oth[:] = 0.0
                for s in range(S):
                    if x[o_slots + (p * S + s) * F + L.SF_PRESENT] != 0.0:
                        if p == 0:  # my slots in slot order: actions name them
                            c = _append(idx, val, c, mine0 + s * E, enc[q])
                        else:
                            for d in range(E):
                                oth[d] += enc[q, d]
                        q += 1
                if p > 0:
                    c = _append(idx, val, c, others0 + (p - 1) * E, oth)
            acc[:] = b0
            _axpy_entries(acc, w0t, idx, val, c)
            for i in range(H):
                acc[i] = max(acc[i], np.float32(0.0))
            c = _append(idx, val, 0, 0, acc)
            h[:] = bt2
            _axpy_entries(h, wt2t, idx, val, c)
            for o in range(H):
                h[o] = max(h[o], np.float32(0.0))
            values[r] = _dot(h, vw[0], H) + vb[0]
            pr = prior[r] if prior.size else -1
            counts[r] = _legal_row(h, pw, pb, words[r], pr, gain, ids[r], valid[r], out[r])
    return _pad_rows(counts[:n], ids, valid, out)


#: :func:`_slot_rows` on one thread or on all of numba's, whichever has been faster (``framework.jit.Timed``)
SLOT_ROWS = _jit.Timed(_slot_rows)


@njit(cache=True, nogil=True)
def sample_legal(logits, valid, u, actions, logp):
    """One draw per row from the softmax of its legal ``logits`` (``valid`` columns; Gumbel-max with the
    uniforms ``u``, as :func:`~ohmygoods_agents.policy_agents.sample_masked` draws): the chosen column into
    ``actions`` and its log-probability into ``logp``."""
    n, K = logits.shape
    for r in range(n):
        best, top, peak = -1, -np.inf, -np.inf
        for k in range(K):
            if valid[r, k]:
                x = logits[r, k]
                g = x - np.log(-np.log(max(u[r, k], np.float32(1e-20))))
                if g > top:
                    best, top = k, g
                peak = max(peak, x)
        total = 0.0
        for k in range(K):
            if valid[r, k]:
                total += np.exp(logits[r, k] - peak)
        actions[r] = best
        logp[r] = logits[r, best] - peak - np.log(total)


@njit(cache=True, nogil=True)
def rest_entries(obs, o_slots, slot_end, idx, val, offs):
    """The nonzero observation inputs of each row outside the slot block (the trunk's ``rest`` columns), in
    compressed-row form: entries ``offs[r]:offs[r + 1]`` of ``idx`` (the trunk column) and ``val``. Returns the
    number of entries."""
    n = obs.shape[0]
    c = 0
    for r in range(n):
        offs[r] = c
        c = _rest_row(obs[r], o_slots, slot_end, idx, val, c)
    offs[n] = c
    return c


@_jit.twin
def _gather_rows(rows, offs, idx, val, slot_offs, where, out_idx, out_val, out_offs, out_slots, out_dest, slot_at):
    """:func:`gather_rows` with ``slot_at`` (``int64[len(rows)]``) as scratch: each row's place in the outputs
    first (one pass), then the rows copied side by side. Returns ``(entries, slots)``."""
    S = L.MAX_SLOTS
    blocks = S + L.MAX_PLAYERS - 1
    m = rows.size
    entries = 0
    slots = 0
    for q in range(m):
        r = rows[q]
        out_offs[q] = entries
        slot_at[q] = slots
        entries += offs[r + 1] - offs[r]
        slots += slot_offs[r + 1] - slot_offs[r]
    out_offs[m] = entries
    for q in prange(m):
        r = rows[q]
        c = out_offs[q]
        for e in range(offs[r], offs[r + 1]):
            out_idx[c] = idx[e]
            out_val[c] = val[e]
            c += 1
        k = slot_at[q]
        for t in range(slot_offs[r], slot_offs[r + 1]):
            p, s = (where[t] // S) % L.MAX_PLAYERS, where[t] % S
            out_slots[k] = t
            out_dest[k] = q * blocks + (s if p == 0 else S + p - 1)
            k += 1
    return entries, slots


#: :func:`_gather_rows` on one thread or numba's, whichever has been faster (``framework.jit.Timed``)
GATHER_ROWS = _jit.Timed(_gather_rows)


def gather_rows(rows, offs, idx, val, slot_offs, where, out_idx, out_val, out_offs, out_slots, out_dest):
    """A minibatch's entries from a rollout's (:func:`rest_entries`, :func:`present_slots` over every sample):
    for each of ``rows`` (sample ids) its rest entries into ``out_idx`` / ``out_val`` / ``out_offs``, and its
    slots that hold a building: their index in the rollout's list (``out_slots``) and where their encoding goes
    in the minibatch's ``[rows, MAX_SLOTS + MAX_PLAYERS - 1]`` blocks (``out_dest``: my slot ``s`` at block
    ``s``, another seat ``p`` at block ``MAX_SLOTS + p - 1``, summed there). Returns ``(entries, slots)``."""
    entries, slots = GATHER_ROWS(rows.size, rows, offs, idx, val, slot_offs, where, out_idx, out_val, out_offs,
                                 out_slots, out_dest, np.empty(rows.size, np.int64))  # fmt: skip
    return int(entries), int(slots)


@njit(cache=True, nogil=True)
def rows_transposed_product(idx, val, offs, grad, out):
    """``out = Xᵀ grad`` for the compressed rows ``X`` (``idx`` / ``val`` / ``offs``, one row per row of ``grad``):
    the first layer's weight gradient of :meth:`~ohmygoods_agents.slotnet.SparseForward.train_forward`, each
    entry's row of ``grad`` scaled into its column's row of ``out`` (zeroed first), entries in row order."""
    out[:] = 0.0
    H = grad.shape[1]
    for r in range(offs.size - 1):
        g = grad[r]
        for e in range(offs[r], offs[r + 1]):
            v = val[e]
            o = out[idx[e]]
            for d in range(H):
                o[d] += v * g[d]


@njit(cache=True, nogil=True)
def legal_dots(h, W, b, rows, acts, out):
    """The update's legal logits: ``out[l] = W[acts[l]] . h[rows[l]] + b[acts[l]]`` (no ``[L, H]`` products
    in memory), each dot as eight interleaved sums (:func:`_dot`)."""
    H = h.shape[1]
    for e in range(rows.size):
        out[e] = _dot(h[rows[e]], W[acts[e]], H) + b[acts[e]]


@njit(cache=True, nogil=True)
def legal_dots_backward(g, h, W, rows, acts, gh, gW, gb):
    """The gradients of :func:`legal_dots` for the upstream ``g``: into ``gh`` (``h``'s), ``gW`` and ``gb``
    (zeroed first), entries in order."""
    gh[:] = 0.0
    gW[:] = 0.0
    gb[:] = 0.0
    H = h.shape[1]
    for e in range(rows.size):
        ge = g[e]
        hr, wa, ghr, gwa = h[rows[e]], W[acts[e]], gh[rows[e]], gW[acts[e]]
        for d in range(H):
            ghr[d] += ge * wa[d]
            gwa[d] += ge * hr[d]
        gb[acts[e]] += ge


_jit.register(globals(), L)
