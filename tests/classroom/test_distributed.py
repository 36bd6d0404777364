"""grader.classroom.distributed: the batch on a Dask cluster (a LocalCluster started by the test)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grader import classroom as batch
from grader.classroom import BatchOptions, GradingOptions, Job, Submission, find_submissions, run_batch

distributed = pytest.importorskip("distributed")
from grader.classroom.distributed import DaskMissingError, DaskRunner, grade_remote, payload_for  # noqa: E402
from test_batch import GRADER  # noqa: E402  (`python -m grader`, as the batch tests run it)

HERE = Path(__file__).resolve().parents[1]   # tests/
CONSTANT = HERE / "submissions" / "batch" / "constant.py"


@pytest.fixture
def cluster():
    # A new cluster for each test: an in-process worker keeps the first Client it meets.
    # Workers are threads of this process (quick to start); TCP, so that a batch started
    # as a subprocess can reach the scheduler too.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster


def make_class(folder: Path, ids: list[str]) -> Path:
    folder.mkdir(parents=True)
    for sid in ids:
        (folder / f"{sid}.py").write_bytes(CONSTANT.read_bytes())
    return folder


def gradebook_rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8-sig") as file:
        return {row["student_id"]: row for row in csv.DictReader(file)}


def test_a_batch_on_the_cluster_then_resumed(cluster, tmp_path: Path) -> None:
    source = make_class(tmp_path / "class", ["alice", "bob"])
    (source / "binary.py").write_bytes(b"\x00\x01")
    out = tmp_path / "out"
    found, _ = find_submissions(source, out / ".work")

    with distributed.Client(cluster) as client:
        outcome = run_batch(found, BatchOptions(out=out), DaskRunner(client))

    assert sorted(outcome.graded) == ["alice", "bob"] and outcome.exit_code == 0
    rows = gradebook_rows(out)
    assert rows["alice"]["status"] == "graded" and 0 < float(rows["alice"]["score"]) < 100
    assert rows["binary"]["status"] == "not graded: binary file, not Python source"
    data = json.loads((out / "results" / "minimax" / "bob.json").read_text())
    assert data["extra_data"]["student_id"] == "bob"
    # The task graded its own copy on the worker, not the file here.
    assert data["extra_data"]["submission"] != str(source / "bob.py")
    mtime = (out / "results" / "minimax" / "alice.json").stat().st_mtime_ns
    (out / "results" / "minimax" / "bob.json").unlink()

    with distributed.Client(cluster) as client:
        again = run_batch(found, BatchOptions(out=out), DaskRunner(client))

    assert again.graded == ("bob",) and [s.student_id for s in again.plan.done] == ["alice"]
    assert (out / "results" / "minimax" / "alice.json").stat().st_mtime_ns == mtime


def test_a_stopped_batch_stops_its_tasks(cluster, tmp_path: Path, load_factor: float) -> None:
    source = tmp_path / "class"
    source.mkdir()
    (source / "oscar.py").write_text("while True:\n    pass\n")   # 10 s before a verdict
    found, _ = find_submissions(source, tmp_path / "out" / ".work")
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    started = time.monotonic()

    with distributed.Client(cluster) as client:
        outcome = run_batch(found, BatchOptions(out=tmp_path / "out"), DaskRunner(client),
                            stop=stop)

    assert outcome.interrupted and outcome.exit_code == 130
    assert time.monotonic() - started < 15 * load_factor   # stopped, not graded to the end (10 s)
    assert not (tmp_path / "out" / "results" / "minimax" / "oscar.json").exists()
    assert gradebook_rows(tmp_path / "out")["oscar"]["status"] == (
        "not graded: the batch was stopped before grading it; run the same command again to "
        "grade it")


def test_the_command_line_with_scheduler(cluster, tmp_path: Path) -> None:
    source = make_class(tmp_path / "class", ["carol"])
    out = tmp_path / "out"
    done = subprocess.run([*GRADER, "batch", str(source), "--out", str(out),
                           "--scheduler", cluster.scheduler_address],
                          capture_output=True, text=True, timeout=180, cwd=HERE.parent)
    assert done.returncode == 0, done.stderr
    assert "1 to grade, 0 already done" in done.stderr
    assert gradebook_rows(out)["carol"]["status"] == "graded"


def test_an_unreachable_scheduler_is_a_usage_error(tmp_path: Path) -> None:
    source = make_class(tmp_path / "class", ["dave"])
    done = subprocess.run([*GRADER, "batch", str(source), "--out", str(tmp_path / "out"),
                           "--scheduler", "tcp://127.0.0.1:9"],
                          capture_output=True, text=True, timeout=120, cwd=HERE.parent,
                          env={**os.environ,
                               "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert done.returncode == 2
    assert "cannot reach the scheduler" in done.stderr


def test_the_payload_carries_bytes_not_paths(tmp_path: Path) -> None:
    config = tmp_path / "secret.cfg"
    config.write_text((Path(batch.__file__).parents[1] / "default.cfg").read_text())
    checks = tmp_path / "extra"
    checks.mkdir()
    (checks / "test_more.py").write_text("def test_x():\n    pass\n")
    job = Job(Submission("alice", CONSTANT),
              GradingOptions(config=config, checks=(checks,)), tmp_path / "scratch")

    payload = payload_for(job, stop_event="stop-1")

    files = dict(payload.files)
    assert files["submission/constant.py"] == CONSTANT.read_bytes()
    assert files["config.cfg"] == config.read_bytes()
    assert files["checks/0/extra/test_more.py"].startswith(b"def test_x")
    assert payload.options.config == Path("config.cfg")
    assert payload.options.checks == (Path("checks/0/extra"),)
    assert str(tmp_path) not in repr(payload.options)
    # A file of a flat class: itself alone, never its neighbours (other students' files).
    assert [name for name in files if name.startswith("submission/")] == ["submission/constant.py"]
    assert not payload.helpers
    # A student's own folder: the .py files beside it too, for the task's grade to choose
    # its helpers among, as a grade here would.
    split = HERE / "submissions" / "helpers"
    own = payload_for(Job(Submission("bob", split / "mc_player.py", own_folder=True),
                          GradingOptions(), tmp_path / "scratch"))
    assert own.helpers and dict(own.files)["submission/mc_trials.py"] == (
        split / "mc_trials.py").read_bytes()
    with pytest.raises(ValueError, match="nothing to grade"):
        payload_for(Job(Submission("bob", None, problem="empty folder"), GradingOptions(),
                        tmp_path))


def test_grade_remote_grades_from_bytes_alone(tmp_path: Path) -> None:
    job = Job(Submission("erin", CONSTANT), GradingOptions(visibility="categories"),
              tmp_path / "unused")
    attempt = grade_remote(payload_for(job))
    assert attempt.complete, attempt.errors
    data = json.loads(attempt.results)
    assert data["extra_data"]["visibility"] == "categories"
    assert data["extra_data"]["student_id"] == "erin"
    assert not (tmp_path / "unused").exists()


def test_without_dask_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(DaskMissingError, match=r"pip install 'ttt-minimax\[dask\]'"):
        DaskRunner("tcp://127.0.0.1:8786")
