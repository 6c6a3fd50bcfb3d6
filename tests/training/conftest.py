"""Training tests run single-threaded torch: tiny forwards are fastest that way on a shared 2-core machine."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)
