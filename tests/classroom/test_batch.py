"""grader.classroom.batch and grader.classroom.gradebook: finding a class's submissions, grading them, resuming.

Most tests grade for real, with `python -m grader batch` in a subprocess, on tiny
submissions that are wrong but fast (tests/submissions/batch/constant.py grades in
about a second); a few use a fake runner to reach the failure paths.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import csv
import io
import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grader import classroom as batch
from grader.classroom import charts, gradebook, state, summary, unpack
from grader.classroom.run import GRACE_SECONDS
from grader.classroom import (
    Attempt,
    BatchOptions,
    GradingOptions,
    OutputFolder,
    Submission,
    SubmissionsError,
    find_submissions,
    run_batch,
)

HERE = Path(__file__).resolve().parents[1]   # tests/
FIXTURES = HERE / "submissions" / "batch"
CONSTANT = FIXTURES / "constant.py"          # wrong but fast: about a second to grade
EXITS = FIXTURES / "exits_at_import.py"      # os._exit(1) when imported
LOOPS = FIXTURES / "loops_at_import.py"      # never finishes importing
STUCK = HERE / "submissions" / "grader" / "bug_infinite_loop.py"   # mm_move never returns
RUBRIC = ["finished boards", "scores", "moves", "other sizes", "reverse games",
          "board untouched", "game play", "time"]


def grader_command() -> list[str]:
    """``python -m grader`` once cli.py dispatches to batch.register; until then the same
    parser, built here from batch.register and cli.add_grading_options."""
    from grader import cli
    try:
        with contextlib.redirect_stderr(io.StringIO()):   # argparse's usage message
            cli.build_parser().parse_args(["batch", "x", "--out", "y"])
        return [sys.executable, "-m", "grader"]
    except SystemExit:
        shim = ("import argparse, sys\n"
                "from grader import cli\n"
                "from grader.classroom import command as batch, gradescope, handout\n"
                "if sys.argv[1:2] not in (['batch'], ['gradescope'], ['handout']):\n"
                "    sys.exit(cli.main())\n"
                "parser = argparse.ArgumentParser(prog='python -m grader')\n"
                "commands = parser.add_subparsers(dest='command', required=True)\n"
                "for module in (batch, gradescope, handout):\n"
                "    module.register(commands, cli.add_grading_options)\n"
                "args = parser.parse_args()\n"
                "sys.exit(args.func(args))\n")
        return [sys.executable, "-c", shim]


GRADER = grader_command()


def run_batch_cli(source: Path, out: Path, *extra: str,
                  timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADER, "batch", str(source), "--out", str(out), "--jobs", "2",
                           *extra], capture_output=True, text=True, timeout=timeout,
                          cwd=HERE.parent)


def read_gradebook(out: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        rows = {row["student_id"]: row for row in reader}
        return list(reader.fieldnames or []), rows


def copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


# ---------------------------------------------------------------- finding submissions


def test_naming_rules_of_folders_and_lms_file_names(tmp_path: Path) -> None:
    root = tmp_path / "class"
    copy(CONSTANT, root / "alice.py")
    copy(CONSTANT, root / "bob smith.py")
    copy(CONSTANT, root / "-rf.py")                                   # not an option
    copy(CONSTANT, root / "carol" / "mm_player.py")                  # folder, several files
    copy(CONSTANT, root / "carol" / "helpers.py")
    copy(CONSTANT, root / "dave" / "src" / "my_minimax.py")           # the only .py, nested
    copy(CONSTANT, root / "Ada Lovelace_4321_assignsubmission_file_" / "mm_player.py")
    copy(CONSTANT, root / "Alan Turing_777_assignsubmission_file_mm_player.py")
    copy(CONSTANT, root / "hopperg_LATE_12345_67890_mm_player-1.py")   # Canvas, late, renamed
    copy(CONSTANT, root / "hopperg_LATE_12345_67891_notes.py")         # ...and a second file
    copy(CONSTANT, root / "knuthd_555_999_whatever.py")
    copy(CONSTANT, root / "submission_98765" / "code" / "mm_player.py")
    (root / ".DS_Store").write_text("ignored")
    (root / "__MACOSX").mkdir()
    (root / "__MACOSX" / "._alice.py").write_text("ignored")

    found, warnings = find_submissions(root, tmp_path / "work")
    by_id = {submission.student_id: submission for submission in found}

    assert warnings == []
    assert sorted(by_id) == sorted(["alice", "bob_smith", "rf", "carol", "dave", "4321", "777",
                                    "12345", "555", "98765"])
    assert all(submission.problem is None for submission in found), found
    assert by_id["carol"].path == root / "carol" / "mm_player.py"
    assert by_id["dave"].path == root / "dave" / "src" / "my_minimax.py"
    assert by_id["4321"].name == "Ada Lovelace"
    assert by_id["777"].path.name.endswith("mm_player.py")
    assert by_id["12345"].late and by_id["12345"].name == "hopperg"
    assert by_id["12345"].path.name == "hopperg_LATE_12345_67890_mm_player-1.py"
    assert by_id["555"].name == "knuthd" and not by_id["555"].late
    assert by_id["98765"].source == "submission_98765/code/mm_player.py"


def test_problems_are_reported_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "class"
    copy(CONSTANT, root / "alice.py")
    copy(CONSTANT, root / "Bob.py")
    copy(CONSTANT, root / "bob" / "mm_player.py")      # the same id as Bob.py (case aside)
    (root / "empty").mkdir()
    copy(CONSTANT, root / "two" / "a.py")
    copy(CONSTANT, root / "two" / "b.py")
    (root / "notes.txt").write_text("not python")
    (root / "zipped" / "inner").mkdir(parents=True)
    (root / "zipped" / "inner" / "code.zip").write_bytes(b"PK")
    (root / "binary.py").write_bytes(b"\x7fELF\x00\x00\x01")

    found, _ = find_submissions(root, tmp_path / "work")
    problems = {submission.student_id: submission.problem for submission in found}

    assert problems["alice"] is None
    assert problems["Bob"].startswith("duplicate student id")
    assert "Bob.py" in problems["Bob"] and "bob" in problems["Bob"]
    assert problems["empty"] == "empty folder"
    assert problems["two"] == ("several .py files define the minimax assignment's functions "
                               "and not exactly one named mm_player.py: two/a.py, two/b.py")
    assert problems["notes"] == "not a .py file: notes.txt"
    assert problems["zipped"] == "no .py file in the folder (found: code.zip)"
    assert problems["binary"] == "binary file, not Python source"
    assert len(found) == 7


def test_a_zip_is_unpacked_safely(tmp_path: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("export/alice.py", CONSTANT.read_text())
        bundle.writestr("export/bob/mm_player.py", CONSTANT.read_text())
        bundle.writestr("export/../../escaped.py", "print('outside')")
        bundle.writestr("/absolute.py", "print('outside')")
        link = zipfile.ZipInfo("export/link.py")
        link.external_attr = 0o120777 << 16
        bundle.writestr(link, "/etc/passwd")
        bundle.writestr("__MACOSX/export/._alice.py", "junk")

    found, warnings = find_submissions(archive, tmp_path / "out" / ".work")

    assert [submission.student_id for submission in found] == ["alice", "bob"]
    assert all(submission.problem is None for submission in found)
    assert len(warnings) == 3 and all("skipped" in warning for warning in warnings)
    assert not (tmp_path / "escaped.py").exists() and not (tmp_path / "out" / "escaped.py").exists()
    assert not any(path.is_symlink() for path in (tmp_path / "out").rglob("*"))
    unzipped = tmp_path / "out" / ".work" / "unzipped"
    assert found[0].path == unzipped / "export" / "alice.py"


def test_zip_size_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("alice.py", CONSTANT.read_text())
        bundle.writestr("bomb.py", "#" * 200_000)   # compresses to almost nothing
    monkeypatch.setattr(unpack, "MAX_ZIP_MEMBER_BYTES", 100_000)
    found, warnings = find_submissions(archive, tmp_path / "work")
    assert [submission.student_id for submission in found] == ["alice"]
    assert warnings and "larger than 100000 bytes" in warnings[0]

    monkeypatch.setattr(unpack, "MAX_ZIP_TOTAL_BYTES", 1000)
    with pytest.raises(batch.ArchiveError):
        find_submissions(archive, tmp_path / "work")


def test_a_corrupt_zip_member_is_skipped(tmp_path: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as bundle:
        bundle.writestr("alice.py", CONSTANT.read_text())
        bundle.writestr("bob.py", "x = 'BOB-MARKER'\n")
    data = archive.read_bytes()
    archive.write_bytes(data.replace(b"BOB-MARKER", b"BOB-MARKEX"))   # its CRC no longer fits
    found, warnings = find_submissions(archive, tmp_path / "work")
    assert [submission.student_id for submission in found] == ["alice"]
    assert len(warnings) == 1 and "bob.py" in warnings[0]


def test_sources_that_are_not_a_class(tmp_path: Path) -> None:
    with pytest.raises(SubmissionsError, match="no such file"):
        find_submissions(tmp_path / "missing", tmp_path / "work")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(SubmissionsError, match="neither a folder nor a .zip"):
        find_submissions(tmp_path / "notes.txt", tmp_path / "work")


# ---------------------------------------------------------------- grading for real


@pytest.mark.long
def test_a_folder_of_files_graded_with_hostile_ones(tmp_path: Path) -> None:
    source = tmp_path / "class"
    copy(CONSTANT, source / "alice.py")
    copy(CONSTANT, source / "bob.py")
    copy(EXITS, source / "mallory.py")
    copy(LOOPS, source / "oscar.py")
    (source / "notes.txt").write_text("not python")
    (source / "empty").mkdir()
    out = tmp_path / "out"

    done = run_batch_cli(source, out)

    assert done.returncode == 0, done.stderr
    assert "4 to grade, 0 already done, 2 not graded" in done.stderr
    for sid in ("alice", "bob", "mallory", "oscar"):
        data = json.loads((out / "results" / "minimax" / f"{sid}.json").read_text())
        assert data["extra_data"]["student_id"] == sid
        assert (out / "reports" / "minimax" / f"{sid}.txt").read_text().strip()
    columns, rows = read_gradebook(out)
    assert columns[:3] == ["student_id", "score", "max_score"]
    assert columns[3:3 + len(RUBRIC)] == RUBRIC
    assert {"status", "cpu_seconds", "wall_seconds"} <= set(columns)
    assert sorted(rows) == ["alice", "bob", "empty", "mallory", "notes", "oscar"]
    assert 0 < float(rows["alice"]["score"]) < 100
    assert rows["alice"]["status"] == "graded"
    assert float(rows["alice"]["board untouched"]) == 5.0
    assert rows["mallory"]["status"] == "not run: exit" and float(rows["mallory"]["score"]) == 0
    assert rows["oscar"]["status"] == "not run: timeout"
    assert rows["empty"]["status"] == "not graded: empty folder" and rows["empty"]["score"] == ""
    assert rows["notes"]["status"].startswith("not graded: not a .py file")
    summary = (out / "summary.html").read_text()
    assert "<svg" in summary and "Histogram of 4 scores" in summary
    assert all(item in summary for item in RUBRIC)
    assert "not graded: empty folder" in summary and "not run: exit" in summary
    assert "http://" not in summary.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not list((out / ".work").glob("pending/*"))


def test_a_folder_of_folders(tmp_path: Path) -> None:
    source = tmp_path / "class"
    copy(CONSTANT, source / "alice" / "mm_player.py")
    copy(EXITS, source / "alice" / "test_mine.py")        # never imported: not the submission
    copy(CONSTANT, source / "bob" / "bob_minimax.py")
    out = tmp_path / "out"

    done = run_batch_cli(source, out)

    assert done.returncode == 0, done.stderr
    _, rows = read_gradebook(out)
    assert rows["alice"]["status"] == "graded" and rows["alice"]["source"] == "alice/mm_player.py"
    assert rows["bob"]["status"] == "graded" and rows["bob"]["source"] == "bob/bob_minimax.py"


def test_an_lms_zip(tmp_path: Path) -> None:
    archive = tmp_path / "download.zip"
    code = CONSTANT.read_text()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("Ada Lovelace_4321_assignsubmission_file_/mm_player.py", code)
        bundle.writestr("hopperg_LATE_12345_67890_mm_player.py", code)
        bundle.writestr("submission_98765/mm_player.py", code)
        bundle.writestr("Nobody Here_1_assignsubmission_file_/", "")
    out = tmp_path / "out"

    done = run_batch_cli(archive, out)

    assert done.returncode == 0, done.stderr
    _, rows = read_gradebook(out)
    assert sorted(rows) == ["1", "12345", "4321", "98765"]
    assert rows["4321"]["name"] == "Ada Lovelace" and rows["4321"]["status"] == "graded"
    assert rows["12345"]["late"] == "late" and rows["12345"]["name"] == "hopperg"
    assert rows["98765"]["status"] == "graded"
    assert rows["1"]["status"] == "not graded: empty folder"
    assert (out / ".work" / "unzipped").is_dir()


@pytest.mark.long
def test_resume_regrades_only_what_is_missing_and_regrade_forces(tmp_path: Path) -> None:
    source = tmp_path / "class"
    for sid in ("alice", "bob", "carol"):
        copy(CONSTANT, source / f"{sid}.py")
    out = tmp_path / "out"
    assert run_batch_cli(source, out).returncode == 0
    results = {sid: out / "results" / "minimax" / f"{sid}.json" for sid in ("alice", "bob", "carol")}
    before = {sid: path.stat().st_mtime_ns for sid, path in results.items()}
    results["bob"].unlink()

    again = run_batch_cli(source, out)

    assert again.returncode == 0, again.stderr
    assert "1 to grade, 2 already done" in again.stderr
    assert "bob" in again.stderr and "[1/1]" in again.stderr
    assert results["bob"].exists()
    assert results["alice"].stat().st_mtime_ns == before["alice"]
    assert results["carol"].stat().st_mtime_ns == before["carol"]
    _, rows = read_gradebook(out)
    assert all(rows[sid]["status"] == "graded" for sid in results)

    forced = run_batch_cli(source, out, "--regrade")

    assert forced.returncode == 0, forced.stderr
    assert "3 to grade, 0 already done" in forced.stderr
    assert results["alice"].stat().st_mtime_ns != before["alice"]


@pytest.mark.long
def test_a_rerun_under_another_configuration_stops_then_regrades_what_changed(
        tmp_path: Path) -> None:
    """The issue's case: a rerun with another --config said "0 to grade, 13 already done"
    and kept the old grades (no style column, out of 100 where the rubric totals 125)."""
    source = tmp_path / "class"
    for sid in ("alice", "bob"):
        copy(CONSTANT, source / f"{sid}.py")
    out = tmp_path / "out"
    style = tmp_path / "course.cfg"
    style.write_text("[rubric]\nstyle = 25\n")
    assert run_batch_cli(source, out).returncode == 0
    _, before = read_gradebook(out)

    refused = run_batch_cli(source, out, "--config", str(style))

    assert refused.returncode == 2, refused.stderr
    assert "holds 2 results graded under another configuration" in refused.stderr
    assert "rubric: style 25 (was 0)" in refused.stderr and "--regrade-changed" in refused.stderr
    assert read_gradebook(out)[1] == before                 # the books are as they were

    changed = run_batch_cli(source, out, "--config", str(style), "--regrade-changed")

    assert changed.returncode == 0, changed.stderr
    assert "2 to grade, 0 already done" in changed.stderr
    columns, rows = read_gradebook(out)
    assert "style" in columns
    assert all(row["max_score"] == "125" for row in rows.values())
    assert {row["config"] for row in rows.values()} != {row["config"] for row in before.values()}
    assert len({row["config"] for row in rows.values()}) == 1
    assert "course.cfg, 125 points" in (out / "summary.html").read_text()
    again = run_batch_cli(source, out, "--config", str(style))
    assert again.returncode == 0 and "0 to grade, 2 already done" in again.stderr


def test_sigkill_then_rerun_finishes_without_grading_twice(tmp_path: Path) -> None:
    source = tmp_path / "class"
    ids = ["s1", "s2", "s3", "s4", "s5"]
    for sid in ids:
        copy(CONSTANT, source / f"{sid}.py")
    out = tmp_path / "out"
    command = [*GRADER, "batch", str(source), "--out", str(out), "--jobs", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               cwd=HERE.parent)
    try:
        deadline = time.monotonic() + 120
        while not list((out / "results" / "minimax").glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.kill()
        process.wait()
    first = {path.stem: path.stat().st_mtime_ns for path in (out / "results" / "minimax").glob("*.json")}
    assert 1 <= len(first) < len(ids)
    time.sleep(1.0)     # a grading run orphaned by the kill would write now (it must not)
    assert not _processes_mentioning(str(out)), "a grading run outlived its batch"

    again = run_batch_cli(source, out)

    assert again.returncode == 0, again.stderr
    left = len(ids) - len(first)
    assert f"{left} to grade, {len(first)} already done" in again.stderr
    assert sorted(path.stem for path in (out / "results" / "minimax").glob("*.json")) == ids
    for sid, mtime in first.items():
        assert (out / "results" / "minimax" / f"{sid}.json").stat().st_mtime_ns == mtime, sid
    _, rows = read_gradebook(out)
    assert all(rows[sid]["status"] == "graded" for sid in ids)
    assert not list(out.rglob("*.tmp"))


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in command:
                found.append(command)
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look for orphans")
def test_sigterm_stops_the_batch_and_keeps_what_is_done(tmp_path: Path) -> None:
    source = tmp_path / "class"
    copy(CONSTANT, source / "alice.py")
    # An endless loop in mm_move: its grading run takes about 8 times alice's, on a busy
    # machine too (both are CPU time), so it is still running when the batch is stopped.
    # (A loop at import ends after 10 wall seconds: under load, sooner than alice.)
    copy(STUCK, source / "oscar.py")
    copy(STUCK, source / "zed.py")
    out = tmp_path / "out"
    process = subprocess.Popen([*GRADER, "batch", str(source), "--out", str(out), "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=HERE.parent)
    deadline = time.monotonic() + 60
    while not (out / "results" / "minimax" / "alice.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == 130, stderr
    # Stopped, not waited for, is what oscar's row and the processes below show; the time
    # only bounds it, with room over the runs' grace period for a busy machine.
    assert time.monotonic() - started < GRACE_SECONDS + 30
    assert "interrupted" in stderr
    _, rows = read_gradebook(out)
    assert rows["alice"]["status"] == "graded"
    assert rows["oscar"]["status"] == f"not graded: {state.INTERRUPTED}"   # and what to do
    assert not (out / "results" / "minimax" / "oscar.json").exists()
    assert not _processes_mentioning(str(out))


def test_a_grading_run_over_the_timeout_is_reported(tmp_path: Path) -> None:
    source = tmp_path / "class"
    copy(LOOPS, source / "oscar.py")
    out = tmp_path / "out"

    done = run_batch_cli(source, out, "--timeout", "1")

    assert done.returncode == 1, done.stderr
    _, rows = read_gradebook(out)
    assert rows["oscar"]["status"].startswith("not graded: grading stopped after")
    assert not (out / "results" / "minimax" / "oscar.json").exists()
    assert "grading stopped" in (out / "logs" / "minimax" / "oscar.log").read_text()


def test_usage_errors(tmp_path: Path) -> None:
    missing = run_batch_cli(tmp_path / "missing", tmp_path / "out")
    assert missing.returncode == 2 and "no such file" in missing.stderr
    (tmp_path / "class").mkdir()
    empty = run_batch_cli(tmp_path / "class", tmp_path / "out")
    assert empty.returncode == 2 and "no submissions" in empty.stderr
    # A folder of notes is not a class of one student named "notes".
    (tmp_path / "class" / "notes.md").write_text("# what to grade\n")
    notes = run_batch_cli(tmp_path / "class", tmp_path / "out")
    assert notes.returncode == 2
    assert "no submissions found in" in notes.stderr and "notes.md" in notes.stderr
    assert not (tmp_path / "out" / "gradebook.csv").exists()
    help_text = subprocess.run([*GRADER, "batch", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0
    for words in ("--jobs", "--regrade", "--regrade-changed", "--scheduler",
                  "assignsubmission", "_LATE_",
                  "submission_123456", "mm_player.py", "examples:"):
        assert words in help_text.stdout


# ---------------------------------------------------------------- the loop, with a fake runner


class FakeRunner:
    """Answers each job at once with what ``answer(job)`` says."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.jobs: list[batch.Job] = []

    def submit(self, job: batch.Job) -> concurrent.futures.Future:
        self.jobs.append(job)
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(self.answer(job))
        except Exception as problem:
            future.set_exception(problem)
        return future

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def results_json(score: float, options: GradingOptions | None = GradingOptions()) -> str:
    """A result as ``grade --json`` writes it, graded under ``options`` (None: a result of
    an earlier grader, which did not record what it was graded under)."""
    tests = [{"name": "scores", "score": score, "max_score": 10.0,
              "status": "passed" if score == 10 else "failed", "output": "..."}]
    extra = {"max_score": 10.0, "student_cpu_seconds": 0.5, "wall_seconds": 1.0}
    if options is not None:
        extra["configuration"] = state.graded_under(options).to_json()
    return json.dumps({"score": score, "tests": tests, "output": "summary",
                       "extra_data": extra})


