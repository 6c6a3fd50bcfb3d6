"""Policy checkpoints that run no code when loaded, and the agent that plays them.

A checkpoint is two files side by side:

``NAME.json``
    the description: ``format`` (``"ohmygoods-policy"``), ``format_version``, ``weights``
    (the file name of the weights, in the same folder), ``network`` (``kind`` ``"mlp"``,
    layer ``sizes`` from the observation to the action logits, ``activation``), ``layout``
    (the observation/action layout the network was trained on: ``version``, ``obs_dim``,
    ``obs_blocks`` ``[name, offset, size]``, ``n_actions``, ``action_ranges``
    ``[name, start, size]``), and free-form ``card`` data (training command, evaluation);
``NAME.safetensors``
    the weights, tensors ``layers.K.weight`` / ``layers.K.bias`` (safetensors holds raw
    arrays and a JSON header: loading it cannot execute code).

:class:`PolicyAgent` is the one policy agent: one forward pass per batch, illegal actions
masked, then the most likely action (``deterministic=True``) or a sample from its own
seeded generator. It is built from a checkpoint (:func:`load_policy`), from a live
sb3-contrib ``MaskablePPO`` policy (:meth:`PolicyAgent.from_sb3_policy`, the league's frozen
snapshots) or, only with ``trust_pickle=True``, from a Stable-Baselines3 ``.zip``: SB3 unpickles
the ``":serialized:"`` entries of such a zip, so loading one can run any code it carries.

:func:`export_sb3` turns a MaskablePPO zip into a checkpoint **without** unpickling anything
(``policy.pth`` through ``torch.load(weights_only=True)``, ``data`` as plain JSON).
:func:`convert_checkpoint` maps a checkpoint to the current layout by block and action-range
name: columns of blocks present in both are copied (a block that grew keeps its old entries
first, as the layout appends new entries at the end), new observation columns are zero, and
new actions get zero weights and a bias of :data:`NEW_ACTION_BIAS`, so they are chosen only
when nothing else is legal. Blocks that were renamed or split map through
:data:`BLOCK_PIECES`. :func:`verify_conversion` checks that the converted policy acts
like the original on positions the layout change leaves alone.

Command line: ``python -m ohmygoods_training.export`` (``sb3``, ``convert``, ``verify``).
"""

from __future__ import annotations

import json
import math
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ohmygoods_env import actions as A
from ohmygoods_env import layout as L
from ohmygoods_env.files import BadJSON, loads_bounded, read_json_file, write_atomic
from ohmygoods_env.policy import Agent

