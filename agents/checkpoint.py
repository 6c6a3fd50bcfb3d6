"""Policy checkpoints that run no code when loaded: the file format, loading, and the shipped list.

A checkpoint is two files side by side:

``NAME.json``
    the description: ``format`` (``"ohmygoods-policy"``), ``format_version``, ``weights``
    (the file name of the weights, in the same folder), ``network`` (``kind`` ``"mlp"``,
    layer ``sizes`` from the observation to the action logits, ``activation``), ``layout``
    (the observation/action layout the network was trained on: ``version``, ``obs_dim``,
    ``obs_blocks`` ``[name, offset, size]``, ``n_actions``, ``action_ranges``
    ``[name, start, size]``), optionally ``players`` (the one player count the network was
    trained for, an int; absent: any count of its game), and free-form ``card`` data
    (training command, evaluation);
``NAME.safetensors``
    the weights, tensors ``layers.K.weight`` / ``layers.K.bias`` (safetensors holds raw
    arrays and a JSON header: loading it cannot execute code).

:func:`load_policy` reads a checkpoint (every field checked before any tensor is allocated)
and builds the agent of its network kind (:func:`agent_from_tensors`:
:class:`~ohmygoods_agents.policy_agents.MLPAgent` or
:class:`~ohmygoods_agents.policy_agents.SlotNetAgent`, the policy agents of
:mod:`ohmygoods_agents.policy_agents`); only with ``trust_pickle=True`` does it load a
Stable-Baselines3 ``.zip``: SB3 unpickles the ``":serialized:"`` entries of such a zip, so
loading one can run any code it carries. :func:`shipped_checkpoints` lists the agents shipped
as package data.

Turning an SB3 zip into a checkpoint without unpickling anything and converting a checkpoint
between observation/action layouts are training tools: :mod:`ohmygoods_training.convert`
(command line: ``python -m ohmygoods_training.export`` ``sb3``, ``convert``, ``verify``).
"""

from __future__ import annotations

import hashlib
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ohmygoods_env import layout as L
from ohmygoods_env.framework.files import BadJSON, loads_bounded, read_json_file, write_atomic

from .policy_agents import (
    CheckpointError,
    MLPAgent,
    PolicyAgent,
    SlotNetAgent,
    build_network,
    current_layout,
    require_play,
    sb3_actor_tensors,
)

FORMAT = "ohmygoods-policy"
FORMAT_VERSION = 1
ACTIVATIONS: tuple[str, ...] = ("tanh", "relu", "elu", "leaky_relu", "gelu", "silu")
CONVERT_COMMAND = "python -m ohmygoods_training.export convert IN.json OUT.json"
#: limits a checkpoint must keep, checked before anything is allocated
MAX_DESCRIPTION_BYTES = 1 << 20  # the JSON description
MAX_WEIGHTS_BYTES = 1 << 30  # the safetensors file
MAX_WIDTH = 4096  # a hidden layer's width (mlp sizes between the ends, slotnet hidden and embed)
MAX_LAYERS = 16  # linear layers of an mlp
MAX_FEATURES = 1 << 16  # observation features, actions, any tensor dimension
MAX_PLAYERS = 16  # the ``players`` a checkpoint may name


class UntrustedCheckpointError(CheckpointError):
    """An SB3 ``.zip`` was given without the explicit opt-in: loading one can run code."""


def untrusted_zip_message(path: str | Path) -> str:
    return (
        f"{str(path)!r} is a Stable-Baselines3 zip: loading it unpickles the ':serialized:' entries of its "
        "'data' file, which can run any code the file carries. Convert it once to the safe format "
        "(python -m ohmygoods_training.export sb3 ZIP OUT.json) and load OUT.json, or, only for a file you trust, "
        "opt in: make_agent('sb3:PATH', trust_pickle=True)"
    )


# ===================================================================== layouts


