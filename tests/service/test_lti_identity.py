"""An LMS identity cannot be borrowed (issue 33): each way a launch could sign someone in as
another person, reproduced against the running page and refused.

An LMS user is (platform, sub); the course is bound to one LMS course (the first instructor
launch binds it); a roster student is linked once, by the bound platform's own data (SIS id,
email), never by a custom parameter or a ``sub`` that equals a roster id; roles are read as
the LIS vocabulary says (an Administrator gets in, a TA grades, a Mentor gets a page).

The tool runs under uvicorn and the platform is tests/service/lti_platform.py, as in
test_lti_launch.py (the tool and its helpers: lti_tool.py).
"""

from __future__ import annotations

import re
from typing import Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("lti1p3platform")

from lti_platform import LIS, LtiPlatform, User  # noqa: E402
from lti_tool import (CANVAS_TA, ToolServer, csrf_of, graded, launch, refusal,  # noqa: E402
                      signed_in_as, wait_until)

from grader.service.lti import binding  # noqa: E402
from grader.service.lti.launch import access, role_names  # noqa: E402

# The roles Canvas sends for each kind of enrolment (canvas-lms,
# lib/lti/substitutions_helper.rb, LIS_V2_LTI_ADVANTAGE_ROLE_MAP): a TA is the Instructor
# sub-role beside the principal role (lti_tool.CANVAS_TA); an observer a Mentor; a designer a
# ContentDeveloper; an account admin (AccountUser) an institution Administrator. Every launch
# adds the system role User ("user"), as lti_platform does.
CANVAS_OBSERVER = [LIS + "membership#Mentor"]
CANVAS_DESIGNER = [LIS + "membership#ContentDeveloper"]
CANVAS_ACCOUNT_ADMIN = [LIS + "institution/person#Administrator"]


@pytest.fixture
def other(tool: ToolServer, platform: LtiPlatform) -> Iterator[LtiPlatform]:
    """Another LMS registered with the course (not bound): its users are strangers here,
    even with a bound student's email, SIS id or LMS user id, even in a course of the same
    context id."""
    lms = LtiPlatform(users=[
        User("mallory", "lms-user-mallory", "Mallory", "ADA@EXAMPLE.EDU", ["Learner"]),
        User("sis", "lms-user-sis", "Sis", None, ["Learner"], sourcedid="g.hopper"),
        User("twin", "lms-user-test-student-0f3a", "Twin", None, ["Learner"]),
        User("boss", "lms-user-boss", "Boss", "boss@example.edu", ["Instructor"])]).start()
    tool.register(lms, bind=False)
    yield lms
    lms.stop()


def links(tool: ToolServer) -> dict[tuple[int, str], str]:
    return {(row["platform"], row["sub"]): row["student"] for row in
            tool.store.database.query("SELECT platform, sub, student FROM lti_users")}


# --- another platform's users ----------------------------------------------------------------

def test_another_platforms_user_with_a_students_email_is_not_that_student(tool, platform,
                                                                           other):
    assert "signed in as S1815" in launch(platform, "ada").text     # Ada, linked by SIS id
    before = tool.counts()
    with tool.browser() as browser:
        page = launch(other, "mallory", browser)      # ADA@EXAMPLE.EDU, another LMS
        assert page.status_code == 403 and "belongs to another LMS course" in refusal(page)
        assert browser.get(tool.url + "/").status_code == 200
        assert signed_in_as(tool, browser.get(tool.url + "/")) is None
    assert tool.counts() == before
    assert tool.store.student("S1815").name == "Ada Lovelace"        # her name kept
    # The instructor moves the course to the other LMS: Ada stays linked to her own LMS
    # user; the other LMS's user with her email is a student of their own.
    tool.bind(other)
    page = launch(other, "mallory")
    assert page.status_code == 200 and signed_in_as(tool, page) not in (None, "S1815")
    assert tool.store.student("S1815").name == "Ada Lovelace"


def test_a_sub_equal_to_a_roster_id_does_not_sign_in_as_that_student(tool, platform):
    platform.add_user("imposter", "Imposter")                  # no email, no SIS id
    platform.users["imposter"].user_id = "g.hopper"            # Grace's roster id as sub
    page = launch(platform, "imposter")
    assert page.status_code == 200
    assert signed_in_as(tool, page) not in (None, "g.hopper")  # a new student
    assert tool.store.student("g.hopper").name == "Grace"


def test_a_custom_canvas_user_id_or_another_platforms_sourcedid_names_nobody(tool, platform,
                                                                            other):
    platform.add_user("eve", "Eve")                            # no email, no SIS id
    page = launch(platform, "eve", custom={"canvas_user_id": "S1815"})   # the link's author
    assert page.status_code == 200 and signed_in_as(tool, page) not in (None, "S1815")
    assert not any(student == "S1815" for student in links(tool).values())
    page = launch(other, "sis")                                # SIS id g.hopper, another LMS
    assert page.status_code == 403 and signed_in_as(tool, page) is None
    assert "g.hopper" not in links(tool).values()


