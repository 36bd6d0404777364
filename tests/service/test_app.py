"""The submission page as a student uses it, over HTTP against the real server: a correct
file gets the score ``grade`` gives it, with its report; every bad input gets a clear
message and loses nothing; the limits say when one can submit again."""

from __future__ import annotations

import json
import re
import sqlite3
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from service_helpers import FAST, ROOT, Server, add_students, start_server

MAX_SIZE = 8192
PER_HOUR = 3


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Server:
    data = tmp_path_factory.mktemp("app") / "course"
    add_students(data, [(name, name.title(), f"{name}@example.org")
                        for name in ("alice", "bob", "carol", "dave", "erin", "frank")])
    for path in (data, data / "work"):       # as an earlier release left it: others could read
        path.mkdir(exist_ok=True)
        path.chmod(0o755)
    (data / "course.sqlite3").chmod(0o644)
    server = start_server(data, "--jobs", "1", "--max-size", str(MAX_SIZE),
                          "--per-hour", str(PER_HOUR))
    yield server
    server.stop()


def _submit(client, content: bytes, name: str = "mm_player.py"):
    return client.post("/api/submissions", files={"file": (name, content, "text/x-python")})


def _count(course: Server, student: str) -> int:
    database = sqlite3.connect(course.data / "course.sqlite3")
    try:
        return database.execute("SELECT COUNT(*) FROM submissions WHERE student = ?",
                                (student,)).fetchone()[0]
    finally:
        database.close()


@pytest.mark.timeout(900)   # grades real submissions, one at a time, on a shared machine
def test_a_correct_file_gets_the_score_and_report_grade_gives_it(course: Server, tmp_path):
    client = course.client("alice")
    answer = _submit(client, FAST.read_bytes())
    assert answer.status_code == 201, answer.text
    received = answer.json()
    assert received["status"] == "queued" and received["size"] == FAST.stat().st_size
    assert len(received["sha256"]) == 64 and received["received_at"].endswith("Z")
    again = _submit(client, FAST.read_bytes())                  # one in flight at a time
    assert again.status_code == 409 and "still" in again.json()["error"]
    state = client.get(f"/api/submissions/{received['id']}").json()
    assert 1 <= state["poll_after"] <= 10         # the pace the page's script follows
    done = course.wait_done(client, received["id"])
    assert done["status"] == "done" and done["poll_after"] is None, done
    expected = tmp_path / "results.json"
    subprocess.run([sys.executable, "-m", "grader", "grade", str(FAST), "--json",
                    str(expected), "--quiet"], cwd=ROOT, check=True, capture_output=True)
    reference = json.loads(expected.read_text())
    assert done["score"] == reference["score"] == 100
    assert done["max_score"] == 100
    assert [(t["name"], t["score"]) for t in done["results"]["tests"]] == \
        [(t["name"], t["score"]) for t in reference["tests"]]
    assert [item["name"] for item in done["items"]] == [t["name"] for t in reference["tests"]]
    assert "Score: 100 / 100" in done["report"]
    browser = course.browser("alice")
    page = browser.get(f"/submissions/{received['id']}").text
    assert "Score: 100 / 100" in page and "game play" in page
    assert received["sha256"][:12] in page
    home = browser.get("/").text
    assert f'href="/submissions/{received["id"]}"' in home and "100 / 100" in home
    download = browser.get(f"/submissions/{received['id']}/file")
    assert download.content == FAST.read_bytes()
    assert _count(course, "alice") == 1                         # the refused one left no row


