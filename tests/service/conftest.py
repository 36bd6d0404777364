"""Fixtures for the submission page's tests (the helpers are in service_helpers.py, and the
LTI tool's and platform's in lti_tool.py and lti_platform.py).

The helpers need the test extra (httpx, Playwright, uvicorn, lti1p3platform): they are
imported when a test asks for a server, so that without the extra each test module skips with
the reason instead of the whole folder failing at import.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import pytest

if TYPE_CHECKING:
    from lti_platform import LtiPlatform
    from lti_tool import ToolServer
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


@pytest.fixture
def tool(tmp_path: Path) -> Iterator["ToolServer"]:
    """The course's page as an LTI tool (lti_tool.py), stopped after the test."""
    from lti_tool import ToolServer
    server = ToolServer(tmp_path / "course")
    yield server
    server.stop()


@pytest.fixture
def platform(tool: "ToolServer") -> Iterator["LtiPlatform"]:
    """The LMS the course is bound to (its course "course-ttt-101"), registered both ways."""
    from lti_platform import LtiPlatform
    lms = LtiPlatform().start()
    tool.register(lms)
    yield lms
    lms.stop()
