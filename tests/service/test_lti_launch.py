"""The page as an LTI 1.3 tool, launched from a real platform over HTTP (tests/service/
lti_platform.py: an LMS stand-in on 127.0.0.1 with its own RSA keys). The tool runs under
uvicorn on 127.0.0.1 too: the platform fetches the tool's key set to check its token
requests. No grading runs: a result is stored as the queue stores one.

Launches (from the LMS course the course is bound to) sign a learner in as their student
(matched by SIS id, by email, or added), an Instructor in as the instructor and a TA as a
grader (tests/service/test_lti_identity.py has the refusals); every bad launch is refused
with a page and stores nothing; the roster syncs; grades reach the platform's line item,
through the outbox. The tool and its helpers are in lti_tool.py; conftest.py's ``tool`` and
``platform`` fixtures start them.
"""

from __future__ import annotations

import http.cookiejar
import re
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("lti1p3platform")

from lti_platform import LtiPlatform  # noqa: E402
from lti_tool import (ToolServer, fast_sender, graded, launch, refusal,  # noqa: E402
                      wait_until)

from grader.service import lti  # noqa: E402
from grader.service.app import open_store  # noqa: E402
from grader.service.course import auth  # noqa: E402
from grader.service.lti import outbox, registration  # noqa: E402


# --- launches ------------------------------------------------------------------------------

def test_a_learner_lands_signed_in_as_the_student_the_roster_has(tool, platform):
    with tool.browser() as browser:
        page = launch(platform, "ada", browser)
        assert page.status_code == 200 and str(page.url) == tool.url + "/"
        assert "signed in as S1815" in page.text                 # matched by the SIS id
        assert browser.get(tool.url + "/instructor").status_code == 403   # not the teacher's
        assert browser.get(tool.url + "/instructor/lti").status_code == 403
        assert browser.post(tool.url + "/instructor/lti/resend").status_code == 403
    ada = tool.store.student("S1815")
    assert (ada.name, ada.email) == ("Ada Lovelace", "ada@example.edu")   # the LMS's
    page = launch(platform, "grace", method="post")               # Canvas posts the login
    assert "signed in as g.hopper" in page.text                   # matched by email
    page = launch(platform, "test")                               # Canvas's Test Student
    assert "signed in as lms-user-test-student-0f3a" in page.text   # added
    assert len(tool.store.students()) == 3


def test_instructor_and_ta_land_on_the_instructors_pages(tool, platform):
    for who in ("alan", "barbara"):
        page = launch(platform, who)
        assert page.status_code == 200 and str(page.url) == tool.url + "/instructor", who
    page = launch(platform, "ada", role="TeachingAssistant")       # the role decides
    assert str(page.url) == tool.url + "/instructor"


def test_the_same_learner_launching_again_is_the_same_student(tool, platform):
    launch(platform, "test")
    launch(platform, "test")
    assert len(tool.store.students()) == 3


SPOILED = [
    ("payload", "signature does not verify"), ("signature", "signature does not verify"),
    ("expired", "has expired"), ("future", "issued in the future"),
    ("wrong_aud", "meant for another tool"), ("wrong_iss", "is not the platform's"),
    ("unknown_kid", "key set does not have"), ("replayed_nonce", "nonce is not its login's"),
    ("wrong_deployment", "is not registered with this course"), ("alg_none", "RS256")]


def test_a_bad_token_is_refused_with_a_page_and_nothing_stored(tool, platform):
    launch(platform, "grace")              # a first launch, so that a nonce can be replayed
    for tamper, says in SPOILED:           # one course for all: each leaves it as it was
        before = tool.counts()
        with tool.browser() as browser:
            page = launch(platform, "ada", browser, tamper=tamper)
            assert page.status_code == 403, tamper
            assert says in refusal(page), (tamper, refusal(page))
            assert "signed in as" not in browser.get(tool.url + "/").text, tamper
        assert tool.counts() == before, tamper


def test_a_replayed_launch_and_a_missing_or_foreign_state_are_refused(tool, platform):
    with tool.browser() as browser:
        launch(platform, "ada", browser)
        done = platform.last_launch()
        before = tool.counts()
        again = browser.post(done.redirect_uri, data={"id_token": done.id_token,
                                                      "state": done.state})
        assert again.status_code == 403 and "used already" in refusal(again)
        nothing = browser.post(done.redirect_uri, data={"id_token": done.id_token})
        assert nothing.status_code == 400 and "has no state" in refusal(nothing)
        made_up = browser.post(done.redirect_uri, data={"id_token": done.id_token,
                                                        "state": "made-up"})
        assert made_up.status_code == 400 and "state is unknown" in refusal(made_up)
    # Another browser (its own cookie) posts a login's state it did not start.
    assert tool.counts() == before
    with tool.browser() as victim, tool.browser() as attacker:
        launch(platform, "grace", attacker)                     # the attacker's cookie
        step = victim.get(platform.launch_url("ada"), follow_redirects=True)
        action, fields = re.search(r'action="([^"]+)"', step.text).group(1), dict(
            re.findall(r'name="([^"]+)" value="([^"]*)"', step.text))
        before = tool.counts()
        stolen = attacker.post(action, data=fields)
        assert stolen.status_code == 403 and "another browser" in refusal(stolen)
    assert tool.counts() == before


