"""The course's dates change on the running page (issue 35, item 4): the "Course dates" form
and ``PUT /api/course`` change the deadline, the late deadline, the late policy and which
hand-in counts, with a row in the change log for each; the pages, the gradebook, the LMS's
grades and the student's page follow without a restart; a TA reads them, cannot change them;
a restart keeps them. (Before: they were read once, when ``serve`` started.)
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from test_course_records import NOW, Course, _csrf  # noqa: E402

from grader.service import lti  # noqa: E402
from grader.service.course import record_queries  # noqa: E402
from grader.service.course.intake import Deadlines  # noqa: E402
from grader.service.course.records import LatePolicy  # noqa: E402
from grader.service.course.times import format_time  # noqa: E402
from grader.service.lti import outbox  # noqa: E402

PARIS = ZoneInfo("Europe/Paris")


def _local(moment) -> str:
    """As the form's datetime-local input sends it, in the course's zone (Paris)."""
    return moment.astimezone(PARIS).strftime("%Y-%m-%dT%H:%M")


def _latest(course: Course, student: str) -> dict:
    [entry] = [one for one in course.api().get("/api/class").json()["students"]
               if one["student_id"] == student]
    return entry["latest"]


@pytest.fixture
def late_course(tmp_path: Path) -> Course:
    """Deadline a day ago, late hand-ins for two more days, 10% a day; times in Paris."""
    made = Course(tmp_path / "late", deadlines=Deadlines(NOW - timedelta(days=1),
                                                         NOW + timedelta(days=2)),
                  late_policy=LatePolicy.parse("10%/day"), timezone="Europe/Paris")
    yield made
    made.store.close()


def test_the_form_moves_the_deadline_and_a_late_hand_in_is_on_time_without_a_restart(
        late_course: Course):
    course = late_course
    course.graded("bob", 90.0, NOW - timedelta(hours=1))
    before = _latest(course, "bob")
    assert before["late"] is True and before["final_score"] == 80.0      # a day late: -10
    instructor = course.browser("instructor")
    page = instructor.get("/instructor/course")
    assert page.status_code == 200 and "Course dates" in page.text
    assert 'href="/instructor/course"' in instructor.get("/instructor").text   # in the nav
    deadline, late = NOW + timedelta(days=3), NOW + timedelta(days=5)
    form = {"csrf": _csrf(instructor, "/instructor/course"), "deadline": _local(deadline),
            "late_deadline": _local(late), "late_penalty": "10%/day", "choice": "latest"}
    # Without the form's CSRF token: refused, nothing changed.
    refused = instructor.post("/instructor/course", data={**form, "csrf": "forged"})
    assert refused.status_code == 403 and _latest(course, "bob")["late"] is True
    done = instructor.post("/instructor/course", data=form)
    assert done.status_code == 303, done.text
    after = _latest(course, "bob")
    assert after["late"] is False and after["final_score"] == 90.0
    sent = course.api("alice").post("/api/submissions",
                                    files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert sent.status_code == 201 and sent.json()["late"] is False
    shown = instructor.get(done.headers["location"]).text
    assert "Saved" in shown and deadline.astimezone(PARIS).strftime("%H:%M") in shown
    # A late deadline before the deadline: 400, and nothing changed.
    wrong = instructor.post("/instructor/course", data={**form, "late_deadline": _local(NOW)})
    assert wrong.status_code == 400 and "before the deadline" in wrong.text
    assert course.api().get("/api/course").json()["deadline"] == \
        format_time(deadline.replace(second=0, microsecond=0))


def test_the_api_changes_the_dates_with_a_bearer_token_or_a_session_and_its_csrf_header(
        late_course: Course):
    course = late_course
    start = course.api().get("/api/course").json()
    assert start["late_penalty"] == "10%/day" and start["choice"] == "latest"
    # The instructor's Bearer token.
    answer = course.api().put("/api/course", json={"late_penalty": "5%/day,max=20%",
                                                   "choice": "best"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["late_penalty"] == "5%/day,max=20%" and answer.json()["choice"] == "best"
    # The session's cookie: only with its X-CSRF-Token header.
    browser = course.browser("instructor")
    body = {"late_deadline": None}
    assert browser.put("/api/course", json=body).status_code == 403
    assert course.api().get("/api/course").json()["late_deadline"] is not None
    token = _csrf(browser, "/instructor/course")
    answer = browser.put("/api/course", json=body, headers={"x-csrf-token": token})
    assert answer.status_code == 200 and answer.json()["late_deadline"] is None
    # Clear 400s, and nothing changed by them.
    kept = course.api().get("/api/course").json()
    for wrong, says in (({"deadline": "next friday"}, "ISO 8601"),
                        ({"choice": "worst"}, "latest or best"),
                        ({"late_penalty": "ten percent"}, "10%/day"),
                        ({"deadlin": "2026-12-01T23:59"}, "unknown field"),
                        ({"late_deadline": format_time(NOW - timedelta(days=3))},
                         "before the deadline")):
        refused = course.api().put("/api/course", json=wrong)
        assert refused.status_code == 400 and says in refused.json()["error"], refused.text
    assert course.api().put("/api/course", content=b'{"choice": "best"}',
                            headers={"content-type": "text/plain"}).status_code == 415
    assert course.api("alice").put("/api/course", json={"choice": "latest"}).status_code == 403
    assert course.api().get("/api/course").json() == kept
    # The change log: who, when, before, after, one row per field changed.
    rows = [(one["who"], one["field"], one["before"], one["after"]) for one in kept["changes"]]
    assert rows[-3:] == [("instructor", "late_penalty", "10%/day", "5%/day,max=20%"),
                         ("instructor", "choice", "latest", "best"),
                         ("instructor", "late_deadline",
                          format_time(NOW + timedelta(days=2)), None)]
    logged = record_queries.changes(course.store, "setting", "choice")
    assert [json.loads(one.after) for one in logged] == [{"choice": "best"}]
    page = course.browser("instructor").get("/instructor/course").text
    assert page.count("<td>instructor</td>") == 3


def test_best_changes_the_lms_grade_and_the_students_page(tmp_path: Path):
    from test_lti_units import _graded, _linked
    course = Course(tmp_path / "lms")
    course.store.upsert_students([("s1", "Ada", "ada@example.edu")])
    _linked(course.store)
    _graded(course.store, 90.0)
    _graded(course.store, 40.0)
    assert lti.grade_changed(course.store, "s1") == 1
    assert outbox.rows(course.store)[0].score_given == 40.0             # the latest
    student = course.browser("s1")
    assert "Your latest hand-in counts" in student.get("/").text
    answer = course.api().put("/api/course", json={"choice": "best"})
    assert answer.status_code == 200, answer.text
    [waiting] = outbox.rows(course.store)                                # the 40 superseded
    assert waiting.score_given == 90.0
    payload = json.loads(course.store.database.one(
        "SELECT payload FROM lti_outbox WHERE id = ?", (waiting.id,))["payload"])
    assert payload["comment"].startswith("Hand-in 1 (best)")
    home = student.get("/").text
    assert "Your best hand-in counts" in home and "Your latest hand-in counts" not in home
    # The gradebook's default follows the course's choice; ?choice= still overrides it.
    assert course.api().get("/api/gradebook.csv").headers["content-disposition"].endswith(
        'gradebook-best.csv"')
    assert course.gradebook("latest")["s1"]
    course.store.close()


def test_the_lti_pages_old_choice_is_read_then_moved_into_the_course_setting(tmp_path: Path):
    course = Course(tmp_path / "old")
    course.store.set_setting("lti_grade_choice", "best")     # as the LTI page kept it
    assert course.api().get("/api/course").json()["choice"] == "best"
    assert course.api().put("/api/course", json={"choice": "latest"}).json()["choice"] == \
        "latest"
    assert course.store.get_setting("lti_grade_choice") is None
    assert course.store.get_setting("choice") == "latest"
    course.store.close()


def test_a_ta_reads_the_course_dates_and_cannot_change_them(tool, platform):
    from lti_tool import csrf_of
    from test_lti_staff import ta_browser
    with ta_browser(tool, platform) as barbara:
        read = barbara.get(tool.url + "/api/course")
        assert read.status_code == 200 and read.json()["choice"] == "latest"
        page = barbara.get(tool.url + "/instructor/course")
        assert page.status_code == 200 and "Save the course dates" not in page.text
        token = csrf_of(barbara.get(tool.url + "/instructor"))
        assert barbara.put(tool.url + "/api/course", json={"choice": "best"},
                           headers={"x-csrf-token": token}).status_code == 403
        assert barbara.post(tool.url + "/instructor/course",
                            data={"csrf": token, "choice": "best"}).status_code == 403
    assert tool.store.get_setting("choice") is None
    assert record_queries.changes(tool.store, "setting", "choice") == []


def test_a_restart_keeps_what_the_page_set(tmp_path: Path):
    from service_helpers import start_server
    data = tmp_path / "course"
    server = start_server(data, "--deadline", "2026-12-01T23:59:00+00:00")
    try:
        with server.client() as client:
            client.headers["authorization"] = f"Bearer {server.instructor_token()}"
            answer = client.put("/api/course", json={"late_deadline": "2026-12-04T23:59:00Z",
                                                     "late_penalty": "10%/day",
                                                     "choice": "best"})
            assert answer.status_code == 200, answer.text
            set_on_the_page = answer.json()
    finally:
        server.stop()
    again = start_server(data)              # no options: what the page set holds
    try:
        with again.client() as client:
            client.headers["authorization"] = f"Bearer {again.instructor_token()}"
            kept = client.get("/api/course").json()
    finally:
        again.stop()
    assert {key: kept[key] for key in ("deadline", "late_deadline", "late_penalty", "choice")} \
        == {key: set_on_the_page[key] for key in ("deadline", "late_deadline", "late_penalty",
                                                  "choice")}
    assert kept["choice"] == "best" and kept["late_deadline"].startswith("2026-12-04T23:59")
    assert [one["who"] for one in kept["changes"]] == ["command line"] + ["instructor"] * 3
