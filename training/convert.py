"""Checkpoint tools of training: SB3 zips to the safe policy format, and checkpoints between layouts.

* :func:`read_sb3_zip` / :func:`export_sb3` — the actor of a MaskablePPO zip as a policy
  checkpoint (:mod:`ohmygoods_agents.checkpoint`) **without** unpickling anything
  (``policy.pth`` through ``torch.load(weights_only=True)``, ``data`` as plain JSON).
* :func:`convert_checkpoint` maps a checkpoint to the current layout by block and action-range
  name: columns of blocks present in both are copied (a block that grew keeps its old entries
  first, as the layout appends new entries at the end), new observation columns are zero, and
  new actions get zero weights and a bias of :data:`NEW_ACTION_BIAS`, so they are chosen only
  when nothing else is legal. Blocks that were renamed or split map through
  :data:`BLOCK_PIECES`. :func:`verify_conversion` checks that the converted policy acts like
  the original on positions the layout change leaves alone.

Command line: ``python -m ohmygoods_training.export`` (``sb3``, ``convert``, ``verify``).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from ohmygoods_agents.checkpoint import (
    MAX_DESCRIPTION_BYTES,
    MAX_WEIGHTS_BYTES,
    CheckpointError,
    agent_from_tensors,
    current_layout,
    mlp_sizes,
    read_checkpoint,
    same_layout,
    save_checkpoint,
    sb3_actor_tensors,
)

from ohmygoods_env.framework.files import BadJSON, loads_bounded

#: bias of actions a converted network never saw: far below any trained logit
NEW_ACTION_BIAS = -1.0e9

__all__ = [
    "BLOCK_PIECES",
    "NEW_ACTION_BIAS",
    "column_map",
    "convert_checkpoint",
    "convert_tensors",
    "export_sb3",
    "read_sb3_zip",
    "verify_conversion",
]


# ===================================================================== SB3 zips (no unpickling)


def read_sb3_zip(path: str | Path) -> tuple[dict[str, np.ndarray], str, dict[str, Any]]:
    """``(tensors, activation, facts)`` of a MaskablePPO zip, without unpickling anything.

    ``policy.pth`` is read with ``torch.load(weights_only=True)`` (tensors only); ``data`` is
    parsed as JSON and only its plain entries are used (``policy_kwargs.activation_fn`` as
    text, the observation shape, ``num_timesteps``): the ``":serialized:"`` pickles are never
    touched.
    """
    import torch

    p = Path(path)
    try:
        with zipfile.ZipFile(p) as z:
            for name, most in (("data", MAX_DESCRIPTION_BYTES * 16), ("policy.pth", MAX_WEIGHTS_BYTES)):
                if z.getinfo(name).file_size > most:  # the size it unpacks to, read before unpacking
                    raise CheckpointError(f"{str(p)!r}: {name} unpacks to more than {most} bytes")
            data = loads_bounded(z.read("data"), max_digits=64, allow_nan=True)
            if not isinstance(data, dict):
                raise CheckpointError(f"{str(p)!r}: 'data' is not a JSON object")
            with z.open("policy.pth") as f:
                import io

                state = torch.load(io.BytesIO(f.read(MAX_WEIGHTS_BYTES + 1)), map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, KeyError, BadJSON) as exc:
        raise CheckpointError(f"{str(p)!r} is not a Stable-Baselines3 zip with 'data' and 'policy.pth': {exc}") from exc
    except Exception as exc:  # torch's weights-only unpickler refuses anything but tensors
        raise CheckpointError(f"{str(p)!r}: policy.pth is not a plain tensor file: {exc}") from exc

    def entry(key: str) -> dict:
        value = data.get(key)
        return value if isinstance(value, dict) else {}

    act = entry("policy_kwargs").get("activation_fn")
    tensors, activation = sb3_actor_tensors(state, act if isinstance(act, str) else None)
    facts = {
        "num_timesteps": data.get("num_timesteps"),
        "policy_class": str(entry("policy_class").get(":type:")),
    }
    shape = entry("observation_space").get("_shape")
    if isinstance(shape, str):
        facts["observation_shape"] = shape
    return tensors, activation, facts


def export_sb3(src: str | Path, dst: str | Path, layout: dict[str, Any] | None = None, **fields: Any) -> Path:
    """Write the actor of the MaskablePPO zip ``src`` as the checkpoint ``dst`` (nothing is unpickled)."""
    tensors, activation, facts = read_sb3_zip(src)
    layout = current_layout() if layout is None else layout
    sizes = mlp_sizes(tensors, repr(str(src)))
    if sizes[0] != layout["obs_dim"] or sizes[-1] != layout["n_actions"]:
        raise CheckpointError(
            f"{str(src)!r} maps {sizes[0]} -> {sizes[-1]}; the layout has {layout['obs_dim']} features and "
            f"{layout['n_actions']} actions (export it with the layout it was trained on)"
        )
    return save_checkpoint(dst, tensors, activation, layout, source={"sb3_zip": Path(src).name, **facts}, **fields)


# ===================================================================== conversion between layouts


#: Observation blocks whose name changed between layouts: old name -> pieces ``(new block,
#: first entry inside it, entries)`` that hold the old block's entries in order (same values).
#: v0 -> v1: scales moved out of the names, the player-count one-hot gained solo (entry 0),
#: the market block and the pending block were split into named parts.
BLOCK_PIECES: dict[str, tuple[tuple[str, int, int], ...]] = {
    "number of players 2/3/4, one-hot": (("number of players 1/2/3/4, one-hot", 1, 3),),
    "round / 20": (("round", 0, 1),),
    "deck size / 94, discard size / 94": (("deck size, discard size", 0, 2),),
    "my hand per resource / 5": (("my hand per resource", 0, 5),),
    "market row 1 and row 2 per resource / 5, half-suns per row / 2": (
        ("market row 1 and row 2 per resource", 0, 10),
        ("half-suns per market row", 0, 2),
    ),
    "pending: production slot (9), missing per resource (5), missing any, allowance, chain slot (9), "
    "chain must run, coins due / 20, payment purpose (3), assistant being hired (8)": (
        ("pending production slot, one-hot", 0, 9),
        ("pending missing resources", 0, 5),
        ("pending missing any", 0, 1),
        ("pending sloppy allowance", 0, 1),
        ("pending chain slot, one-hot", 0, 9),
        ("chain must run", 0, 1),
        ("coins due", 0, 1),
        ("payment purpose, one-hot (move, build, hire)", 0, 3),
        ("assistant being hired, one-hot", 0, 8),
    ),
    "per seat (me first): hand size / 10, buildings / 9, coins / 30, assistants / 4, VP / 30, "
    "has set-aside card, seat in play": (("per seat (me first) x player features (below)", 0, 28),),
    "per seat x slot: building features (see docs)": (("per seat x slot: building features (below)", 0, 1656),),
    "per assistant display position: features (see docs)": (
        ("per assistant display position: features (below)", 0, 104),
    ),
}


def column_map(src: list, dst: list, pieces: dict | None = None) -> tuple[np.ndarray, list[str], list[str]]:
    """``index[j]`` = source entry of destination entry ``j`` (-1: new); notes on new / resized / dropped blocks.

    A source block maps to the destination block of the same name (a block that grew keeps
    its entries first), else through ``pieces`` (:data:`BLOCK_PIECES`), else it is dropped.
    """
    pieces = BLOCK_PIECES if pieces is None else pieces
    dst_by_name = {n: (o, k) for n, o, k in dst}
    total = sum(k for _, _, k in dst)
    index = np.full(total, -1, np.int64)
    notes, dropped = [], []
    for n, so, sk in src:
        if n in dst_by_name:
            o, k = dst_by_name[n]
            if sk > k:
                raise CheckpointError(f"block {n!r} shrank from {sk} to {k} entries: no mapping by name")
            if sk < k:
                notes.append(f"grown: {n!r} {sk} -> {k} (old entries first)")
            index[o : o + sk] = np.arange(so, so + sk)
        elif n in pieces:
            cursor = so
            for new_name, start, count in pieces[n]:
                if new_name not in dst_by_name or start + count > dst_by_name[new_name][1]:
                    raise CheckpointError(
                        f"block {n!r} maps onto {new_name!r}[{start}:{start + count}], not in the layout"
                    )
                o = dst_by_name[new_name][0] + start
                index[o : o + count] = np.arange(cursor, cursor + count)
                cursor += count
            if cursor != so + sk:
                raise CheckpointError(f"block {n!r} has {sk} entries, its pieces cover {cursor - so}")
            notes.append(f"renamed: {n!r} -> " + ", ".join(repr(p[0]) for p in pieces[n]))
        else:
            dropped.append(f"dropped: {n!r} ({sk})")
    for n, o, k in dst:
        filled = int((index[o : o + k] >= 0).sum())
        if filled == 0:
            notes.append(f"new: {n!r} ({k})")
        elif filled < k and n not in {x for x, _, _ in src}:
            notes.append(f"partly new: {n!r} ({k - filled} of {k} entries)")
    return index, notes, dropped


def _map_actions(w: np.ndarray, b: np.ndarray, act_idx: np.ndarray, n_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """The action head's rows in the new action order; new actions get zero weights and :data:`NEW_ACTION_BIAS`."""
    new_w = np.zeros((n_actions, w.shape[1]), np.float32)
    new_b = np.full(n_actions, NEW_ACTION_BIAS, np.float32)
    have = act_idx >= 0
    new_w[have] = w[act_idx[have]]
    new_b[have] = b[act_idx[have]]
    return new_w, new_b