FORMAT = "ohmygoods-policy"
FORMAT_VERSION = 1
#: bias of actions a converted network never saw: far below any trained logit
NEW_ACTION_BIAS = -1.0e9
ACTIVATIONS: tuple[str, ...] = ("tanh", "relu", "elu", "leaky_relu", "gelu", "silu")
CONVERT_COMMAND = "python -m ohmygoods_training.export convert IN.json OUT.json"
#: limits a checkpoint must keep, checked before anything is allocated
MAX_DESCRIPTION_BYTES = 1 << 20  # the JSON description
MAX_WEIGHTS_BYTES = 1 << 30  # the safetensors file
MAX_WIDTH = 4096  # a hidden layer's width (mlp sizes between the ends, slotnet hidden and embed)
MAX_LAYERS = 16  # linear layers of an mlp
MAX_FEATURES = 1 << 16  # observation features, actions, any tensor dimension


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: what is wrong, and which file."""


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


def current_layout() -> dict[str, Any]:
    """The observation/action layout of this engine, as a checkpoint records it."""
    return {
        "version": f"v{int(getattr(L, 'LAYOUT_VERSION', 0))}",
        "obs_dim": int(L.OBS_DIM),
        "obs_blocks": [[str(n), int(o), int(k)] for n, o, k in L.OBS_BLOCKS],
        "n_actions": int(L.N_ACTIONS),
        "action_ranges": [[str(n), int(o), int(k)] for n, o, k in A.RANGES],
    }


def _same_layout(a: dict[str, Any], b: dict[str, Any]) -> bool:
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


# ===================================================================== the network


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("playing a policy checkpoint needs torch and safetensors: pip install -e '.[train]'") from exc
    return torch


def build_network(tensors: dict[str, Any], activation: str):
    """``torch.nn.Sequential`` of ``Linear`` layers with ``activation`` between them, weights from ``tensors``."""
    torch = _torch()
    k = 0
    mods: list[Any] = []
    acts = {
        "tanh": torch.nn.Tanh,
        "relu": torch.nn.ReLU,
        "elu": torch.nn.ELU,
        "leaky_relu": torch.nn.LeakyReLU,
        "gelu": torch.nn.GELU,
        "silu": torch.nn.SiLU,
    }
    while f"layers.{k}.weight" in tensors:
        w = torch.as_tensor(np.asarray(tensors[f"layers.{k}.weight"], np.float32))
        b = torch.as_tensor(np.asarray(tensors[f"layers.{k}.bias"], np.float32))
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(w)
            lin.bias.copy_(b)
        if mods:
            mods.append(acts[activation]())
        mods.append(lin)
        k += 1
    return torch.nn.Sequential(*mods).eval()


class PolicyAgent(Agent):
    """A masked policy network as an agent (see the module docstring).

    ``tensors``: ``layers.K.weight`` / ``layers.K.bias`` arrays; ``activation`` between layers.
    """

    needs_observation = True
    needs_info_state = False

    def __init__(
        self,
        tensors: dict[str, Any],
        activation: str = "tanh",
        *,
        name: str = "ppo",
        deterministic: bool = True,
        seed: int | None = None,
        layout: dict[str, Any] | None = None,
        network: dict[str, Any] | None = None,
    ) -> None:
        torch = _torch()
        self.name = name
        self.deterministic = bool(deterministic)
        self.activation = activation
        self.layout = current_layout() if layout is None else layout
        self.network = network
        self._prior = None
        if network is not None and network.get("kind") == "slotnet":
            from .slotnet import PolicyLogits, from_tensors, make_prior

            self.net = PolicyLogits(from_tensors(tensors, network, layout)).eval()
            if network.get("prior") is not None:  # the prior reads the acting seat's information state
                self._prior = make_prior(network["prior"])
                self.needs_info_state = True
        else:
            self.net = build_network(tensors, activation)
        self._gen = torch.Generator()
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self._gen.manual_seed(int(np.random.SeedSequence().entropy % (1 << 63)) if seed is None else int(seed))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_sb3_policy(cls, policy: Any, **kwargs: Any) -> PolicyAgent:
        """A frozen copy of the actor of a live ``MaskableActorCriticPolicy`` (features, policy net, action head)."""
        tensors, activation = sb3_actor_tensors(policy.state_dict(), getattr(policy, "activation_fn", None))
        return cls(tensors, activation, **kwargs)

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights as ``layers.K.weight`` / ``layers.K.bias`` numpy arrays."""
        out: dict[str, np.ndarray] = {}
        if self.network is not None and self.network.get("kind") == "slotnet":
            return {k: v.detach().cpu().numpy().copy() for k, v in self.net.inner.state_dict().items()}
        linears = [m for m in self.net if hasattr(m, "weight")]
        for k, lin in enumerate(linears):
            out[f"layers.{k}.weight"] = lin.weight.detach().cpu().numpy().copy()
            out[f"layers.{k}.bias"] = lin.bias.detach().cpu().numpy().copy()
        return out

    # ------------------------------------------------------------------ acting
    def logits(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None):
        """Masked logits (``-inf`` on illegal actions) of a batch, one forward pass.

        A network with a prior (``network.prior``) also needs the acting seats' information states.
        """
        torch = _torch()
        prior = None
        if self._prior is not None:
            from .slotnet import prior_actions

            prior = prior_actions(self._prior, f"the {self.name} agent", observations, masks, info_states)
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observations, np.float32))
            out = self.net(x) if prior is None else self.net(x, prior)
            return out.masked_fill(~torch.as_tensor(np.asarray(masks).astype(np.bool_)), -torch.inf)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        m = np.asarray(masks)
        n_actions = int(self.layout["n_actions"])
        if m.ndim != 2 or m.shape[1] != n_actions:
            raise ValueError(f"masks must have shape (N, {n_actions}), got {m.shape}")
        if not m.any(axis=1).all():
            raise ValueError("no legal action: a mask is all zero (is the game over?)")
        torch = _torch()
        logits = self.logits(observations, m, info_states)
        with torch.no_grad():
            if self.deterministic:
                return logits.argmax(dim=1).numpy().astype(np.int64)
            probs = torch.softmax(logits, dim=1)
            return torch.multinomial(probs, 1, generator=self._gen).squeeze(1).numpy().astype(np.int64)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        infos = None if info_state is None else np.asarray(info_state)[None, :]
        return int(self.act_batch(np.asarray(observation)[None, :], np.asarray(mask)[None, :], infos)[0])