def test_failed_grading_runs_are_logged_and_retried(tmp_path: Path) -> None:
    submissions = [Submission("alice", CONSTANT), Submission("bob", CONSTANT),
                   Submission("carol", CONSTANT)]

    def answer(job: batch.Job) -> Attempt:
        sid = job.submission.student_id
        if sid == "bob":
            return Attempt(sid, 1, None, errors="Traceback...\nRuntimeError: the grader broke")
        if sid == "carol":
            raise ConnectionError("lost the worker")
        return Attempt(sid, 0, results_json(7.5), report="the report")

    out = tmp_path / "out"
    outcome = run_batch(submissions, BatchOptions(out=out), FakeRunner(answer))

    assert outcome.graded == ("alice",) and outcome.failed == ("bob", "carol")
    assert outcome.exit_code == 1
    _, rows = read_gradebook(out)
    assert rows["alice"]["score"] == "7.5" and rows["alice"]["scores"] == "7.5"
    assert rows["bob"]["status"] == ("not graded: the grader failed (exit 1): "
                                     "RuntimeError: the grader broke")
    assert "lost the worker" in rows["carol"]["status"]
    assert "RuntimeError" in (out / "logs" / "minimax" / "bob.log").read_text()
    assert (out / "reports" / "minimax" / "alice.txt").read_text() == "the report"

    retry = FakeRunner(lambda job: Attempt(job.submission.student_id, 0, results_json(10.0)))
    again = run_batch(submissions, BatchOptions(out=out), retry)

    assert sorted(job.submission.student_id for job in retry.jobs) == ["bob", "carol"]
    assert again.exit_code == 0 and not (out / "logs" / "minimax" / "bob.log").exists()
    _, rows = read_gradebook(out)
    assert rows["bob"]["score"] == "10" and rows["alice"]["score"] == "7.5"
    assert "summary" in (out / "reports" / "minimax" / "bob.txt").read_text()   # rebuilt from the JSON


