"""Fixtures of the app tests: a live ``ohmygoods serve`` on 127.0.0.1."""

from __future__ import annotations

import threading

import pytest


@pytest.fixture(scope="module")
def server():
    """A server on 127.0.0.1 (any free port) serving in a thread, for the tests of one module."""
    from ohmygoods_env.apps import serve
    from ohmygoods_env.apps.common import warm_engine

    warm_engine()  # the first game must not wait for the engine's compilation
    srv = serve.make_server("127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
