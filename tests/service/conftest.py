"""Fixtures for the submission page's tests (the helpers are in service_helpers.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest

from service_helpers import Server, start_server


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    """``serve(data, *options)`` starts a server; all are stopped after the test."""
    servers: list[Server] = []

    def start(data: Path, *options: str) -> Server:
        server = start_server(data, *options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