def same_layout(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two layout descriptions have the same blocks, sizes and action ranges (the version aside)."""
    keys = ("obs_dim", "obs_blocks", "n_actions", "action_ranges")
    return all(json.loads(json.dumps(a.get(k))) == json.loads(json.dumps(b.get(k))) for k in keys)


def _check_blocks(blocks: Any, total: Any, what: str, where: str) -> list[tuple[str, int, int]]:
    if not isinstance(total, int) or isinstance(total, bool) or not 0 < total <= MAX_FEATURES:
        raise CheckpointError(f"{where}: layout {what} size must be an int in 1..{MAX_FEATURES}, got {total!r}")
    if not isinstance(blocks, list) or len(blocks) > total:
        raise CheckpointError(
            f"{where}: layout {what} blocks must be a list of [name, offset, size], got {blocks!r}"[:300]
        )
    out, end = [], 0
    for b in blocks:
        ok = isinstance(b, list) and len(b) == 3 and isinstance(b[0], str)
        ok = ok and all(isinstance(x, int) and not isinstance(x, bool) for x in b[1:])
        if not ok or b[1] != end or b[2] < 0:
            raise CheckpointError(f"{where}: layout {what} block {b!r} is not [name, offset={end}, size>=0]")
        out.append((b[0], b[1], b[2]))
        end += b[2]
    if end != total:
        raise CheckpointError(f"{where}: layout {what} blocks cover {end} entries, the size says {total}")
    if len({n for n, _, _ in out}) != len(out):
        raise CheckpointError(f"{where}: layout {what} block names repeat")
    return out


# ===================================================================== save / load


def save_checkpoint(
    dst: str | Path,
    tensors: dict[str, np.ndarray],
    activation: str,
    layout: dict[str, Any] | None = None,
    network: dict[str, Any] | None = None,
    **fields: Any,
) -> Path:
    """Write ``dst`` (``.json``) and its ``.safetensors`` next to it; returns the JSON path.

    ``network`` describes a non-MLP network (``{"kind": "slotnet", "hidden", "embed"}``,
    :mod:`ohmygoods_agents.slotnet`); by default the tensors are an MLP's ``layers.K``.
    ``fields`` go to the top level of the description: ``players=N`` records the one player count
    the network was trained for (:func:`checkpoint_players`; None: not recorded), ``card=...``.
    """
    from safetensors.numpy import save

    dst = Path(dst).with_suffix(".json")
    if fields.get("players") is not None:
        _players(fields["players"], repr(str(dst)))
    else:
        fields.pop("players", None)
    layout = current_layout() if layout is None else layout
    if network is not None:
        _check_slotnet(tensors, network, str(dst), layout)
    else:
        network = {"kind": "mlp", "sizes": mlp_sizes(tensors, str(dst)), "activation": activation}
        network["output"] = "action logits"
    weights = dst.with_suffix(".safetensors")
    write_atomic(weights, save({k: np.ascontiguousarray(v, np.float32) for k, v in tensors.items()}))
    desc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "weights": weights.name,
        "network": network,
        "layout": layout,
        **fields,
    }
    write_atomic(dst, json.dumps(desc, indent=2) + "\n")
    return dst


def _check_slotnet(
    tensors: dict[str, Any], network: dict[str, Any], where: str, layout: dict[str, Any] | None = None
) -> None:
    """The tensors of a ``slotnet`` network have the names and shapes its widths and its
    layout (default: this engine's) give (:mod:`ohmygoods_agents.slotnet`)."""
    from .slotnet import PRIORS, expected_shapes, layout_dims

    try:
        layout_dims(layout)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {exc}: a slotnet reads that block") from exc

    hidden, embed, prior = network.get("hidden"), network.get("embed"), network.get("prior")
    if network.get("kind") != "slotnet" or not all(isinstance(x, int) and x > 0 for x in (hidden, embed)):
        raise CheckpointError(f"{where}: network must be {{kind: 'slotnet', hidden: int > 0, embed: int > 0}}")
    if prior is not None and prior not in PRIORS:
        raise CheckpointError(f"{where}: network prior {prior!r} is not one of {list(PRIORS)} (or absent)")
    want = expected_shapes(hidden, embed, prior, layout)
    got = {k: _shape(v) for k, v in tensors.items()}
    if got != want:
        diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
        raise CheckpointError(
            f"{where}: slotnet tensors differ from hidden={hidden}, embed={embed} on this layout: "
            + ", ".join(f"{k} {got.get(k)} (expected {want.get(k)})" for k in diff[:4])
        )


def _shape(v: Any) -> tuple[int, ...]:
    """The shape of an array, or a shape given as a tuple (:func:`weight_shapes`)."""
    return tuple(v) if isinstance(v, tuple) else tuple(v.shape)


def mlp_sizes(tensors: dict[str, Any], where: str) -> list[int]:
    """Layer widths of ``layers.K`` tensors (arrays or shapes), input first; the chain must fit."""
    k, sizes = 0, []
    while f"layers.{k}.weight" in tensors:
        w = _shape(tensors[f"layers.{k}.weight"])
        b = _shape(tensors[f"layers.{k}.bias"]) if f"layers.{k}.bias" in tensors else None
        if len(w) != 2 or b != (w[0],):
            raise CheckpointError(f"{where}: layers.{k} has weight {w} and bias {b}")
        if sizes and sizes[-1] != w[1]:
            raise CheckpointError(f"{where}: layers.{k} takes {w[1]} inputs, the layer before gives {sizes[-1]}")
        if not sizes:
            sizes.append(int(w[1]))
        sizes.append(int(w[0]))
        k += 1
    if k == 0:
        raise CheckpointError(f"{where}: no tensors layers.0.weight / layers.0.bias")
    extra = set(tensors) - {f"layers.{i}.{p}" for i in range(k) for p in ("weight", "bias")}
    if extra:
        raise CheckpointError(f"{where}: unexpected tensors {sorted(extra)[:5]}")
    return sizes


def read_description(p: str | Path) -> dict[str, Any]:
    """The checkpoint's JSON description ``p``, read within limits (size, depth, numbers) and of this format."""
    p = Path(p)
    where = repr(str(p))
    try:
        desc = read_json_file(p, max_bytes=MAX_DESCRIPTION_BYTES)
    except BadJSON as exc:
        raise CheckpointError(f"{where} is not a policy checkpoint description: {exc}") from None
    except OSError as exc:  # a folder, no permission
        raise CheckpointError(f"{where}: cannot read the checkpoint description ({exc.strerror or exc})") from None
    if not isinstance(desc, dict) or desc.get("format") != FORMAT:
        raise CheckpointError(f"{where} is not a policy checkpoint: expected a JSON object with format={FORMAT!r}")
    if desc.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{where}: format_version {desc.get('format_version')!r}, this code reads {FORMAT_VERSION}"
        )
    if "players" in desc:
        _players(desc["players"], where)
    return desc


def _players(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PLAYERS:
        raise CheckpointError(f"{where}: players must be an int in 1..{MAX_PLAYERS} (or absent), got {value!r}"[:300])
    return value


def description_players(desc: dict[str, Any]) -> int | None:
    """The one player count a checked description (:func:`read_description`) was trained for: its
    ``players``; a checkpoint written before ``players`` was recorded at the top (``ohmygoods train``'s
    earlier ``final.json``) gives its card's ``config.players``; None: any player count of its game."""
    if "players" in desc:
        return int(desc["players"])
    card = desc.get("card")
    config = card.get("config") if isinstance(card, dict) else None
    players = config.get("players") if isinstance(config, dict) else None
    if isinstance(players, int) and not isinstance(players, bool) and 1 <= players <= MAX_PLAYERS:
        return players
    return None


def game_layout(game: Any, num_players: int | None = None) -> dict[str, Any]:
    """The layout a checkpoint of ``game`` (a registered name or spec) records: the game's own where its tools
    declare one (``checkpoint_layout``, *Artificium*'s), else one block over its observation at ``num_players``
    (default: its fewest; Goofspiel's observation grows with the seats) and one range over its actions."""
    from ohmygoods_env.framework.game import game_tools, resolve_game

    spec = resolve_game(game)
    own = game_tools(spec).load("checkpoint_layout")
    if own is not None:
        return own()
    size = int(spec.obs_size(spec.min_players if num_players is None else num_players))
    return {
        "version": f"{spec.name}-v{spec.version}",
        "obs_dim": size,
        "obs_blocks": [["observation", 0, size]],
        "n_actions": int(spec.num_actions),
        "action_ranges": [["actions", 0, int(spec.num_actions)]],
    }


def game_ppo(
    arg: str | None = None, *, seed: int | None = None, game: Any = None, deterministic: bool = True, **kwargs: Any
) -> PolicyAgent:
    """``ppo:PATH`` for a game that ships no network of its own (the registry's generic ``ppo``; *Oh my Goods!*
    and *Artificium* name their own): a checkpoint ``ohmygoods train --game NAME`` wrote, checked against the
    game's layout at the player count the checkpoint records."""
    if game is None:
        raise TypeError("the generic ppo agent needs the game (make_agent passes it)")
    from ohmygoods_env.framework.game import resolve_game

    spec = resolve_game(game)
    if arg is None:
        raise ValueError(
            f"{spec.title} ships no network: name a checkpoint file, ppo:PATH (ohmygoods train --game {spec.name})"
        )
    if kwargs:
        raise TypeError(f"the ppo agent takes seed and deterministic only, got {sorted(kwargs)}")
    layout = game_layout(spec, checkpoint_players(arg))
    return load_policy(arg, seed=seed, deterministic=deterministic, layout=layout)


def checkpoint_players(path: str | Path) -> int | None:
    """The player count the checkpoint ``path`` (``NAME.json``) was trained for
    (:func:`description_players`); None when it names none. :class:`CheckpointError` for a file
    that is not a checkpoint description."""
    return description_players(read_description(Path(path).with_suffix(".json")))


def _width(value: Any, what: str, where: str, most: int = MAX_WIDTH) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise CheckpointError(f"{where}: {what} must be an int in 1..{most}, got {value!r}")
    return value


def _check_network(net: Any, where: str) -> None:
    """The ``network`` entry: a known kind with widths and depth within :data:`MAX_WIDTH` / :data:`MAX_LAYERS`."""
    if isinstance(net, dict) and net.get("kind") == "slotnet":
        _width(net.get("hidden"), "network hidden", where)
        _width(net.get("embed"), "network embed", where)
        return
    if not isinstance(net, dict) or net.get("kind") != "mlp" or net.get("activation") not in ACTIVATIONS:
        raise CheckpointError(
            f"{where}: network must be {{kind: 'mlp', sizes, activation in {list(ACTIVATIONS)}}} "
            "or {kind: 'slotnet', hidden, embed}"
        )
    sizes = net.get("sizes")
    if not isinstance(sizes, list) or not 2 <= len(sizes) <= MAX_LAYERS + 1:
        raise CheckpointError(f"{where}: network sizes must list 2..{MAX_LAYERS + 1} layer widths, got {sizes!r}"[:300])
    for k, n in enumerate(sizes):
        _width(n, f"network sizes[{k}]", where, MAX_FEATURES if k in (0, len(sizes) - 1) else MAX_WIDTH)


def weight_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of a safetensors file, from its header only (nothing else is read).

    Refused (:class:`CheckpointError`): a file over :data:`MAX_WEIGHTS_BYTES`, a header over
    1 MiB or not bounded JSON, a tensor that is not float32, a dimension over
    :data:`MAX_FEATURES`, offsets that do not tile the file's data exactly.
    """
    where = repr(str(path))
    size = path.stat().st_size
    if size > MAX_WEIGHTS_BYTES:
        raise CheckpointError(f"{where}: {size} bytes, more than the {MAX_WEIGHTS_BYTES} a policy may have")
    with open(path, "rb") as fh:
        head = fh.read(8)
        n = int.from_bytes(head, "little") if len(head) == 8 else -1
        if not 2 <= n <= min(1 << 20, size - 8):
            raise CheckpointError(f"{where} is not a safetensors weights file: header length {n}, file size {size}")
        try:
            header = loads_bounded(fh.read(n), max_depth=4)
        except BadJSON as exc:
            raise CheckpointError(f"{where} is not a safetensors weights file: its header: {exc}") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{where} is not a safetensors weights file: its header is not an object")
    shapes, spans = {}, []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        shape = info.get("shape") if isinstance(info, dict) else None
        span = info.get("data_offsets") if isinstance(info, dict) else None
        ok = isinstance(shape, list) and len(shape) <= 4 and isinstance(span, list) and len(span) == 2
        ok = ok and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_FEATURES for x in shape)
        ok = ok and all(isinstance(x, int) and not isinstance(x, bool) for x in span)
        if not ok or info.get("dtype") != "F32":
            raise CheckpointError(
                f"{where}: tensor {name!r} must be float32 with a shape and offsets, got {info!r}"[:300]
            )
        if span[1] - span[0] != 4 * math.prod(shape):
            raise CheckpointError(f"{where}: tensor {name!r} of shape {shape} has offsets {span}")
        shapes[name] = tuple(shape)
        spans.append(tuple(span))
    spans.sort()
    if any(a[1] != b[0] for a, b in zip(spans, spans[1:], strict=False)) or (spans and spans[0][0] != 0):
        raise CheckpointError(f"{where}: the tensors' offsets overlap or leave gaps")
    if (spans[-1][1] if spans else 0) != size - 8 - n:
        raise CheckpointError(f"{where}: the header describes {spans[-1][1] if spans else 0} bytes, the file holds "
                              f"{size - 8 - n}")  # fmt: skip
    return shapes


def read_checkpoint(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """``(tensors, description)`` of a checkpoint, every field checked; :class:`CheckpointError` names the problem.

    Everything is checked before any tensor is allocated: the description (within JSON limits,
    widths and depth within :data:`MAX_WIDTH` and :data:`MAX_LAYERS`) against the real shapes in
    the weight file's header (:func:`weight_shapes`); only then are the weights read.
    """
    p = Path(path)
    if p.suffix == ".zip":
        raise UntrustedCheckpointError(untrusted_zip_message(p))
    if p.suffix != ".json":
        p = p.with_suffix(".json")
    if not p.is_file():
        raise FileNotFoundError(f"no policy checkpoint at {str(path)!r} (expected NAME.json next to NAME.safetensors)")
    desc = read_description(p)
    where = repr(str(p))
    net, layout, wname = desc.get("network"), desc.get("layout"), desc.get("weights")
    _check_network(net, where)
    slotnet = net.get("kind") == "slotnet"
    if not isinstance(layout, dict):
        raise CheckpointError(f"{where}: no layout description")
    _check_blocks(layout.get("obs_blocks"), layout.get("obs_dim"), "observation", where)
    _check_blocks(layout.get("action_ranges"), layout.get("n_actions"), "action", where)
    if not isinstance(wname, str) or Path(wname).name != wname or not wname.endswith(".safetensors"):
        raise CheckpointError(
            f"{where}: weights must be a file name NAME.safetensors in the same folder, got {wname!r}"
        )
    wpath = p.parent / wname
    if not wpath.is_file():
        raise CheckpointError(f"{where}: its weights file {str(wpath)!r} is missing")
    shapes = weight_shapes(wpath)
    if slotnet:  # checked against its own layout: load_policy refuses one that is not this engine's
        _check_slotnet(shapes, net, repr(str(wpath)), layout)
    else:
        sizes = mlp_sizes(shapes, repr(str(wpath)))
        if sizes != net.get("sizes"):
            raise CheckpointError(
                f"{where}: the weights have layer sizes {sizes}, the description says {net.get('sizes')}"
            )
        if sizes[0] != layout["obs_dim"] or sizes[-1] != layout["n_actions"]:
            raise CheckpointError(
                f"{where}: the network maps {sizes[0]} -> {sizes[-1]}, the layout has {layout['obs_dim']} "
                f"observation features and {layout['n_actions']} actions"
            )
    return _load_weights(wpath), desc


def _load_weights(wpath: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file already checked by :func:`weight_shapes`; each must be finite."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        tensors = load_file(str(wpath))
    except (SafetensorError, OSError, ValueError) as exc:
        raise CheckpointError(f"{str(wpath)!r} is not a safetensors weights file: {exc}") from exc
    for k, v in tensors.items():
        if v.dtype != np.float32 or not np.isfinite(v).all():
            raise CheckpointError(f"{str(wpath)!r}: tensor {k} must be finite float32")
    return tensors


def load_policy(
    path: str | Path,
    *,
    seed: int | None = None,
    deterministic: bool = True,
    trust_pickle: bool = False,
    name: str | None = None,
    layout: dict[str, Any] | None = None,
) -> PolicyAgent:
    """The agent of a checkpoint ``NAME.json`` (or, with ``trust_pickle=True`` only, an SB3 ``.zip``).

    The checkpoint's layout must be ``layout`` (default: this engine's, :func:`current_layout`;
    another game passes its own), else :class:`CheckpointError` (with the converter command for
    this engine's layouts). ``seed`` seeds sampling when ``deterministic=False``. Without torch
    and safetensors, an ImportError says which extra to install (:func:`require_play`).
    """
    require_play()
    p = Path(path)
    if p.suffix == ".zip" or (not p.with_suffix(".json").exists() and p.with_suffix(".zip").exists()):
        zp = p if p.suffix == ".zip" else p.with_suffix(".zip")
        if trust_pickle is not True:
            raise UntrustedCheckpointError(untrusted_zip_message(zp))
        return _load_sb3_trusted(zp, seed=seed, deterministic=deterministic, name=name)
    tensors, desc = read_checkpoint(p)
    if layout is not None:
        if not same_layout(desc["layout"], layout):
            raise CheckpointError(
                f"{str(p)!r} was made for observation/action layout {desc['layout'].get('version')!r} "
                f"({desc['layout']['obs_dim']} features, {desc['layout']['n_actions']} actions); the game has "
                f"{layout.get('version')!r} ({layout['obs_dim']} features, {layout['n_actions']} actions)"
            )
    else:
        layout = desc["layout"]
        if not same_layout(layout, current_layout()):
            raise CheckpointError(
                f"{str(p)!r} was made for observation/action layout {layout.get('version')!r} "
                f"({layout['obs_dim']} features, {layout['n_actions']} actions); this engine has "
                f"{current_layout()['version']!r} ({L.OBS_DIM} features, {L.N_ACTIONS} actions). Convert it: "
                f"{CONVERT_COMMAND}"
            )
    agent = agent_from_tensors(
        tensors,
        desc["network"],
        layout=layout,
        name=name or str(desc.get("name") or f"ppo:{p.stem}"),
        deterministic=deterministic,
        seed=seed,
    )
    agent.checkpoint_path = p  # what the games files fingerprint (weights_fingerprint), read only there
    return agent


def weights_fingerprint(path: str | Path) -> str:
    """The first 16 hex digits of the SHA-256 of a checkpoint's weights file: two networks of one
    name (a retrained ``ppo``) have different fingerprints. :func:`load_policy` sets
    ``agent.checkpoint_path``; games files of evaluations and tournaments record the fingerprint of
    that path (:func:`ohmygoods_agents.tournament.agent_fingerprints`), so a rerun never keeps
    another network's games."""
    p = Path(path).with_suffix(".json")
    return hashlib.sha256((p.parent / read_description(p)["weights"]).read_bytes()).hexdigest()[:16]


def agent_from_tensors(
    tensors: dict[str, Any], network: dict[str, Any], *, layout: dict[str, Any] | None = None, **kwargs: Any
) -> PolicyAgent:
    """The policy agent of a checkpoint's tensors and ``network`` entry, by the network's kind (``mlp`` or
    ``slotnet``); ``layout`` is the one it reads (default: this engine's); ``kwargs`` go to the agent."""
    if network.get("kind") == "slotnet":
        return SlotNetAgent.from_tensors(tensors, network, layout=layout, **kwargs)
    return MLPAgent(tensors, network.get("activation", "relu"), layout=layout, **kwargs)


def _load_sb3_trusted(path: Path, *, seed: int | None, deterministic: bool, name: str | None) -> MLPAgent:
    """Load an SB3 zip through ``MaskablePPO.load`` (unpickles: the caller opted in)."""
    if not path.is_file():
        raise FileNotFoundError(f"no SB3 zip at {str(path)!r}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("loading an SB3 zip needs sb3-contrib: pip install -e '.[train]'") from exc
    model = MaskablePPO.load(str(path), device="cpu")
    shape = tuple(getattr(model.observation_space, "shape", ()) or ())
    if shape != (L.OBS_DIM,):
        raise CheckpointError(f"{str(path)!r} expects observations of shape {shape}, the game gives ({L.OBS_DIM},)")
    return MLPAgent.from_sb3_policy(
        model.policy, name=name or f"sb3:{path.stem}", deterministic=deterministic, seed=seed
    )


# ===================================================================== shipped agents


def shipped_checkpoints() -> dict[str, Path]:
    """Short name → checkpoint JSON of the agents shipped as package data (``agents/checkpoints``)."""
    out: dict[str, Path] = {}
    folder = resources.files("ohmygoods_agents") / "checkpoints"
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            try:
                desc = loads_bounded(entry.read_bytes())
            except BadJSON:
                continue
            if isinstance(desc, dict) and desc.get("format") == FORMAT and isinstance(desc.get("name"), str):
                out[desc["name"]] = Path(str(entry))
    return out


#: names that moved to the training tools (:mod:`ohmygoods_training.convert`)
_MOVED = (
    "BLOCK_PIECES",
    "NEW_ACTION_BIAS",
    "convert_checkpoint",
    "convert_tensors",
    "export_sb3",
    "read_sb3_zip",
    "verify_conversion",
)


def __getattr__(name: str) -> Any:
    if name in _MOVED:  # an ImportError, so that ``from ohmygoods_agents.checkpoint import NAME`` shows it
        raise ImportError(
            f"ohmygoods_agents.checkpoint.{name} moved to the training tools: "
            f"from ohmygoods_training.convert import {name}"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CONVERT_COMMAND",
    "CheckpointError",
    "FORMAT",
    "MLPAgent",
    "PolicyAgent",
    "SlotNetAgent",
    "UntrustedCheckpointError",
    "agent_from_tensors",
    "build_network",
    "checkpoint_players",
    "game_layout",
    "game_ppo",
    "current_layout",
    "description_players",
    "load_policy",
    "mlp_sizes",
    "read_checkpoint",
    "read_description",
    "same_layout",
    "save_checkpoint",
    "sb3_actor_tensors",
    "shipped_checkpoints",
    "weight_shapes",
]
