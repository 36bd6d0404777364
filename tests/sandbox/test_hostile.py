"""Hostile submissions, graded end to end: the grader survives every one and loses nothing.

Each file under tests/submissions/hostile misbehaves in one way and says at its top what
the right outcome is. Each is graded as an instructor would (``python -m grader grade FILE
--json PATH``), two at a time, once per
module; the tests then read what happened:

- the grader exits 0 with a report and a results.json, whatever the submission did;
- the submission gets the outcome its file promises (a load error, or items lost and kept);
- no process of the sandbox outlives the grader: every one carries, in its command line, a
  marker unique to its run (the submission's file name, or an argument it chose);
- nothing is written outside the box: a world-writable sentinel folder stays empty, the
  other files in the report's folder (world-writable too) are unchanged, /tmp gets nothing;
- no secret reaches the report: not the grader's environment, not another student's file;
- no TCP connection reaches the test's listener.

At the end, the grader itself is interrupted (SIGTERM, SIGINT) while it grades: it exits
with status 130, writes the report of what it finished, and leaves no process behind.

The submissions run under bubblewrap (skipped, with the reason, where it is not usable); a
representative subset also runs in the fallback (``TTT_GRADER_NO_BWRAP=1``). Where the
fallback has no Landlock (kernels before 5.13), its worker holds no capability and it runs
only where file permissions keep the grader's files out of reach (tests/sandbox/
test_confinement.py), which a checkout open to every user does not: the fallback's runs are
then skipped with that reason. Without Landlock, it confines neither writes to
world-writable places nor TCP: those checks are skipped with that reason, never asserted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grader.sandbox import bwrap_available
from grader.sandbox.layers import bwrap_problem as _bwrap_problem
from fallback import FALLBACK, FALLBACK_PROBLEM

HERE = Path(__file__).resolve().parents[1]   # tests/
HOSTILE = HERE / "submissions" / "hostile"
ITEMS = ("finished boards", "scores", "moves", "other sizes", "reverse games",
         "board untouched", "game play", "time")
ANSWER_ITEMS = {"finished boards", "scores", "moves", "other sizes", "reverse games",
                "game play"}
# A call with no answer (timeout, exception, crash) fails its own items, and "time" and
# "board untouched" too (no answer cannot show either).
NO_ANSWER = {"time", "board untouched"}
CRASH_ON_4X4 = dict(lose={"other sizes", "finished boards", "reverse games"} | NO_ANSWER,
                    keep={"scores", "moves", "game play"})
ONE_CALL_FAILS = dict(lose={"other sizes"} | NO_ANSWER,
                      keep={"finished boards", "scores", "moves", "reverse games", "game play"})
ONE_CALL_TIMES_OUT = dict(ONE_CALL_FAILS, timeouts=1)
NO_BWRAP = f"bubblewrap is not usable here: {_bwrap_problem()}"
ROOT = os.geteuid() == 0


@dataclass(frozen=True)
class Case:
    """One gallery entry and the outcome its file promises."""

    name: str
    load_kind: str | None = None           # the expected LoadError kind, or None: graded
    lose: set[str] = field(default_factory=set)     # items that must lose points
    keep: set[str] = field(default_factory=set)     # items that must keep all their points
    score: tuple[float, float] = (0.0, 100.0)       # the score's range, both ends included
    words: tuple[str, ...] = ()            # must appear in the report (stdout)
    timeouts: int | None = None            # exactly this many timeouts
    restarts: int = 0                      # at least this many worker restarts
    fallback: bool = False                 # also graded with TTT_GRADER_NO_BWRAP=1
    root_only: bool = False                # only where the sandbox gets a uid of its own


FULL = (100.0, 100.0)
CASES = [
    Case("slow_import_sleep", "timeout", words=("took more than 10 s",)),
    Case("slow_import_loop", "timeout", words=("took more than 10 s",)),
    Case("loop_forever", lose=set(ITEMS), score=(0, 0), words=("and was stopped",),
         fallback=True),
    Case("loop_deaf", **ONE_CALL_TIMES_OUT),
    Case("sleeps", **ONE_CALL_TIMES_OUT),
    Case("fork_swarm", **ONE_CALL_TIMES_OUT, fallback=True, root_only=True),
    # Stopped at its limit although its output never pauses, not at the backstop (whose
    # words are "backstop of its 0.45 s limit"): by its CPU time, or, on a busy machine where
    # it waits on its full pipe, by its active time: "used more than" / "within its limit of".
    Case("flood_output", **ONE_CALL_TIMES_OUT, words=("its limit of",), fallback=True),
    # Stopped by its CPU limit, or (on a busy CPU, where the thread gets less than all of
    # it) by its active time: either way "within its limit of" / "more than its limit of".
    Case("thread_burner", lose={"other sizes"} | NO_ANSWER, words=("its limit of",)),
    Case("forge_clock", **ONE_CALL_TIMES_OUT, words=("used more than its limit of",),
         fallback=True),
    Case("exit_at_import_sys", "exit", words=("sys.exit()",)),
    Case("exit_at_import_os", "exit", words=("exited with status 3",)),
    Case("exit_mid_call", **CRASH_ON_4X4, words=("the process died", "status 0"),
         restarts=4, fallback=True),
    Case("segfault_ctypes", **CRASH_ON_4X4, words=("SIGSEGV",), restarts=4),
    Case("sigsegv_self", **CRASH_ON_4X4, words=("SIGSEGV",), restarts=4),
    Case("stack_overflow", **CRASH_ON_4X4, words=("SIGSEGV",), restarts=4),
    Case("memory_bomb", **CRASH_ON_4X4, words=("MemoryError",), fallback=True),
    Case("kill_everything", **CRASH_ON_4X4, words=("the process died",), restarts=4,
         fallback=True, root_only=True),
    Case("close_fds_mid_call", **CRASH_ON_4X4, words=("the process died",), restarts=4,
         fallback=True),
    Case("daemon", score=FULL, fallback=True),
    Case("kill_parent", score=FULL, fallback=True),
    Case("fake_output", lose={"scores", "finished boards"}, score=(0, 60), fallback=True),
    Case("forge_answer", lose={"scores", "moves"}, score=(0, 80), fallback=True),
    Case("patch_provided", lose={"scores", "finished boards"}, score=(0, 60)),
    Case("import_grader", lose={"scores", "finished boards"}, score=(0, 60), fallback=True),
    Case("liar_objects", lose=ANSWER_ITEMS, keep={"board untouched", "time"}, score=(0, 15),
         words=("Anything",)),
    Case("bools_and_floats", lose={"other sizes"}, keep={"scores", "moves"},
         words=("was accepted where an int was expected", "is a bool")),
    Case("huge_answers", lose=ANSWER_ITEMS,
         words=("(100000 items) (a tuple)", "too large to show")),
    Case("read_grader_files", score=FULL, fallback=True),
    Case("env_secrets", **ONE_CALL_FAILS, words=("ENVIRONMENT:", "'PATH'"), fallback=True),
    Case("write_outside", score=FULL, fallback=True),
    Case("fill_disk", **ONE_CALL_FAILS, words=("wrote",)),
    Case("network", score=FULL, fallback=True),
    Case("thread_printer", score=FULL),
    Case("close_fds_at_import", score=FULL, fallback=True),
    Case("read_stdin", score=FULL),
    Case("input_at_import", "import_error", words=("EOFError", "the grader types nothing")),
    Case("empty", "empty"),
    Case("binary", "binary"),
    Case("latin1", "encoding", words=("0xe9",)),
    Case("python2", "python2", words=('print("thinking about", board)',)),
]
BY_NAME = {case.name: case for case in CASES}
NOT_ROOT = ("not root: the sandbox runs as the test runner's own uid, so a fork bomb or "
            "kill(-1) would reach the runner's processes")


def _skip_reason(case: Case, mode: str) -> str | None:
    if mode == "bwrap" and not bwrap_available():
        return NO_BWRAP
    if mode == "fallback" and FALLBACK_PROBLEM is not None:
        return FALLBACK_PROBLEM
    if case.root_only and not ROOT:
        return NOT_ROOT
    return None


def _modes(case: Case) -> tuple[str, ...]:
    return ("bwrap", "fallback") if case.fallback else ("bwrap",)


RUNS = [(case.name, mode) for case in CASES for mode in _modes(case)
        if _skip_reason(case, mode) is None]


def run_params():
    """Every (case, mode); those that cannot run here are skipped with the reason."""
    params = []
    for case in CASES:
        for mode in _modes(case):
            reason = _skip_reason(case, mode)
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            params.append(pytest.param(case.name, mode, id=f"{case.name}-{mode}", marks=marks))
    return params


# -- watching processes ---------------------------------------------------------------------

def _alive(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def marked(marker: str) -> dict[int, str]:
    """Live processes whose command line holds ``marker``: pid -> command line."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                    cmdline = file.read()
            except OSError:
                continue
            if marker.encode() in cmdline and _alive(entry.name):
                found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class Listener:
    """A TCP port on 127.0.0.1 that records whatever reaches it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                link, _ = self.server.accept()
            except OSError:
                continue
            with link:
                link.settimeout(1)
                try:
                    self.received.append(link.recv(1024) or b"<connected>")
                except OSError:
                    self.received.append(b"<connected>")

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.server.close()


# -- grading one submission -------------------------------------------------------------------

@dataclass
class Run:
    """What grading one hostile submission did, and what was around it afterwards."""

    case: Case
    mode: str
    marker: str
    status: int
    stdout: str
    stderr: str
    seconds: float
    results_text: str
    results: dict | None
    leftovers: dict[int, str]
    out_before: dict[str, bytes]
    out_after: dict[str, bytes]
    sub_before: dict[str, bytes]
    sub_after: dict[str, bytes]
    sentinel_listing: list[str]
    tmp_sentinel: bool

    @property
    def isolation(self) -> str:
        return "" if self.results is None else " ".join(self.results["extra_data"]["isolation"])

    @property
    def confined(self) -> bool:
        """Whether file access and TCP are confined: bubblewrap, or Landlock in the fallback."""
        return self.mode == "bwrap" or "landlock" in self.isolation

    @property
    def everything(self) -> str:
        return self.stdout + self.stderr + self.results_text


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def grade(case: Case, mode: str, root: Path, port: int) -> Run:
    """Grade one gallery entry in a fresh folder tree under ``root`` (world-writable)."""
    marker = f"hx{uuid.uuid4().hex[:12]}"
    base = root / f"{case.name}-{mode}"
    sub, out, sentinel = base / "sub", base / "out", base / "open"
    for folder in (base, sub, out, sentinel):
        folder.mkdir()
        folder.chmod(0o777)  # only the sandbox may keep the student out of these
    other = sub / "other_student.py"
    other.write_text(f"# OTHER_STUDENT_SECRET_{marker}\ndef mm_move(board, player):\n"
                     "    return 0, (-1, -1)\n")
    report = out / "results.json"
    report.write_text('{"stale": true}\n')
    (out / "other_student.json").write_text('{"score": 42.0, "student": "other"}\n')
    for path in (other, report, out / "other_student.json"):
        path.chmod(0o666)
    tmp_sentinel = Path(tempfile.gettempdir()) / f"ttt-hostile-{marker}"
    values = {"@SENTINEL@": str(sentinel / "inside"), "@TMP_SENTINEL@": str(tmp_sentinel),
              "@MARKER@": marker, "@PORT@": str(port), "@OTHER@": str(other),
              "@JSON@": str(report), "@OTHER_RESULT@": str(out / "other_student.json")}
    source = (HOSTILE / f"{case.name}.py").read_bytes()
    for key, value in values.items():
        source = source.replace(key.encode(), value.encode())
    submission = sub / f"{case.name}_{marker}.py"
    submission.write_bytes(source)
    out_before, sub_before = _files(out), _files(sub)

    env = dict(os.environ, TTT_GRADER_SECRET=f"topsecret-{marker}")
    env.pop("TTT_GRADER_NO_BWRAP", None)
    if mode == "fallback":
        env["TTT_GRADER_NO_BWRAP"] = "1"
    stdin_read, stdin_write = os.pipe()  # held open: a worker that read our stdin would hang
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "grader", "grade", str(submission), "--json", str(report)],
            stdin=stdin_read, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            start_new_session=True)  # a stray killpg of the grader's group spares pytest
        try:
            stdout, stderr = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
    finally:
        os.close(stdin_read)
        os.close(stdin_write)
    seconds = time.monotonic() - started
    wait_for(lambda: not marked(marker), 2.0)
    leftovers = marked(marker)
    for pid in leftovers:  # ours to clean up; the test that reads this run fails
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    results_text = report.read_text(errors="replace") if report.exists() else ""
    try:
        results = json.loads(results_text)
    except ValueError:
        results = None
    if results == {"stale": True}:  # the grader wrote no report
        results = None
    run = Run(case, mode, marker, proc.returncode, stdout.decode(errors="replace"),
              stderr.decode(errors="replace"), seconds, results_text, results, leftovers,
              out_before, _files(out), sub_before, _files(sub),
              sorted(os.listdir(sentinel)), tmp_sentinel.exists())
    if tmp_sentinel.exists():
        if tmp_sentinel.is_dir():
            shutil.rmtree(tmp_sentinel, ignore_errors=True)
        else:
            tmp_sentinel.unlink()
    return run


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


# Every test below may be the first to use `graded`: it grades every run, two at a time.
pytestmark = pytest.mark.grades(len(RUNS), jobs=2)


@pytest.fixture(scope="module")
def graded(listener):
    """(case name, mode) -> Run, for every run; graded two at a time."""
    root = Path(tempfile.mkdtemp(prefix="ttt-hostile-"))
    root.chmod(0o755)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(pool.map(lambda run: grade(BY_NAME[run[0]], run[1], root,
                                                   listener.port), RUNS))
        yield {(run.case.name, run.mode): run for run in runs}
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- the tests --------------------------------------------------------------------------------

@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_the_grader_exits_0_with_a_report(graded, name, mode, load_factor):
    run = graded[name, mode]
    assert run.status == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # Nothing the submission does holds the grader up for long (a containment bound, not a
    # speed figure: it grows with the machine's load, as the grader's own limits do).
    assert run.seconds < 60 * load_factor
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert re.search(r"^Score: [\d.]+ / 100$", run.stdout, re.MULTILINE), run.stdout[-3000:]
    assert run.results is not None, run.results_text[:500]
    assert [test["name"] for test in run.results["tests"]] == list(ITEMS)
    assert run.results["score"] == round(sum(t["score"] for t in run.results["tests"]), 2)
    shown = re.search(r"^Score: ([\d.]+) / 100$", run.stdout, re.MULTILINE).group(1)
    assert float(shown) == run.results["score"]  # the report's own line, not a printed fake
    assert len(run.results_text) < 1_000_000     # whatever the submission printed or returned
    assert run.results["extra_data"]["grader_error"] is None
    if ROOT and run.results["extra_data"]["isolation"]:  # empty: the file never ran
        assert "(its own" in run.isolation  # never root, never shared with another sandbox


@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_the_outcome_is_the_one_the_file_promises(graded, name, mode):
    run = graded[name, mode]
    case = run.case
    assert run.results is not None, run.stdout[-3000:] + run.stderr[-3000:]
    extra = run.results["extra_data"]
    assert extra["load_kind"] == case.load_kind, (extra["load_error"], run.stdout[-3000:])
    if case.load_kind is not None:
        assert run.results["score"] == 0
        assert extra["load_error"]
    # Lost: some check did not pass (one check in 1,645 rounds to the item's full points).
    lost = {test["name"] for test in run.results["tests"] if test["status"] != "passed"}
    assert case.lose <= lost, (lost, run.stdout[-5000:])
    assert not (case.keep & lost), (lost, run.stdout[-5000:])
    low, high = case.score
    assert low <= run.results["score"] <= high, run.stdout[-5000:]
    for words in case.words:
        assert words in run.stdout, (words, run.stdout[-5000:])
    if case.timeouts is not None:
        assert extra["timeouts"] == case.timeouts, run.stdout[-5000:]
    assert extra["restarts"] >= case.restarts


@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_no_process_outlives_the_grader(graded, name, mode):
    run = graded[name, mode]
    assert run.leftovers == {}, run.leftovers


@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_nothing_is_written_outside_the_box(graded, name, mode):
    run = graded[name, mode]
    assert run.out_after.keys() == run.out_before.keys()  # no stray file beside the report
    assert run.out_after["other_student.json"] == run.out_before["other_student.json"]
    assert run.out_after["results.json"] != run.out_before["results.json"]  # ours, fresh
    assert run.sub_after == run.sub_before
    if not run.confined:
        pytest.skip("the fallback without Landlock does not confine writes to world-writable "
                    "places (documented in grader/sandbox/box.py)")
    assert run.sentinel_listing == []
    assert not run.tmp_sentinel


@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_no_secret_reaches_the_report(graded, name, mode):
    run = graded[name, mode]
    assert "topsecret" not in run.everything      # the grader's environment
    assert "LEAKED" not in run.everything         # the grader's solver, imported
    if not run.confined:
        pytest.skip("the fallback without Landlock confines reads by file permissions "
                    "only (documented)")
    assert "OTHER_STUDENT_SECRET" not in run.everything
    assert "STOLEN:" not in run.everything


@pytest.mark.long
@pytest.mark.parametrize("name, mode", run_params())
def test_no_connection_reaches_the_machine(graded, listener, name, mode):
    run = graded[name, mode]
    if not run.confined:
        pytest.skip("the fallback without Landlock 4+ does not block TCP (documented)")
    assert not [data for data in listener.received if run.marker.encode() in data]


# -- particular promises ------------------------------------------------------------------------

@pytest.mark.long
@pytest.mark.parametrize("mode", ["bwrap", "fallback"])
def test_a_daemon_did_run_and_the_submission_was_graded_in_full(graded, mode):
    if ("daemon", mode) not in graded:
        pytest.skip(NO_BWRAP)
    run = graded["daemon", mode]
    assert "daemon started" in run.results["extra_data"]["load_output"]
    assert run.results["score"] == 100


@pytest.mark.long
@pytest.mark.parametrize("mode", ["bwrap", "fallback"])
def test_a_flood_is_cut_and_counted(graded, mode):
    if ("flood_output", mode) not in graded:
        pytest.skip(NO_BWRAP)
    load_output = graded["flood_output", mode].results["extra_data"]["load_output"]
    assert load_output.startswith("o") or load_output.startswith("e")
    assert len(load_output) < 70_000 and "more bytes of output dropped" in load_output


@pytest.mark.long
def test_a_single_file_stops_at_16_mib_and_private_tmp_at_64_mib(graded):
    if ("fill_disk", "bwrap") not in graded:
        pytest.skip(NO_BWRAP)
    found = re.search(r"wrote (\d+) bytes in (\d+) files, the biggest (\d+) bytes",
                      graded["fill_disk", "bwrap"].stdout)
    assert found, graded["fill_disk", "bwrap"].stdout[-3000:]
    total, biggest = int(found.group(1)), int(found.group(3))
    assert 0 < biggest <= 16 << 20
    assert total <= 64 << 20


def test_every_gallery_file_is_in_the_table():
    on_disk = {path.stem for path in HOSTILE.glob("*.py")}
    assert on_disk == set(BY_NAME)
    assert len(on_disk) >= 25


# -- the grader process itself: Ctrl-C and SIGTERM -------------------------------------------

SLOW_CORRECT = HERE / "submissions" / "grader" / "too_slow.py"   # correct, 50 times too slow
INTERRUPTED = "interrupted before the end: the report covers what was finished"


def cpu_seconds(pids) -> float:
    """The CPU time (user + system) the processes ``pids`` have used so far."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as file:
                fields = file.read().rpartition(b")")[2].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / os.sysconf("SC_CLK_TCK")


