"""One word per meaning across the page's JSON API and its gradebook CSV (issue 35): every
submission's JSON names its ``assignment`` and carries ``score`` (the grader's), ``penalty``,
``adjustment`` and ``final_score``, always all four; the gradebook says ``final_score`` for
the final score and ``score`` only for the grader's.

A late hand-in under a late policy, adjusted by the instructor, is read back from the
history (``GET /api/submissions``), the submission (``/api/submissions/N``), the class
(``/api/class``) and the gradebook CSV: each says the same four numbers under the same
names. Over HTTP against the application in this process (test_course_records' Course).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from test_course_records import NOW, Course, _past_deadline_course  # noqa: E402

from grader.service.course.records import LatePolicy  # noqa: E402

FOUR = ("score", "penalty", "adjustment", "final_score")
# 80 from the grader, 18 hours late (day 1 of 10% a day: -10), +5 from the instructor.
EXPECTED = {"assignment": "minimax", "score": 80.0, "penalty": -10.0, "adjustment": 5.0,
            "final_score": 75.0}


@pytest.fixture
def late_course(tmp_path: Path):
    course = _past_deadline_course(tmp_path, late_policy=LatePolicy.parse("10%/day,max=50%"))
    number = course.graded("alice", 80.0, received_at=NOW - timedelta(hours=18))
    answer = course.api().post(f"/api/submissions/{number}/adjustment",
                               json={"points": 5, "note": "the tie rule was mine"})
    assert answer.status_code == 200, answer.text
    on_time = course.graded("bob", 60.0, received_at=NOW - timedelta(days=2))
    yield course, number, on_time
    course.store.close()


def _words(data: dict) -> dict:
    return {key: data[key] for key in ("assignment", *FOUR)}


def test_the_history_gives_the_four_words_of_a_late_adjusted_hand_in(late_course):
    course, number, _ = late_course
    history = course.api("alice").get("/api/submissions").json()["submissions"]
    assert [item["id"] for item in history] == [number]
    assert _words(history[0]) == EXPECTED


def test_a_submission_gives_the_same_four_words_and_what_explains_them(late_course):
    course, number, _ = late_course
    data = course.api("alice").get(f"/api/submissions/{number}").json()
    assert _words(data) == EXPECTED
    assert (data["late_days"], data["penalty_fraction"], data["adjustment_note"]) == \
        (1, 0.1, "the tie rule was mine")
    assert "raw_score" not in data


def test_the_class_says_final_score_for_the_final_and_score_for_the_graders(late_course):
    course, number, on_time = late_course
    students = {entry["student_id"]: entry for entry in course.api().get("/api/class").json()[
        "students"]}
    for key in ("latest", "latest_graded", "best"):
        assert _words(students["alice"][key]) == EXPECTED, key
        assert "raw_score" not in students["alice"][key]
    # On time, no adjustment: the penalty and adjustment are there, as null.
    assert _words(students["bob"]["latest"]) == {
        "assignment": "minimax", "score": 60.0, "penalty": None, "adjustment": None,
        "final_score": 60.0}


def test_every_submission_json_has_all_four_even_before_it_is_graded(late_course):
    course, _, _ = late_course
    sent = course.api("bob").post("/api/submissions",
                                  files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert sent.status_code == 201, sent.text
    queued = course.api("bob").get(f"/api/submissions/{sent.json()['id']}").json()
    assert _words(queued) == {"assignment": "minimax", "score": None, "penalty": None,
                              "adjustment": None, "final_score": None}
    history = course.api("bob").get("/api/submissions").json()["submissions"]
    assert all(set(FOUR) <= set(item) for item in history)
    latest = {entry["student_id"]: entry for entry in course.api().get("/api/class").json()[
        "students"]}["bob"]["latest"]
    assert _words(latest)["score"] is None and set(FOUR) <= set(latest)


def test_the_gradebook_csv_says_final_score_and_the_graders_score(late_course):
    course, _, _ = late_course
    book = course.gradebook()
    alice, bob = book["alice"], book["bob"]
    assert "raw_score" not in alice
    assert (alice["score"], alice["penalty"], alice["adjustment"], alice["final_score"]) == \
        ("80", "-10", "5", "75")
    assert (bob["score"], bob["penalty"], bob["adjustment"], bob["final_score"]) == \
        ("60", "", "", "60")