def test_a_class_is_never_graded_under_two_configurations_without_a_sign(
        tmp_path: Path) -> None:
    submissions = [Submission("alice", CONSTANT), Submission("bob", CONSTANT)]
    out = tmp_path / "out"
    style = tmp_path / "style.cfg"
    style.write_text("[rubric]\nstyle = 25\n")
    new = GradingOptions(config=style)

    def graded(options: GradingOptions | None) -> FakeRunner:
        return FakeRunner(lambda job: Attempt(job.submission.student_id, 0,
                                              results_json(10.0, options)))

    run_batch(submissions, BatchOptions(out=out), graded(GradingOptions()))
    refused = graded(new)
    with pytest.raises(state.ConfigurationChangedError) as info:
        run_batch(submissions, BatchOptions(out=out, grading=new), refused)
    message = str(info.value)
    assert refused.jobs == []                              # nothing graded, nothing mixed
    assert "holds 2 results graded under another configuration" in message
    assert "2 under " in message and "default configuration, 100 points" in message
    assert "style.cfg, 125 points" in message and "rubric: style 25 (was 0)" in message
    assert "--regrade-changed" in message and "--regrade " in message

    # A --regrade-changed run stopped after alice: the class is mixed, and says so.
    folder = OutputFolder(out)
    folder.result("alice", "minimax").write_text(results_json(10.0, new))
    rows = [state.row_for(submission, folder) for submission in submissions]
    assert rows[0].config == state.graded_under(new).fingerprint != rows[1].config
    page = summary.summary_html(rows)
    assert "Warning: this class was graded under 2 configurations" in page
    assert "style.cfg, 125 points" in page and "default configuration, 100 points" in page
    assert summary.ClassStats.of(rows).mixed

    # Run again: only what was graded under something else is graded again.
    rest = graded(new)
    outcome = run_batch(submissions, BatchOptions(out=out, grading=new, regrade_changed=True),
                        rest)
    assert [job.submission.student_id for job in rest.jobs] == ["bob"]
    assert [s.student_id for s in outcome.plan.changed] == ["bob"]
    columns, book = read_gradebook(out)
    assert columns[-5:] == ["config", "sid", "email", "submitted_at", "roster"]
    assert {row["config"] for row in book.values()} == {state.graded_under(new).fingerprint}
    assert "Warning" not in (out / "summary.html").read_text()


