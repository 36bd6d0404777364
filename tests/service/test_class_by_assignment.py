"""The instructor's class by assignment (issue 35): a course of the minimax and the Monte
Carlo assignments, each with its own hand-ins, dates, late policy and "latest or best"; the
class page and ``/api/class`` show one assignment at a time (``?assignment=NAME``, the
course's first by default), and a student's page shows each assignment's hand-ins and own
deadline, whose form names its assignment.

Over HTTP against the application in this process (test_course_records' Course: no server,
no grading threads); each result is stored as the queue stores one.

The course (the deadline passed a day ago; late hand-ins for two more days):

- minimax: the course's dates, late policy 10%/day, the latest hand-in counts. Alice 70,
  on time, +5 from the instructor: 75. Bob 60, 18 hours late by the course, but his own
  deadline (an extension, on the minimax only) is in three days: on time, 60.
- montecarlo: its own late policy, 20%/day, and the best hand-in counts. Alice 85 then 50,
  both on time: 85 counts. Bob 90, 18 hours late (his extension is not of this
  assignment): -20, 70.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from test_course_records import NOW, Course, _csrf, _past_deadline_course, results  # noqa: E402

from grader.service.course import course_assignments, course_dates  # noqa: E402
from grader.service.course.records import LatePolicy  # noqa: E402
from grader.service.course.times import format_time  # noqa: E402

FOUR = ("score", "penalty", "adjustment", "final_score")
BOB_OWN = NOW + timedelta(days=3)        # Bob's own deadline of the minimax
LATE = '<span class="late">late</span>'  # the class table's mark of a late hand-in


def hand_in(course: Course, student: str, assignment: str, score: float,
            received_at: datetime) -> int:
    """A hand-in of ``student`` for ``assignment``, received then and graded ``score``."""
    row = course.store.add_submission(student, "player.py", b"x = 1\n", late=False,
                                      config="default", received_at=format_time(received_at),
                                      assignment=assignment)
    claimed = course.store.claim_next("test")
    assert claimed is not None and claimed.id == row.id
    course.store.finish(row.id, score=score, max_score=100.0, results_json=results(score),
                        report_text=f"Score: {score:g} / 100\n", seconds=1.0)
    return row.id


def two_assignment_course(tmp_path: Path) -> tuple[Course, dict[str, int]]:
    """The course of this module's docstring, and its hand-ins by name."""
    course = _past_deadline_course(tmp_path, late_policy=LatePolicy.parse("10%/day"))
    store = course.store
    course_assignments.add(store, "minimax", who="instructor")
    course_assignments.add(store, "montecarlo", who="instructor")
    course_dates.change(store, {"late_penalty": "20%/day", "choice": "best"},
                        who="instructor", assignment="montecarlo")
    own = course.api().put("/api/students/bob/deadline",
                           json={"deadline": format_time(BOB_OWN), "assignment": "minimax"})
    assert own.status_code == 200 and own.json()["assignment"] == "minimax", own.text
    handed = {
        "alice-mm": hand_in(course, "alice", "minimax", 70.0, NOW - timedelta(days=2)),
        "bob-mm": hand_in(course, "bob", "minimax", 60.0, NOW - timedelta(hours=18)),
        "alice-mc-best": hand_in(course, "alice", "montecarlo", 85.0, NOW - timedelta(days=3)),
        "alice-mc-latest": hand_in(course, "alice", "montecarlo", 50.0,
                                   NOW - timedelta(days=2)),
        "bob-mc": hand_in(course, "bob", "montecarlo", 90.0, NOW - timedelta(hours=18)),
    }
    adjusted = course.api().post(f"/api/submissions/{handed['alice-mm']}/adjustment",
                                 json={"points": 5, "note": "the tie rule was mine"})
    assert adjusted.status_code == 200, adjusted.text
    return course, handed


@pytest.fixture
def course(tmp_path: Path):
    made, handed = two_assignment_course(tmp_path)
    yield made, handed
    made.store.close()


def _class(course: Course, assignment: str | None = None) -> dict:
    answer = course.api().get("/api/class", params={"assignment": assignment}
                              if assignment else None)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _words(data: dict) -> dict:
    return {key: data[key] for key in ("assignment", *FOUR)}


def test_the_class_json_is_of_the_first_assignment_by_default(course):
    made, handed = course
    data = _class(made)
    assert data["assignment"] == "minimax"
    assert [one["name"] for one in data["assignments"]] == ["minimax", "montecarlo"]
    students = {entry["student_id"]: entry for entry in data["students"]}
    # Only the minimax's hand-ins: one each, not three and two.
    assert (students["alice"]["submissions"], students["bob"]["submissions"]) == (1, 1)
    assert students["alice"]["latest"]["id"] == handed["alice-mm"]
    assert _words(students["alice"]["latest"]) == {
        "assignment": "minimax", "score": 70.0, "penalty": None, "adjustment": 5.0,
        "final_score": 75.0}
    # Bob's extension of the minimax: on time, no penalty under its 10%/day.
    bob = students["bob"]
    assert bob["latest"]["late"] is False and bob["late"] == 0
    assert _words(bob["latest"]) == {"assignment": "minimax", "score": 60.0, "penalty": None,
                                     "adjustment": None, "final_score": 60.0}
    assert bob["own_deadline"]["deadline"] == format_time(BOB_OWN)
    assert data["dates"]["late_penalty"] == "10%/day" and data["dates"]["choice"] == "latest"
    assert "moves" in data["rubric"] and "mc_move" not in data["rubric"]