# ===================================================================== SB3 → tensors (no unpickling)

_SB3_ACTIVATIONS = {
    "Tanh": "tanh",
    "ReLU": "relu",
    "ELU": "elu",
    "LeakyReLU": "leaky_relu",
    "GELU": "gelu",
    "SiLU": "silu",
}


def sb3_actor_tensors(state: dict[str, Any], activation_fn: Any = None) -> tuple[dict[str, np.ndarray], str]:
    """The actor of a MaskablePPO ``MlpPolicy`` state dict as ``layers.K`` arrays, plus the activation name.

    Reads ``mlp_extractor.policy_net.*`` and ``action_net.*``; a features extractor with weights
    (anything but ``Flatten``) is refused.
    """
    extra = [k for k in state if k.startswith(("features_extractor.", "pi_features_extractor."))]
    if extra:
        raise CheckpointError(f"only a Flatten features extractor is supported, the policy has weights {extra[:3]}")
    idx = sorted({int(k.split(".")[2]) for k in state if k.startswith("mlp_extractor.policy_net.")})
    tensors: dict[str, np.ndarray] = {}
    for k, i in enumerate(idx):
        for part in ("weight", "bias"):
            tensors[f"layers.{k}.{part}"] = _np(state[f"mlp_extractor.policy_net.{i}.{part}"])
    for part in ("weight", "bias"):
        if f"action_net.{part}" not in state:
            raise CheckpointError("the policy has no action_net: is it a MaskablePPO MlpPolicy?")
        tensors[f"layers.{len(idx)}.{part}"] = _np(state[f"action_net.{part}"])
    name = "Tanh" if activation_fn is None else getattr(activation_fn, "__name__", str(activation_fn))
    name = name.rsplit(".", 1)[-1].strip("'<>")
    if name not in _SB3_ACTIVATIONS:
        raise CheckpointError(f"unsupported activation {name!r}: expected one of {sorted(_SB3_ACTIVATIONS)}")
    return tensors, _SB3_ACTIVATIONS[name]


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float32) if hasattr(t, "detach") else np.asarray(t, np.float32)


