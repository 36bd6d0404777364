"""The deployment guide's files work as docs/deploy/ says: the Caddyfile is valid for Caddy,
the systemd unit passes ``systemd-analyze verify``, and a course backed up with
``backup-course.sh`` while its server runs is the same class when a second server starts
on the copy (students, hand-ins, scores, records, and the links still sign in).

Caddy and systemd are checked where their tools run here (``.ci/run`` installs Debian's
caddy); otherwise those tests skip with the reason.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "docs" / "deploy"
CADDYFILE = DEPLOY / "Caddyfile"
UNIT = DEPLOY / "ttt-grader.service"
BACKUP = DEPLOY / "backup-course.sh"
UNIT_PYTHON = "/opt/ttt-grader/venv/bin/python"     # the unit's interpreter, as documented


def test_the_caddyfile_is_valid() -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed (apt-get install caddy; .ci/run does as root)")
    run = subprocess.run([caddy, "validate", "--config", str(CADDYFILE), "--adapter",
                          "caddyfile"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Valid configuration" in run.stdout + run.stderr
    text = CADDYFILE.read_text(encoding="utf-8")
    assert "reverse_proxy 127.0.0.1:8000" in text


def test_the_caddyfile_and_the_unit_agree_on_the_address() -> None:
    """The page's links use --base-url: it must be the address Caddy serves."""
    caddy = CADDYFILE.read_text(encoding="utf-8")
    unit = UNIT.read_text(encoding="utf-8")
    assert "--base-url https://grader.example.org" in unit
    assert "\ngrader.example.org {" in caddy
    assert "--host 127.0.0.1 --port 8000" in unit