def test_results_of_an_earlier_grader_are_not_taken_for_this_configurations(
        tmp_path: Path) -> None:
    out = OutputFolder(tmp_path / "out")
    out.prepare()
    out.result("alice").parent.mkdir()
    out.result("alice").write_text(results_json(10.0, options=None))   # nothing recorded
    expected = {"minimax": state.graded_under(GradingOptions())}
    plan = batch.plan_batch([Submission("alice", CONSTANT)], out, False, expected)
    assert plan.to_grade == () and [s.student_id for s in plan.changed] == ["alice"]
    assert "not recorded" in state.changed_message(plan, out, expected)
    row = state.row_for(Submission("alice", CONSTANT), out)
    assert row.config == gradebook.UNRECORDED and "earlier version" in row.config_text


def test_unreadable_results_are_not_taken_for_done(tmp_path: Path) -> None:
    out = OutputFolder(tmp_path / "out")
    out.prepare()
    out.result("alice").parent.mkdir()
    out.result("alice").write_text('{"score": 1, "tes')           # cut short
    (out.results / "minimax" / ".bob.json.123.tmp").write_text("{}")   # a write never ended
    (out.results / ".carol.json.123.tmp").write_text("{}")            # ...of an earlier batch
    plan = batch.plan_batch([Submission("alice", CONSTANT)], out, regrade=False)
    assert [submission.student_id for submission in plan.to_grade] == ["alice"]
    out.prepare()
    assert not (out.results / "minimax" / ".bob.json.123.tmp").exists()
    assert not (out.results / ".carol.json.123.tmp").exists()