def test_an_unknown_platform_or_deployment_at_login_is_refused(tool, platform):
    with tool.browser() as browser:
        page = browser.get(tool.url + "/lti/login", params={
            "iss": "https://lms.example.invalid", "login_hint": "x"})
        assert page.status_code == 403 and "not registered" in refusal(page)
        page = browser.get(tool.url + "/lti/login", params={
            "iss": platform.issuer, "login_hint": "x", "client_id": platform.client_id,
            "lti_deployment_id": "nope"})
        assert page.status_code == 403 and "deployment 'nope'" in refusal(page)
        page = browser.get(tool.url + "/lti/login")
        assert page.status_code == 400


def test_a_revoked_student_is_refused(tool, platform):
    tool.store.set_revoked("S1815")
    before = tool.counts()
    page = launch(platform, "ada")
    assert page.status_code == 403 and "revoked" in refusal(page)
    assert tool.counts() == before


def test_a_rotated_platform_key_is_fetched_again(tool, platform):
    launch(platform, "ada")                              # the key set is cached now
    platform.rotate_keys(keep_old=False)
    page = launch(platform, "grace")
    assert page.status_code == 200 and "signed in as g.hopper" in page.text


def test_blocked_cookies_say_so_and_a_new_tab_signs_in(tool, platform):
    class NoSessionCookie(http.cookiejar.DefaultCookiePolicy):
        def set_ok(self, cookie: Any, request: Any) -> bool:   # a browser that drops it
            return cookie.name != auth.SESSION_COOKIE and super().set_ok(cookie, request)

    jar = http.cookiejar.CookieJar(NoSessionCookie())
    with tool.browser(cookies=jar) as framed:
        page = launch(platform, "ada", framed)
        assert page.status_code == 200 and "blocks the cookies" in page.text
        link = re.search(r'href="(/lti/enter/[^"]+\?tab=1)" target="_blank"', page.text)
        assert link, page.text
    with tool.browser() as tab:
        opened = tab.get(tool.url + link.group(1), follow_redirects=True)
        assert "signed in as S1815" in opened.text
    with tool.browser() as other:                   # the hand-off signs in once
        assert other.get(tool.url + link.group(1)).status_code == 403
    # A browser that keeps no cookie at all cannot even bind the login's state.
    with tool.browser(cookies=http.cookiejar.CookieJar(
            http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))) as strict:
        page = launch(platform, "grace", strict)
        assert "did not keep this page's cookie" in refusal(page)
        # No link that resends the login (its lti_message_hint serves once): the LMS's own.
        assert "/lti/login?" not in page.text and "from the LMS in a new tab" in page.text


def test_the_registered_lms_may_frame_the_page(tool, platform):
    page = httpx.get(tool.url + "/lti/jwks.json")
    policy = page.headers["content-security-policy"]
    assert f"frame-ancestors 'self' {platform.issuer}" in policy
    assert "x-frame-options" not in page.headers
    keys = page.json()["keys"]
    assert keys and all("d" not in key and "p" not in key for key in keys)   # public only


# --- roster ---------------------------------------------------------------------------------

def test_an_instructors_launch_syncs_the_roster_and_nobody_is_lost(tool, platform):
    launch(platform, "alan")
    wait_until(lambda: tool.store.database.one(
        "SELECT synced_at FROM lti_contexts")["synced_at"] is not None)
    students = {student.id: student for student in tool.store.students()}
    assert set(students) == {"S1815", "g.hopper", "lms-user-test-student-0f3a"}  # claude left
    assert students["g.hopper"].name == "Grace Hopper"                          # updated
    platform.users["grace"].status = "Inactive"                # Grace leaves the LMS course
    del platform.users["test"]                                  # removed altogether
    with tool.browser() as browser:
        launch(platform, "alan", browser)                       # syncs again
        wait_until(lambda: len(left_students(tool)) == 2)
        assert left_students(tool) == {"g.hopper", "lms-user-test-student-0f3a"}
        page = browser.get(tool.url + "/instructor/lti")
        assert "Left the LMS course" in page.text and "Grace Hopper" in page.text
        platform.add_user("hedy", "Hedy Lamarr", "hedy@example.edu")   # enrols late
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        page = browser.post(tool.url + "/instructor/lti/sync", data={"csrf": csrf})
        assert page.status_code == 200
        assert "1 students added, 0 updated, 0 marked as having left" in page.text
    assert tool.store.student("g.hopper") is not None       # still on the roster
    assert len(tool.store.students()) == 4


