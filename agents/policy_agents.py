"""Policy networks as agents: one class per network kind, sharing how a network's logits become moves.

* :class:`PolicyAgent` — the base: one forward pass per batch, illegal actions masked, then the
  most likely action (``deterministic=True``) or a sample from the agent's own seeded
  generator (:func:`sample_masked`, Gumbel-max, the training loop's sampler too). A network
  with a rule-based prior (:mod:`ohmygoods_agents.slotnet`) also reads the acting seats'
  information states (``needs_info_state``).
* :class:`MLPAgent` — a checkpoint's ``mlp`` network (``layers.K`` tensors, one activation),
  or the actor of a live sb3-contrib ``MaskablePPO`` policy (:meth:`MLPAgent.from_sb3_policy`;
  :func:`sb3_actor_tensors` reads its state dict, nothing is unpickled).
* :class:`SlotNetAgent` — a :class:`~ohmygoods_agents.slotnet.SlotNet`: a live network while
  training (the league's frozen snapshots, evaluations) or a checkpoint's ``slotnet`` tensors
  (:meth:`SlotNetAgent.from_tensors`).

Checkpoint files are read and written by :mod:`ohmygoods_agents.checkpoint`
(:func:`~ohmygoods_agents.checkpoint.load_policy` builds the agent of the network's kind).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ohmygoods_env import actions as A
from ohmygoods_env import layout as L
from ohmygoods_env.policy import Agent

__all__ = [
    "ROWS_PER_THREAD",
    "MLPAgent",
    "PolicyAgent",
    "SlotNetAgent",
    "build_network",
    "forward_threads",
    "sample_masked",
    "sb3_actor_tensors",
]

_SB3_ACTIVATIONS = {
    "Tanh": "tanh",
    "ReLU": "relu",
    "ELU": "elu",
    "LeakyReLU": "leaky_relu",
    "GELU": "gelu",
    "SiLU": "silu",
}


#: What to install for the policy agents (``ppo``, ``ppo:PATH``, Artificium's ``ppo``), in the form for a wheel.
PLAY_EXTRA = "pip install 'ohmygoods[play]'"


def require_play(what: str = "playing a policy checkpoint (ppo, ppo:PATH)"):
    """torch, after checking that torch and safetensors import; else an ImportError naming the extra to install.

    The one check of every policy agent (:func:`ohmygoods_agents.checkpoint.load_policy`, Artificium's
    ``ppo``): a core install gets ``"<what> needs torch and safetensors (the 'play' extra; 'torch' is
    not installed): pip install 'ohmygoods[play]'"`` instead of a bare "No module named 'torch'".
    """
    try:
        import safetensors  # noqa: F401
        import torch
    except ImportError as exc:
        missing = getattr(exc, "name", None) or "torch"
        raise ImportError(
            f"{what} needs torch and safetensors (the 'play' extra; {missing!r} is not installed): {PLAY_EXTRA} "
            "(from a clone of the repository: pip install -e '.[play]')"
        ) from exc
    return torch


def _torch():
    return require_play()


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: what is wrong, and which file (also ``checkpoint.CheckpointError``)."""


def current_layout() -> dict[str, Any]:
    """The observation/action layout of this engine, as a checkpoint records it."""
    return {
        "version": f"v{int(getattr(L, 'LAYOUT_VERSION', 0))}",
        "obs_dim": int(L.OBS_DIM),
        "obs_blocks": [[str(n), int(o), int(k)] for n, o, k in L.OBS_BLOCKS],
        "n_actions": int(L.N_ACTIONS),
        "action_ranges": [[str(n), int(o), int(k)] for n, o, k in A.RANGES],
    }


_current_layout = current_layout


#: rows of a forward pass on the CPU per torch thread (:func:`forward_threads`)
ROWS_PER_THREAD = 256


