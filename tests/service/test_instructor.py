"""The instructor's side of grader serve, against the real server: nobody else opens it;
the roster, the links, revoking and renewing; the gradebook (batch's CSV, latest or best)
and the summary; a configuration refused as `grade` refuses it; regrading everyone.

Most tests put graded submissions straight into the course's database (no grading); one
grades two students for real, changes the configuration and regrades everyone (about a
minute on 2 cores)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from grader.service.course import class_queries, classbook
from grader.service.course.class_queries import ClassSubmission
from grader.service.course.classbook import ClassStudent
from grader.service.course.storage import Store, Student, Submission
from service_helpers import ROOT, Server, add_students, open_store, start_server

import httpx  # noqa: E402  (service_helpers skips these tests without it)

EVIL_SCRIPT = "<script>alert(1)</script>"
EVIL_IMG = '"><img src=x onerror=alert(1)>'
FORMULA = "=1+2"
SECRET_NAME = "Bob Secretname"          # must never reach a student
STUDENTS = [("alice", EVIL_SCRIPT, "alice@example.org"),
            ("bob", SECRET_NAME, "bob@example.org"),
            ("carol", FORMULA, EVIL_IMG),
            ("dave", EVIL_IMG, "dave@example.org")]
BATCH = ROOT / "tests" / "submissions" / "batch"
CONSTANT = BATCH / "constant.py"         # wrong but fast: 37.37 points
CORRECT = ROOT / "tests" / "submissions" / "grader" / "correct_pruned.py"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)


def results(score: float, fingerprint: str, items: tuple[float, float] = (0.0, 0.0)) -> dict:
    """A results.json as `grade` writes it, graded under ``fingerprint``."""
    return {"score": score, "output": "", "tests": [
        {"name": "scores", "score": items[0] or score, "max_score": 90.0,
         "status": "failed", "visibility": "visible", "output": ""},
        {"name": "time", "score": items[1], "max_score": 10.0, "status": "failed",
         "visibility": "visible", "output": ""}],
        "extra_data": {"max_score": 100.0, "configuration": {
            "fingerprint": fingerprint, "name": f"{fingerprint}.cfg", "max_score": 100.0,
            "grader": "0.1.0+test"}}}


def insert(data: Path, student: str, status: str, result: dict | None, late: bool = False,
           error: str | None = None) -> int:
    """A submission put straight into the course's database (as the queue leaves it)."""
    database = sqlite3.connect(data / "course.sqlite3")
    with database:
        cursor = database.execute(
            "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
            "status, attempts, score, max_score, results_json, report_text, error, seconds, "
            "late) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'mm_player.py', 20, "
            "'ab12', ?, ?, 1, ?, ?, ?, 'report', ?, 1, ?)",
            (student, b"def mm_move(b, p):\n    return 0, (-1, -1)\n", status,
             None if result is None else result["score"],
             None if result is None else 100.0,
             None if result is None else json.dumps(result), error, int(late)))
    database.close()
    return int(cursor.lastrowid)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Server:
    """alice: 90 then 40 (under aaaa1111), bob: 70 late (under bbbb2222), carol: a grader
    error, dave: nothing."""
    data = tmp_path_factory.mktemp("instructor") / "course"
    add_students(data, STUDENTS)
    open_store(data).ensure_instructor()
    ids = {"alice 90": insert(data, "alice", "done", results(90.0, "aaaa1111")),
           "alice 40": insert(data, "alice", "done", results(40.0, "aaaa1111")),
           "bob 70": insert(data, "bob", "done", results(70.0, "bbbb2222"), late=True),
           "carol error": insert(data, "carol", "error", None,
                                 error="the grading run took longer than 1800 s")}
    server = start_server(data, "--jobs", "1")
    server.ids = ids  # type: ignore[attr-defined]
    yield server
    server.stop()


def instructor(server: Server) -> httpx.Client:
    """A browser signed in with the instructor's link."""
    client = httpx.Client(base_url=server.url, timeout=60.0)
    answer = client.get(f"/s/{server.instructor_token()}")
    assert answer.status_code == 303 and answer.headers["location"] == "/instructor"
    return client


def csrf_of(client: httpx.Client, page: str = "/instructor") -> str:
    found = CSRF.search(client.get(page).text)
    assert found, f"no CSRF token on {page}"
    return found.group(1)


