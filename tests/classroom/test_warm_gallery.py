"""The whole gallery, graded cold and warm by ``python -m grader batch``: the same grades.

Every submission under tests/submissions (the hidden positions' bugs and styles, every
hostile file, every timing file, the course's and the handout's; not the similarity
fixtures, copies of these) is graded twice as an instructor grades a class: once cold
(``TTT_GRADER_COLD=1``, a fresh process per grade) and once warm (the default: each
``--jobs`` slot's warm server forks grade after grade, back to back, hostile files among
the others). Each student's results.json and report must be the same apart from times.
A hostile file that left anything behind in a warm server (a patched module, a process, a
file, a limit) would change a later grade of the same slot.

Minutes of grading: marked slow (``python -m pytest -m slow tests/classroom/test_warm_gallery.py``).
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.classroom import warm
from test_warm import SUBMISSIONS, _text, comparable

GALLERY = sorted(path for path in SUBMISSIONS.rglob("*.py")
                 if path.relative_to(SUBMISSIONS).parts[0] != "similarity")
PROJECT = SUBMISSIONS.parents[1]
JOBS = 2


def _student_id(path: Path) -> str:
    """``hostile/daemon.py`` -> ``hostile__daemon``: one flat class, every name kept."""
    return "__".join(path.relative_to(SUBMISSIONS).with_suffix("").parts)


def _batch(folder: Path, out: Path, cold: bool) -> None:
    environ = dict(os.environ)
    environ.pop(warm.COLD_VARIABLE, None)
    if cold:
        environ[warm.COLD_VARIABLE] = "1"
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "--out",
                           str(out), "--jobs", str(JOBS), "--quiet"], cwd=PROJECT,
                          env=environ, capture_output=True, text=True)
    # 1: some submissions scored below full marks (most of the gallery does, on purpose).
    assert done.returncode in (0, 1), done.stderr[-3000:]


def _statuses(gradebook: Path) -> dict[str, str]:
    with open(gradebook, newline="", encoding="utf-8-sig") as file:
        return {row["student_id"]: row["status"] for row in csv.DictReader(file)}


@pytest.mark.slow
@pytest.mark.skipif(not warm.fork_available(), reason="no fork: every grade is cold")
@pytest.mark.grades(2 * len(GALLERY), jobs=JOBS)
def test_the_gallery_warm_is_the_gallery_cold(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for path in GALLERY:
        shutil.copyfile(path, folder / f"{_student_id(path)}.py")
    _batch(folder, tmp_path / "cold", cold=True)
    _batch(folder, tmp_path / "warm", cold=False)
    statuses = [_statuses(tmp_path / run / "gradebook.csv") for run in ("cold", "warm")]
    assert statuses[0] == statuses[1]   # the files batch does not grade (a binary) alike
    differ = []
    for path in GALLERY:
        name = _student_id(path)
        if statuses[0][name].startswith("not graded"):
            continue
        results = [next((tmp_path / run / "results").glob(f"*/{name}.json")).read_text()
                   for run in ("cold", "warm")]
        reports = [next((tmp_path / run / "reports").glob(f"*/{name}.txt")).read_text()
                   for run in ("cold", "warm")]
        if comparable(results[0]) != comparable(results[1]) or \
                _text(reports[0]) != _text(reports[1]):
            differ.append(name)
    assert not differ, f"graded differently cold and warm: {differ}"
    assert len(GALLERY) > 80 and len(statuses[0]) == len(GALLERY)   # the whole gallery
