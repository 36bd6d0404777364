"""What must never happen (issue 16, reliability): a submission lost or graded twice when the
server is killed, or stuck when its grading run hangs."""

from __future__ import annotations

import sqlite3
import time

import pytest

from service_helpers import FAST, PLAIN, Server, add_students

STUDENTS = ("s1", "s2", "s3")


def _rows(server: Server) -> list[tuple]:
    database = sqlite3.connect(server.data / "course.sqlite3")
    try:
        return database.execute("SELECT id, student, status, score, attempts, sha256 "
                                "FROM submissions ORDER BY id").fetchall()
    finally:
        database.close()


@pytest.mark.timeout(900)   # grades real submissions, one at a time, on a shared machine
def test_after_sigkill_every_received_submission_is_graded_once(serve, tmp_path):
    data = tmp_path / "course"
    add_students(data, [(student, student.upper(), "") for student in STUDENTS])
    server = serve(data, "--jobs", "1")
    received = {}
    for student in STUDENTS:
        answer = server.client(student).post(
            "/api/submissions", files={"file": ("mm_player.py", FAST.read_bytes())})
        assert answer.status_code == 201, answer.text
        received[student] = answer.json()["id"]
    first = server.client("s1")
    deadline = time.monotonic() + 120
    while first.get(f"/api/submissions/{received['s1']}").json()["status"] != "running":
        assert time.monotonic() < deadline, "the first submission never started"
        time.sleep(0.2)
    time.sleep(1.0)                                   # in the middle of its grading run
    server.stop(kill=True)                            # SIGKILL: no cleanup at all
    assert [row[2] for row in _rows(server)] == ["running", "queued", "queued"]

    again = serve(data, "--jobs", "1")
    results = {student: again.wait_done(again.client(student), number)
               for student, number in received.items()}
    assert {student: (data["status"], data["score"]) for student, data in results.items()} \
        == {student: ("done", 100.0) for student in STUDENTS}
    rows = _rows(again)
    assert [row[0] for row in rows] == sorted(received.values())     # none lost, none added
    assert [row[4] for row in rows] == [2, 1, 1]     # the one killed mid-run ran again, once
    for student in STUDENTS:
        history = again.client(student).get("/api/submissions").json()["submissions"]
        assert [row["id"] for row in history] == [received[student]]
    assert "queued again 1 submissions" in again.log.read_text()


@pytest.mark.long
@pytest.mark.timeout(900)   # grades real submissions, one at a time, on a shared machine
def test_a_run_over_its_budget_is_stopped_tried_once_more_then_shown_as_an_error(serve,
                                                                               tmp_path):
    data = tmp_path / "course"
    add_students(data, [("s1", "S1", "")])
    server = serve(data, "--jobs", "1", "--timeout", "2")
    client = server.client("s1")
    # A file whose grading takes far longer than 2 s (a warm grade of a pruned one may not).
    answer = client.post("/api/submissions",
                         files={"file": ("mm_player.py", PLAIN.read_bytes())})
    assert answer.status_code == 201
    result = server.wait_done(client, answer.json()["id"], seconds=180)
    assert result["status"] == "error" and result["attempts"] == 2
    assert "longer than 2 s" in result["error"]
    page = server.browser("s1").get(f"/submissions/{answer.json()['id']}").text
    assert "grader error" in page.lower() and "Your file is kept" in page
    again = client.post("/api/submissions", files={"file": ("mm_player.py", b"def mm_move(board, player):\n    pass\n")})
    assert again.status_code == 201                  # an error is not "in flight"


@pytest.mark.long
@pytest.mark.timeout(900)
def test_an_extension_a_penalty_and_an_adjustment_survive_sigkill(serve, tmp_path):
    from datetime import datetime, timedelta, timezone
    data = tmp_path / "course"
    add_students(data, [("s1", "S1", ""), ("s2", "S2", "")])
    past = (datetime.now(timezone.utc) - timedelta(hours=30)).isoformat()
    later = (datetime.now(timezone.utc) + timedelta(days=5)).isoformat()
    server = serve(data, "--jobs", "1", "--deadline", past, "--late-deadline", later,
                   "--late-penalty", "10%/day,max=50%")
    teacher = server.client()
    teacher.headers["authorization"] = f"Bearer {server.instructor_token()}"
    assert teacher.put("/api/students/s1/deadline", json={"deadline": later}).status_code == 200
    numbers = {}
    for student in ("s1", "s2"):
        answer = server.client(student).post(
            "/api/submissions", files={"file": ("mm_player.py", FAST.read_bytes())})
        assert answer.status_code == 201, answer.text
        numbers[student] = answer.json()["id"]
    assert server.wait_done(server.client("s1"), numbers["s1"])["status"] == "done"
    adjusted = teacher.post(f"/api/submissions/{numbers['s1']}/adjustment",
                            json={"points": -3, "note": "late README"})
    assert adjusted.status_code == 200
    server.stop(kill=True)                            # s2's may be queued or running

    again = serve(data, "--jobs", "1")                # no options: the course's own
    assert again.wait_done(again.client("s2"), numbers["s2"])["status"] == "done"
    teacher = again.client()
    teacher.headers["authorization"] = f"Bearer {again.instructor_token()}"
    import csv
    import io
    text = teacher.get("/api/gradebook.csv").content.decode("utf-8-sig")
    book = {row["student_id"]: row for row in csv.DictReader(io.StringIO(text))}
    assert (book["s1"]["late"], book["s1"]["adjustment"], book["s1"]["final_score"]) == \
        ("", "-3", "97")
    assert book["s1"]["own_deadline"] != "" and book["s1"]["adjustment_note"] == "late README"
    assert (book["s2"]["late"], book["s2"]["penalty"], book["s2"]["final_score"]) == \
        ("late", "-20", "80")                         # 30 hours late: two days' 10%
    assert [row[0] for row in _rows(again)] == sorted(numbers.values())   # none lost or added
