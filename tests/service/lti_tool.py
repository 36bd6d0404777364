"""The course's page as an LTI 1.3 tool under uvicorn on 127.0.0.1, for the LTI tests (the
platform, an LMS stand-in, is lti_platform.py): :class:`ToolServer`, and what the tests do
with it: ``launch`` from the platform, read a ``refusal`` page, store a ``graded`` hand-in,
start a ``fast_sender``, ``wait_until`` something holds. conftest.py's ``tool`` and
``platform`` fixtures start one of each.

Needs the test extra (httpx, uvicorn, lti1p3platform): without it, the module that imports
this one skips with the reason. Example::

    tool = ToolServer(tmp_path / "course")
    lms = LtiPlatform().start()
    tool.register(lms)
    assert "signed in as S1815" in launch(lms, "ada").text
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("lti1p3platform")

from lti_platform import LIS, LtiPlatform  # noqa: E402

from grader.service import lti  # noqa: E402
from grader.service.app import create_app, open_store  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402
from grader.service.lti import binding, outbox  # noqa: E402
from grader.service.settings import ServiceSettings  # noqa: E402

# The roles Canvas sends for a TA (canvas-lms, lib/lti/substitutions_helper.rb,
# LIS_V2_LTI_ADVANTAGE_ROLE_MAP): the Instructor sub-role beside the principal role.
CANVAS_TA = [LIS + "membership/Instructor#TeachingAssistant", LIS + "membership#Instructor"]
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
REFUSAL = re.compile(r'class="refusal" role="alert">([^<]*)<')
# What a refused launch must leave as it was (the login's own row aside).
TABLES = ("students", "sessions", "lti_users", "lti_members", "lti_contexts", "lti_lineitems",
          "lti_handoffs", "lti_outbox")
RESULTS = json.dumps({"score": 80.0, "tests": [{"name": "scores", "score": 80.0,
                                                 "max_score": 100.0}], "extra_data": {}})


class ToolServer:
    """The course's page (create_app: the LTI routes and middleware included) under
    uvicorn on a free port of 127.0.0.1, without its lifespan (no grading threads, no
    sender: each test starts the sender when it wants one)."""

    def __init__(self, data: Path, allow_private: bool = True) -> None:
        """``allow_private``: serve --lti-allow-private (the test platforms are on
        127.0.0.1, which Dynamic Registration refuses without it)."""
        self.data = data
        self.store: Store = open_store(data)
        self.store.ensure_instructor()
        self.store.upsert_students([("S1815", "Ada L.", ""),
                                    ("g.hopper", "Grace", "grace@example.edu")])
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.app = create_app(ServiceSettings(data=data, base_url=self.url,
                                              lti_allow_private=allow_private), self.store)
        self.server = uvicorn.Server(uvicorn.Config(self.app, lifespan="off",
                                                    log_level="warning", access_log=False))
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "no tool server"
            time.sleep(0.02)

    def register(self, platform: LtiPlatform, bind: bool = True, **changes: Any) -> None:
        """Register both ways round: the tool in the platform, the platform from a file;
        then (``bind``) bind the course to the platform's LMS course, as the instructor's
        first launch would (a learner's launch before that is refused)."""
        platform.register_tool(login_url=self.url + "/lti/login",
                               redirect_uris=[self.url + "/lti/launch"],
                               jwks_url=self.url + "/lti/jwks.json")
        description = {"issuer": platform.issuer, "client_id": platform.client_id,
                       "deployment_ids": platform.deployment_ids,
                       "auth_login_url": platform.auth_login_url,
                       "auth_token_url": platform.auth_token_url,
                       "key_set_url": platform.key_set_url, **changes}
        path = self.data / "platform.json"
        path.write_text(json.dumps(description))
        lti.register_platform_file(self.store, self.data, path, self.url)
        if bind:
            self.bind(platform)

    def bind(self, platform: LtiPlatform, deployment_id: str | None = None) -> None:
        """Bind the course to the platform's LMS course (as the instructor's page does)."""
        row = self.store.database.one("SELECT id FROM lti_platforms WHERE issuer = ? AND "
                                      "client_id = ?", (platform.issuer, platform.client_id))
        binding.bind(self.store, binding.Binding(
            int(row["id"]), deployment_id or platform.deployment_id, platform.context_id,
            platform.context_title), who="the test")

    def counts(self) -> dict[str, int]:
        counted = {table: self.store.database.one(f"SELECT COUNT(*) AS n FROM {table}")["n"]
                   for table in TABLES}
        counted["logins used"] = self.store.database.one(
            "SELECT COUNT(*) AS n FROM lti_logins WHERE used_at IS NOT NULL")["n"]
        return counted

    def browser(self, **options: Any) -> "httpx.Client":
        return httpx.Client(timeout=30.0, **options)

    def stop(self) -> None:
        lti.stop_sender(self.app)
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()
        self.store.close()


def launch(platform: LtiPlatform, who: str, client: "httpx.Client | None" = None,
           **options: Any) -> "httpx.Response":
    """``who`` launches the tool from ``platform`` (its login, then its id_token), in
    ``client`` or a fresh browser; the page the launch ends on. ``options`` go to
    ``platform.launch_url``: ``launch(platform, "ada", role="TeachingAssistant")``."""
    own = client is None
    client = client or httpx.Client(timeout=30.0)
    try:
        return platform.follow_launch(platform.launch_url(who, **options), client)
    finally:
        if own:
            client.close()


def refusal(page: "httpx.Response") -> str:
    """The reason a refusal page gives: ``"used already" in refusal(page)``."""
    found = REFUSAL.search(page.text)
    assert found, page.text[:800]
    return found.group(1).replace("&#39;", "'")


def wait_until(condition: Any, seconds: float = 20.0) -> None:
    """Wait until ``condition()`` is true, failing after ``seconds``:
    ``wait_until(lambda: outbox.counts(store)["sent"] == 1)``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def signed_in_as(tool: ToolServer, page: "httpx.Response") -> str | None:
    """Who the page says is signed in ("S1815"), or None."""
    found = re.search(r"signed in as ([^<\s]+)", page.text)
    return found.group(1) if found else None


def csrf_of(page: "httpx.Response") -> str:
    """The CSRF token of the page's first form: ``{"csrf": csrf_of(page), ...}``."""
    found = CSRF.search(page.text)
    assert found, page.text[:500]
    return found.group(1)


def graded(store: Store, student: str, score: float = 80.0) -> int:
    """A hand-in graded as the queue stores it (no grading run)."""
    row = store.add_submission(student, "mm_player.py", b"def mm_move(b, p): pass\n",
                               late=False, config="default")
    claimed = store.claim_next("test")
    assert claimed is not None and claimed.id == row.id
    store.finish(row.id, score=score, max_score=100.0,
                 results_json=RESULTS.replace("80.0", str(score)),
                 report_text="report", seconds=1.0)
    return row.id


def fast_sender(tool: ToolServer) -> outbox.Sender:
    """The app's sender, started as the lifespan would, with quick retries."""
    sender = lti.start_sender(tool.app)
    sender.base_delay, sender.poll = 0.2, 0.1
    return sender
