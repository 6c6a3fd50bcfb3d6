"""Hostile checkpoint files: every one is a :class:`CheckpointError` naming the problem, found
before anything is allocated, and a usage error (exit 2, no traceback) in the commands.

The description is read within JSON limits (depth, number length, size), its widths within
sane limits, and checked against the real tensor shapes in the safetensors header before any
weight is read or any network is built.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ohmygoods_agents import checkpoint as C
from ohmygoods_agents.checkpoint import CheckpointError, read_checkpoint, save_checkpoint

from ohmygoods_env import layout as L

SHIPPED = Path(C.__file__).parent / "checkpoints" / "ppo_2p.json"


@pytest.fixture
def slotnet(tmp_path) -> Path:
    """A copy of the shipped 2-player slotnet checkpoint."""
    for suffix in (".json", ".safetensors"):
        shutil.copy(SHIPPED.with_suffix(suffix), tmp_path / f"net{suffix}")
    desc = json.loads((tmp_path / "net.json").read_text())
    desc["weights"] = "net.safetensors"
    (tmp_path / "net.json").write_text(json.dumps(desc))
    return tmp_path / "net.json"


@pytest.fixture
def mlp(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    sizes = [L.OBS_DIM, 8, L.N_ACTIONS]
    tensors = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
        tensors[f"layers.{k}.weight"] = rng.normal(size=(n_out, n_in)).astype(np.float32)
        tensors[f"layers.{k}.bias"] = np.zeros(n_out, np.float32)
    return save_checkpoint(tmp_path / "mlp.json", tensors, "tanh")


def _edit(path: Path, **network) -> Path:
    desc = json.loads(path.read_text())
    desc["network"].update(network)
    path.write_text(json.dumps(desc))
    return path


def _no_weights_read(monkeypatch) -> None:
    """Reading the tensors (or building a real network) fails the test: refusals come first."""
    import safetensors.numpy

    def forbidden(*args, **kwargs):
        raise AssertionError("the weights were read before the description was checked")

    monkeypatch.setattr(safetensors.numpy, "load_file", forbidden)


def test_a_description_claiming_hidden_8000_fails_before_reading_or_allocating(slotnet, monkeypatch) -> None:
    _edit(slotnet, hidden=4000)  # within the limits, but not what the weights hold
    _no_weights_read(monkeypatch)
    with pytest.raises(CheckpointError, match=r"slotnet tensors differ from hidden=4000.*trunk.0.weight \(128, "):
        read_checkpoint(slotnet)
    _edit(slotnet, hidden=8000)
    with pytest.raises(CheckpointError, match=r"network hidden must be an int in 1..4096, got 8000"):
        read_checkpoint(slotnet)


def test_the_refusal_allocates_nothing_measured_in_a_fresh_process(slotnet) -> None:
    """The old loader built a SlotNet of the claimed widths (347 MiB for hidden 8000) before refusing."""
    _edit(slotnet, hidden=4000, embed=512)  # a real network of these widths: over 200 MiB of float32
    script = f"""
import resource, sys
import torch, safetensors.numpy, ohmygoods_agents.slotnet
from ohmygoods_agents.checkpoint import read_checkpoint, CheckpointError
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_checkpoint({str(slotnet)!r})
except CheckpointError as exc:
    print("refused:", exc)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("refused:") and "slotnet tensors differ" in lines[0]
    assert int(lines[-1]) < 32, f"the refusal grew the process by {lines[-1]} MiB"


@pytest.mark.parametrize(
    ("network", "message"),
    [({"hidden": 0}, "network hidden must be an int in 1..4096, got 0"),
     ({"hidden": -128}, "network hidden must be"),
     ({"hidden": 12.5}, "network hidden must be"),
     ({"hidden": "128"}, "network hidden must be"),
     ({"hidden": True}, "network hidden must be"),
     ({"hidden": 10**30}, "network hidden must be"),
     ({"embed": 10**6}, "network embed must be an int in 1..4096"),
     ({"embed": None}, "network embed must be"),
     ({"kind": "transformer"}, "network must be")],
)  # fmt: skip
def test_impossible_slotnet_widths_are_checkpoint_errors(slotnet, monkeypatch, network, message) -> None:
    _edit(slotnet, **network)
    _no_weights_read(monkeypatch)
    with pytest.raises(CheckpointError, match=message.replace(".", r"\.")):
        read_checkpoint(slotnet)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [([L.OBS_DIM, 16, L.N_ACTIONS], "the weights have layer sizes"),
     ([L.OBS_DIM, 8, 8, L.N_ACTIONS], "the weights have layer sizes"),
     ([L.OBS_DIM, 100_000, L.N_ACTIONS], r"network sizes\[1\] must be an int in 1..4096"),
     ([L.OBS_DIM, 0, L.N_ACTIONS], r"network sizes\[1\] must be"),
     ([L.OBS_DIM] + [8] * 40 + [L.N_ACTIONS], "network sizes must list 2..17 layer widths"),
     ("big", "network sizes must list")],
)  # fmt: skip
def test_mlp_sizes_are_checked_against_the_real_shapes(mlp, monkeypatch, sizes, message) -> None:
    _edit(mlp, sizes=sizes)
    _no_weights_read(monkeypatch)
    with pytest.raises(CheckpointError, match=message):
        read_checkpoint(mlp)


