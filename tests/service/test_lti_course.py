"""A course that lives in an LMS, end to end, as an instructor sets it up from the README:
``python3 -m grader serve --data DIR --lti-platform FILE.json`` registers the test platform
(tests/service/lti_platform.py, an LMS stand-in on 127.0.0.1 with its own RSA keys) and
prints the URLs to paste into it; the server is started as the README says; a student
launches from the LMS in headless Chromium (after the instructor's first launch bound the
course to the LMS course), lands signed in on their page, hands in, and the platform
receives the score; the instructor syncs the roster; the server
is killed with SIGKILL while scores wait in the outbox (the platform is down), started
again, and each is delivered once.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from browser_helpers import new_page, watch_until_graded  # noqa: E402
from lti_platform import LtiPlatform  # noqa: E402
from service_helpers import FAST, ROOT, free_port  # noqa: E402

GRADING_SECONDS = 300



def outbox(data: Path) -> list[tuple]:
    database = sqlite3.connect(data / "course.sqlite3")
    try:
        return database.execute("SELECT status, COUNT(*) FROM lti_outbox GROUP BY status "
                                "ORDER BY status").fetchall()
    finally:
        database.close()


# The same life of a course (registration, binding, hand-ins, a grade across a SIGKILL) is
# test_lti_end_to_end.py's in the normal run, in both LMS profiles; this one, on the plain
# test platform, runs with the slow ones (python -m pytest -m slow).
@pytest.mark.slow
@pytest.mark.grades(2)
@pytest.mark.timeout(900)
def test_a_course_in_an_lms_from_registration_to_grades_after_sigkill(chromium, serve,
                                                                      tmp_path: Path,
                                                                      shots: Path) -> None:
    data = tmp_path / "course"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # One site (127.0.0.1) for both: over http the state cookie is SameSite=Lax, which a
    # cross-site form post would not carry; a real LMS and the page both speak https.
    with LtiPlatform() as platform:
        # Registration by hand: the file in the field names tools use, then the URLs.
        described = tmp_path / "platform.json"
        described.write_text(json.dumps({
            "issuer": platform.issuer, "client_id": platform.client_id,
            "deployment_ids": platform.deployment_ids,
            "auth_login_url": platform.auth_login_url,
            "auth_token_url": platform.auth_token_url, "key_set_url": platform.key_set_url}))
        stored = subprocess.run(
            [sys.executable, "-m", "grader", "serve", "--data", str(data), "--port", str(port),
             "--lti-platform", str(described)], cwd=ROOT, capture_output=True, text=True,
            timeout=120, stdin=subprocess.DEVNULL)
        assert stored.returncode == 0, stored.stderr
        pasted = dict(re.findall(r"^\s+(.+?):\s+(http\S+)$", stored.stdout, re.M))
        platform.register_tool(login_url=pasted["OIDC login initiation URL"],
                               redirect_uris=[pasted["Redirect (launch) URL"]],
                               jwks_url=pasted["Public key set URL"])
        server = serve(data, "--port", str(port), "--jobs", "1")
        assert server.url == url

        # The instructor opens the tool from the LMS course first: that binds the course to
        # it (a learner's launch before that is refused).
        problems: list[str] = []
        teacher = new_page(chromium, problems)
        teacher.goto(platform.launch_url("alan"))
        teacher.wait_for_url(re.compile(r"/instructor"))

        # A student launches from the LMS: signed in on her page; she hands in.
        ada = new_page(chromium, problems)
        ada.goto(platform.launch_url("ada"))
        ada.wait_for_url(re.compile(re.escape(url) + r"/?$"))
        assert "Hand in mm_player.py" in ada.inner_text("h1")
        assert "Ada Lovelace" in ada.inner_text("h1")
        ada.set_input_files("input[name=file]", str(FAST))
        ada.click("button:has-text('Hand in')")
        ada.wait_for_url(re.compile(r"/submissions/\d+$"))
        watch_until_graded(ada)
        ada.screenshot(path=str(shots / "9-lti-student.png"), full_page=True)
        [score] = platform.wait_for_scores(1, timeout=GRADING_SECONDS)
        assert (score.body["scoreGiven"], score.body["scoreMaximum"]) == (100, 100)
        assert score.body["userId"] == platform.users["ada"].user_id
        assert (score.body["activityProgress"], score.body["gradingProgress"]) == \
            ("Completed", "FullyGraded")

        # The instructor's pages: the roster syncs from the LMS.
        teacher.goto(url + "/instructor/lti")
        teacher.click("button:has-text('Sync the roster')")
        synced = teacher.inner_text("main")
        assert "grace" in synced.lower() or "added" in synced.lower(), synced
        teacher.goto(url + "/instructor")
        assert "Grace Hopper" in teacher.inner_text("table.class")
        assert problems == [], problems

        # The LMS goes down; two grades change (adjustments); SIGKILL while they wait.
        platform.scores_down()
        token = server.instructor_token()
        api = httpx.Client(base_url=url, headers={"authorization": f"Bearer {token}"},
                           timeout=30)
        number = int(ada.url.rsplit("/", 1)[1])
        assert api.post(f"/api/submissions/{number}/adjustment",
                        json={"points": -5, "note": "docstrings"}).status_code == 200
        deadline = time.monotonic() + 60
        while ("pending", 1) not in outbox(data) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ("pending", 1) in outbox(data), outbox(data)
        server.stop(kill=True)
        platform.restore()
        before = len(platform.accepted_scores())

        again = serve(data, "--port", str(port), "--jobs", "1")
        platform.wait_for_scores(before + 1, timeout=120)
        time.sleep(2)                                   # nothing more comes
        delivered = platform.accepted_scores()[before:]
        assert [record.body["scoreGiven"] for record in delivered] == [95]
        assert ("sent", 2) in outbox(data) or all(status != "pending"
                                                  for status, _ in outbox(data))
        again.stop()