def test_the_same_sub_from_two_platforms_is_two_people(tool, platform, other):
    page = launch(platform, "test")           # Canvas's Test Student: added, id = their sub
    assert signed_in_as(tool, page) == "lms-user-test-student-0f3a"
    page = launch(other, "twin")              # the same sub on the other LMS
    assert page.status_code == 403 and signed_in_as(tool, page) is None
    tool.bind(other)                          # even once the course moved there
    page = launch(other, "twin")
    assert signed_in_as(tool, page) not in (None, "lms-user-test-student-0f3a")
    assert len({student for student in links(tool).values()}) == 2


# --- the course's one LMS course ---------------------------------------------------------------

def test_a_launch_from_another_lms_course_gets_a_page_not_the_class(tool, platform, other):
    elsewhere = {"https://purl.imsglobal.org/spec/lti/claim/context": {
        "id": "course-other-202", "title": "Another course"}}
    before = tool.counts()
    with tool.browser() as browser:
        page = launch(platform, "alan", browser, extra_claims=elsewhere)
        assert page.status_code == 403
        assert "is bound to the LMS course Tic-Tac-Toe Minimax" in refusal(page)
        assert "Another course" in refusal(page)
        assert browser.get(tool.url + "/instructor").status_code == 401
        page = launch(other, "boss", browser)         # another LMS's instructor
        assert page.status_code == 403 and "is bound to the LMS course" in refusal(page)
        assert browser.get(tool.url + "/instructor").status_code == 401
        page = launch(platform, "alan", browser,      # the same course, another deployment
                      deployment_id=platform.deployment_ids[1])
        assert page.status_code == 403
        page = launch(platform, "ada", browser, extra_claims=elsewhere)   # a learner
        assert page.status_code == 403 and "belongs to another LMS course" in refusal(page)
    assert tool.counts() == before                    # nobody added to the roster


def test_the_first_instructor_launch_binds_the_course_and_learners_wait_for_it(tmp_path):
    tool = ToolServer(tmp_path / "course")
    try:
        with LtiPlatform() as lms:
            tool.register(lms, bind=False)
            before = tool.counts()
            page = launch(lms, "ada")
            assert page.status_code == 403
            assert "the instructor must open the tool from the LMS course first" in \
                refusal(page)
            page = launch(lms, "barbara", role=CANVAS_TA)     # nor does a TA bind it
            assert page.status_code == 403
            assert tool.counts() == before and binding.current(tool.store) is None
            page = launch(lms, "alan")
            assert str(page.url) == tool.url + "/instructor"
            bound = binding.current(tool.store)
            assert (bound.context_id, bound.deployment_id) == (lms.context_id,
                                                               lms.deployment_id)
            assert "signed in as S1815" in launch(lms, "ada").text
    finally:
        tool.stop()


# --- roles -------------------------------------------------------------------------------------

def test_a_ta_grades_but_does_not_run_the_course(tool, platform):
    number = graded(tool.store, "S1815")
    instructor_link = tool.store.instructor_token()
    with tool.browser() as ta:
        page = launch(platform, "barbara", ta, role=CANVAS_TA)
        assert page.status_code == 200 and str(page.url) == tool.url + "/instructor"
        csrf = csrf_of(page)
        assert ta.get(tool.url + "/instructor/queue").status_code == 200
        assert ta.get(tool.url + "/api/gradebook.csv").status_code == 200
        student = ta.get(tool.url + "/instructor/students/S1815")
        assert student.status_code == 200 and "/s/" not in student.text   # no one's link
        assert ta.get(tool.url + f"/instructor/submissions/{number}").status_code == 200
        adjusted = ta.post(tool.url + f"/instructor/submissions/{number}/adjustment",
                           data={"csrf": csrf, "points": "-2", "note": "style"})
        assert adjusted.status_code == 303
        for method, path, form in [
                ("GET", "/instructor/config", None),
                ("POST", "/instructor/config", {"config": "", "csrf": csrf}),
                ("POST", "/instructor/renew-link", {"csrf": csrf}),
                ("GET", "/instructor/lti", None),
                ("POST", "/instructor/lti/unbind", {"csrf": csrf}),
                ("POST", "/instructor/lti/unlink", {"csrf": csrf, "platform": "1",
                                                    "sub": "x"}),
                ("GET", "/instructor/roster", None),
                ("GET", "/instructor/links.csv", None),
                ("POST", "/instructor/students/S1815/deadline",
                 {"csrf": csrf, "deadline": "2030-01-01T10:00"}),
                ("POST", "/instructor/students/S1815/renew", {"csrf": csrf})]:
            answer = ta.request(method, tool.url + path, data=form)
            assert answer.status_code == 403, (method, path, answer.status_code)
    row = tool.store.database.one("SELECT points, set_by FROM adjustments WHERE submission = ?",
                                  (number,))
    assert row["points"] == -2 and "Barbara Liskov (TA" in row["set_by"]
    assert tool.store.identify(instructor_link) is not None        # not renewed
    assert binding.current(tool.store) is not None                  # not unbound
    assert tool.store.get_setting("instructor_token_hash") is not None


