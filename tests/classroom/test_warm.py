"""grader.classroom.warm: a grade forked by a warm server is the grade a fresh process gives.

The comparisons grade real submissions cold (``TTT_GRADER_COLD=1``: a ``python -m grader
grade`` subprocess) and warm (forked by this thread's warm server) and compare their
results.json apart from what is a time (or the sandbox's random uid): see ``comparable``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.classroom import run, warm
from grader.classroom.run import GradingOptions, run_grade

HERE = Path(__file__).resolve().parents[1]   # tests/
SUBMISSIONS = HERE / "submissions"
CORRECT = SUBMISSIONS / "grader" / "correct_pruned.py"

# extra_data's fields that are times (each grade measures them again), and one id.
TIME_FIELDS = {"wall_seconds", "student_cpu_seconds"}
TIMING_TIME_FIELDS = {"budget_seconds", "budget_spent", "empty_board_cpu_seconds",
                      "ratio_4x4", "reference_empty_board_seconds", "reference_per_node_3x3",
                      "reference_timing_seconds", "grader_cpu_seconds",
                      "student_own_cpu_seconds", "careful_round_seconds",
                      # how often the reference was timed again: every so much budget
                      # spent, a time (masked in the report's text too)
                      "calibrations", "speed_checks", "reference_timings",
                      # how many calls near their limits were measured again, and in how
                      # many rounds: times decide both (the verdicts are compared)
                      "retries", "careful_measurements", "careful_rounds"}
_SECONDS = re.compile(r"\d+(\.\d+)? s\b")
_SEARCHES = re.compile(r"\d+(\.\d+)? of (\d+) such searches")
_USED = re.compile(r"\(\d+(\.\d+)? used\)")          # the budget spent, in searches
# The same, as a student reads it, at the end of a paragraph (wrapped anywhere in it).
_TOOK = re.compile(r"as\s+long\s+as\s+\d+(\.\d+)?\s+of\s+them\s+\(about\s+\d+(\.\d+)?\s+s\)")
_UID = re.compile(r"uid \d+")
_TAG = re.compile(r"(TTT_SANDBOX'?(?:: |=)'?)[0-9a-f]{16}")   # each sandbox's random mark
_TIMINGS = re.compile(r"(timings\s+on\s+this\s+run:\s+)\d+")   # a count that follows time
_MASKS = ((_TOOK, "as long as <t> of them (about <t> s)"), (_SECONDS, "<t> s"),
          (_USED, "(<t> used)"), (_SEARCHES, r"<t> of \2 such searches"),
          (_UID, "uid <n>"), (_TAG, r"\1<tag>"), (_TIMINGS, r"\1<n>"))


def _text(text: str) -> str:
    """A report's text with its times (and the sandbox's uid and mark) masked.

    >>> _text("about 4.2 s here (1.1 used), uid 1234, 'TTT_SANDBOX': '6235e4fe872cfb2f'")
    "about <t> s here (<t> used), uid <n>, 'TTT_SANDBOX': '<tag>'"
    >>> _text("your code took as long as 3.0 of\\nthem (about 13\\ns).")
    'your code took as long as <t> of them (about <t> s).'
    >>> _text("(timings on this run: 2; 2.61 s for the empty 3x3 board at the last)")
    '(timings on this run: <n>; <t> s for the empty 3x3 board at the last)'
    """
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    return text


def comparable(results: str) -> dict:
    """results.json without its times and ids: what must be the same cold and warm. Every
    text has its times masked (a limit is a time: "within its limit of 0.59 s").

    >>> a = comparable('{"execution_time": 2.1, "output": "1.24 s CPU", "extra_data": '
    ...                '{"wall_seconds": 2.0, "timing": {"ratio_4x4": 1.3, "factor": 5}}}')
    >>> a == {"output": "<t> s CPU", "extra_data": {"timing": {"factor": 5}}}
    True
    """
    data = json.loads(results)
    data.pop("execution_time", None)
    extra = data.get("extra_data", {})
    for name in TIME_FIELDS:
        extra.pop(name, None)
    for name in TIMING_TIME_FIELDS:
        extra.get("timing", {}).pop(name, None)
    return _masked(data)


def _masked(value: object) -> object:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return [_masked(item) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item) for key, item in value.items()}
    return value


def grade(path: Path, scratch: Path, cold: bool, monkeypatch: pytest.MonkeyPatch,
          **kwargs) -> run.Attempt:
    with monkeypatch.context() as patch:
        if cold:
            patch.setenv(warm.COLD_VARIABLE, "1")
        else:
            patch.delenv(warm.COLD_VARIABLE, raising=False)
        attempt = run_grade(path, path.stem, GradingOptions(), scratch, slot=0, **kwargs)
    assert attempt.warm is not cold
    return attempt


def same_grade(cold: run.Attempt, hot: run.Attempt) -> None:
    assert (hot.returncode, hot.timed_out, hot.stopped) == \
        (cold.returncode, cold.timed_out, cold.stopped)
    assert cold.results is not None and hot.results is not None
    assert comparable(hot.results) == comparable(cold.results)
    assert _text(hot.report) == _text(cold.report)
    assert _text(hot.errors) == _text(cold.errors)


needs_fork = pytest.mark.skipif(not warm.fork_available(), reason="no fork: always cold")


@pytest.fixture(autouse=True)
def fresh_servers():
    warm.close_all()
    yield
    warm.close_all()


GALLERY = [SUBMISSIONS / "grader" / "correct_pruned.py",
           SUBMISSIONS / "grader" / "bug_no_clone.py",     # failures with calls, a changed board
           SUBMISSIONS / "grader" / "bug_crash.py",
           SUBMISSIONS / "hostile" / "kill_parent.py",
           SUBMISSIONS / "hostile" / "patch_provided.py",
           SUBMISSIONS / "timing" / "sleeper.py"]


@pytest.mark.long
@needs_fork
@pytest.mark.grades(2 * len(GALLERY), jobs=2)
def test_warm_grades_are_cold_grades(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cold grades on one CPU and the warm ones on the other, at once, as `batch --jobs
    # 2` runs two grades (the warm ones on the process's warm server, the cold ones on none).
    monkeypatch.delenv(warm.COLD_VARIABLE, raising=False)

    def grade_all(cold: bool) -> list[run.Attempt]:
        kind, slot = ("cold", 0) if cold else ("warm", 1)
        attempts = []
        for path in GALLERY:
            scratch = tmp_path / f"{path.stem}-{kind}"
            attempt = run_grade(path, path.stem, GradingOptions(), scratch, slot=slot,
                                env={warm.COLD_VARIABLE: "1"} if cold else None)
            assert attempt.warm is not cold
            attempts.append(attempt)
        return attempts

    with ThreadPoolExecutor(max_workers=2) as pool:
        colds, hots = pool.map(grade_all, (True, False))
    for cold, hot in zip(colds, hots):
        same_grade(cold, hot)


@pytest.mark.long
@needs_fork
@pytest.mark.grades(4, jobs=1)
def test_a_hostile_grade_leaves_nothing_for_the_next(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cold = grade(CORRECT, tmp_path / "cold", True, monkeypatch)
    for name in ("daemon", "patch_provided"):   # processes left running; a patched module
        hostile = grade(SUBMISSIONS / "hostile" / f"{name}.py", tmp_path / name, False,
                        monkeypatch)
        assert hostile.complete
    server = warm.server_for(dict(os.environ))
    after = grade(CORRECT, tmp_path / "after", False, monkeypatch)
    assert warm.server_for(dict(os.environ)) is server   # the same server all along
    same_grade(cold, after)


@needs_fork
def test_exit_status_and_output_of_a_usage_error(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "missing.py"
    cold = grade(missing, tmp_path / "cold", True, monkeypatch)
    hot = grade(missing, tmp_path / "warm", False, monkeypatch)
    assert cold.returncode == hot.returncode == 2
    assert hot.errors == cold.errors and "there is no file" in hot.errors
    assert hot.results is None and cold.results is None


@needs_fork
@pytest.mark.grades(1)
def test_a_warm_grade_over_its_timeout_is_stopped_with_its_group(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = time.monotonic()
    attempt = grade(CORRECT, tmp_path / "slow", False, monkeypatch, timeout=0.5, grace=0.5)
    assert attempt.timed_out and not attempt.complete
    assert time.monotonic() - started < 30
    # The server took the next grade as usual: the stopped one was reaped.
    assert warm.server_for(dict(os.environ)).alive()


@needs_fork
def test_a_stopped_warm_grade_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    attempt = grade(CORRECT, tmp_path / "stopped", False, monkeypatch,
                    should_stop=lambda: True)
    assert attempt.stopped and not attempt.timed_out
    # SIGTERM ends a grade as Ctrl-C does: exit 130, its report says it was interrupted.
    assert attempt.returncode in (130, -signal.SIGTERM, -signal.SIGKILL)


def test_cold_when_asked_or_when_fork_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not warm.warm_wanted({warm.COLD_VARIABLE: "1"})
    with pytest.raises(warm.WarmUnavailable):
        warm.server_for({warm.COLD_VARIABLE: "1"})
    monkeypatch.delattr(socket, "send_fds", raising=False)
    assert not warm.fork_available() and not warm.warm_wanted({})
    with pytest.raises(warm.WarmUnavailable):
        warm.server_for({})


@needs_fork
def test_a_server_is_replaced_when_the_environment_or_the_code_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    environ = dict(os.environ)
    server = warm.server_for(environ)
    assert warm.server_for({**environ, "TTT_GRADER_CPU": "1"}) is server   # per grade
    other = warm.server_for({**environ, "TTT_GRADER_NO_BWRAP": "1"})
    assert other is not server and not server.alive()
    assert other.environ["TTT_GRADER_NO_BWRAP"] == "1"
    monkeypatch.setattr(warm, "source_stamp", lambda home=warm.HOME: ())
    assert warm.server_for({**environ, "TTT_GRADER_NO_BWRAP": "1"}) is not other


@needs_fork
def test_the_threads_that_grade_in_turn_share_one_server_that_outlives_them() -> None:
    # batch and the page grade on 2 * jobs threads that take turns: one server per grade at
    # once, not one per thread (each server's start is a second of preloading).
    environ = dict(os.environ)
    taken: list[warm.WarmServer] = []

    def one_grade() -> None:
        server = warm.take(environ)
        taken.append(server)
        warm.give_back(server)

    for _ in range(2):
        thread = threading.Thread(target=one_grade)
        thread.start()
        thread.join()
    assert taken[0] is taken[1] and taken[0].alive()     # its first thread has ended
    first, second = warm.take(environ), warm.take(environ)   # two grades at once
    assert first is taken[0] and second is not first
    warm.give_back(first)
    warm.give_back(second)
    assert warm.server_for(environ) in (first, second)


@needs_fork
def test_a_server_killed_between_grades_is_started_again(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    server = warm.server_for(dict(os.environ))
    server._process.kill()
    server._process.wait()
    hot = grade(tmp_path / "missing.py", tmp_path / "again", False, monkeypatch)
    assert hot.returncode == 2 and warm.server_for(dict(os.environ)) is not server


@needs_fork
def test_a_server_killed_during_a_grade_is_a_failed_attempt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = warm.server_for(dict(os.environ))

    def kill_the_server() -> bool:
        if server.alive():
            os.kill(server._process.pid, signal.SIGKILL)
        return False

    attempt = grade(CORRECT, tmp_path / "lost", False, monkeypatch,
                    should_stop=kill_the_server)
    assert attempt.returncode is None and not attempt.complete
    assert "grade it again" in attempt.errors


def test_the_server_is_never_used_for_another_command(tmp_path: Path) -> None:
    with pytest.raises(warm.WarmUnavailable):
        run._start_warm(["/bin/true"], dict(os.environ), 1, 2)


def test_a_started_server_runs_without_threads() -> None:
    # The server forks: it must not import anything that starts a thread.
    done = subprocess.run(
        [run.sys.executable, "-c", "import threading; from grader.classroom import warm; "
         "warm.preload(); print(threading.active_count())"],
        cwd=run.GRADER_HOME, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "1", done.stderr


@needs_fork
def test_a_forked_copy_of_the_caller_starts_its_own_server() -> None:
    server = warm.server_for(dict(os.environ))
    server.owner = -1     # as a forked copy of this process would see it
    other = warm.server_for(dict(os.environ))
    assert other is not server and other.owner == os.getpid()
    # Only our copy of its connection was closed: the server itself is not ours to end.
    assert server._process.returncode is None
    server._process.wait(timeout=30)   # (here no one else holds it: it ends by itself)


@pytest.mark.parametrize("code, status", [(3, 3), (None, 0), (0, 0)])
def test_a_grade_ends_as_an_ordinary_exit_would(code: int | None, status: int) -> None:
    """end_grade skips the heap's teardown, not what anyone sees: the atexit handlers run
    (weakref finalizers among them), buffered output is written, the status is kept."""
    program = ("import atexit, sys, weakref\n"
               "from grader.classroom.warm import end_grade\n"
               "class Box: pass\n"
               "box = Box()\n"
               "weakref.finalize(box, print, 'finalized', end=' ')\n"
               "atexit.register(print, 'atexit', end=' ')\n"
               "print('buffered', end=' ')\n"
               "sys.stderr.write('err')\n"
               f"end_grade({code!r})\n"
               "print('not reached')\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=warm.HOME)
    assert done.returncode == status
    assert done.stdout.split() == ["buffered", "atexit", "finalized"]
    assert done.stderr == "err"


def test_a_grade_with_a_thread_still_running_ends_the_ordinary_way() -> None:
    program = ("import threading, time\n"
               "from grader.classroom.warm import end_grade\n"
               "threading.Thread(target=lambda: (time.sleep(0.3), print('joined'))).start()\n"
               "end_grade(4)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=warm.HOME)
    assert done.returncode == 4 and done.stdout == "joined\n"


def test_the_server_probes_bubblewrap_again_not_once_for_good(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # preload probes it for every grade to come; once the probe is PROBE_SECONDS old the
    # server asks the machine again before a fork; a failed probe is not kept for the
    # grades (each probes for itself, as a cold grade does).
    from grader.sandbox import layers
    runs = []
    monkeypatch.setattr(layers.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(layers.subprocess, "run", lambda *a, **k: runs.append(a) or
                        subprocess.CompletedProcess(a, 0, b"", b""))
    layers.bwrap_problem.cache_clear()
    try:
        warm.probe_bubblewrap()
        assert layers.bwrap_problem() is None and len(runs) == 1   # probed once
        warm.probe_if_stale()                    # fresh: nothing asked again
        assert len(runs) == 1
        monkeypatch.setattr(layers.shutil, "which", lambda name: None)
        assert layers.bwrap_problem() is None    # a grade now reads the server's probe
        monkeypatch.setattr(warm, "PROBE_SECONDS", 0.0)
        warm.probe_if_stale()                    # stale: probed again, and it failed
        assert layers.bwrap_problem.cache_info().currsize == 0   # not kept for the grades
        assert layers.bwrap_problem() == "bwrap is not installed"
    finally:
        layers.bwrap_problem.cache_clear()