def read_sb3_zip(path: str | Path) -> tuple[dict[str, np.ndarray], str, dict[str, Any]]:
    """``(tensors, activation, facts)`` of a MaskablePPO zip, without unpickling anything.

    ``policy.pth`` is read with ``torch.load(weights_only=True)`` (tensors only); ``data`` is
    parsed as JSON and only its plain entries are used (``policy_kwargs.activation_fn`` as
    text, the observation shape, ``num_timesteps``): the ``":serialized:"`` pickles are never
    touched.
    """
    torch = _torch()
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
    """
    from safetensors.numpy import save

    dst = Path(dst).with_suffix(".json")
    layout = current_layout() if layout is None else layout
    if network is not None:
        _check_slotnet(tensors, network, str(dst), layout)
    else:
        network = {"kind": "mlp", "sizes": _sizes(tensors, str(dst)), "activation": activation}
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


def _sizes(tensors: dict[str, Any], where: str) -> list[int]:
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
    if not isinstance(desc, dict) or desc.get("format") != FORMAT:
        raise CheckpointError(f"{where} is not a policy checkpoint: expected a JSON object with format={FORMAT!r}")
    if desc.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{where}: format_version {desc.get('format_version')!r}, this code reads {FORMAT_VERSION}"
        )
    return desc


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
        sizes = _sizes(shapes, repr(str(wpath)))
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
) -> PolicyAgent:
    """The agent of a checkpoint ``NAME.json`` (or, with ``trust_pickle=True`` only, an SB3 ``.zip``).

    The checkpoint's layout must be the engine's (else :class:`CheckpointError` with the
    converter command). ``seed`` seeds sampling when ``deterministic=False``.
    """
    p = Path(path)
    if p.suffix == ".zip" or (not p.with_suffix(".json").exists() and p.with_suffix(".zip").exists()):
        zp = p if p.suffix == ".zip" else p.with_suffix(".zip")
        if trust_pickle is not True:
            raise UntrustedCheckpointError(untrusted_zip_message(zp))
        return _load_sb3_trusted(zp, seed=seed, deterministic=deterministic, name=name)
    tensors, desc = read_checkpoint(p)
    layout = desc["layout"]
    if not _same_layout(layout, current_layout()):
        raise CheckpointError(
            f"{str(p)!r} was made for observation/action layout {layout.get('version')!r} "
            f"({layout['obs_dim']} features, {layout['n_actions']} actions); this engine has "
            f"{current_layout()['version']!r} ({L.OBS_DIM} features, {L.N_ACTIONS} actions). Convert it: "
            f"{CONVERT_COMMAND}"
        )
    return PolicyAgent(
        tensors,
        desc["network"].get("activation", "relu"),
        name=name or str(desc.get("name") or f"ppo:{p.stem}"),
        deterministic=deterministic,
        seed=seed,
        layout=layout,
        network=desc["network"],
    )


def _load_sb3_trusted(path: Path, *, seed: int | None, deterministic: bool, name: str | None) -> PolicyAgent:
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
    return PolicyAgent.from_sb3_policy(
        model.policy, name=name or f"sb3:{path.stem}", deterministic=deterministic, seed=seed
    )


def export_sb3(src: str | Path, dst: str | Path, layout: dict[str, Any] | None = None, **fields: Any) -> Path:
    """Write the actor of the MaskablePPO zip ``src`` as the checkpoint ``dst`` (nothing is unpickled)."""
    tensors, activation, facts = read_sb3_zip(src)
    layout = current_layout() if layout is None else layout
    sizes = _sizes(tensors, repr(str(src)))
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


def _column_map(src: list, dst: list, pieces: dict | None = None) -> tuple[np.ndarray, list[str], list[str]]:
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
    from .slotnet import SLOT_BLOCK, layout_dims

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
    obs_idx, obs_notes, obs_drop = _column_map(src["obs_blocks"], dst["obs_blocks"])
    act_idx, act_notes, act_drop = _column_map(src["action_ranges"], dst["action_ranges"], {})
    out = {k: np.array(v, np.float32) for k, v in tensors.items()}
    if network is not None and network.get("kind") == "slotnet":
        out["trunk.0.weight"] = _slotnet_trunk(out["trunk.0.weight"], obs_idx, src, dst)
        head = ("pi.weight", "pi.bias")
    else:
        n = len(_sizes(tensors, "tensors")) - 1
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
    if not _same_layout(d_dst["layout"], current_layout()):
        raise CheckpointError(f"{str(converted)!r} is not in this engine's layout: convert it first")
    net_src, net_dst = d_src["network"], d_dst["network"]
    a = PolicyAgent(t_src, net_src.get("activation", "relu"), layout=d_src["layout"], network=net_src)
    b = PolicyAgent(t_dst, net_dst.get("activation", "relu"), network=net_dst)
    obs_idx, _, _ = _column_map(d_src["layout"]["obs_blocks"], d_dst["layout"]["obs_blocks"])
    act_idx, _, _ = _column_map(d_src["layout"]["action_ranges"], d_dst["layout"]["action_ranges"], {})
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


__all__ = [
    "CONVERT_COMMAND",
    "CheckpointError",
    "FORMAT",
    "NEW_ACTION_BIAS",
    "PolicyAgent",
    "UntrustedCheckpointError",
    "build_network",
    "convert_checkpoint",
    "convert_tensors",
    "current_layout",
    "export_sb3",
    "load_policy",
    "read_checkpoint",
    "read_description",
    "read_sb3_zip",
    "save_checkpoint",
    "shipped_checkpoints",
    "verify_conversion",
    "weight_shapes",
]