def left_students(tool: ToolServer) -> set[str]:
    return {row["student"] for row in tool.store.database.query(
        "SELECT student FROM lti_members WHERE status = 'left' AND student IS NOT NULL")}


# --- grades ---------------------------------------------------------------------------------

def test_a_grade_reaches_the_line_item_of_the_launch(tool, platform):
    launch(platform, "ada")
    fast_sender(tool)
    number = graded(tool.store, "S1815")
    assert lti.grade_changed(tool.store, "S1815") == 1
    score = platform.wait_for_scores(1)[0]
    body = score.body
    assert (body["userId"], body["scoreGiven"], body["scoreMaximum"]) == (
        "lms-user-ada-1815", 80.0, 100.0)
    assert body["activityProgress"] == "Completed" and body["gradingProgress"] == "FullyGraded"
    assert f"{tool.url}/submissions/{number}" in body["comment"]
    assert body["submission"]["submittedAt"] == tool.store.submission(number).received_at
    assert score.token and score.content_type.startswith("application/vnd.ims.lis.v1.score")
    assert lti.grade_changed(tool.store, "S1815") == 0          # the same grade: nothing new


def test_a_platform_that_is_down_gets_the_grade_once_it_is_back(tool, platform):
    launch(platform, "ada")
    platform.scores_down()
    sender = fast_sender(tool)
    graded(tool.store, "S1815", 70.0)
    lti.grade_changed(tool.store, "S1815")
    wait_until(lambda: len(platform.received_scores) >= 2)        # tried, refused, retried
    row = outbox.rows(tool.store)[0]
    assert row.status == "pending" and row.attempts >= 1 and "503" in (row.last_error or "")
    platform.restore()
    outbox.resend(tool.store)                                     # or wait for the backoff
    sender.wake(now=True)
    accepted = platform.wait_for_scores(1)
    wait_until(lambda: outbox.counts(tool.store)["sent"] == 1)
    sender.stop()                                 # nothing more can go out: count what did
    assert len(platform.accepted_scores()) == 1 and accepted[0].body["scoreGiven"] == 70.0
    assert outbox.counts(tool.store)["sent"] == 1


def test_a_refusing_platform_fails_the_row_and_the_instructor_resends_it(tool, platform):
    launch(platform, "ada")
    platform.scores_refuse(403)
    sender = fast_sender(tool)
    sender.max_attempts = 2
    graded(tool.store, "S1815", 60.0)
    lti.grade_changed(tool.store, "S1815")
    wait_until(lambda: outbox.counts(tool.store)["failed"] == 1)
    with tool.browser() as browser:
        launch(platform, "alan", browser)
        page = browser.get(tool.url + "/instructor/lti")
        assert "1 failed" in page.text and "refused the score (403" in page.text
        platform.restore()
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        browser.post(tool.url + "/instructor/lti/resend", data={"csrf": csrf})
    assert platform.wait_for_scores(1)[0].body["scoreGiven"] == 60.0


def test_a_newer_grade_supersedes_the_waiting_one(tool, platform):
    launch(platform, "ada")
    platform.scores_down()
    graded(tool.store, "S1815", 50.0)
    lti.grade_changed(tool.store, "S1815")
    graded(tool.store, "S1815", 90.0)                           # the latest counts
    lti.grade_changed(tool.store, "S1815")
    platform.restore()
    sender = fast_sender(tool)
    platform.wait_for_scores(1)
    wait_until(lambda: outbox.counts(tool.store)["pending"] == 0)
    sender.stop()
    assert [score.body["scoreGiven"] for score in platform.accepted_scores()] == [90.0]
    assert outbox.counts(tool.store)["superseded"] == 1


def test_a_restart_sends_what_a_killed_server_left(tool, platform):
    launch(platform, "ada")
    graded(tool.store, "S1815", 75.0)
    lti.grade_changed(tool.store, "S1815")             # written; the server "dies" here
    tool.store.close()
    store = open_store(tool.data)                     # a new process opens the same file
    tool.store = store
    tool.app.state.store = store
    tool.app.state.lti = None
    fast_sender(tool)
    assert platform.wait_for_scores(1)[0].body["scoreGiven"] == 75.0


def test_dynamic_registration_stores_the_platform_and_its_launches_work(tool):
    with LtiPlatform() as lms:
        code = registration.registration_code(tool.store)
        sent = lms.register_dynamically(f"{tool.url}/lti/register/{code}")
        assert sent.redirect_uris == [tool.url + "/lti/launch"]
        assert sent.jwks_url == tool.url + "/lti/jwks.json"
        tool.bind(lms)
        page = launch(lms, "ada")
        assert "signed in as S1815" in page.text
        again = httpx.get(lms.dynamic_registration_url(f"{tool.url}/lti/register/{code}"))
        assert again.status_code == 400 and "no longer" in again.text   # the code was used