@pytest.mark.timeout(900)
def test_grading_works_in_the_course_folder_the_server_made_private(course: Server):
    # The server tightens DATA and DATA/work at start; the grading runs still read
    # DATA/work/ID/mm_player.py (as the server's user; the sandbox gets a copy).
    for path in (course.data, course.data / "work"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    assert stat.S_IMODE((course.data / "course.sqlite3").stat().st_mode) == 0o600
    client = course.client("frank")
    answer = _submit(client, FAST.read_bytes())
    assert answer.status_code == 201, answer.text
    done = course.wait_done(client, answer.json()["id"])
    assert done["status"] == "done" and done["score"] == done["max_score"] == 100, done


@pytest.mark.parametrize("name, content, status, message", [
    ("mm_player.py", b"", 400, "is empty"),
    ("mm_player.py", b"  \n\n", 400, "is empty"),
    ("mm_player.py", b"def mm_move(\x00\x01\x02", 400, "binary"),
    ("mm_player.py", "caf\u00e9 = 1\n".encode("latin-1"), 400, "not UTF-8"),
    ("handin.zip", b"PK\x03\x04rest of a zip", 400, "archive"),
    ("mm_player.py", b"PK\x03\x04rest of a zip", 400, "archive"),
    ("mm_player.py", b"x = 1\n" * (MAX_SIZE // 6 + 1), 413, "the limit is 8.0 KiB"),
])
def test_bad_files_are_refused_with_a_message_and_leave_nothing(course: Server, name, content,
                                                                status, message):
    answer = _submit(course.client("bob"), content, name)
    assert answer.status_code == status, answer.text
    assert message in answer.json()["error"]
    assert _count(course, "bob") == 0


def test_bad_requests_get_a_clear_answer(course: Server):
    client = course.client("bob")
    no_file = client.post("/api/submissions", data={"other": "x"})
    assert no_file.status_code == 400 and "multipart field 'file'" in no_file.json()["error"]
    malformed = client.post("/api/submissions", content=b"--x\r\nnonsense",
                            headers={"content-type": "multipart/form-data; boundary=x"})
    assert malformed.status_code == 400 and malformed.json()["error"]
    huge = client.post("/api/submissions", files={"file": ("mm_player.py", b"#" * 200_000)})
    assert huge.status_code == 413 and "too large" in huge.json()["error"]
    forged = course.client().post("/api/submissions", files={"file": ("a.py", b"x = 1\n")},
                                  headers={"authorization": "Bearer " + "A" * 43})
    assert forged.status_code == 401 and "Bearer" in forged.json()["error"]
    assert client.get("/api/submissions/abc").status_code == 404
    assert _count(course, "bob") == 0


def test_the_hourly_limit_says_when_one_can_submit_again(course: Server):
    now = datetime.now(timezone.utc)
    database = sqlite3.connect(course.data / "course.sqlite3")
    with database:
        for minutes in (50, 30, 10):
            database.execute(
                "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
                "status) VALUES ('dave', ?, 'mm_player.py', 1, 'x', x'41', 'done')",
                ((now - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),))
    database.close()
    answer = _submit(course.client("dave"), FAST.read_bytes())
    assert answer.status_code == 429
    body = answer.json()
    assert "submit again at" in body["error"] and 9 * 60 <= body["retry_after"] <= 11 * 60
    assert answer.headers["retry-after"] == str(body["retry_after"])
    assert _count(course, "dave") == PER_HOUR


def test_the_form_refuses_politely_and_keeps_the_pasted_code(course: Server):
    browser = course.browser("carol")
    home = browser.get("/")
    csrf = re.search(r'name="csrf" value="([^"]+)"', home.text).group(1)
    empty = browser.post("/submit", data={"csrf": csrf, "code": ""},
                         files={"file": ("", b"", "application/octet-stream")})
    assert empty.status_code == 400 and "nothing was handed in" in empty.text
    code = "def mm_move(board, player):\n    return 0, (-1, -1)  # <b>é</b>\n" * 400
    big = browser.post("/submit", data={"csrf": csrf, "code": code})
    assert big.status_code == 413 and "the limit is 8.0 KiB" in big.text
    assert "# &lt;b&gt;é&lt;/b&gt;" in big.text          # kept in the box, escaped
    assert _count(course, "carol") == 0


@pytest.mark.parametrize("late_days, status, late", [(None, 403, None), (1, 201, True)])
def test_deadlines_mark_late_then_refuse(serve, tmp_path, late_days, status, late):
    data = tmp_path / "course"
    add_students(data, [("erin", "Erin", "")])
    past = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()
    options = ["--jobs", "1", "--deadline", past]
    if late_days is not None:
        future = datetime.now(timezone.utc) + timedelta(days=late_days)
        options += ["--late-deadline", future.isoformat()]
    server = serve(data, *options)
    answer = _submit(server.client("erin"), b"def mm_move(board, player):\n    pass\n")
    assert answer.status_code == status, answer.text
    if late is None:
        assert "closed" in answer.json()["error"]
        assert "Submissions are closed" in server.browser("erin").get("/").text
    else:
        assert answer.json()["late"] is True
        assert "late" in server.browser("erin").get("/").text


def test_with_visibility_categories_the_page_shows_what_gradescope_would(serve, tmp_path):
    data = tmp_path / "course"
    add_students(data, [("erin", "Erin", "")])
    results = {"score": 50.0, "output": "Score: 50 / 100", "extra_data": {"secret": "EXTRA"},
               "tests": [
                   {"name": "scores", "score": 50.0, "max_score": 100.0, "status": "failed",
                    "visibility": "visible", "output": "[-50 pts] scores: 2 wrong score"},
                   {"name": "scores: the failures in full", "score": 0.0, "max_score": 0.0,
                    "status": "failed", "visibility": "after_due_date",
                    "output": "mm_move(SECRET_BOARD, PLAYERX) expected score 0 but received 1"}]}
    server = serve(data, "--jobs", "1", "--visibility", "categories", "--deadline",
                   (datetime.now(timezone.utc) + timedelta(days=1)).isoformat())
    database = sqlite3.connect(data / "course.sqlite3")
    with database:
        number = database.execute(
            "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
            "status, score, max_score, results_json) VALUES ('erin', "
            "'2026-01-01T00:00:00.000000Z', 'mm_player.py', 1, 'x', x'41', 'done', 50, 100, ?)",
            (json.dumps(results),)).lastrowid
    database.close()
    before = server.browser("erin").get(f"/submissions/{number}").text
    api = server.client("erin").get(f"/api/submissions/{number}").text
    assert "2 wrong score" in before and "shown after the deadline" in before
    for text in (before, api):
        assert "SECRET_BOARD" not in text and "EXTRA" not in text
    server.stop()
    past = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()
    after = serve(data, "--jobs", "1", "--visibility", "categories", "--deadline", past)
    page = after.browser("erin").get(f"/submissions/{number}").text
    assert "mm_move(SECRET_BOARD, PLAYERX)" in page and "EXTRA" not in page
