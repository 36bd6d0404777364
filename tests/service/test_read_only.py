"""Looking at a backup changes nothing: ``grader serve --data BACKUP --read-only`` (a
subprocess, as Backups says to run it) serves the course's pages while every file of the
folder (its bytes, its mode, the list of them) stays as it was, before, during and after; it
refuses every change with a 403 saying why, and a folder of an older release is served
through a migrated copy while its own file keeps its old schema.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

httpx = pytest.importorskip("httpx")

from grader.service.course import course_assignments, record_queries  # noqa: E402
from grader.service.course.course_config import save_config  # noqa: E402
from service_helpers import ROOT, open_store  # noqa: E402
from test_course_records import results  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "course-v8"
STARTUP_SECONDS = 90.0


def fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its SHA-256 and its mode."""
    return {str(path.relative_to(folder)): (hashlib.sha256(path.read_bytes()).hexdigest()
                                            if path.is_file() else "folder",
                                            path.stat().st_mode)
            for path in sorted([folder, *folder.rglob("*")])}


class ReadOnly:
    """``grader serve --read-only`` in a subprocess, once it serves."""

    def __init__(self, data: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "grader", "serve", "--data", str(data), "--read-only",
             "--host", "127.0.0.1"], cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.process.stdout is not None
        lines = []
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            lines.append(line)
            served = re.match(r"Serving read-only on (http://\S+?)/$", line.strip())
            if served:
                self.url = served.group(1)
                self.instructor = re.search(r"/s/(\S+)", "".join(lines)).group(1)
                return
        self.process.kill()
        raise AssertionError("it did not start:\n" + "".join(lines)
                             + self.process.stderr.read())

    def client(self, token: str | None = None) -> "httpx.Client":
        headers = {"authorization": f"Bearer {token or self.instructor}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60.0)

    def stop(self) -> str:
        """Stop it (as Ctrl-C does); what it said on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            _, said = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, said = self.process.communicate()
        return said


def backup_of(course: Path, backup: Path) -> None:
    """What docs/deploy/backup-course.sh makes: SQLite's online backup and the key."""
    backup.mkdir(mode=0o700)
    source = sqlite3.connect(course / "course.sqlite3")
    target = sqlite3.connect(backup / "course.sqlite3")
    source.backup(target)
    target.close()
    source.close()
    shutil.copy2(course / "secret.key", backup / "secret.key")
    shutil.copytree(course / "configs", backup / "configs")


@pytest.fixture
def backup(tmp_path: Path) -> Iterator[Path]:
    """A backup of a course of two assignments: two students, a graded hand-in of each
    assignment, an adjustment, an extension, the Monte Carlo's own configuration; the course
    served once on port 8000."""
    course = tmp_path / "course"
    store = open_store(course)
    try:
        store.ensure_instructor()
        store.upsert_students([("ada", "Ada Lovelace", "ada@example.org"),
                               ("alan", "Alan Turing", "alan@example.org")])
        course_assignments.add(store, "montecarlo", who="instructor")
        for student, assignment, score in (("ada", "minimax", 80.0),
                                           ("alan", "montecarlo", 90.0)):
            row = store.add_submission(student, "player.py", b"x = 1\n", late=False,
                                       config="default", assignment=assignment)
            store.claim_next("test")
            store.finish(row.id, score=score, max_score=100.0, results_json=results(score),
                         report_text=f"Score: {score:g} / 100\n", seconds=1.0)
        record_queries.set_adjustment(store, 1, 5, "a good explanation", who="instructor")
        record_queries.set_deadline(store, "alan", "2026-12-20T22:59:00.000000Z", None,
                                    who="instructor", assignment="montecarlo")
        store.set_setting("port", "8000")
        own = save_config(course, "[rubric]\nmc_trial = 40\n", "heavier.cfg")
        with store.database.transaction() as db:
            course_assignments.set_own(db, "montecarlo", "config_file", str(own.resolve()))
    finally:
        store.close()
    backup_of(course, tmp_path / "backup")
    yield tmp_path / "backup"


def test_looking_at_a_backup_changes_nothing_of_it(backup: Path) -> None:
    before = fingerprint(backup)
    server = ReadOnly(backup)
    try:
        teacher = server.client()
        assert fingerprint(backup) == before            # started: nothing made or changed
        listed = teacher.get("/api/assignments").json()["assignments"]
        assert [one["name"] for one in listed] == ["minimax", "montecarlo"]
        book = teacher.get("/api/gradebook.csv", params={"format": "canvas"})
        assert book.status_code == 200
        rows = list(csv.DictReader(io.StringIO(book.text.lstrip("\ufeff"))))
        assert [(row["SIS User ID"], row["Mini-max Tic-Tac-Toe"], row["Monte Carlo Tic-Tac-Toe"])
                for row in rows] == [("ada", "85", ""), ("alan", "", "90")]
        for page in ("/instructor", "/instructor/assignments", "/instructor/roster",
                     "/instructor/course", "/instructor/students/alan", "/instructor/config",
                     "/instructor/submissions/1"):
            answer = teacher.get(page)
            assert answer.status_code == 200, (page, answer.text[:300])
            assert "A read-only copy of the course" in answer.text
        # A student's own link signs in (a session of the copy) and shows their page.
        student = httpx.Client(base_url=server.url, timeout=60.0, follow_redirects=True)
        store = open_store(backup.parent / "course")
        try:
            token = store.student_token("alan")
        finally:
            store.close()
        assert "Alan Turing" in student.get(f"/s/{token}").text
        # Every change is refused, and says why.
        for method, path, body in (("POST", "/api/assignments", {"name": "montecarlo"}),
                                   ("PUT", "/api/course", {"choice": "best"}),
                                   ("DELETE", "/api/students/alan/deadline", None),
                                   ("POST", "/api/submissions/1/adjustment",
                                    {"points": 1, "note": "x"})):
            refused = teacher.request(method, path, json=body)
            assert refused.status_code == 403, (method, path, refused.text)
            assert "read-only" in refused.json()["error"]
        form = student.post("/submit", files={"file": ("mm_player.py", b"x = 1\n")})
        assert form.status_code == 403 and "nothing can be changed here" in form.text
        assert student.get("/lti/login", params={"iss": "x"}).status_code == 403
        assert fingerprint(backup) == before
    finally:
        said = server.stop()
    assert fingerprint(backup) == before
    # The start line says what each assignment is graded under.
    assert ("grading minimax under its default configuration; montecarlo under its own "
            "configuration 001-heavier.cfg; none at a time (read-only") in said
    copy = re.search(r"made in (\S+)/ ", said).group(1)
    assert not Path(copy).exists()                       # its copy went with it


def test_an_older_course_is_looked_at_through_a_migrated_copy(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    shutil.copytree(FIXTURE, folder)
    before = fingerprint(folder)
    server = ReadOnly(folder)
    try:
        teacher = server.client()
        assert [one["name"] for one in teacher.get("/api/assignments").json()[
            "assignments"]] == ["minimax"]
        book = teacher.get("/api/gradebook.csv").text.lstrip("\ufeff")
        finals = {row["student_id"]: float(row["final_score"])
                  for row in csv.DictReader(io.StringIO(book))}
        assert finals == pytest.approx({"ada": 62.3, "alan": 100.0})
    finally:
        server.stop()
    assert fingerprint(folder) == before                 # its schema is still version 8


def test_options_that_would_change_the_course_are_refused(backup: Path) -> None:
    before = fingerprint(backup)
    done = subprocess.run([sys.executable, "-m", "grader", "serve", "--data", str(backup),
                           "--read-only", "--roster", str(backup / "secret.key"),
                           "--deadline", "2026-12-24T23:59"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "--read-only changes nothing and grades nothing: without --deadline, --roster" \
        in done.stderr
    assert fingerprint(backup) == before
