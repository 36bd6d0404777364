"""The report's "try a call" lines import the student's file by the name it was handed in
under (made a valid module name), on the page and in the report's text: they said ``from
mm_player import`` for a file handed in as buggy.py, because the queue graded every file
as mm_player.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.service.queue import graded_file_name

ROOT = Path(__file__).resolve().parents[2]
QUICK_BUG = ROOT / "tests" / "submissions" / "grader" / "bug_crash.py"   # graded in seconds


@pytest.mark.parametrize("handed_in, graded", [
    ("buggy.py", "buggy.py"),
    ("mm_player.py", "mm_player.py"),
    ("mm_player (1).py", "mm_player_1.py"),       # a browser's second download
    ("mm-player v2.py", "mm_player_v2.py"),
    ("mm_player.py (pasted)", "mm_player.py"),
    ("random.py", "mm_player.py"),                # would import the standard library's
    ("poc_ttt_provided.py", "mm_player.py"),      # would import the course's module
    ("student.py", "mm_player.py"),               # would import the handout's package
    ("2048.py", "mm_player.py"), ("import.py", "mm_player.py"), ("(1).py", "mm_player.py"),
])
def test_the_graded_name_is_the_handed_in_name_as_a_module(handed_in, graded):
    assert graded_file_name(handed_in) == graded


@pytest.mark.timeout(600)
def test_a_file_handed_in_as_buggy_py_is_tried_as_buggy(serve, tmp_path):
    from service_helpers import add_students
    data = tmp_path / "course"
    add_students(data, [("bob", "Bob", "bob@example.org")])
    server = serve(data, "--jobs", "1")
    client = server.client("bob")
    answer = client.post("/api/submissions", files={"file": ("buggy.py", QUICK_BUG.read_bytes())})
    assert answer.status_code == 201, answer.text
    done = server.wait_done(client, answer.json()["id"])
    assert done["status"] == "done", done
    report = done["report"]
    assert any(line.startswith("    from buggy import mm_move") for line in report.splitlines())
    assert "from mm_player import" not in report
    assert "Submission: buggy.py" in report
    page = server.browser("bob").get(f"/submissions/{answer.json()['id']}").text
    assert "from buggy import mm_move" in page and "from mm_player import" not in page