def test_the_class_json_of_the_montecarlo_has_its_hand_ins_records_and_choice(course):
    made, handed = course
    data = _class(made, "montecarlo")
    assert data["assignment"] == "montecarlo"
    assert data["dates"]["late_penalty"] == "20%/day" and data["dates"]["choice"] == "best"
    assert set(data["rubric"]) >= {"mc_trial", "mc_move"} and "moves" not in data["rubric"]
    students = {entry["student_id"]: entry for entry in data["students"]}
    alice, bob = students["alice"], students["bob"]
    assert alice["submissions"] == 2
    assert alice["latest"]["id"] == handed["alice-mc-latest"]
    assert alice["best"]["id"] == handed["alice-mc-best"]
    assert _words(alice["best"]) == {"assignment": "montecarlo", "score": 85.0,
                                     "penalty": None, "adjustment": None,
                                     "final_score": 85.0}
    # Bob's extension is of the minimax: here he is late, and its policy takes 20%.
    assert bob["own_deadline"] is None and bob["latest"]["late"] is True
    assert _words(bob["latest"]) == {"assignment": "montecarlo", "score": 90.0,
                                     "penalty": -20.0, "adjustment": None,
                                     "final_score": 70.0}


def test_a_submission_json_names_its_assignment(course):
    made, handed = course
    data = made.api().get(f"/api/submissions/{handed['bob-mc']}").json()
    assert _words(data) == {"assignment": "montecarlo", "score": 90.0, "penalty": -20.0,
                            "adjustment": None, "final_score": 70.0}
    history = made.api("bob").get("/api/submissions").json()["submissions"]
    assert {item["id"]: item["assignment"] for item in history} == {
        handed["bob-mm"]: "minimax", handed["bob-mc"]: "montecarlo"}


def test_an_unknown_assignment_is_404_naming_the_courses(course):
    made, _ = course
    answer = made.api().get("/api/class?assignment=tictactoe")
    assert answer.status_code == 404
    assert "minimax, montecarlo" in answer.text
    assert made.browser("instructor").get("/instructor?assignment=nope").status_code == 404


