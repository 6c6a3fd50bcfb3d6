"""The notebooks in ``notebooks/`` run top to bottom (nbclient, kernel ``python3`` of this interpreter)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("sb3_contrib")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.training


def test_notebooks_are_present():
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb",
        "02_training.ipynb",
        "03_strategies.ipynb",
        "04_artificium.ipynb",
    ]


def test_kernel_is_this_interpreter():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    # jupyter_client starts a spec whose argv[0] is "python" with sys.executable
    assert spec.argv[0] in ("python", "python3", sys.executable)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
