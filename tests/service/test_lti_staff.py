"""The course's graders from the LMS (its TAs) under the instructor's say (issue 33: "a TA gets
the grading pages"; grader/service/lti/staff.py): the instructor's LTI page lists each TA who
launched the tool; removing one ends their sessions at once and refuses their launches until
the instructor restores them; a TA grades only while the course stays bound to the LMS course
they launched from, and only while the LMS says TA.

Against the running page and the test platform (lti_tool.py, lti_platform.py), as
test_lti_identity.py: Barbara is the platform's TA.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("lti1p3platform")

from lti_platform import LIS, LtiPlatform  # noqa: E402
from lti_tool import (CANVAS_TA, ToolServer, csrf_of, launch, refusal,  # noqa: E402
                      signed_in_as)
from service_helpers import database_at_version  # noqa: E402

from grader.service.lti import binding  # noqa: E402

# What Canvas sends for a student enrolment (canvas-lms, lib/lti/substitutions_helper.rb,
# LIS_V2_LTI_ADVANTAGE_ROLE_MAP: StudentEnrollment is membership#Learner).
CANVAS_STUDENT = [LIS + "membership#Learner"]
BARBARA = "lms-user-barbara-1939"


@contextmanager
def ta_browser(tool: ToolServer, platform: LtiPlatform) -> Iterator["httpx.Client"]:
    """A browser where Barbara, the TA, launched the tool: on the grading pages."""
    with tool.browser() as browser:
        page = launch(platform, "barbara", browser, role=CANVAS_TA)
        assert page.status_code == 200 and str(page.url) == tool.url + "/instructor"
        yield browser


@contextmanager
def instructor_browser(tool: ToolServer, platform: LtiPlatform) -> Iterator["httpx.Client"]:
    """A browser where Alan, the instructor, launched the tool."""
    with tool.browser() as browser:
        assert str(launch(platform, "alan", browser).url) == tool.url + "/instructor"
        yield browser


def graders_section(page: "httpx.Response") -> str:
    found = re.search(r'<section id="graders">(.*?)</section>', page.text, re.S)
    assert found, page.text[:800]
    return found.group(1)


def grader_form(tool: ToolServer, page: "httpx.Response", sub: str = BARBARA) -> dict[str, str]:
    return {"csrf": csrf_of(page), "platform": str(binding.current(tool.store).platform),
            "sub": sub}


def test_the_instructors_page_lists_each_ta_after_their_launch(tool, platform):
    with instructor_browser(tool, platform) as alan:
        section = graders_section(alan.get(tool.url + "/instructor/lti"))
        assert "Barbara" not in section and "No TA has launched the tool yet" in section
        with ta_browser(tool, platform):
            pass
        page = alan.get(tool.url + "/instructor/lti")
        row = re.search(r"<tr><td>Barbara Liskov.*?</tr>", graders_section(page), re.S)
        assert row, graders_section(page)
        assert BARBARA in row.group(0) and platform.issuer in row.group(0)
        assert ">Remove</button>" in row.group(0)
        staff = tool.store.database.one("SELECT added_at, seen_at FROM lti_staff")
        assert staff["added_at"] and staff["seen_at"]


def test_removing_a_ta_ends_their_session_and_refuses_their_next_launch(tool, platform):
    with ta_browser(tool, platform) as barbara, instructor_browser(tool, platform) as alan:
        assert barbara.get(tool.url + "/instructor/queue").status_code == 200
        page = alan.get(tool.url + "/instructor/lti")
        form = grader_form(tool, page)
        without_csrf = {key: value for key, value in form.items() if key != "csrf"}
        assert alan.post(tool.url + "/instructor/lti/remove-grader",
                         data=without_csrf).status_code == 403
        assert barbara.post(tool.url + "/instructor/lti/remove-grader",   # not the TA's to do
                            data={**form, "csrf": csrf_of(barbara.get(
                                tool.url + "/instructor"))}).status_code == 403
        done = alan.post(tool.url + "/instructor/lti/remove-grader", data=form)
        assert done.status_code == 200 and "Barbara Liskov is no longer a grader" in done.text
        # at once: the session she has open signs nobody in
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert barbara.get(tool.url + "/instructor/queue").status_code == 401
        row = re.search(r"<tr><td>Barbara Liskov.*?</tr>", graders_section(done), re.S)
        assert row and "removed" in row.group(0) and ">Restore</button>" in row.group(0)
    with tool.browser() as again:               # her next launch, the LMS still says TA
        page = launch(platform, "barbara", again, role=CANVAS_TA)
        assert page.status_code == 403
        assert "removed you from this course's graders" in refusal(page)
        assert again.get(tool.url + "/instructor").status_code == 401
    change = tool.store.database.one("SELECT who, subject FROM changes WHERE kind = 'lti_staff'")
    assert (change["who"], change["subject"].endswith("/" + BARBARA)) == ("instructor", True)


def test_restoring_a_removed_ta_lets_their_next_launch_in(tool, platform):
    with ta_browser(tool, platform) as barbara, instructor_browser(tool, platform) as alan:
        page = alan.get(tool.url + "/instructor/lti")
        assert alan.post(tool.url + "/instructor/lti/remove-grader",
                         data=grader_form(tool, page)).status_code == 200
        restored = alan.post(tool.url + "/instructor/lti/restore-grader",
                             data=grader_form(tool, page))
        assert restored.status_code == 200 and "is a grader again" in restored.text
        row = re.search(r"<tr><td>Barbara Liskov.*?</tr>", graders_section(restored), re.S)
        assert row and ">Remove</button>" in row.group(0)
        # the removal's ended session stays ended; a new launch signs her in
        assert barbara.get(tool.url + "/instructor").status_code == 401
        page = launch(platform, "barbara", barbara, role=CANVAS_TA)
        assert page.status_code == 200 and str(page.url) == tool.url + "/instructor"
        assert barbara.get(tool.url + "/instructor/queue").status_code == 200


def test_rebinding_the_course_ends_the_old_courses_ta_sessions(tool, platform):
    with ta_browser(tool, platform) as barbara, instructor_browser(tool, platform) as alan:
        token_hash = tool.store.database.one("SELECT token_hash FROM lti_staff")["token_hash"]
        page = alan.get(tool.url + "/instructor/lti")
        bound = binding.current(tool.store)
        moved = alan.post(tool.url + "/instructor/lti/bind", data={
            "csrf": csrf_of(page), "platform": str(bound.platform),
            "deployment": platform.deployment_id, "context_id": "course-ttt-102"})
        assert moved.status_code == 200 and "course-ttt-102" in moved.text
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert tool.store.identify_hash(token_hash) is None
        # bound back to her course: the ended session stays ended, her launch signs her in
        back = alan.post(tool.url + "/instructor/lti/bind", data={
            "csrf": csrf_of(page), "platform": str(bound.platform),
            "deployment": platform.deployment_id, "context_id": platform.context_id})
        assert back.status_code == 200
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert launch(platform, "barbara", barbara, role=CANVAS_TA).status_code == 200
        assert barbara.get(tool.url + "/instructor").status_code == 200
        # forgetting the binding ends them too
        assert alan.post(tool.url + "/instructor/lti/unbind",
                         data={"csrf": csrf_of(page)}).status_code == 200
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert tool.store.identify_hash(token_hash) is None
        assert alan.get(tool.url + "/instructor").status_code == 200   # not the instructor


def test_a_ta_whose_later_launch_says_learner_is_no_longer_a_grader(tool, platform):
    with ta_browser(tool, platform) as barbara:
        token_hash = tool.store.database.one("SELECT token_hash FROM lti_staff")["token_hash"]
        with tool.browser() as other:                 # her enrolment changed in the LMS
            page = launch(platform, "barbara", other, role=CANVAS_STUDENT)
            assert page.status_code == 200 and signed_in_as(tool, page) == "S1939"
            assert other.get(tool.url + "/instructor").status_code == 403
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert tool.store.identify_hash(token_hash) is None
    assert tool.store.database.one("SELECT COUNT(*) AS n FROM lti_staff")["n"] == 0
    change = tool.store.database.one("SELECT who FROM changes WHERE kind = 'lti_staff'")
    assert change["who"].startswith("the LMS (a launch with the roles Learner")
    with tool.browser() as again:                     # a TA again: a grader again
        assert str(launch(platform, "barbara", again, role=CANVAS_TA).url) == \
            tool.url + "/instructor"


def test_a_course_of_version_6_keeps_its_tas_rows_but_they_grade_only_after_a_launch(tmp_path):
    from grader.service.course.schema import migrate
    from grader.service.course.storage import Store

    database = database_at_version(tmp_path / "course.sqlite3", 6)
    with database.transaction() as db:
        db.execute("INSERT INTO lti_platforms (issuer, client_id, auth_login_url, "
                   "auth_token_url, key_set_url, added_at, added_by) VALUES ('https://lms', "
                   "'c', 'https://lms/a', 'https://lms/t', 'https://lms/k', 't', 'test')")
        db.execute("INSERT INTO lti_staff (platform, sub, role, name, token_hash, added_at, "
                   "seen_at) VALUES (1, 'u-7', 'grader', 'Barbara', 'HASH', 't', 't')")
        db.execute("INSERT INTO settings VALUES ('lti_binding', '{\"platform\": 1, "
                   "\"deployment_id\": \"d1\", \"context_id\": \"c7\"}')")
    assert migrate(database) == [7, 8, 9]
    database.close()
    store = Store(tmp_path / "course.sqlite3", secret=b"k" * 32)
    try:
        row = store.database.one("SELECT context_id, removed_at FROM lti_staff")
        assert (row["context_id"], row["removed_at"]) == ("", None)
        # the LMS course of the row is unknown: no grader until their next launch records it
        assert store.identify_hash("HASH") is None
    finally:
        store.close()


def test_a_ta_who_left_the_lms_course_is_no_longer_a_grader_after_a_roster_sync(tool,
                                                                                 platform):
    with ta_browser(tool, platform) as barbara, instructor_browser(tool, platform) as alan:
        platform.users["barbara"].status = "Inactive"     # NRPS: her enrolment ended
        page = alan.get(tool.url + "/instructor/lti")
        synced = alan.post(tool.url + "/instructor/lti/sync", data={"csrf": csrf_of(page)})
        assert synced.status_code == 200
        assert barbara.get(tool.url + "/instructor").status_code == 401
        assert "Barbara" not in graders_section(alan.get(tool.url + "/instructor/lti"))