def test_a_second_batch_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    folder = OutputFolder(tmp_path / "out")
    with folder.locked():
        with pytest.raises(batch.BatchLockedError):
            with OutputFolder(tmp_path / "out").locked():
                pass


def test_grading_options_travel_to_each_grade_command() -> None:
    args = argparse.Namespace(exhaustive=True, visibility="categories",
                              config=Path("secret.cfg"), checks=[Path("extra.py")])
    argv = batch.grade_argv(Path("/s/a.py"), Path("/o/a.json"), "a",
                            GradingOptions.from_args(args))
    assert argv[1:8] == ["-m", "grader", "grade", "/s/a.py", "--json", "/o/a.json",
                         "--student-id=a"]
    assert argv[8:] == ["--exhaustive", "--visibility", "categories",
                        "--config", str(Path("secret.cfg").resolve()),
                        "--checks", str(Path("extra.py").resolve())]


# ---------------------------------------------------------------- the gradebook's pieces


def test_rows_from_results_and_the_csv(tmp_path: Path) -> None:
    data = {"score": 0.0, "tests": [{"name": "scores", "score": 0.0, "max_score": 15.0,
                                     "status": "failed"}],
            "extra_data": {"load_error": "SyntaxError", "load_kind": "syntax",
                           "max_score": 15.0, "student_cpu_seconds": 0.0}}
    rows = [gradebook.row_from_results("eve", data, name="Eve", late=True),
            gradebook.not_graded_row("zed", "empty folder")]
    assert rows[0].status == "not run: syntax" and not rows[0].ran
    gradebook.write_gradebook(tmp_path / "book.csv", rows)
    lines = (tmp_path / "book.csv").read_text(encoding="utf-8-sig").splitlines()
    assert lines[0] == ("student_id,score,max_score,scores,status,cpu_seconds,wall_seconds,"
                        "late,name,source,no_answer,config,sid,email,submitted_at,roster")
    assert lines[1] == "eve,0,15,0,not run: syntax,0,,late,Eve,,,unrecorded,,,,"
    assert lines[2] == "zed,,,,not graded: empty folder,,,,,,,,,,,"
    with pytest.raises(ValueError, match="CSV column"):
        gradebook.gradebook_columns(["late"])