def _slotnet_trunk(w: np.ndarray, obs_idx: np.ndarray, src: dict[str, Any], dst: dict[str, Any]) -> np.ndarray:
    """A slotnet's first trunk layer in the new layout: its columns are the observation without
    the slot block (mapped like an MLP's first layer), then the slot encodings (unchanged)."""
    from ohmygoods_agents.slotnet import SLOT_BLOCK, layout_dims

    try:
        src_dim, so, src_rest, _ = layout_dims(src)
        dst_dim, do, dst_rest, _ = layout_dims(dst)
    except ValueError as exc:
        raise CheckpointError(f"a slotnet reads the block {SLOT_BLOCK!r}: {exc}") from exc
    k = src_dim - src_rest
    if not np.array_equal(obs_idx[do : do + k], np.arange(so, so + k)):
        raise CheckpointError(f"the block {SLOT_BLOCK!r} must map onto itself to convert a slotnet")
    rest = np.r_[0:do, do + k : dst_dim]
    src_pos = obs_idx[rest]
    have = np.flatnonzero(src_pos >= 0)
    src_col = np.where(src_pos < so, src_pos, src_pos - k)[have]
    new = np.zeros((w.shape[0], dst_rest + w.shape[1] - src_rest), np.float32)
    new[:, have] = w[:, src_col]
    new[:, dst_rest:] = w[:, src_rest:]
    return new


