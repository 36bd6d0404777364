"""What must never happen (issue 16, security): a student reading another's submission, a
token stored in clear, an inline script, student text unescaped, a stack trace shown, a
form accepted from another site, a course folder others can read. No grading here:
submissions are put in the database. (Sessions: test_sessions.py.)"""

from __future__ import annotations

import json
import re
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from grader.service.course.folder import secure_course_folder
from service_helpers import ROOT, Server, add_students, open_store, start_server

EVIL_SCRIPT = "<script>alert(1)</script>"
EVIL_IMG = '"><img src=x onerror=alert(1)>'
FORMULA = "=1+2"
STUDENTS = [("alice", EVIL_SCRIPT, "alice@example.org"),
            ("bob", EVIL_IMG, "bob@example.org"),
            ("carol", FORMULA, "carol@example.org")]
RESULTS = {"score": 50.0, "output": f"Student: alice\nprinted {EVIL_SCRIPT}\n", "tests": [
    {"name": "scores", "score": 40.0, "max_score": 90.0, "status": "failed",
     "visibility": "visible", "extra_data": {"passed": 4, "total": 9, "state": "failed"},
     "output": f"[-50 pts] scores\n\nmm_move(TTTBoard(3, False, [[EMPTY]]), PLAYERX) expected "
               f"score 0 but received {EVIL_IMG}\n  why: {EVIL_SCRIPT}"},
    {"name": "time", "score": 10.0, "max_score": 10.0, "status": "passed",
     "visibility": "visible", "output": ""}]}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
EVENT_ATTRIBUTE = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def _insert_done(data: Path, student: str, filename: str, results: dict | str) -> int:
    database = sqlite3.connect(data / "course.sqlite3")
    with database:
        cursor = database.execute(
            "INSERT INTO submissions (student, received_at, filename, size, sha256, bytes, "
            "status, attempts, score, max_score, results_json, report_text, seconds) VALUES "
            "(?, '2026-01-01T00:00:00.000000Z', ?, 4, 'ab', ?, 'done', 1, 50, 100, ?, ?, 1)",
            (student, filename, f"# {EVIL_SCRIPT}\n".encode(),
             results if isinstance(results, str) else json.dumps(results),
             f"report {EVIL_SCRIPT}\n"))
    database.close()
    return int(cursor.lastrowid)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Server:
    data = tmp_path_factory.mktemp("security") / "course"
    add_students(data, STUDENTS)
    open_store(data).ensure_instructor()
    _as_an_earlier_release_left_it(data)
    server = start_server(data, "--jobs", "1")
    server.ids = {  # type: ignore[attr-defined]
        "alice": _insert_done(data, "alice", f"{EVIL_IMG}.py", RESULTS),
        "bob": _insert_done(data, "bob", "mm_player.py", RESULTS),
        "broken": _insert_done(data, "carol", "mm_player.py", '{"tests": 5}'),
    }
    yield server
    server.stop()


def _as_an_earlier_release_left_it(data: Path) -> None:
    """The folder 0755, the database 0644, a grading run's file 0644 (the server tightens
    them when it starts)."""
    data.chmod(0o755)
    (data / "course.sqlite3").chmod(0o644)
    run = data / "work" / "7"
    run.mkdir(parents=True)
    (run / "mm_player.py").write_text("x = 1\n")
    for path in (data / "work", run):
        path.chmod(0o755)
    (run / "mm_player.py").chmod(0o644)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _pages(course: Server) -> dict[str, object]:
    alice = course.browser("alice")
    number = course.ids["alice"]
    return {"/": alice.get("/"),
            f"/submissions/{number}": alice.get(f"/submissions/{number}"),
            "signed out /": course.client().get("/"),
            "/s/forged": course.client().get("/s/" + "A" * 43),
            "404": alice.get("/no/such/page"),
            "other's": alice.get(f"/submissions/{course.ids['bob']}")}


def test_another_students_ids_answer_404_with_the_same_body_as_missing_ones(course: Server):
    bob = course.browser("bob")
    api = course.client("bob")
    theirs, missing = course.ids["alice"], 999999
    for client, url in ((bob, "/submissions/{}"), (bob, "/submissions/{}/file"),
                        (api, "/api/submissions/{}"), (bob, "/api/submissions/{}")):
        other = client.get(url.format(theirs))
        absent = client.get(url.format(missing))
        assert other.status_code == absent.status_code == 404, url
        assert other.text == absent.text, url
        assert EVIL_SCRIPT not in other.text and "alice" not in other.text
    own = api.get(f"/api/submissions/{course.ids['bob']}")
    assert own.status_code == 200 and own.json()["score"] == 50


def test_pages_need_a_sign_in_and_a_revoked_link_signs_in_no_more(course: Server):
    anonymous = course.client()
    assert anonymous.get(f"/submissions/{course.ids['alice']}").status_code == 401
    assert anonymous.get(f"/api/submissions/{course.ids['alice']}").status_code == 401
    assert course.client().get(f"/api/submissions/{course.ids['alice']}",
                               headers={"authorization": "Bearer forged"}).status_code == 401
    forged = anonymous.get("/s/" + "A" * 43)
    assert forged.status_code == 403 and "does not sign you in" in forged.text
    store = open_store(course.data)
    try:
        browser = course.browser("carol")
        assert browser.get("/").status_code == 200 and "Hand in" in browser.get("/").text
        token = store.student_token("carol")
        store.set_revoked("carol")
        assert course.client().get(f"/s/{token}").status_code == 403
        assert "Hand in" not in browser.get("/").text      # the session ended with the link
    finally:
        store.set_revoked("carol", False)
        store.close()