@contextlib.contextmanager
def forward_threads(rows: int, device: Any = "cpu") -> Iterator[int]:
    """torch's intra-op threads, this thread only, for an inference forward of ``rows`` rows on ``device``:
    one per :data:`ROWS_PER_THREAD` rows, at least one and at most the thread count set (restored after).
    Yields the count used.

    Each layer of a forward is a parallel region, and the other threads of a region must be woken for it
    (``OMP_WAIT_POLICY=PASSIVE``, the package's default): on 2 cores the slot network's forward (a dozen
    regions) took 342 µs on 2 threads against 88 on one at 4 rows, 1,324 against 1,045 at 237 rows, and
    3,154 against 3,615 at 512 rows (docs/performance.md). The league's snapshot seats, the Gumbel search's
    evaluations and a rollout step's forward are that small. The result does not depend on the thread
    count (one to 16 threads gave the same bits here; ``tests/training/test_forward_threads.py``); a
    device other than the CPU keeps the threads as they are.
    """
    torch = _torch()
    have = torch.get_num_threads()
    want = max(1, min(have, int(rows) // ROWS_PER_THREAD))
    if want == have or torch.device(device).type != "cpu":
        yield have
        return
    torch.set_num_threads(want)
    try:
        yield want
    finally:
        torch.set_num_threads(have)


def sample_masked(logits: Any, gen: Any) -> Any:
    """One action per row from masked logits (Gumbel-max: illegal actions, at ``-inf`` or ``-1e9``, are
    never drawn); the sampler of every policy agent and of the training loop's learner."""
    torch = _torch()
    u = torch.rand(logits.shape, generator=gen).clamp_(1e-20, 1.0)
    return (logits - torch.log(-torch.log(u))).argmax(dim=1)


class PolicyAgent(Agent):
    """A masked policy network as an agent (see the module docstring). Subclasses give
    :meth:`_logits` (unmasked logits of a batch) and :meth:`tensors`."""

    needs_observation = True
    needs_info_state = False

    def __init__(
        self, *, name: str, deterministic: bool = True, seed: int | None = None, layout: dict[str, Any] | None = None
    ) -> None:
        torch = _torch()
        self.name = name
        self.deterministic = bool(deterministic)
        self.layout = _current_layout() if layout is None else layout
        self._prior: Any = None
        self._gen = torch.Generator()
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self._gen.manual_seed(int(np.random.SeedSequence().entropy % (1 << 63)) if seed is None else int(seed))

    def _logits(self, x: Any, prior: Any) -> Any:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def _device(self) -> Any:
        """Where the network's forward runs (the CPU unless a subclass's network is elsewhere)."""
        return "cpu"

    def tensors(self) -> dict[str, np.ndarray]:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    # ------------------------------------------------------------------ acting
    def logits(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None):
        """Masked logits (``-inf`` on illegal actions) of a batch, one forward pass.

        A network with a prior also needs the acting seats' information states.
        """
        torch = _torch()
        prior = None
        if self._prior is not None:
            from .slotnet import prior_actions

            prior = prior_actions(self._prior, f"the {self.name} agent", observations, masks, info_states)
        x = torch.as_tensor(np.asarray(observations, np.float32))
        with torch.no_grad(), forward_threads(x.shape[0], self._device()):
            out = self._logits(x, prior)
            return out.masked_fill(~torch.as_tensor(np.asarray(masks).astype(np.bool_)), -torch.inf)

    def _checked_masks(self, masks: np.ndarray) -> np.ndarray:
        """``masks`` as an array, refused (``ValueError``) unless it is ``(N, n_actions)`` with a legal action
        in every row."""
        m = np.asarray(masks)
        n_actions = int(self.layout["n_actions"])
        if m.ndim != 2 or m.shape[1] != n_actions:
            raise ValueError(f"masks must have shape (N, {n_actions}), got {m.shape}")
        if not m.any(axis=1).all():
            raise ValueError("no legal action: a mask is all zero (is the game over?)")
        return m

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        m = self._checked_masks(masks)
        torch = _torch()
        with torch.no_grad(), forward_threads(m.shape[0], self._device()):  # the sampling's ops too
            logits = self.logits(observations, m, info_states)
            if self.deterministic:
                return logits.argmax(dim=1).numpy().astype(np.int64)
            return sample_masked(logits, self._gen).numpy().astype(np.int64)

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: Any = None) -> int:
        infos = None if info_state is None else np.asarray(info_state)[None, :]
        return int(self.act_batch(np.asarray(observation)[None, :], np.asarray(mask)[None, :], infos)[0])


# ===================================================================== MLP


def build_network(tensors: dict[str, Any], activation: str):
    """``torch.nn.Sequential`` of ``Linear`` layers with ``activation`` between them, weights from ``tensors``."""
    torch = _torch()
    acts = {
        "tanh": torch.nn.Tanh,
        "relu": torch.nn.ReLU,
        "elu": torch.nn.ELU,
        "leaky_relu": torch.nn.LeakyReLU,
        "gelu": torch.nn.GELU,
        "silu": torch.nn.SiLU,
    }
    k = 0
    mods: list[Any] = []
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


class MLPAgent(PolicyAgent):
    """An MLP policy (``network.kind = "mlp"``): ``tensors`` ``layers.K.weight`` / ``layers.K.bias``,
    ``activation`` between layers."""

    def __init__(
        self,
        tensors: dict[str, Any],
        activation: str = "tanh",
        *,
        name: str = "ppo",
        deterministic: bool = True,
        seed: int | None = None,
        layout: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(name=name, deterministic=deterministic, seed=seed, layout=layout)
        self.activation = activation
        self.net = build_network(tensors, activation)

    @property
    def network(self) -> dict[str, Any]:
        """The checkpoint's ``network`` entry of this network."""
        sizes = [int(self.net[0].in_features)] + [int(m.out_features) for m in self.net if hasattr(m, "weight")]
        return {"kind": "mlp", "sizes": sizes, "activation": self.activation, "output": "action logits"}

    @classmethod
    def from_sb3_policy(cls, policy: Any, **kwargs: Any) -> MLPAgent:
        """A frozen copy of the actor of a live ``MaskableActorCriticPolicy`` (features, policy net, action head)."""
        tensors, activation = sb3_actor_tensors(policy.state_dict(), getattr(policy, "activation_fn", None))
        return cls(tensors, activation, **kwargs)

    def _logits(self, x: Any, prior: Any) -> Any:
        return self.net(x)

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights as ``layers.K.weight`` / ``layers.K.bias`` numpy arrays."""
        out: dict[str, np.ndarray] = {}
        for k, lin in enumerate(m for m in self.net if hasattr(m, "weight")):
            out[f"layers.{k}.weight"] = lin.weight.detach().cpu().numpy().copy()
            out[f"layers.{k}.bias"] = lin.bias.detach().cpu().numpy().copy()
        return out


def sb3_actor_tensors(state: dict[str, Any], activation_fn: Any = None) -> tuple[dict[str, np.ndarray], str]:
    """The actor of a MaskablePPO ``MlpPolicy`` state dict as ``layers.K`` arrays, plus the activation name.

    Reads ``mlp_extractor.policy_net.*`` and ``action_net.*``; a features extractor with weights
    (anything but ``Flatten``) is refused (:class:`~ohmygoods_agents.checkpoint.CheckpointError`).
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


# ===================================================================== slotnet


class SlotNetAgent(PolicyAgent):
    """A :class:`~ohmygoods_agents.slotnet.SlotNet` policy (``network.kind = "slotnet"``).

    ``net`` is used as it is (a live network keeps training; pass a frozen copy for a snapshot).
    A network with a prior reads the acting seats' information states. ``sparse``: :meth:`act_batch` reads the
    network through :class:`~ohmygoods_agents.slotnet.SparseForward` (a network on the CPU): the same logits
    up to float rounding, and a sampling agent draws one uniform per legal action rather than per action (other
    draws than the dense form's for a seed); the training loop's league snapshots act so.
    """

    def __init__(
        self,
        net: Any,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "ppo",
        *,
        layout: dict[str, Any] | None = None,
        sparse: bool = False,
    ) -> None:
        super().__init__(name=name, deterministic=deterministic, seed=seed, layout=layout)
        self.net = net
        if net.prior is not None:  # the prior reads the acting seat's information state
            from .slotnet import make_prior

            self._prior = make_prior(net.prior)
            self.needs_info_state = True
        self._sparse: Any = None
        if sparse:
            from .slotnet import SparseForward

            if self._device().type != "cpu":
                raise ValueError(f"a sparse SlotNetAgent reads a network on the CPU, this one is on {self._device()}")
            self._sparse = SparseForward(net)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, info_states: Any = None) -> np.ndarray:
        if self._sparse is None:
            return super().act_batch(observations, masks, info_states)
        m = self._checked_masks(masks)
        prior = None
        if self._prior is not None:
            from .slotnet import prior_actions

            prior = prior_actions(self._prior, f"the {self.name} agent", observations, m, info_states).numpy()
        with forward_threads(m.shape[0], "cpu"):
            logits, ids, valid, _ = self._sparse(np.asarray(observations, np.float32), m, prior_action=prior)
            if self.deterministic:
                cols = logits.argmax(dim=1).numpy()
            else:
                cols, _ = self._sparse.sample(logits, valid, self._gen)
        return ids[np.arange(len(ids)), cols].astype(np.int64)

    @classmethod
    def from_tensors(
        cls, tensors: dict[str, Any], network: dict[str, Any], *, layout: dict[str, Any] | None = None, **kwargs: Any
    ) -> SlotNetAgent:
        """The agent of a checkpoint's ``slotnet`` tensors and ``network`` entry, on ``layout`` (default:
        this engine's)."""
        from .slotnet import from_tensors

        return cls(from_tensors(tensors, network, layout).eval(), layout=layout, **kwargs)

    @property
    def network(self) -> dict[str, Any]:
        """The checkpoint's ``network`` entry of this network."""
        return self.net.description()

    def _device(self) -> Any:
        return next(self.net.parameters()).device

    def _logits(self, x: Any, prior: Any) -> Any:
        dev = self._device()
        if dev.type == "cpu":
            return self.net.policy_logits(self.net.features(x), prior)
        # a network on a GPU (a training run's league snapshot): the batch goes there, the logits come back
        prior = None if prior is None else prior.to(dev)
        return self.net.policy_logits(self.net.features(x.to(dev)), prior).float().cpu()

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights by the network's parameter names, as numpy arrays."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.net.state_dict().items()}