def test_no_answer_is_not_counted_as_a_failure_anywhere(tmp_path: Path) -> None:
    """The template raises at once: the gradebook and the summary say "no answer", and
    no item's failure rate counts it as if it had changed the board or been slow."""
    tests = [{"name": name, "score": 0.0, "max_score": 5.0, "status": "failed",
              "extra_data": {"state": "no answer", "failed": 0, "no_answer": 9}}
             for name in ("board untouched", "time")]
    data = {"score": 0.0, "tests": tests, "extra_data": {"max_score": 10.0}}
    wrong = {"score": 0.0, "tests": [dict(tests[0], extra_data={"state": "failed"}),
                                     tests[1]], "extra_data": {"max_score": 10.0}}
    rows = [gradebook.row_from_results("tpl", data), gradebook.row_from_results("bad", wrong)]
    assert [item.state for item in rows[0].items] == ["no answer", "no answer"]
    stats = summary.ClassStats.of(rows)
    assert stats.item_failures == {"board untouched": (1, 2), "time": (0, 2)}
    assert stats.item_no_answer == {"board untouched": 1, "time": 2}
    book = list(csv.DictReader(io.StringIO(gradebook.gradebook_csv(rows).lstrip("\ufeff"))))
    assert [row["no_answer"] for row in book] == ["board untouched; time", "time"]
    assert 'title="no answer"' in summary.summary_html(rows)


