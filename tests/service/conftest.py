"""Fixtures for the submission page's tests (the helpers are in service_helpers.py).

The helpers need the test extra (httpx, Playwright): they are imported when a test asks for
a server, so that without the extra each test module skips with the reason instead of the
whole folder failing at import.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import pytest

if TYPE_CHECKING:
    from service_helpers import Server


@pytest.fixture
def serve() -> Iterator[Callable[..., "Server"]]:
    """``serve(data, *options)`` starts a server; all are stopped after the test."""
    from service_helpers import start_server
    servers: list[Server] = []

    def start(data: Path, *options: str) -> Server:
        server = start_server(data, *options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """Debian's chromium, headless, through Playwright (skipped, with the reason, where
    either is missing)."""
    from browser_helpers import launched_chromium
    with launched_chromium() as browser:
        yield browser


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where a browser test saves its screenshots: $TTT_SCREENSHOTS, else the test's own
    temporary folder (docs/screenshots.py copies them into the documentation)."""
    folder = Path(os.environ.get("TTT_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