def _rows(page: str) -> dict[str, str]:
    """The class table's rows by student id (each row's HTML)."""
    body = page.split('<table class="class">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr class=.*?</tr>", body, re.S)
    return {re.search(r"/instructor/students/(\w+)", row).group(1): row for row in rows}


def test_the_class_page_shows_one_assignment_and_links_the_others(course):
    made, handed = course
    teacher = made.browser("instructor")
    first = teacher.get("/instructor").text
    assert "The class: Mini-max Tic-Tac-Toe" in first
    assert 'href="/instructor?assignment=montecarlo"' in first       # the other one
    assert 'aria-current="page">Mini-max Tic-Tac-Toe' in first
    rows = _rows(first)
    assert f"/instructor/submissions/{handed['alice-mm']}\">75 / 100" in rows["alice"]
    assert 'class="own-deadline"' in rows["bob"] and LATE not in rows["bob"]
    assert "10%" in first.split('class="course-dates"')[1].split("</p>")[0]

    second = teacher.get("/instructor?assignment=montecarlo").text
    assert "The class: Monte Carlo Tic-Tac-Toe" in second
    assert 'href="/instructor?assignment=minimax"' in second
    rows = _rows(second)
    # Alice: her latest (50) and her best (85, which the course counts here).
    assert f"/instructor/submissions/{handed['alice-mc-latest']}\">50 / 100" in rows["alice"]
    assert f"/instructor/submissions/{handed['alice-mc-best']}\">85" in rows["alice"]
    assert f"/instructor/submissions/{handed['bob-mc']}\">70 / 100" in rows["bob"]
    assert LATE in rows["bob"] and 'class="own-deadline"' not in rows["bob"]
    dates = second.split('class="course-dates"')[1].split("</p>")[0]
    assert "20%" in dates and "best hand-in counts" in dates
    assert "mc_update_scores" in second and 'name="assignment" value="montecarlo"' in second


def test_the_students_page_lists_each_assignments_hand_ins_and_own_deadline(course):
    made, handed = course
    teacher = made.browser("instructor")
    page = teacher.get("/instructor/students/bob").text
    minimax = page.split('id="assignment-minimax"')[1].split('id="assignment-montecarlo"')[0]
    montecarlo = page.split('id="assignment-montecarlo"')[1]
    assert "Their own deadline:" in minimax and "Their own deadline:" not in montecarlo
    assert f"/instructor/submissions/{handed['bob-mm']}\"" in minimax
    assert f"/instructor/submissions/{handed['bob-mc']}\"" not in minimax
    assert f"/instructor/submissions/{handed['bob-mc']}\"" in montecarlo
    assert 'name="assignment" value="montecarlo"' in montecarlo

    # The form of the montecarlo's section gives him his own deadline of it alone.
    token = _csrf(teacher, "/instructor/students/bob")
    answer = teacher.post("/instructor/students/bob/deadline", data={
        "csrf": token, "assignment": "montecarlo", "deadline": "2099-12-08T23:59"})
    assert answer.status_code == 303, answer.text
    bob = {entry["student_id"]: entry for entry in _class(made, "montecarlo")["students"]}["bob"]
    assert bob["own_deadline"]["deadline"].startswith("2099-12-08")
    assert _words(bob["latest"])["final_score"] == 90.0           # on time now: no penalty
    minimax_bob = {entry["student_id"]: entry for entry in _class(made)["students"]}["bob"]
    assert minimax_bob["own_deadline"]["deadline"] == format_time(BOB_OWN)   # unchanged
    changes = teacher.get("/instructor/students/bob").text.split(
        'id="assignment-montecarlo"')[1]
    assert "Changes (1)" in changes


def test_regrade_everyone_on_the_page_of_one_assignment_regrades_its_own(course):
    made, handed = course
    teacher = made.browser("instructor")
    token = _csrf(teacher, "/instructor?assignment=montecarlo")
    answer = teacher.post("/instructor/regrade", data={"csrf": token,
                                                        "assignment": "montecarlo"})
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/instructor?assignment=montecarlo&")
    queued = {row.id for row in made.store.all_submissions() if row.status == "queued"}
    assert queued == {handed["alice-mc-best"], handed["alice-mc-latest"], handed["bob-mc"]}


def test_a_course_of_one_assignment_shows_no_list_of_assignments(tmp_path: Path):
    made = _past_deadline_course(tmp_path)
    try:
        page = made.browser("instructor").get("/instructor").text
        assert "<h1>The class</h1>" in page and 'class="assignments"' not in page
        data = _class(made)
        assert data["assignment"] == "minimax" and len(data["assignments"]) == 1
        student = made.browser("instructor").get("/instructor/students/alice").text
        assert 'id="assignment-' not in student and "<h2>Deadline</h2>" in student
        assert json.loads(json.dumps(data["dates"]))["choice"] == "latest"
    finally:
        made.store.close()


def test_each_assignment_has_its_own_configuration_and_regrades_under_it(course):
    """A course of several: the configuration page shows one assignment's rubric; a
    configuration saved there is that assignment's own (checked against its rubric: a
    minimax rubric is refused for the Monte Carlo), the other keeps its own; a regrade of
    that assignment then grades under the new one."""
    made, handed = course
    teacher = made.browser("instructor")
    page = teacher.get("/instructor/config?assignment=montecarlo").text
    assert "The grading configuration: Monte Carlo Tic-Tac-Toe" in page
    assert "mc_update_scores = 25" in page            # its own defaults, not the minimax's
    token = _csrf(teacher, "/instructor/config?assignment=montecarlo")
    refused = teacher.post("/instructor/config", data={
        "csrf": token, "assignment": "montecarlo", "name": "minimax.cfg",
        "config": "[rubric]\nscores = 30\n"})
    assert refused.status_code == 400 and "there is no rubric item" in refused.text
    saved = teacher.post("/instructor/config", data={
        "csrf": token, "assignment": "montecarlo", "name": "carlo.cfg",
        "config": "[rubric]\nmc_move = 40\ngame play = 0\n"})
    assert saved.status_code == 200 and "Saved" in saved.text
    queue = made.app.state.queue
    assert queue.weights_for("montecarlo")["mc_move"] == 40
    assert queue.grading_for("montecarlo").config.name.endswith("carlo.cfg")
    assert queue.grading_for("minimax").config is None                   # untouched
    assert queue.weights_for("minimax")["game play"] == 20
    teacher.post("/instructor/regrade", data={"csrf": token, "assignment": "montecarlo"})
    claimed = made.store.claim_next("test")
    label = queue.label_for("montecarlo")
    assert claimed.assignment == "montecarlo" and claimed.id in (
        handed["alice-mc-best"], handed["alice-mc-latest"], handed["bob-mc"])
    assert label != queue.label_for("minimax")        # graded under the new configuration


def test_the_queue_names_each_entrys_assignment(course):
    made, handed = course
    teacher = made.browser("instructor")
    token = _csrf(teacher, "/instructor?assignment=montecarlo")
    teacher.post("/instructor/regrade", data={"csrf": token, "assignment": "montecarlo"})
    page = teacher.get("/instructor/queue").text
    assert page.count('<td class="assignment">Monte Carlo Tic-Tac-Toe</td>') == 3
    assert "<th>Assignment</th>" in page
