"""A hand-in the grader cannot read as Python 3 at all (a Python 2 file, a page of prose, a
binary) is refused when it is handed in, in the grader's words: nothing is stored, so it
never becomes the latest hand-in and never uses up the hourly limit. A file that compiles
but is wrong is still handed in and graded.

The first tests call the intake's rule on what the checking child finds (its ``examine``,
called here in the test's process); the last ones hand files in to the real server,
through the JSON API, the page's form and ``python3 -m student submit``.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox.submission import compile_error
from grader.service.course.checking import Checked
from grader.service.course.hand_in_text import examine
from grader.service.course.intake import Refused, check_readable

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions" / "grader"
PYTHON2 = (SUBMISSIONS / "python2.py").read_bytes()      # the grader's own Python 2 fixture
WRONG = (SUBMISSIONS / "bug_crash.py").read_bytes()      # compiles; raises in every call
PROSE = b"My notes on minimax.\nIt tries every move and keeps the best score.\n"


def check_compiles(filename: str, data: bytes) -> None:
    """The page's rule on what its checking child finds in ``data``."""
    found = examine(data, filename)
    check_readable(filename, Checked(frozenset(found.get("defined", ())), found.get("problem")),
                   data)


def _refusal(filename: str, data: bytes) -> str:
    with pytest.raises(Refused) as refused:
        check_compiles(filename, data)
    assert refused.value.status == 400
    return refused.value.message


def test_a_python_2_file_is_refused_in_the_words_of_the_graders_report():
    message = _refusal("mm_player.py", PYTHON2)
    report = compile_error(PYTHON2, "mm_player.py")
    assert report is not None and report.kind == "python2"
    assert report.message in message                   # the grader's own words, whole
    assert "This file is Python 2; the course runs Python 3." in message
    assert "not handed in" in message and "does not count against" in message
    assert "at most 20 refused files are checked in 10 min" in message


def test_prose_in_a_txt_file_is_refused_and_told_to_hand_in_the_py_file():
    message = _refusal("notes.txt", PROSE)
    assert "line 1: SyntaxError: invalid syntax" in message
    assert "notes.txt is not a Python file: hand in the .py file" in message


def test_a_coding_line_that_does_not_fit_the_bytes_is_refused_as_the_grader_reads_it():
    # UTF-8 text the page's own check lets through, but the grader reads it as ASCII.
    message = _refusal("mm_player.py", "# -*- coding: ascii -*-\nname = 'é'\n".encode())
    assert "is not valid ascii" in message


def test_code_nested_too_deeply_to_compile_is_refused_not_a_crash():
    message = _refusal("mm_player.py", b"x = " + b"-" * 200_000 + b"1\n")
    assert "cannot be graded" in message


@pytest.mark.parametrize("data", [
    WRONG,
    (SUBMISSIONS / "bug_infinite_loop.py").read_bytes(),
    b"def mm_move(board, player):\n    return 'nonsense'\n",
    b"import numpy\n",                          # fails in the grader, but it compiles
    b"x = '\\d'\ny = 1if 1 else 2\n",           # only warnings when compiled
])
def test_a_file_that_compiles_goes_through_right_or_wrong(data):
    check_compiles("mm_player.py", data)
    check_compiles("mm_player.py (pasted)", data)


# --- the real server ------------------------------------------------------------------------

def _count(data: Path, student: str) -> int:
    database = sqlite3.connect(data / "course.sqlite3")
    try:
        return database.execute("SELECT COUNT(*) FROM submissions WHERE student = ?",
                                (student,)).fetchone()[0]
    finally:
        database.close()


@pytest.mark.timeout(600)
def test_the_server_refuses_them_stores_nothing_and_counts_nothing(serve, tmp_path):
    from service_helpers import add_students
    data = tmp_path / "course"
    add_students(data, [("bob", "Bob", "bob@example.org"), ("carol", "Carol", "c@example.org")])
    server = serve(data, "--jobs", "1", "--per-hour", "2")
    client = server.client("bob")
    for name, content in (("mm_player.py", PYTHON2), ("notes.txt", PROSE),
                          ("mm_player.pyc", b"\xa7\r\r\n\x00\x00\x00\x00binary"),
                          ("mm_player.py", PYTHON2)):
        answer = client.post("/api/submissions", files={"file": (name, content)})
        assert answer.status_code == 400, answer.text
        assert "not handed in" in answer.json()["error"] or "binary" in answer.json()["error"]
    assert "line 1: SyntaxError: invalid syntax" in client.post(
        "/api/submissions", files={"file": ("notes.txt", PROSE)}).json()["error"]
    assert _count(data, "bob") == 0
    # Five refusals, and the hourly limit of 2 still lets a wrong file in: it is graded.
    answer = client.post("/api/submissions", files={"file": ("buggy.py", WRONG)})
    assert answer.status_code == 201, answer.text
    done = server.wait_done(client, answer.json()["id"])
    assert done["status"] == "done" and done["score"] < 100

    # The page's form: pasted Python 2 is refused, kept in the box, and nothing is stored.
    browser = server.browser("carol")
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/").text).group(1)
    page = browser.post("/submit", data={"csrf": csrf, "code": PYTHON2.decode()})
    assert page.status_code == 400
    assert "Not received: mm_player.py (pasted) cannot be graded" in page.text
    assert "This file is Python 2; the course runs Python 3." in page.text
    assert "print &#34;" in page.text or "print &quot;" in page.text   # the code kept, escaped
    assert _count(data, "carol") == 0

    # python3 -m student submit prints the server's reason and exits 1.
    notes = tmp_path / "notes.txt"
    notes.write_bytes(PROSE)
    submitted = subprocess.run(
        [sys.executable, "-m", "student", "submit", "--config", str(tmp_path / "link.json"),
         "--link", f"{server.url}/s/{server.token('carol')}", "--file", str(notes)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert submitted.returncode == 1, submitted.stdout + submitted.stderr
    assert "The server refused it: notes.txt cannot be graded" in submitted.stderr
    assert "notes.txt is not a Python file" in submitted.stderr
    assert _count(data, "carol") == 0