def test_tokens_are_stored_hashed(course: Server):
    tokens = [course.token(student) for student, _, _ in STUDENTS] + [course.instructor_token()]
    stored = b"".join(path.read_bytes() for path in course.data.glob("course.sqlite3*"))
    for token in tokens:
        assert len(token) >= 22                      # at least 128 bits
        assert token.encode() not in stored
    assert all(len(line.split(",")[-1].rsplit("/", 1)[1]) >= 22 for line in subprocess.run(
        [sys.executable, "-m", "grader", "serve", "--data", str(course.data), "--links"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()[1:])


def test_every_page_has_the_csp_and_no_inline_script(course: Server):
    for name, answer in _pages(course).items():
        policy = answer.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy, name
        assert answer.headers.get("x-content-type-options") == "nosniff", name
        assert not INLINE_SCRIPT.search(answer.text), name
        assert not EVENT_ATTRIBUTE.search(answer.text), name


def test_student_text_is_escaped_everywhere_it_appears(course: Server):
    alice = course.browser("alice")
    home = alice.get("/").text
    page = alice.get(f"/submissions/{course.ids['alice']}").text
    for text in (home, page):
        assert EVIL_SCRIPT not in text and EVIL_IMG not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in home            # the name
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;.py" in home    # the file name
    assert "&lt;script&gt;" in page and "onerror=alert(1)&gt;" in page  # the report
    assert "mm_move(TTTBoard(3, False, [[EMPTY]]), PLAYERX)" in page    # a call to paste
    carol = course.browser("carol").get("/").text
    assert FORMULA in carol
    download = alice.get(f"/submissions/{course.ids['alice']}/file")
    assert download.headers["content-disposition"].startswith("attachment;")
    assert '"><img' not in download.headers["content-disposition"]
    links = subprocess.run([sys.executable, "-m", "grader", "serve", "--data",
                            str(course.data), "--links"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout
    assert "carol,'=1+2," in links                   # a spreadsheet shows it, never runs it


def test_an_unexpected_error_shows_an_id_the_log_has_and_no_traceback(course: Server):
    carol = course.browser("carol")
    answer = carol.get(f"/submissions/{course.ids['broken']}")
    assert answer.status_code == 500
    found = re.search(r'class="error-id">([0-9a-f]+)<', answer.text)
    assert found, answer.text
    assert "Traceback" not in answer.text and "TypeError" not in answer.text
    assert "content-security-policy" in answer.headers
    api = course.client("carol").get(f"/api/submissions/{course.ids['broken']}")
    assert api.status_code == 500 and api.json()["error_id"]
    log = course.log.read_text()
    assert f"error {found.group(1)}" in log and "Traceback" in log


def test_sessions_are_httponly_samesite_and_forms_need_the_csrf_token(course: Server):
    client = course.client()
    answer = client.get(f"/s/{course.token('bob')}")
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
    assert "secure" not in cookie and "strict-transport-security" not in answer.headers
    refused = client.post("/submit", files={"file": ("mm_player.py", b"x = 1\n")},
                          data={"csrf": "forged"})
    assert refused.status_code == 403 and "another site" in refused.text
    assert client.post("/signout").status_code == 403
    assert client.get("/").status_code == 200 and "Hand in" in client.get("/").text
    history = course.client("bob").get("/api/submissions").json()["submissions"]
    assert [row["id"] for row in history] == [course.ids["bob"]]     # nothing was stored


def test_the_server_makes_the_course_folder_private_when_it_starts(course: Server):
    data = course.data
    assert _mode(data) == 0o700
    assert _mode(data / "work") == _mode(data / "work" / "7") == 0o700
    for path in (data / "course.sqlite3", data / "secret.key", data / "work/7/mm_player.py"):
        assert _mode(path) == 0o600, path
    assert all(_mode(path) == 0o600 for path in data.glob("course.sqlite3*"))


def test_secure_course_folder_tightens_what_others_could_read_and_says_so(tmp_path: Path):
    fresh = tmp_path / "new" / "course"
    assert secure_course_folder(fresh) == [] and _mode(fresh) == 0o700
    data = tmp_path / "course"
    (data / "configs").mkdir(parents=True)
    (data / "backups").mkdir()
    outside = tmp_path / "elsewhere.txt"
    for path, mode in ((data / "course.sqlite3", 0o644), (data / "course.sqlite3-wal", 0o644),
                       (data / "secret.key", 0o600), (data / "readonly.txt", 0o400),
                       (data / "configs" / "001-default.cfg", 0o664),
                       (data / "backups" / "old.sqlite3", 0o644), (outside, 0o644)):
        path.write_text("x")
        path.chmod(mode)
    (data / "link.txt").symlink_to(outside)
    for folder in (data, data / "configs", data / "backups"):
        folder.chmod(0o755)
    messages = secure_course_folder(data)
    assert messages[0] == (f"made {data} 0700 (was 0755): other users could list and open "
                           "the course's files")
    assert sorted(messages[1:]) == sorted([
        f"made {data / 'configs'} 0700 (was 0755): other users could list and open the "
        "course's files",
        f"made {data / 'configs' / '001-default.cfg'} 0600 (was 0664): other users could "
        "read it",
        f"made {data / 'course.sqlite3'} 0600 (was 0644): other users could read it",
        f"made {data / 'course.sqlite3-wal'} 0600 (was 0644): other users could read it"])
    assert _mode(data) == 0o700 and _mode(data / "readonly.txt") == 0o400
    assert _mode(outside) == 0o644                      # a link is never followed
    assert _mode(data / "backups") == 0o755             # not the course's: unreachable now
    assert secure_course_folder(data) == []
    with pytest.raises(NotADirectoryError, match="the course's folder"):
        secure_course_folder(outside)
