"""``python -m student check`` refuses what the grader refuses, once, in the grader's words.

Issue 34: check passed a file that imports numpy (installed where the student works) and a
5 MB file, which the grader gave 0; ``check notes.txt`` printed twelve tracebacks.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox.submission import LoadError, read_submission
from provided.source import MAX_SOURCE

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "tests" / "submissions" / "grader" / "correct_plain.py"


def student_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "student", "check", str(path), "--no-speed"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def grade(path: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_a_file_that_imports_numpy_is_refused_as_the_grader_refuses_it(tmp_path: Path) -> None:
    pytest.importorskip("numpy")      # installed where the student works: it imports here
    player = tmp_path / "mm_player.py"
    player.write_text("import numpy\n" + CORRECT.read_text(encoding="utf-8"), encoding="utf-8")

    done = student_check(player)

    assert done.returncode == 1
    hint = ("-> the module numpy is not available to the grader (a CodeSkulptor module or a "
            "file that was not submitted?); remove that import")
    assert hint in done.stdout.splitlines()
    assert "  ok  " not in done.stdout                 # no check passes it
    assert hint in grade(player).splitlines()          # the grader's words, the same


def test_a_file_the_grader_does_not_take_is_not_there_for_the_check_either(
        tmp_path: Path) -> None:
    """The grader takes the modules beside a file that it imports (tests/student/
    test_mc_check.py), never a subfolder's: neither does the check."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers.py").write_text("SIZE = 3\n", encoding="utf-8")
    player = tmp_path / "mm_player.py"
    player.write_text("import helpers\n" + CORRECT.read_text(encoding="utf-8"),
                      encoding="utf-8")

    done = student_check(player)

    assert done.returncode == 1
    assert "the module helpers is not available to the grader" in done.stdout


def test_a_file_too_large_for_the_grader_gets_its_message_once(tmp_path: Path) -> None:
    player = tmp_path / "mm_player.py"
    padding = "# " + "x" * 77 + "\n"
    player.write_text(CORRECT.read_text(encoding="utf-8")
                      + padding * (5 * 1024 * 1024 // len(padding)), encoding="utf-8")
    assert player.stat().st_size > MAX_SOURCE

    done = student_check(player)

    with pytest.raises(LoadError) as refused:
        read_submission(player)
    assert done.returncode == 1
    assert f"Cannot check {player}: {refused.value.message}" in done.stdout.splitlines()
    assert "too large to be the Python source of one assignment" in refused.value.message


def test_a_text_file_gets_one_clear_message(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Remember to write minimax.\nTODO: clone the board\n", encoding="utf-8")

    done = student_check(notes)

    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.count("Cannot check ") == 1
    assert "notes.txt is not a Python file" in done.stdout
    assert len((done.stdout + done.stderr).splitlines()) < 15


def test_an_unreadable_file_gets_one_message(tmp_path: Path) -> None:
    player = tmp_path / "mm_player.py"
    player.write_text(CORRECT.read_text(encoding="utf-8"), encoding="utf-8")
    player.chmod(0)
    try:
        if player.read_bytes():     # root reads past the permissions: nothing to test
            pytest.skip("running as root: the file is readable")
    except PermissionError:
        pass

    done = student_check(player)

    assert done.returncode == 1
    assert done.stdout.count("cannot be read: Permission denied") == 1
    assert "Traceback" not in done.stdout
