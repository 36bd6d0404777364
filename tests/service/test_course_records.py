"""A whole course on the page: students' own deadlines, a late policy and adjustments, over
HTTP against the application in this process (Starlette's TestClient: no server, no grading
threads; a grade's result is stored as the queue stores one).

Each number a page or the gradebook shows is the grader's result plus the course's records:
an extension makes a late hand-in on time, a late policy takes its share by the hand-in's
time (kept through a regrade), an adjustment adds its points with its note, and every
change is kept with who made it.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():          # Starlette would rather have httpx2; httpx works
    # A DeprecationWarning in older Starlette, StarletteDeprecationWarning (a UserWarning) now.
    warnings.filterwarnings("ignore", message=".*httpx2")
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient  # noqa: E402

from grader.service.app import create_app, open_store  # noqa: E402
from grader.service.course import class_queries, record_queries  # noqa: E402
from grader.service.course.intake import Deadlines  # noqa: E402
from grader.service.course.records import LatePolicy  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402
from grader.service.course.times import format_time  # noqa: E402
from grader.service.settings import ServiceSettings  # noqa: E402

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
NOW = datetime.now(timezone.utc)


def results(score: float, max_score: float = 100.0) -> str:
    """A results.json as a grade writes it (one item), for a stored result."""
    return json.dumps({"score": score, "tests": [
        {"name": "scores", "score": score, "max_score": max_score, "status": "failed"
         if score < max_score else "passed", "output": ""}],
        "extra_data": {"max_score": max_score}})


class Course:
    """A course in a temporary folder, its app, and browsers signed in to it."""

    def __init__(self, data: Path, **settings) -> None:
        self.data = data
        self.store: Store = open_store(data)
        self.store.ensure_instructor()
        self.store.upsert_students([("alice", "Alice Liddell", "alice@example.org"),
                                    ("bob", "Bob Dylan", "bob@example.org"),
                                    ("test", "Test Student", "")])
        self.settings = ServiceSettings(data=data, **settings)
        self.app = create_app(self.settings, self.store)

    def browser(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)
        token = (self.store.instructor_token() if who == "instructor"
                 else self.store.student_token(who))
        assert client.get(f"/s/{token}").status_code == 303
        return client

    def api(self, who: str = "instructor") -> TestClient:
        token = (self.store.instructor_token() if who == "instructor"
                 else self.store.student_token(who))
        return TestClient(self.app, headers={"authorization": f"Bearer {token}"})

    def graded(self, student: str, score: float, received_at: datetime = NOW) -> int:
        """A hand-in of ``student`` received at ``received_at`` and graded ``score``."""
        row = self.store.add_submission(student, "mm_player.py", b"def mm_move(b, p):\n",
                                        late=False, config="default",
                                        received_at=format_time(received_at))
        self.regraded(row.id, score)
        return row.id

    def regraded(self, number: int, score: float) -> None:
        claimed = self.store.claim_next("test")
        assert claimed is not None and claimed.id == number
        self.store.finish(number, score=score, max_score=100.0, results_json=results(score),
                          report_text=f"Score: {score:g} / 100\n", seconds=1.0)

    def gradebook(self, choice: str = "latest") -> dict[str, dict[str, str]]:
        text = self.api().get(f"/api/gradebook.csv?choice={choice}").content.decode("utf-8-sig")
        return {row["student_id"]: row for row in csv.DictReader(io.StringIO(text))}


@pytest.fixture
def course(tmp_path: Path) -> Course:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def _csrf(client: TestClient, page: str) -> str:
    return CSRF.search(client.get(page).text).group(1)


def _past_deadline_course(tmp_path: Path, **settings) -> Course:
    """A course whose deadline passed a day ago, late hand-ins taken for two more days."""
    return Course(tmp_path / "late", deadlines=Deadlines(NOW - timedelta(days=1),
                                                         NOW + timedelta(days=2)), **settings)


def test_an_extension_makes_a_hand_in_after_the_course_deadline_on_time(tmp_path: Path):
    course = _past_deadline_course(tmp_path)
    own = format_time(NOW + timedelta(days=3))
    answer = course.api().put("/api/students/alice/deadline", json={"deadline": own})
    assert answer.status_code == 200, answer.text
    # No late deadline given: the course's 3-day late window, moved with hers.
    # For the course's only assignment (the minimax: the request named none).
    assert answer.json() == {"student_id": "alice", "assignment": "minimax", "own": True,
                             "deadline": own,
                             "late_deadline": format_time(NOW + timedelta(days=6))}
    for who in ("alice", "bob"):
        sent = course.api(who).post("/api/submissions",
                                    files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
        assert sent.status_code == 201, sent.text
    late = {row.student: row.late for row in course.store.all_submissions()}
    assert late == {"alice": False, "bob": True}
    home = course.browser("alice").get("/").text
    assert "Your own deadline" in home and "late submissions until" in home.split("<h2>")[0]
    assert "Your own deadline" not in course.browser("bob").get("/").text
    # The class table and the gradebook show who has their own.
    page = course.browser("instructor").get("/instructor").text
    assert page.count('class="own-deadline"') == 1
    book = course.gradebook()
    assert book["alice"]["own_deadline"] == own and book["bob"]["own_deadline"] == ""
    # Removed: the course's holds again, and both changes are kept.
    assert course.api().delete("/api/students/alice/deadline").json()["own"] is False
    kept = record_queries.changes(course.store, "deadline", "alice")
    assert [change.after is None for change in kept] == [False, True]
    assert kept[0].who == "instructor" and json.loads(kept[1].before)["deadline"] == own
    course.store.close()


def test_an_extension_past_the_course_late_deadline_still_takes_the_hand_in(tmp_path: Path):
    course = Course(tmp_path / "closed", deadlines=Deadlines(NOW - timedelta(days=2),
                                                             NOW - timedelta(days=1)))
    refused = course.api("bob").post("/api/submissions",
                                     files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert refused.status_code == 403 and "closed" in refused.json()["error"]
    course.api().put("/api/students/alice/deadline",
                     json={"deadline": format_time(NOW + timedelta(hours=5))})
    taken = course.api("alice").post("/api/submissions",
                                     files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert taken.status_code == 201 and taken.json()["late"] is False
    course.store.close()


@pytest.mark.parametrize("body, wanted", [
    ({}, "deadline: a time is needed"),
    ({"deadline": "next friday"}, "not an ISO 8601 time"),
    ({"deadline": "2026-12-08T23:59", "late_deadline": "2026-12-01T00:00"},
     "late deadline is before"),
])
def test_a_deadline_that_cannot_be_used_is_refused_and_nothing_is_stored(course: Course,
                                                                         body, wanted):
    answer = course.api().put("/api/students/alice/deadline", json=body)
    assert answer.status_code == 400 and wanted in answer.json()["error"]
    assert record_queries.own_deadlines(course.store) == {}
    assert course.api().put("/api/students/nobody/deadline",
                            json={"deadline": "2026-12-08T23:59"}).status_code == 404
    student = course.api("alice").put("/api/students/alice/deadline",
                                      json={"deadline": "2026-12-08T23:59"})
    assert student.status_code == 403 and record_queries.own_deadlines(course.store) == {}


def test_the_student_page_form_sets_a_deadline_in_the_course_time_zone(tmp_path: Path):
    course = Course(tmp_path / "paris", timezone="Europe/Paris")
    teacher = course.browser("instructor")
    token = _csrf(teacher, "/instructor/students/alice")
    answer = teacher.post("/instructor/students/alice/deadline",
                          data={"csrf": token, "deadline": "2026-12-08T23:59",
                                "late_deadline": ""})
    assert answer.status_code == 303
    own = record_queries.own_deadlines(course.store)["alice"]
    assert format_time(own.deadline) == "2026-12-08T22:59:00.000000Z"    # 23:59 in Paris
    page = teacher.get("/instructor/students/alice").text
    assert "2026-12-08 23:59:00 CET" in page
    assert "2026-12-08 23:59:00 CET" in course.browser("alice").get("/").text
    course.store.close()


def test_deadlines_from_a_csv_on_the_page_all_or_nothing(course: Course):
    teacher = course.browser("instructor")
    token = _csrf(teacher, "/instructor/roster")
    bad = "student_id,deadline,late_deadline\nalice,2026-12-08T23:59,\nbob,soon,\n"
    answer = teacher.post("/instructor/deadlines", data={"csrf": token},
                          files={"deadlines": ("extensions.csv", bad.encode())})
    assert answer.status_code == 400 and "line 3" in answer.text
    assert record_queries.own_deadlines(course.store) == {}
    good = ("student_id,deadline,late_deadline\nalice,2026-12-08T23:59,2026-12-10T23:59\n"
            "bob,2026-12-09T12:00,\n")
    answer = teacher.post("/instructor/deadlines", data={"csrf": token},
                          files={"deadlines": ("extensions.csv", good.encode())})
    assert answer.status_code == 200 and "2 own deadlines set (minimax: 2)" in answer.text
    assert set(record_queries.own_deadlines(course.store)) == {"alice", "bob"}


def test_a_late_policy_takes_its_share_by_the_hand_in_time_and_keeps_it_through_a_regrade(
        tmp_path: Path):
    course = _past_deadline_course(tmp_path, late_policy=LatePolicy.parse("10%/day,max=50%"))
    number = course.graded("alice", 80.0, received_at=NOW - timedelta(hours=18))  # day 1
    on_time = course.graded("bob", 80.0, received_at=NOW - timedelta(days=2))
    book = course.gradebook()
    assert (book["alice"]["score"], book["alice"]["penalty"],
            book["alice"]["final_score"]) == ("80", "-10", "70")
    assert (book["bob"]["penalty"], book["bob"]["final_score"], book["bob"]["late"]) == \
        ("", "80", "")
    assert book["alice"]["late"] == "late"
    assert class_queries.regrade_submissions(course.store, [number, on_time]) == \
        [number, on_time]
    course.regraded(number, 90.0)          # a regrade, hours later: the same penalty
    course.regraded(on_time, 80.0)
    book = course.gradebook()
    assert (book["alice"]["score"], book["alice"]["penalty"],
            book["alice"]["final_score"]) == ("90", "-10", "80")
    history = course.browser("alice").get("/").text
    assert "late penalty -10" in history and ">80 / 100" in history
    course.store.close()


def test_an_adjustment_with_its_note_reaches_the_student_and_the_gradebook(course: Course):
    first = course.graded("alice", 90.0, received_at=NOW - timedelta(hours=2))
    second = course.graded("alice", 70.0, received_at=NOW - timedelta(hours=1))
    answer = course.api().post(f"/api/submissions/{second}/adjustment",
                               json={"points": 25, "note": "the <b>tie</b> rule was mine"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["adjustment"]["points"] == 25
    # "best" follows the final score: the adjusted second hand-in (95) beats 90.
    best, latest = course.gradebook("best")["alice"], course.gradebook("latest")["alice"]
    assert (best["source"], best["final_score"], best["score"]) == (f"submission {second}",
                                                                    "95", "70")
    assert latest["adjustment"] == "25" and latest["adjustment_note"] == \
        "the <b>tie</b> rule was mine"
    # Changed, then removed: every change is kept, with before and after.
    course.api().post(f"/api/submissions/{second}/adjustment",
                      json={"points": "-5", "note": "on second thought"})
    assert course.gradebook()["alice"]["final_score"] == "65"
    removed = course.api().delete(f"/api/submissions/{second}/adjustment").json()
    assert removed["adjustment"] is None
    assert [(change["before"] or {}).get("points") for change in removed["changes"]] == \
        [None, 25, -5]
    assert course.gradebook("best")["alice"]["source"] == f"submission {first}"
    assert (course.api().post(f"/api/submissions/{first}/adjustment",
                              json={"points": 2, "note": " "}).status_code,
            course.api().post("/api/submissions/999/adjustment",
                              json={"points": 2, "note": "x"}).status_code,
            course.api("alice").post(f"/api/submissions/{first}/adjustment",
                                     json={"points": 2, "note": "x"}).status_code) == \
        (400, 404, 403)


def test_an_adjustment_stays_through_a_regrade(course: Course):
    number = course.graded("bob", 60.0)
    course.api().post(f"/api/submissions/{number}/adjustment",
                      json={"points": 10, "note": "well commented"})
    class_queries.regrade_submissions(course.store, [number])
    course.regraded(number, 50.0)
    row = course.gradebook()["bob"]
    assert (row["score"], row["adjustment"], row["final_score"]) == ("50", "10", "60")


def test_regrade_everyone_regrades_each_students_latest_and_best(course: Course):
    best = course.graded("alice", 100.0, received_at=NOW - timedelta(hours=3))
    middle = course.graded("alice", 50.0, received_at=NOW - timedelta(hours=2))
    latest = course.graded("alice", 70.0, received_at=NOW - timedelta(hours=1))
    bob = course.graded("bob", 40.0)
    teacher = course.browser("instructor")
    answer = teacher.post("/instructor/regrade", data={"csrf": _csrf(teacher, "/instructor")})
    assert answer.status_code == 303 and "n=3" in answer.headers["location"]
    queued = {row.id for row in course.store.queue()}
    assert queued == {best, latest, bob} and middle not in queued


def test_the_gradebook_says_whose_each_row_is_and_leaves_the_test_student_out(course: Course):
    number = course.graded("alice", 90.0)
    book = course.gradebook()
    received = course.store.submission(number).received_at
    assert (book["alice"]["sid"], book["alice"]["email"], book["alice"]["submitted_at"]) == \
        ("alice", "alice@example.org", received)
    assert "bob" in book and book["bob"]["status"] == "not graded: no submission"
    assert "test" not in book                      # Canvas's Test Student handed in nothing
    assert "test student" in course.browser("instructor").get("/instructor").text


def test_a_file_chosen_and_code_pasted_at_once_is_refused_saying_which_to_keep(
        course: Course):
    alice = course.browser("alice")
    answer = alice.post("/submit", data={"csrf": _csrf(alice, "/"), "code": "x = 2\n"},
                        files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert answer.status_code == 400
    assert "you chose a file and pasted code" in answer.text and "x = 2" in answer.text
    assert list(course.store.all_submissions()) == []


def test_the_history_numbers_a_students_own_hand_ins(course: Course):
    course.graded("bob", 10.0)
    for score in (20.0, 30.0):
        course.graded("alice", score)
    rows = course.store.history("alice")
    assert [row.ordinal for row in rows] == [2, 1]
    page = course.browser("alice").get("/").text
    numbers = re.findall(r'<td><a href="/submissions/\d+">(\d+)</a></td>', page)
    assert numbers == ["2", "1"]


def test_an_extension_shows_in_the_gradebook_before_anything_is_handed_in(course: Course):
    own = format_time(NOW + timedelta(days=3))
    course.api().put("/api/students/bob/deadline", json={"deadline": own})
    row = course.gradebook()["bob"]
    assert (row["status"], row["own_deadline"]) == ("not graded: no submission", own)


def test_a_new_instructor_link_from_the_page_is_shown_once_and_the_old_one_stops(
        course: Course):
    old = course.store.instructor_token()
    teacher = course.browser("instructor")
    answer = teacher.post("/instructor/renew-link",
                          data={"csrf": _csrf(teacher, "/instructor/roster")})
    assert answer.status_code == 200
    new = re.search(r"/s/([A-Za-z0-9_-]{43})", answer.text).group(1)
    assert new != old and course.store.identify(old) is None
    assert course.store.identify(new).is_instructor
    assert teacher.get("/instructor").status_code == 401      # this session ended with it
    refused = course.browser("alice").post("/instructor/renew-link", data={"csrf": "x"})
    assert refused.status_code == 403 and course.store.identify(new) is not None