def test_a_canvas_admin_enrolled_nowhere_gets_the_instructors_pages(tool, platform):
    platform.add_user("root", "Account Admin", "admin@example.edu", roles=[])
    page = launch(platform, "root", role=CANVAS_ACCOUNT_ADMIN)
    roles = platform.last_launch().claims["https://purl.imsglobal.org/spec/lti/claim/roles"]
    assert sorted(roles) == sorted(CANVAS_ACCOUNT_ADMIN + [LIS + "system/person#User"])
    assert page.status_code == 200 and str(page.url) == tool.url + "/instructor"


@pytest.mark.parametrize("roles", [CANVAS_OBSERVER, CANVAS_DESIGNER])
def test_a_mentor_or_a_designer_alone_gets_a_page_saying_why(tool, platform, roles):
    before = tool.counts()
    with tool.browser() as browser:
        page = launch(platform, "grace", browser, role=roles)
        assert page.status_code == 403
        said = refusal(page)
        assert "give you nothing on this page" in said
        assert roles[0].rsplit("#", 1)[1] in said             # names the role
        assert browser.get(tool.url + "/instructor").status_code == 401
    assert tool.counts() == before


def test_roles_read_as_the_lis_vocabulary_says():
    def of(*uris: str) -> str | None:
        return access(role_names(list(uris)))

    system_user = LIS + "system/person#User"
    assert of(*CANVAS_TA, system_user) == "grader"
    assert of(*CANVAS_ACCOUNT_ADMIN, system_user) == "instructor"
    assert of(LIS + "system/person#Administrator") == "instructor"
    assert of(LIS + "membership#Administrator") == "instructor"
    assert of("urn:lti:instrole:ims/lis/Administrator") == "instructor"   # LIS v1
    assert of(LIS + "membership#Instructor", system_user) == "instructor"
    assert of("Instructor") == "instructor" and of("Learner") == "learner"   # short names
    assert of(system_user) is None and of(*CANVAS_OBSERVER) is None
    assert of(*CANVAS_DESIGNER) is None
    assert of(LIS + "institution/person#Instructor") is None      # faculty, not of this course


# --- the instructor's page: links and the binding ----------------------------------------------

def test_the_instructors_page_shows_each_link_and_undoes_one(tool, platform):
    launch(platform, "ada")                               # linked by her SIS id
    with tool.browser() as browser:
        page = launch(platform, "alan", browser)
        wait_until(lambda: tool.store.database.one(
            "SELECT synced_at FROM lti_contexts")["synced_at"] is not None)
        page = browser.get(tool.url + "/instructor/lti")
        assert "Bound to <strong>Tic-Tac-Toe Minimax</strong>" in page.text
        course_row = re.search(r"<tr><td>Tic-Tac-Toe Minimax<br>.*?</tr>", page.text, re.S)
        assert course_row, page.text                          # its counts, the line items 1
        cells = re.findall(r"<td>(.*?)</td>", course_row.group(0), re.S)
        assert cells[3] == "1", cells                       # course, students, left, items
        row = re.search(r"<tr><td><a [^>]*>Ada Lovelace</a>.*?</tr>", page.text, re.S)
        assert row, page.text
        assert "lms-user-ada-1815" in row.group(0) and "launch: SIS id" in row.group(0)
        platform_id = binding.current(tool.store).platform
        undo = {"platform": str(platform_id), "sub": "lms-user-ada-1815"}
        assert browser.post(tool.url + "/instructor/lti/unlink", data=undo).status_code == 403
        done = browser.post(tool.url + "/instructor/lti/unlink",
                            data={**undo, "csrf": csrf_of(page)})
        assert done.status_code == 200 and "S1815 is no longer linked" in done.text
        assert (platform_id, "lms-user-ada-1815") not in links(tool)
        change = tool.store.database.one("SELECT who, subject FROM changes WHERE "
                                         "kind = 'lti_link'")
        assert (change["who"], change["subject"]) == ("instructor", "S1815")
        # The binding can be changed on the page: then the old course's launches are refused.
        moved = browser.post(tool.url + "/instructor/lti/bind", data={
            "csrf": csrf_of(page), "platform": str(platform_id),
            "deployment": platform.deployment_id, "context_id": "course-ttt-102"})
        assert moved.status_code == 200 and "course-ttt-102" in moved.text
    assert launch(platform, "ada").status_code == 403