def _verify_works() -> str | None:
    """Why ``systemd-analyze verify`` cannot be used here, or None when it can."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        return "systemd-analyze is not installed (it comes with systemd)"
    try:
        probe = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as problem:
        return f"systemd-analyze does not run here: {problem}"
    if probe.returncode != 0:
        return f"systemd-analyze does not run here: {probe.stderr.strip()[:200]}"
    return None


def test_the_systemd_unit_verifies(tmp_path: Path) -> None:
    reason = _verify_works()
    if reason:
        pytest.skip(reason)
    text = UNIT.read_text(encoding="utf-8")
    assert "\nRestart=on-failure\n" in text and "\nUser=ttt-grader\n" in text
    assert "--data /var/lib/ttt-grader/course" in text
    # verify checks that ExecStart's program exists: point it at this interpreter (the
    # guide installs one at /opt/ttt-grader/venv).
    unit = tmp_path / "ttt-grader.service"
    unit.write_text(text.replace(UNIT_PYTHON, sys.executable), encoding="utf-8")
    run = subprocess.run([shutil.which("systemd-analyze"), "verify", str(unit)],
                         capture_output=True, text=True, timeout=60)
    output = (run.stdout + run.stderr).strip()
    if run.returncode != 0 and ("Failed to" in output and "bus" in output.lower()):
        pytest.skip(f"systemd-analyze verify cannot run here: {output.splitlines()[0]}")
    assert run.returncode == 0, output
    assert "ttt-grader.service" not in output, output     # no warning about the unit


# --- backups ---------------------------------------------------------------------------------

sys.path.insert(0, str(ROOT / "tests" / "service"))


def _seed_course(data: Path) -> int:
    """A course with a roster of three and one graded hand-in (80 / 100), stored as the
    queue stores a result: no grading needed. Its number."""
    from service_helpers import open_store

    store = open_store(data)
    try:
        store.ensure_instructor()
        store.upsert_students([("ada", "Ada Lovelace", "ada@example.org"),
                               ("alan", "Alan Turing", "alan@example.org"),
                               ("grace", "Grace Hopper", "grace@example.org")])
        row = store.add_submission("ada", "mm_player.py", b"def mm_move(board, player):\n",
                                   late=False, config="default")
        claimed = store.claim_next("test")
        assert claimed is not None and claimed.id == row.id
        results = ('{"score": 80.0, "tests": [{"name": "scores", "score": 80.0, '
                   '"max_score": 100.0, "status": "failed", "output": ""}], '
                   '"extra_data": {"max_score": 100.0}}')
        store.finish(row.id, score=80.0, max_score=100.0, results_json=results,
                     report_text="Score: 80 / 100\n", seconds=1.0)
        return row.id
    finally:
        store.close()


def _gradebook(client) -> dict[str, dict[str, str]]:
    answer = client.get("/api/gradebook.csv?choice=latest")
    assert answer.status_code == 200, answer.text
    rows = csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig")))
    return {row["student_id"]: row for row in rows}


def test_a_backup_taken_while_the_server_runs_restores_the_class(tmp_path: Path) -> None:
    service_helpers = pytest.importorskip("service_helpers")
    httpx = pytest.importorskip("httpx")
    data = tmp_path / "course"
    number = _seed_course(data)
    servers = []
    try:
        first = service_helpers.start_server(data, "--jobs", "1", "--timezone", "UTC")
        servers.append(first)
        instructor = first.instructor_token()
        links = {who: first.token(who) for who in ("ada", "alan", "grace")}
        teacher = httpx.Client(base_url=first.url, timeout=60.0,
                               headers={"authorization": f"Bearer {instructor}"})
        # Records made through the running server: in its WAL, not yet in the main file.
        answer = teacher.post(f"/api/submissions/{number}/adjustment",
                              json={"points": -5, "note": "Keep the docstrings."})
        assert answer.status_code in (200, 201), answer.text
        answer = teacher.put("/api/students/alan/deadline",
                             json={"deadline": "2099-12-08T23:59:00+00:00",
                                   "late_deadline": None})
        assert answer.status_code == 200, answer.text
        before = _gradebook(teacher)
        assert float(before["ada"]["final_score"]) == 75.0, before["ada"]
        class_before = _class(teacher)
        assert class_before["alan"]["own_deadline"]["deadline"].startswith("2099-12-08")

        backup = tmp_path / "backup"
        run = subprocess.run(["sh", str(BACKUP), str(data), str(backup)], capture_output=True,
                             text=True, timeout=120,
                             env={**os.environ, "PYTHON": sys.executable})
        assert run.returncode == 0, run.stdout + run.stderr
        assert first.process.poll() is None, "the first server stopped during the backup"
        assert {path.name for path in backup.iterdir()} >= {"course.sqlite3", "secret.key",
                                                            "lti-tool-key.json"}
        assert (backup.stat().st_mode & 0o077) == 0, oct(backup.stat().st_mode)

        second = service_helpers.start_server(backup, "--jobs", "1")
        servers.append(second)
        copy = httpx.Client(base_url=second.url, timeout=60.0,
                            headers={"authorization": f"Bearer {instructor}"})
        after = _gradebook(copy)
        assert set(after) == set(before)
        for student in before:
            for column in ("name", "email", "score", "final_score", "adjustment",
                           "adjustment_note", "own_deadline"):
                assert after[student].get(column) == before[student].get(column), \
                    (student, column, before[student], after[student])
        assert after["ada"]["adjustment_note"] == "Keep the docstrings."
        # The class page's data, student by student: the same roster, counts, scores,
        # records and links' state.
        assert _class(copy) == class_before

        # Every link still signs in on the copy; Ada's history holds her hand-in.
        for who, token in links.items():
            browser = httpx.Client(base_url=second.url, timeout=60.0)
            assert browser.get(f"/s/{token}").status_code == 303, who
        ada = httpx.Client(base_url=second.url, timeout=60.0,
                           headers={"authorization": f"Bearer {links['ada']}"})
        history = ada.get("/api/submissions")
        assert history.status_code == 200, history.text
        assert number in {item["id"] for item in _items(history.json())}
        mine = ada.get(f"/api/submissions/{number}").json()
        assert mine["status"] == "done" and mine["final_score"] == 75.0, mine
        assert mine["score"] == 80.0, mine
    finally:
        for server in servers:
            server.stop()


def _class(client) -> dict[str, dict]:
    answer = client.get("/api/class")
    assert answer.status_code == 200, answer.text
    return {student["student_id"]: student for student in answer.json()["students"]}


def _items(payload) -> list[dict]:
    """The history's rows, whether the API answers a list or an object holding one."""
    if isinstance(payload, list):
        return payload
    for value in payload.values():
        if isinstance(value, list):
            return value
    raise AssertionError(f"no list in {payload!r}")


def test_the_backup_script_refuses_what_is_not_a_course(tmp_path: Path) -> None:
    run = subprocess.run(["sh", str(BACKUP), str(tmp_path / "nothing"), str(tmp_path / "b")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "not a course folder" in run.stderr
    assert not (tmp_path / "b").exists()