def test_deeply_nested_and_huge_number_json_are_checkpoint_errors(slotnet, monkeypatch) -> None:
    _no_weights_read(monkeypatch)
    text = slotnet.read_text()
    for payload, message in (
        ('{"deep": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper than"),
        ('{"n": ' + "9" * 4300 + "}", "a number of 4300 characters"),
        ('{"n": 1e999}', "is not finite"),
        ('{"n": NaN}', "NaN is not a JSON number"),
    ):
        slotnet.write_text(text[:-1] + ', "card2": ' + payload + "}")
        with pytest.raises(CheckpointError, match=message):
            read_checkpoint(slotnet)
    slotnet.write_bytes(b'{"format": "ohmygoods-policy", "x": "\xff"}')
    with pytest.raises(CheckpointError, match="not UTF-8"):
        read_checkpoint(slotnet)
    slotnet.write_text('{"format": "ohmygoods-policy", "pad": "' + "x" * (C.MAX_DESCRIPTION_BYTES + 1) + '"}')
    with pytest.raises(CheckpointError, match="larger than 1048576 bytes"):
        read_checkpoint(slotnet)


def _safetensors(header: dict, data: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def test_a_weight_file_that_lies_in_its_header_is_refused_before_reading(mlp, monkeypatch) -> None:
    _no_weights_read(monkeypatch)
    weights = mlp.with_suffix(".safetensors")
    shapes = C.weight_shapes(weights)
    assert shapes == {"layers.0.weight": (8, L.OBS_DIM), "layers.0.bias": (8,),
                      "layers.1.weight": (L.N_ACTIONS, 8), "layers.1.bias": (L.N_ACTIONS,)}  # fmt: skip
    one = {"dtype": "F32", "shape": [8000, 8000], "data_offsets": [0, 4 * 8000 * 8000]}
    cases = [
        (_safetensors({"layers.0.weight": one}, b"\0" * 64), "the header describes 256000000 bytes"),
        (_safetensors({"a": {**one, "data_offsets": [0, 16]}}, b"\0" * 16), "has offsets"),
        (_safetensors({"a": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}}, b"\0" * 16), "float32"),
        (_safetensors({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8), "float32"),
        (_safetensors({"a": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, b"\0" * 12), "gaps"),
        (struct.pack("<Q", 1 << 60) + b"{}", "header length"),
        (b"\x01", "header length"),
        (struct.pack("<Q", 4) + b"[[[[", "its header: not JSON"),
    ]
    for content, message in cases:
        weights.write_bytes(content)
        with pytest.raises(CheckpointError, match=message):
            read_checkpoint(mlp)
    monkeypatch.setattr(C, "MAX_WEIGHTS_BYTES", 1000)
    weights.write_bytes(b"\0" * 2000)
    with pytest.raises(CheckpointError, match="more than the 1000 a policy may have"):
        read_checkpoint(mlp)


def test_layout_sizes_are_bounded(mlp, monkeypatch) -> None:
    _no_weights_read(monkeypatch)
    desc = json.loads(mlp.read_text())
    desc["layout"]["obs_dim"] = 10**12
    mlp.write_text(json.dumps(desc))
    with pytest.raises(CheckpointError, match="layout observation size must be an int in 1..65536"):
        read_checkpoint(mlp)


def test_a_sound_checkpoint_still_loads(slotnet, mlp) -> None:
    tensors, desc = read_checkpoint(slotnet)
    assert tensors["trunk.0.weight"].shape[0] == desc["network"]["hidden"] == 128
    tensors, desc = read_checkpoint(mlp)
    assert desc["network"]["sizes"] == [L.OBS_DIM, 8, L.N_ACTIONS] and tensors["layers.1.bias"].shape == (L.N_ACTIONS,)


def test_expected_shapes_match_a_real_network() -> None:
    from ohmygoods_agents.slotnet import SlotNet, expected_shapes

    for hidden, embed, prior in ((4, 2, None), (6, 3, "heuristic")):
        real = {k: tuple(v.shape) for k, v in SlotNet(hidden, embed, prior).state_dict().items()}
        assert expected_shapes(hidden, embed, prior) == real


# ---------------------------------------------------------------------------- the commands


@pytest.mark.parametrize("command", ["play", "tournament", "demo"])
def test_the_commands_give_a_usage_error_for_a_hostile_checkpoint(slotnet, command, capsys) -> None:
    from ohmygoods_env.apps import demo, play, tournament

    text = slotnet.read_text()
    for payload, message in (
        (text[:-1] + ', "deep": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested deeper than"),
        (text[:-1] + ', "n": ' + "7" * 4300 + "}", "a number of 4300 characters"),
        (text.replace('"hidden": 128', '"hidden": 4000'), "slotnet tensors differ"),
        (text.replace('"hidden": 128', '"hidden": 8000'), "network hidden must be"),
    ):
        slotnet.write_text(payload)
        spec = f"ppo:{slotnet}"
        argv = {
            "play": ["--opponents", spec, "--save", ""],
            "tournament": ["--agents", f"random,{spec}", "--games", "1", "--out", str(slotnet.parent / "run")],
            "demo": ["--bots", spec],
        }[command]
        main = {"play": play.main, "tournament": tournament.main, "demo": demo.main}[command]
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and message in err and "Traceback" not in err, err[-500:]
