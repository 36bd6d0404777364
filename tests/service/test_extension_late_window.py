"""An extension given without a late deadline keeps the course's late window, moved with the
student's own deadline: everyone else may hand in late, so the student with an extension may
too. Over the JSON API, a CSV of deadlines and the student page's form (Starlette's
TestClient, the application in this process).

The course here: due a day ago, late hand-ins for two more days (a 3-day window after the
deadline); an extension to 2 days from now with no late deadline takes late hand-ins until
5 days from now.
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from test_course_records import NOW, Course, _csrf  # noqa: E402

from grader.service.course import record_queries  # noqa: E402
from grader.service.course.intake import Deadlines  # noqa: E402
from grader.service.course.times import format_time, parse_time  # noqa: E402

COURSE = Deadlines(NOW - timedelta(days=1), NOW + timedelta(days=2))
OWN = NOW - timedelta(hours=12)          # the extension's deadline, already past
MOVED = OWN + timedelta(days=3)          # the course's 3-day late window after it


def _late_course(tmp_path: Path) -> Course:
    return Course(tmp_path / "late", deadlines=COURSE)


def _hand_in(course: Course, who: str):
    return course.api(who).post("/api/submissions",
                                files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})


def _same_moment(shown: str | None, wanted) -> bool:
    return shown is not None and abs(parse_time(shown) - wanted) < timedelta(seconds=1)


def test_an_extension_by_the_api_without_a_late_deadline_keeps_the_late_window(
        tmp_path: Path):
    course = _late_course(tmp_path)
    answer = course.api().put("/api/students/alice/deadline",
                              json={"deadline": format_time(OWN), "late_deadline": None})
    assert answer.status_code == 200, answer.text
    assert _same_moment(answer.json()["late_deadline"], MOVED)
    # Past her own deadline, within the moved window: taken, marked late (bob too).
    for who in ("alice", "bob"):
        sent = _hand_in(course, who)
        assert sent.status_code == 201, sent.text
        assert sent.json()["late"] is True
    own, is_own = record_queries.deadlines_of(course.store, "alice", COURSE)
    assert is_own and _same_moment(format_time(own.late_deadline), MOVED)
    # A late deadline equal to the deadline is how an extension closes at its deadline.
    course.api().put("/api/students/bob/deadline",
                     json={"deadline": format_time(OWN), "late_deadline": format_time(OWN)})
    refused = _hand_in(course, "bob")
    assert refused.status_code == 403 and "your own deadline" in refused.json()["error"]
    course.store.close()


def test_an_empty_late_deadline_in_a_csv_keeps_the_late_window(tmp_path: Path):
    course = _late_course(tmp_path)
    teacher = course.browser("instructor")
    token = _csrf(teacher, "/instructor/roster")
    text = f"student_id,deadline,late_deadline\nalice,{format_time(OWN)},\n"
    answer = teacher.post("/instructor/deadlines", data={"csrf": token},
                          files={"deadlines": ("extensions.csv", text.encode())})
    assert answer.status_code == 200, answer.text
    assert "1 own deadline set (minimax: 1)" in answer.text
    # The form says what an empty late deadline gives, where the instructor fills it in.
    words = " ".join(re.sub(r"<[^>]+>", " ", answer.text).split())
    assert "an empty late deadline gives the student the assignment" in words
    assert "late window after their own deadline" in words
    sent = _hand_in(course, "alice")
    assert sent.status_code == 201, sent.text
    assert sent.json()["late"] is True
    own = record_queries.own_deadlines(course.store, COURSE)["alice"]
    assert _same_moment(format_time(own.late_deadline), MOVED)
    course.store.close()


def test_the_form_without_late_until_keeps_the_late_window_and_says_so(tmp_path: Path):
    course = _late_course(tmp_path)
    teacher = course.browser("instructor")
    page = teacher.get("/instructor/students/alice").text
    assert "empty for the course" in page and "late window" in page
    token = _csrf(teacher, "/instructor/students/alice")
    local = parse_time(format_time(OWN)).strftime("%Y-%m-%dT%H:%M")   # the server's zone: UTC
    answer = teacher.post("/instructor/students/alice/deadline",
                          data={"csrf": token, "deadline": local, "late_deadline": ""})
    assert answer.status_code == 303, answer.text
    page = teacher.get("/instructor/students/alice").text
    assert "no late hand-ins after it" not in page and "late hand-ins until" in page
    sent = _hand_in(course, "alice")
    assert sent.status_code == 201, sent.text
    course.store.close()


def test_a_hand_in_is_received_when_it_arrived_not_when_its_check_ended(tmp_path: Path):
    # It arrives before the deadline, and its check (a child process) ends after it: on
    # time, and its received time says so (the records explain the "on time").
    deadline = datetime.now(timezone.utc) + timedelta(seconds=1.0)
    course = Course(tmp_path / "edge", deadlines=Deadlines(deadline, deadline + timedelta(days=1)))
    checker = course.app.state.checker
    real = checker.check

    async def slow_check(*args, **kwargs):
        await asyncio.sleep(max(0.0, (deadline - datetime.now(timezone.utc)).total_seconds())
                            + 0.5)
        return await real(*args, **kwargs)

    checker.check = slow_check
    sent = _hand_in(course, "alice")
    assert sent.status_code == 201, sent.text
    assert sent.json()["late"] is False
    assert parse_time(sent.json()["received_at"]) < deadline
    course.store.close()