def test_class_statistics_and_charts() -> None:
    def row(sid: str, score: float, passed: bool, cpu: float) -> gradebook.Row:
        item = gradebook.ItemScore("moves", 20.0 if passed else 5.0, 20.0, passed)
        return gradebook.Row(sid, "graded", score, 20.0, (item,), cpu, cpu + 1)

    rows = [row("a", 20, True, 0.5), row("b", 5, False, 9.0), row("c", 5, False, 3.0),
            gradebook.not_graded_row("d", "duplicate student id: d.py, D.py (rename...)")]
    stats = summary.ClassStats.of(rows)
    assert stats.item_failures == {"moves": (2, 3)}
    assert stats.not_graded == {"duplicate student id": 1}
    assert charts.histogram(stats.scores, 20.0, bins=4) == [0, 2, 0, 1]
    page = summary.summary_html(rows, title="CS 101 <week 5>")
    assert "CS 101 &lt;week 5&gt;" in page
    assert "67% (2/3)" in page                              # the failure rate of moves
    assert "no answer" in page
    slowest = page.index("Slowest submissions")
    assert page.index(">b<", slowest) < page.index(">c<", slowest) < page.index(">a<", slowest)


def test_names_in_a_zip_without_the_utf8_flag_are_read_as_their_maker_meant(
        tmp_path: Path) -> None:
    class InfoZipName(zipfile.ZipInfo):
        """What Info-ZIP on Linux writes: UTF-8 bytes, without the UTF-8 flag."""

        def _encodeFilenameFlags(self):  # noqa: N802 (zipfile's own name)
            return self.filename.encode("utf-8"), self.flag_bits & ~0x800

    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(InfoZipName("José Núñez_12345_assignsubmission_file_/mm_player.py"),
                        "def mm_move(board, player):\n    return 0, (0, 0)\n")
    with zipfile.ZipFile(archive) as bundle:
        assert "├" in bundle.namelist()[0]          # what zipfile alone makes of it
    found, warnings = find_submissions(archive, tmp_path / "work")
    assert warnings == []
    assert [(s.student_id, s.name) for s in found] == [("12345", "José Núñez")]


