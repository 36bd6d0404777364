"""A review of the course's dates, its rosters and its LMS gradebooks as an instructor walks
them (issue 35): each test here failed on the code it was written against.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from test_course_records import NOW, Course, _csrf  # noqa: E402

from grader.service.course import course_dates  # noqa: E402
from grader.service.course.intake import Deadlines  # noqa: E402
from grader.service.course.records import LatePolicy  # noqa: E402

FIELD = re.compile(r'name="(deadline|late_deadline|late_penalty)" value="([^"]*)"')

# A deadline whose seconds the form's inputs do not show (set by the command line or the
# API: "the end of the day"), and one in the hour that Paris lives twice (the clocks go back
# at 03:00 CEST on 2026-10-25: 02:30 is first +02:00, then +01:00; this is the second).
ONE_SECOND_TO_MIDNIGHT = (NOW - timedelta(days=1)).replace(hour=21, minute=59, second=59,
                                                            microsecond=0)
SECOND_0230_IN_PARIS = datetime(2026, 10, 25, 1, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("deadline", [ONE_SECOND_TO_MIDNIGHT, SECOND_0230_IN_PARIS],
                         ids=["seconds", "the-hour-lived-twice"])
def test_saving_the_course_dates_form_unchanged_keeps_the_deadline(tmp_path: Path,
                                                                   deadline: datetime):
    """The form sends every field; a deadline it shows but cannot write as it is (its
    seconds, or which of the two 02:30s) must stay as it is when only the choice changes,
    else a hand-in made in the last minute turns late with nobody having moved the date."""
    course = Course(tmp_path / "course", deadlines=Deadlines(deadline, NOW + timedelta(days=30)),
                    late_policy=LatePolicy.parse("10%/day"), timezone="Europe/Paris")
    try:
        course.graded("bob", 90.0, deadline - timedelta(seconds=1))
        instructor = course.browser("instructor")
        page = instructor.get("/instructor/course").text
        form = dict(FIELD.findall(page))
        assert set(form) == {"deadline", "late_deadline", "late_penalty"}
        done = instructor.post("/instructor/course", data={
            **form, "csrf": _csrf(instructor, "/instructor/course"), "choice": "best"})
        assert done.status_code == 303, done.text
        dates = course_dates.read(course.store)
        assert dates.choice == "best"
        assert dates.deadlines.deadline == deadline
        assert [one.subject for one in course_dates.history(course.store)
                if one.who == "instructor"] == ["choice"]
        [bob] = [one for one in course.api().get("/api/class").json()["students"]
                 if one["student_id"] == "bob"]
        assert bob["latest"]["late"] is False and bob["latest"]["final_score"] == 90.0
    finally:
        course.store.close()


def test_a_roster_line_without_an_id_never_takes_the_id_of_a_student_without_an_email(
        tmp_path: Path):
    """A line with an email and no id gets an id made from the email, "or the whole email
    where the local part is ... the course's": a student the course has without an email (a
    Canvas export has no email column) counts as well; taking their id would rename them and
    send their sign-in link, with their hand-ins, to the new line's email."""
    from grader.service.command import import_roster
    course = Course(tmp_path / "course")
    try:
        course.store.upsert_students([("kim", "Kim Ng", "")])
        roster = tmp_path / "roster.csv"
        roster.write_text("id,name,email\n,Kim Other,kim@uni.example\n", encoding="utf-8")
        import_roster(course.store, roster)
        assert course.store.student("kim").name == "Kim Ng"
        assert course.store.student("kim").email == ""
        assert course.store.student("kim@uni.example").name == "Kim Other"
        # The same on the page's roster upload.
        roster.write_text("id,name,email\n,Kim Third,KIM@other.example\n", encoding="utf-8")
        instructor = course.browser("instructor")
        sent = instructor.post("/instructor/roster", data={
            "csrf": _csrf(instructor, "/instructor/roster")},
            files={"roster": ("roster.csv", roster.read_bytes(), "text/csv")})
        assert sent.status_code in (200, 303), sent.text
        assert course.store.student("kim").name == "Kim Ng"
        assert course.store.student("kim@other.example").name == "Kim Third"
    finally:
        course.store.close()


def test_the_refusal_while_a_server_serves_gives_a_restart_command_that_runs(tmp_path: Path):
    """``serve --config FILE --adopt-config`` while a server serves the folder: the command it
    says to run once the server is stopped must carry the --config that --adopt-config
    adopts (without it, serve refuses: "--adopt-config adopts the --config given with
    it"), and ``--config`` alone is named as not taken."""
    import argparse

    from grader.service.command import serving_refusal
    from grader.service.course import serving_lock
    serving = serving_lock.Serving(tmp_path, "42")
    adopt = argparse.Namespace(data=tmp_path, config=Path("light.cfg"), adopt_config=True)
    said = serving_refusal(adopt, serving)
    assert f"python -m grader serve --data {tmp_path} --config light.cfg --adopt-config" \
        in said, said
    alone = serving_refusal(argparse.Namespace(data=tmp_path, config=Path("light.cfg"),
                                               adopt_config=False), serving)
    assert "nothing was changed (--config given)" in alone, alone
    assert f"--data {tmp_path} --config light.cfg" in alone, alone