def hear_ctrl_c() -> None:
    """In the child, before Python starts: SIGINT as a terminal delivers it. A suite run in
    the background of a shell (``pytest &``) inherits SIGINT ignored, and Python then never
    raises KeyboardInterrupt for it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("mode", [
    pytest.param("bwrap", marks=pytest.mark.skipif(not bwrap_available(), reason=NO_BWRAP)),
    pytest.param("fallback", marks=FALLBACK)])
@pytest.mark.parametrize("moment", ["at start", "mid-suite"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_interrupted_grader_exits_130_with_a_report_and_leaves_nothing(
        tmp_path, signum, moment, mode):
    """Ctrl-C or SIGTERM: exit status 130, the report of what was finished, no child left.

    "at start" signals as soon as the sandbox's worker exists (loading the submission,
    calibrating, drawing positions: before the hidden suite runs); "mid-suite" once the
    student's code has run for a while, so that some checks are done.
    """
    marker = f"hx{uuid.uuid4().hex[:12]}"
    submission = tmp_path / f"slow_{marker}.py"
    shutil.copy(SLOW_CORRECT, submission)
    report = tmp_path / "results.json"
    env = dict(os.environ)
    env.pop("TTT_GRADER_NO_BWRAP", None)
    if mode == "fallback":
        env["TTT_GRADER_NO_BWRAP"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "grader", "grade", str(submission),
                             "--json", str(report)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True,
                            preexec_fn=hear_ctrl_c)

    def sandbox() -> set[int]:  # the grader's own command line holds the marker too
        return set(marked(marker)) - {proc.pid}

    try:
        assert wait_for(sandbox, 30), "the sandbox's worker never started"
        if moment == "mid-suite":
            assert wait_for(lambda: cpu_seconds(sandbox()) > 1.0, 60), \
                "the student's code never ran"
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, stderr.decode(errors="replace")[-3000:]
    assert b"Score: " in stdout and b"interrupted before the end" in stdout  # the report
    results = json.loads(report.read_text())
    assert results["extra_data"]["grader_error"] == INTERRUPTED
    assert [test["name"] for test in results["tests"]] == list(ITEMS)
    checks_made = sum(item["total"] for item in results["extra_data"]["items"])
    if moment == "mid-suite":
        assert checks_made > 0 and results["extra_data"]["calls"] > 0
    assert wait_for(lambda: not marked(marker), 2.0), marked(marker)