def gradebook(client: httpx.Client, choice: str) -> dict[str, dict[str, str]]:
    answer = client.get("/api/gradebook.csv", params={"choice": choice})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/csv")
    assert answer.content.startswith(b"\xef\xbb\xbf")        # batch's BOM, for Excel
    return {row["student_id"]: row
            for row in csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig")))}


GETS = ["/instructor", "/instructor/students/bob", "/instructor/submissions/{bob}",
        "/instructor/submissions/{bob}/file", "/instructor/queue", "/instructor/roster",
        "/instructor/links.csv", "/instructor/summary", "/instructor/similarity",
        "/instructor/similarity.csv", "/instructor/config", "/api/gradebook.csv",
        "/api/gradebook.csv?choice=best", "/api/class"]
POSTS = ["/instructor/students/bob/revoke", "/instructor/students/bob/renew",
         "/instructor/submissions/{bob}/retry", "/instructor/regrade", "/instructor/roster",
         "/instructor/similarity", "/instructor/config"]


def test_a_student_or_a_stranger_opens_no_instructor_page(course: Server):
    bob = course.ids["bob 70"]
    with closing(course.browser("alice")) as alice, course.client("alice") as bearer, \
            course.client() as stranger:
        token = csrf_of(alice, "/")
        for url in GETS:
            url = url.format(bob=bob)
            for who, client, status in (("alice's session", alice, 403),
                                        ("alice's token", bearer, 403),
                                        ("a stranger", stranger, 401)):
                answer = client.get(url)
                assert answer.status_code == status, (who, url, answer.status_code)
                for secret in (SECRET_NAME, "bob@example.org", "Secretname", "aaaa1111"):
                    assert secret not in answer.text, (who, url, secret)
        for url in POSTS:
            url = url.format(bob=bob)
            answer = alice.post(url, data={"csrf": token, "config": "[rubric]\nscores = 0\n"},
                                files={"roster": ("r.csv", b"id\nmallory\n")})
            assert answer.status_code == 403, (url, answer.status_code)
            assert stranger.post(url, data={"csrf": "x"}).status_code == 401, url
    # nothing happened: bob's link works, nothing was queued, no student was added
    with closing(course.browser("bob")) as signed_in:
        assert signed_in.get("/").status_code == 200
    with closing(instructor(course)) as teacher:
        students = {row["student_id"]: row for row in teacher.get("/api/class").json()["students"]}
    assert "mallory" not in students
    assert students["bob"]["latest"]["status"] == "done"


def test_the_class_page_shows_each_student_and_what_each_was_graded_under(course: Server):
    with closing(instructor(course)) as teacher:
        page = teacher.get("/instructor")
        assert page.status_code == 200
        text = page.text
        assert "Mixed gradebook" in text                 # aaaa1111 and bbbb2222
        assert "aaaa1111" in text and "bbbb2222" in text
        for hostile in (EVIL_SCRIPT, EVIL_IMG):
            assert hostile not in text
        assert html.escape(EVIL_SCRIPT) in text
        assert not INLINE_SCRIPT.search(text)
        assert "Regrade everyone" in text and CSRF.search(text)
        students = {row["student_id"]: row for row in teacher.get("/api/class").json()["students"]}
        assert students["alice"]["submissions"] == 2
        assert students["alice"]["latest_graded"]["score"] == 40.0
        assert students["alice"]["best"]["score"] == 90.0
        assert students["bob"]["late"] == 1
        assert students["carol"]["status"] == "error"
        assert students["dave"]["status"] == "no submission"
        student = teacher.get("/instructor/students/alice").text
        assert f"/instructor/submissions/{course.ids['alice 90']}/file" in student
        assert f"{course.url}/s/{course.token('alice')}" in student      # their link
        report = teacher.get(f"/instructor/submissions/{course.ids['alice 90']}")
        assert report.status_code == 200 and "Score: 90" in report.text
        download = teacher.get(f"/instructor/submissions/{course.ids['alice 90']}/file")
        assert download.content.startswith(b"def mm_move")
        assert "attachment" in download.headers["content-disposition"]
        queue = teacher.get("/instructor/queue").text
        assert "grade_0" in queue and "the grading run took longer" in queue


def test_every_instructor_page_escapes_student_text_and_has_no_inline_script(course: Server):
    with closing(instructor(course)) as teacher:
        for url in GETS + ["/instructor/students/alice", "/instructor/students/carol",
                           "/instructor/students/dave", "/instructor/summary?choice=best"]:
            answer = teacher.get(url.format(bob=course.ids["bob 70"]))
            expected = 404 if url.endswith("similarity.csv") else 200    # nothing compared
            assert answer.status_code == expected, (url, answer.status_code)
            if answer.headers["content-type"].startswith("text/html"):
                for hostile in (EVIL_SCRIPT, EVIL_IMG):
                    assert hostile not in answer.text, (url, hostile)
                assert not INLINE_SCRIPT.search(answer.text), url
                assert "script-src 'self'" in answer.headers["content-security-policy"], url


def test_the_gradebook_is_batchs_csv_with_latest_or_best(course: Server):
    with closing(instructor(course)) as teacher:
        latest, best = gradebook(teacher, "latest"), gradebook(teacher, "best")
        with course.client() as scripts:          # the JSON API takes the Bearer token
            scripts.headers["authorization"] = f"Bearer {course.instructor_token()}"
            assert scripts.get("/api/gradebook.csv").content == \
                teacher.get("/api/gradebook.csv").content
        assert teacher.get("/api/gradebook.csv?choice=worst").status_code == 400
    assert list(latest) == ["alice", "bob", "carol", "dave"]
    header = list(next(iter(latest.values())))
    # batch's columns, with the final score first and the grader's among the records'.
    assert header[:3] == ["student_id", "final_score", "max_score"]
    assert {"scores", "time", "status", "late", "name", "source", "config",
            "score"} <= set(header)
    assert (latest["alice"]["final_score"], best["alice"]["final_score"]) == ("40", "90")
    assert (latest["alice"]["score"], best["alice"]["score"]) == ("40", "90")
    assert latest["alice"]["source"] == f"submission {course.ids['alice 40']}"
    assert best["alice"]["source"] == f"submission {course.ids['alice 90']}"
    assert latest["bob"]["score"] == best["bob"]["score"] == "70"
    assert latest["bob"]["late"] == "late" and latest["bob"]["config"] == "bbbb2222"
    assert latest["alice"]["config"] == "aaaa1111"
    assert latest["carol"]["score"] == "" and latest["carol"]["status"].startswith(
        "not graded: grader error")
    assert latest["dave"]["status"] == "not graded: no submission"
    assert latest["carol"]["name"] == "'" + FORMULA            # neutralised, as batch does
    assert latest["alice"]["name"] == EVIL_SCRIPT               # text in a CSV: kept as is


def test_the_summary_is_batchs_page_live(course: Server):
    with closing(instructor(course)) as teacher:
        for choice in ("latest", "best"):
            page = teacher.get("/instructor/summary", params={"choice": choice})
            assert page.status_code == 200
            assert "Class summary" in page.text and "<svg" in page.text
            assert "2 configurations or grader versions" in page.text
            assert "Regrade everyone</a>" in page.text and "--regrade-changed" not in page.text
            assert EVIL_SCRIPT not in page.text and EVIL_IMG not in page.text
            assert not INLINE_SCRIPT.search(page.text)
            policy = page.headers["content-security-policy"]
            assert "script-src 'self'" in policy and "'sha256-" in policy
            assert "unsafe-inline" not in policy


def test_a_roster_with_a_duplicate_id_is_refused_whole_then_a_good_one_is_imported(
        course: Server):
    with closing(instructor(course)) as teacher:
        token = csrf_of(teacher, "/instructor/roster")
        bad = b"id,name,email\nerin,Erin,e@example.org\nfrank,Frank,f@example.org\nerin,E2,x@y\n"
        answer = teacher.post("/instructor/roster", data={"csrf": token},
                              files={"roster": ("class.csv", bad, "text/csv")})
        assert answer.status_code == 400
        assert "'erin' on lines 2 and 4" in html.unescape(answer.text)
        ids = {row["student_id"] for row in teacher.get("/api/class").json()["students"]}
        assert not {"erin", "frank"} & ids                          # nothing half-imported
        clash = teacher.post("/instructor/roster", data={"csrf": token}, files={
            "roster": ("class.csv", b"id,name\nerin,Erin\nALICE,Alice again\n", "text/csv")})
        assert clash.status_code == 400 and "only by capitals" in clash.text
        assert "erin" not in {row["student_id"] for row in
                              teacher.get("/api/class").json()["students"]}
        good = ("Student ID,Name,Email\nerin,Erin E,e@example.org\n"
                f"frank,\"{EVIL_IMG.replace(chr(34), chr(34) * 2)}\",f@example.org\n"
                f"alice,{EVIL_SCRIPT},alice@new.org\n")
        answer = teacher.post("/instructor/roster", data={"csrf": token},
                              files={"roster": ("class.csv", good.encode(), "text/csv")})
        assert answer.status_code == 200, answer.text
        assert "2 added, 1 updated, 0 unchanged" in answer.text
        assert EVIL_IMG not in answer.text
        links = teacher.get("/instructor/links.csv")
        rows = list(csv.DictReader(io.StringIO(links.content.decode("utf-8-sig"))))
    assert list(rows[0]) == ["student_id", "name", "email", "link"]
    by_id = {row["student_id"]: row for row in rows}
    assert {"alice", "bob", "carol", "dave", "erin", "frank", "instructor"} == set(by_id)
    assert rows[-1]["student_id"] == "instructor"
    assert by_id["alice"]["email"] == "alice@new.org"
    assert by_id["carol"]["name"] == "'" + FORMULA
    assert by_id["erin"]["link"] == f"{course.url}/s/{course.token('erin')}"
    with httpx.Client(timeout=60.0) as browser:                     # a link signs in
        assert browser.get(by_id["erin"]["link"]).status_code == 303


def test_revoke_then_renew_a_link(course: Server):
    old = course.token("dave")
    with closing(instructor(course)) as teacher:
        token = csrf_of(teacher, "/instructor/students/dave")
        answer = teacher.post("/instructor/students/dave/revoke", data={"csrf": token})
        assert answer.status_code == 303
        assert "revoked" in teacher.get("/instructor/students/dave").text
        assert "dave" not in {row["student_id"] for row in csv.DictReader(io.StringIO(
            teacher.get("/instructor/links.csv").content.decode("utf-8-sig")))}
        with httpx.Client(base_url=course.url, timeout=60.0) as browser:
            refused = browser.get(f"/s/{old}")
            assert refused.status_code == 403
            assert "link" in refused.text.lower()
        assert teacher.post("/instructor/students/dave/renew",
                            data={"csrf": token}).status_code == 303
        assert teacher.post("/instructor/students/nobody/renew",
                            data={"csrf": token}).status_code == 404
        assert teacher.post("/instructor/students/dave/renew",
                            data={"csrf": "forged"}).status_code == 403
    new = course.token("dave")
    assert new != old
    with httpx.Client(base_url=course.url, timeout=60.0) as browser:
        assert browser.get(f"/s/{old}").status_code == 403
        assert browser.get(f"/s/{new}").status_code == 303


def test_a_configuration_with_a_typo_is_refused_as_grade_refuses_it(course: Server,
                                                                    tmp_path: Path):
    typo = "[rubric]\nscroes = 30\n"
    (tmp_path / "typo.cfg").write_text(typo)
    grade = subprocess.run([sys.executable, "-m", "grader", "grade", str(CONSTANT),
                            "--config", "typo.cfg"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120)
    assert grade.returncode == 2
    message = grade.stderr.strip().removeprefix("python -m grader: error: ")
    assert message.startswith("typo.cfg: [rubric] scroes: there is no rubric item")
    with closing(instructor(course)) as teacher:
        token = csrf_of(teacher, "/instructor/config")
        answer = teacher.post("/instructor/config",
                              data={"csrf": token, "config": typo, "name": "typo.cfg"})
        assert answer.status_code == 400
        assert message in html.unescape(answer.text)
        upload = teacher.post("/instructor/config", data={"csrf": token},
                              files={"file": ("typo.cfg", typo.encode())})
        assert upload.status_code == 400 and message in html.unescape(upload.text)
        assert "Now: <strong>default</strong>" in teacher.get("/instructor/config").text


def test_a_grader_error_gets_a_retry_that_keeps_one_submission(course: Server):
    number = course.ids["carol error"]
    with closing(instructor(course)) as teacher:
        page = teacher.get("/instructor/students/carol").text
        assert f'action="/instructor/submissions/{number}/retry"' in page
        answer = teacher.post(f"/instructor/submissions/{number}/retry",
                              data={"csrf": csrf_of(teacher)})
        assert answer.status_code == 303
        carol = [row for row in teacher.get("/api/class").json()["students"]
                 if row["student_id"] == "carol"][0]
    assert carol["submissions"] == 1 and carol["latest"]["id"] == number
    assert carol["latest"]["status"] in ("queued", "running", "done")   # no longer an error


# --- the Store's instructor queries and the class book, without a server -----------------

def test_a_regrade_is_a_new_result_of_the_same_submission(tmp_path: Path):
    store = Store(tmp_path / "course.sqlite3", b"k" * 32)
    store.upsert_students([("alice", "Alice", "a@example.org")])
    row = store.add_submission("alice", "mm_player.py", b"x = 1\n", late=False,
                               config="default")
    claimed = store.claim_next("grade_0")
    assert claimed is not None and claimed.id == row.id
    store.finish(row.id, score=40.0, max_score=100.0, report_text="old", seconds=1.0,
                 results_json=json.dumps(results(40.0, "aaaa1111")))
    assert class_queries.regrade_submissions(store, [row.id, row.id]) == [row.id]
    assert class_queries.regrade_submissions(store, [row.id]) == []      # queued already
    assert [one.id for one in store.history("alice")] == [row.id]
    assert store.submission(row.id).status == "queued"
    earlier = class_queries.earlier_results(store, row.id)
    assert [(one.score, one.status) for one in earlier] == [(40.0, "done")]
    # until the new result comes, the old one stands in the gradebook
    students = classbook.class_students(store)
    assert classbook.gradebook_rows(store, students)[0].score == 40.0
    store.claim_next("grade_0")
    store.finish(row.id, score=55.0, max_score=100.0, report_text="new", seconds=1.0,
                 results_json=json.dumps(results(55.0, "cccc3333")))
    students = classbook.class_students(store)
    (handed,) = students[0].submissions
    assert (handed.submission.score, handed.fingerprint, handed.gradings) == \
        (55.0, "cccc3333", 2)
    assert classbook.gradebook_rows(store, students)[0].score == 55.0


def _handed(number: int, status: str = "queued", score: float | None = None,
            **facts: Any) -> ClassSubmission:
    return ClassSubmission(Submission(number, "a", f"t{number}", status=status, score=score),
                           **facts)


def test_latest_and_best_choose_among_graded_submissions_only():
    graded = _handed(1, "done", 90.0)
    lower = _handed(2, "done", 40.0)
    waiting = _handed(3, "queued")
    failed = _handed(4, "error")
    student = ClassStudent(Student("a"), (graded, lower, waiting, failed))
    assert student.chosen("latest") is lower and student.chosen("best") is graded
    assert student.status == "error"
    tie = _handed(5, "done", 90.0)
    assert ClassStudent(Student("a"), (graded, tie)).chosen("best") is tie
    assert ClassStudent(Student("a")).chosen("best") is None
    with pytest.raises(ValueError, match="latest, best"):
        student.chosen("first")


def test_configurations_count_the_chosen_results_and_mark_the_current_one():
    def one(number: int, fingerprint: str) -> ClassSubmission:
        recorded = json.dumps({"fingerprint": fingerprint, "name": "x.cfg"})
        return _handed(number, "done", 1.0, configuration=recorded, fingerprint=fingerprint)
    students = [ClassStudent(Student("a"), (one(1, "old1"), one(2, "new2"))),
                ClassStudent(Student("b"), (one(3, "old1"),)),
                ClassStudent(Student("c"), (_handed(4, score=1.0),))]
    used = classbook.configurations(students, current="new2")
    assert [(c.fingerprint, c.count, c.current) for c in used] == [
        ("new2", 1, True), ("old1", 1, False), ("unrecorded", 1, False)]


# --- grading for real: two students, a new configuration, everyone regraded ---------------

def _hand_in(server: Server, student: str, path: Path) -> int:
    with server.client(student) as client:
        for _ in range(600):
            answer = client.post("/api/submissions",
                                 files={"file": ("mm_player.py", path.read_bytes())})
            if answer.status_code != 409:       # one in flight: wait for it
                break
            time.sleep(0.5)
        assert answer.status_code == 201, answer.text
        return int(answer.json()["id"])


def _wait_all_done(teacher: httpx.Client, seconds: float = 400.0) -> dict[str, dict]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        students = {row["student_id"]: row for row in teacher.get("/api/class").json()["students"]}
        waiting = re.search(r"(\d+) queued, (\d+) running", teacher.get("/instructor").text)
        if waiting is not None and waiting.groups() == ("0", "0") and all(
                row["latest"] is None or row["latest"]["status"] in ("done", "error")
                for row in students.values()):    # every submission, not only the latest
            return students
        time.sleep(1.0)
    raise AssertionError(f"still grading after {seconds} s")


def _recorded(data: Path, number: int) -> dict:
    """What submission ``number``'s newest result says it was graded under."""
    database = sqlite3.connect(data / "course.sqlite3")
    try:
        (text,) = database.execute("SELECT json_extract(results_json, "
                                   "'$.extra_data.configuration') FROM submissions "
                                   "WHERE id = ?", (number,)).fetchone()
    finally:
        database.close()
    return json.loads(text)


@pytest.mark.long
def test_two_students_graded_then_a_new_configuration_and_everyone_regraded(serve, tmp_path):
    """(Fingerprints include a hash of the grader's source: compared with what each result
    recorded, not with each other, so that an edit of the grader while this runs, by a
    developer, cannot fail it.)"""
    data = tmp_path / "course"
    add_students(data, [("alice", "Alice", "a@example.org"), ("bob", FORMULA, "b@example.org")])
    server = serve(data, "--jobs", "2")
    first = _hand_in(server, "alice", CORRECT)
    bob = _hand_in(server, "bob", CONSTANT)
    with closing(instructor(server)) as teacher:        # grading takes 10 s or more
        queue = teacher.get("/instructor/queue").text
        assert f'href="/instructor/submissions/{first}"' in queue
        assert f'href="/instructor/submissions/{bob}"' in queue and "grading submission" in queue
    second = _hand_in(server, "alice", CONSTANT)       # waits for alice's first to finish
    with closing(instructor(server)) as teacher:
        before = _wait_all_done(teacher)
        assert [before[name]["latest"]["status"] for name in ("alice", "bob")] == ["done"] * 2
        latest, best = gradebook(teacher, "latest"), gradebook(teacher, "best")
        assert latest["alice"]["source"] == f"submission {second}"
        assert best["alice"]["source"] == f"submission {first}"
        assert best["alice"]["score"] == "100"
        assert latest["alice"]["score"] == latest["bob"]["score"]          # the same file
        assert float(latest["bob"]["score"]) < 100
        assert latest["bob"]["name"] == "'" + FORMULA
        for student, number in (("alice", second), ("bob", bob)):
            recorded = _recorded(data, number)
            assert recorded["name"] == "default"
            assert latest[student]["config"] == recorded["fingerprint"]

        token = csrf_of(teacher, "/instructor/config")
        new_config = "[rubric]\nscores = 30\nmoves = 5\n"
        saved = teacher.post("/instructor/config", data={"csrf": token, "config": new_config,
                                                         "name": "heavier scores.cfg"})
        assert saved.status_code == 200 and "Saved" in saved.text, saved.text
        assert "001-heavier_scores.cfg" in saved.text
        assert "not current" in teacher.get("/instructor").text

        answer = teacher.post("/instructor/regrade", data={"csrf": token})
        # each student's latest and best: alice's two, bob's one
        assert answer.status_code == 303 and "n=3" in answer.headers["location"]
        after = _wait_all_done(teacher)
        latest = gradebook(teacher, "latest")
        page = teacher.get("/instructor").text
        best = gradebook(teacher, "best")
    for student, number in (("alice", second), ("bob", bob)):
        recorded = _recorded(data, number)
        assert recorded["name"] == "001-heavier_scores.cfg"
        assert (recorded["rubric"]["scores"], recorded["rubric"]["moves"]) == (30.0, 5.0)
        assert latest[student]["config"] == recorded["fingerprint"]
        assert f"<code>{recorded['fingerprint']}</code>" in page       # shown on the page
        assert latest[student]["source"] == f"submission {number}"     # the same submissions
    assert float(latest["alice"]["score"]) != before["alice"]["latest"]["score"]  # new weights
    assert best["alice"]["source"] == f"submission {first}"            # 100, regraded too:
    assert best["alice"]["config"] == _recorded(data, first)["fingerprint"]   # no mixed book
    assert _recorded(data, first)["name"] == "001-heavier_scores.cfg"
    assert after["alice"]["submissions"] == 2 and after["bob"]["submissions"] == 1
    store = open_store(data)
    try:
        regraded = {number: class_queries.earlier_results(store, number)
                    for number in (first, second, bob)}
        history = [row.id for row in store.history("alice")]
    finally:
        store.close()
    assert [len(regraded[number]) for number in (first, second, bob)] == [1, 1, 1]
    assert history == [second, first]                # nothing doubled in the history


# --- similarity on demand -----------------------------------------------------------------

def _compare(teacher: httpx.Client, seconds: float = 240.0) -> str:
    answer = teacher.post("/instructor/similarity", data={"csrf": csrf_of(teacher)})
    assert answer.status_code == 303
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page = teacher.get("/instructor/similarity")
        assert page.status_code == 200
        if "Comparing..." not in page.text:
            return page.text
        assert page.headers.get("refresh") == "3"
        time.sleep(1.0)
    raise AssertionError(f"still comparing after {seconds} s")


def test_similarity_on_demand_lists_the_pair_with_its_side_by_side_page(serve, tmp_path):
    pytest.importorskip("copydetect")
    data = tmp_path / "course"
    add_students(data, [("alice", EVIL_SCRIPT, "a@example.org"), ("bob", "Bob", "b@x.org"),
                        ("carol", "Carol", "c@x.org")])
    server = serve(data, "--jobs", "1")
    copied = (ROOT / "tests" / "submissions" / "grader" / "correct_plain.py").read_bytes()
    database = sqlite3.connect(data / "course.sqlite3")
    with database:
        for student, code in (("alice", copied), ("bob", copied.replace(b"board", b"grid")),
                              ("carol", CONSTANT.read_bytes())):
            database.execute(
                "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
                "status, attempts) VALUES (?, '2026-01-01T00:00:00.000000Z', 'mm_player.py', "
                "?, 'ab', ?, 'error', 2)", (student, len(code), code))
    database.close()
    with closing(instructor(server)) as teacher:
        page = _compare(teacher)
        assert "Most similar pairs" in page and "pair-001.html" in page, page
        pair = teacher.get("/instructor/similarity/pair-001.html")
        assert pair.status_code == 200 and "<mark>" in pair.text
        assert "'sha256-" in pair.headers["content-security-policy"]
        assert not INLINE_SCRIPT.search(pair.text)
        assert teacher.get("/instructor/similarity/..%2Fcourse.sqlite3").status_code == 404
        rows = list(csv.DictReader(io.StringIO(
            teacher.get("/instructor/similarity.csv").content.decode("utf-8-sig"))))
        assert (rows[0]["first"], rows[0]["second"]) == ("alice", "bob")
        summary = teacher.get("/instructor/summary").text
        assert "Most similar pairs" in summary and EVIL_SCRIPT not in summary


def test_without_copydetect_the_page_says_how_to_install_it(serve, tmp_path, monkeypatch):
    hidden = tmp_path / "no-copydetect"
    hidden.mkdir()
    (hidden / "copydetect.py").write_text("raise ImportError('not installed')\n")
    monkeypatch.setenv("PYTHONPATH", str(hidden))
    server = serve(tmp_path / "course", "--jobs", "1")
    with closing(instructor(server)) as teacher:
        page = _compare(teacher)
    assert "pip install &#39;ttt-minimax[similarity]&#39;" in page


def test_a_configuration_chosen_on_the_page_is_not_lost_silently_by_a_restart(serve, tmp_path):
    data = tmp_path / "course"
    server = serve(data, "--jobs", "1")
    with closing(instructor(server)) as teacher:
        token = csrf_of(teacher, "/instructor/config")
        saved = teacher.post("/instructor/config", data={
            "csrf": token, "config": "[rubric]\nscores = 30\nmoves = 5\n", "name": "mine.cfg"})
        assert saved.status_code == 200 and "Now: <strong>001-mine.cfg</strong>" in saved.text
        assert "is not in use" not in teacher.get("/instructor").text
    server.stop()
    server = serve(data, "--jobs", "1")           # started again without --config
    with closing(instructor(server)) as teacher:
        in_use = "Now: <strong>001-mine.cfg</strong>" in teacher.get("/instructor/config").text
        for page in ("/instructor", "/instructor/config"):
            text = teacher.get(page).text     # still in use (remembered), or a warning
            assert in_use or ("is not in use" in text and "001-mine.cfg" in text), page