def test_each_grade_is_asked_to_name_its_student_when_the_batch_knows_the_name(
        tmp_path: Path) -> None:
    from grader.classroom.roster import parse_roster

    root = tmp_path / "moodle"
    copy(CONSTANT, root / "Ada Lovelace_12345_assignsubmission_file_" / "mm_player.py")
    copy(CONSTANT, root / "bob.py")
    copy(CONSTANT, root / "carol.py")
    found, _ = find_submissions(root, tmp_path / "work")
    roster = parse_roster(b"id,name\n12345,Ada Lovelace\nbob,Bob Babbage\ncarol,\n"
                          b"dora,Dora D\n99,Test Student\n")
    runner = FakeRunner(lambda job: Attempt(job.submission.student_id, 0, results_json(5.0)))
    out = tmp_path / "out"
    run_batch(found, BatchOptions(out=out, roster=roster), runner)
    assert {job.submission.student_id: job.student_name for job in runner.jobs} == {
        "12345": "Ada Lovelace", "bob": "Bob Babbage", "carol": ""}
    # Canvas's Test Student handed in nothing on purpose: no row, in the book or the summary
    _, rows = read_gradebook(out)
    assert sorted(rows) == ["12345", "bob", "carol", "dora"]
    assert "Test Student" not in (out / "summary.html").read_text(encoding="utf-8")