def convert_tensors(
    tensors: dict[str, np.ndarray], src: dict[str, Any], dst: dict[str, Any], network: dict[str, Any] | None = None
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Map a network from layout ``src`` to layout ``dst`` by block and action-range name.

    ``network`` is the checkpoint's description (an MLP when absent). Only the layers that
    read the observation (an MLP's first layer; a slotnet's first trunk layer) and the action
    head change; observation features new in ``dst`` get zero weights.
    """
    obs_idx, obs_notes, obs_drop = column_map(src["obs_blocks"], dst["obs_blocks"])
    act_idx, act_notes, act_drop = column_map(src["action_ranges"], dst["action_ranges"], {})
    out = {k: np.array(v, np.float32) for k, v in tensors.items()}
    if network is not None and network.get("kind") == "slotnet":
        out["trunk.0.weight"] = _slotnet_trunk(out["trunk.0.weight"], obs_idx, src, dst)
        head = ("pi.weight", "pi.bias")
    else:
        n = len(mlp_sizes(tensors, "tensors")) - 1
        w0 = out["layers.0.weight"]
        new_w0 = np.zeros((w0.shape[0], dst["obs_dim"]), np.float32)
        have = obs_idx >= 0
        new_w0[:, have] = w0[:, obs_idx[have]]
        out["layers.0.weight"] = new_w0
        head = (f"layers.{n - 1}.weight", f"layers.{n - 1}.bias")
    out[head[0]], out[head[1]] = _map_actions(out[head[0]], out[head[1]], act_idx, dst["n_actions"])
    notes = [f"observation {x}" for x in obs_notes + obs_drop] + [f"action {x}" for x in act_notes + act_drop]
    return out, notes


def convert_checkpoint(src: str | Path, dst: str | Path, layout: dict[str, Any] | None = None) -> tuple[Path, list]:
    """Write checkpoint ``src`` mapped to ``layout`` (default: the engine's) as ``dst``; ``(path, notes)``."""
    tensors, desc = read_checkpoint(src)
    target = current_layout() if layout is None else layout
    net = desc["network"]
    new, notes = convert_tensors(tensors, desc["layout"], target, net)
    fields = {k: v for k, v in desc.items() if k not in ("format", "format_version", "weights", "network", "layout")}
    history = list(fields.pop("conversions", []))
    history.append({"from": desc["layout"].get("version"), "to": target.get("version"), "notes": notes})
    slotnet = net if net.get("kind") == "slotnet" else None
    out = save_checkpoint(dst, new, net.get("activation", "relu"), target, slotnet, **fields, conversions=history)
    return out, notes


def verify_conversion(
    original: str | Path,
    converted: str | Path,
    positions: int = 300,
    seed: int = 0,
    max_games: int = 400,
    players: int | None = None,
) -> dict[str, int]:
    """Compare the actions of ``original`` and ``converted`` on positions of the current engine.

    Games (``omg2``, ``players`` seats: by default the checkpoint's ``players``, else 2) are
    played by the converted policy in every seat, one move in four random. A position
    counts when the original can choose every legal action (none is new to the layout).
    Its observation is mapped back to the original layout by name (features the original
    lacks are left out: the converted network gives them zero weight) and both networks
    choose deterministically, from the acting seat's information state where they have a
    prior. Returns ``{"positions", "agree", "skipped"}``.
    """
    from ohmygoods_env.engine import Game
    from ohmygoods_env.policy import info_state_of

    t_src, d_src = read_checkpoint(original)
    t_dst, d_dst = read_checkpoint(converted)
    if not same_layout(d_dst["layout"], current_layout()):
        raise CheckpointError(f"{str(converted)!r} is not in this engine's layout: convert it first")
    net_src, net_dst = d_src["network"], d_dst["network"]
    a = agent_from_tensors(t_src, net_src, layout=d_src["layout"])
    b = agent_from_tensors(t_dst, net_dst)
    obs_idx, _, _ = column_map(d_src["layout"]["obs_blocks"], d_dst["layout"]["obs_blocks"])
    act_idx, _, _ = column_map(d_src["layout"]["action_ranges"], d_dst["layout"]["action_ranges"], {})
    inv = {int(s): d for d, s in enumerate(act_idx) if s >= 0}
    n = int(players if players is not None else d_dst.get("players") or 2)
    rng = np.random.default_rng(seed)
    counted = agree = skipped = 0
    for g in range(max_games):
        game = Game(n, "omg2", seed=seed * 1_000_003 + g)
        while not game.done and counted < positions:
            p = game.current_player
            obs, mask, info = game.observe(p), game.legal_mask(), info_state_of(game.state, p)
            y = b.act(obs, mask, info)
            if mask[act_idx < 0].any():
                skipped += 1
            else:
                o_src = np.zeros(d_src["layout"]["obs_dim"], np.float32)
                m_src = np.zeros(d_src["layout"]["n_actions"], np.int8)
                o_src[obs_idx[obs_idx >= 0]] = obs[obs_idx >= 0]
                m_src[act_idx[act_idx >= 0]] = mask[act_idx >= 0]
                counted += 1
                agree += int(inv[a.act(o_src, m_src, info)] == y)
            game.step(int(rng.choice(np.flatnonzero(mask))) if rng.random() < 0.25 else y)
        if counted >= positions:
            break
    return {"positions": counted, "agree": agree, "skipped": skipped}
