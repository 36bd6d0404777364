"""What the sandbox keeps in when the student's code starts processes or fills the disk,
and without its strong layers (bubblewrap, Landlock).

- Every process a call starts (setsid'd, double-forked, busy on every CPU) is ended when
  the call ends, and its CPU time is the call's: with a cgroup of the worker's own, without
  one (the supervisor, a child subreaper, holds them), and under bubblewrap; what a grader
  killed mid-call left in its cgroup is ended by the next grader.
- Without bubblewrap the scratch folder is watched: a call that writes past 64 MiB is
  stopped, and the folder emptied.
- Without Landlock (a kernel before 5.13, simulated as root by a seccomp filter that makes
  its system calls fail, in a process of its own: ``without_landlock.py``) the worker keeps
  no capability, so file permissions hold: it reads neither a 0600 file in a 0700 folder,
  nor the hidden checks, nor /etc/shadow; or, where file permissions would let it read
  the grader's files, the grader refuses to run it and names the missing layer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from grader.judge.position import Position
from grader.sandbox import Limits, Sandbox, bwrap_available
from grader.sandbox.family import own_cgroup, sweep
from grader.sandbox.layers import bwrap_problem
from fallback import FALLBACK

FAST = Limits(load_seconds=5.0)
HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
ROOT = os.geteuid() == 0
NOT_ROOT = "only root gives a sandbox a uid of its own (and can install the seccomp filter)"


def write(folder: Path, source: str, name: str = "mm_player.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


def marked(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                    cmdline = file.read()
                with open(f"/proc/{entry.name}/stat", "rb") as file:
                    dead = file.read().rpartition(b")")[2].split()[0] in (b"Z", b"X")
            except (OSError, IndexError):
                continue
            if marker.encode() in cmdline and not dead:
                found.append(int(entry.name))
    return found


def gone(marker: str, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while marked(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# -- processes: ended with their call, their CPU time counted ---------------------------------

# Dim 1: the work, done by the worker itself. Dim 2: two busy processes, each setsid'd,
# double-forked and re-pinned to every CPU, each a fresh Python (its command line holds the
# marker) that does the same work, says so, and stays busy; and a sleeping daemon. The call
# returns once all three run.
CHILDREN = """
    import os, sys

    WORK = "total = 0\\nfor i in range(1_000_000):\\n    total += i\\n"

    def start(script, tell):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                try:
                    os.sched_setaffinity(0, range(os.cpu_count()))
                except OSError:
                    pass
                os.set_inheritable(tell, True)
                os.execv(sys.executable, [sys.executable, "-c", script, str(tell), "@MARKER@"])
            os._exit(0)

    def mm_move(board, player):
        if board.get_dim() == 1:
            exec(WORK)
            return 0, (0, 0)
        ready, tell = os.pipe()
        for _ in range(2):
            start("import os, sys\\n" + WORK + "os.write(int(sys.argv[1]), b'x')\\n"
                  "while True:\\n    pass\\n", tell)
        start("import os, sys, time\\nos.write(int(sys.argv[1]), b'x')\\ntime.sleep(60)\\n", tell)
        os.close(tell)
        done = 0
        while done < 3:
            done += len(os.read(ready, 3))
        return 0, (0, 0)
    """

PROCESS_MODES = [
    pytest.param(False, True, id="fallback-cgroup", marks=FALLBACK),
    pytest.param(False, False, id="fallback-subreaper", marks=FALLBACK),
    pytest.param(True, True, id="bwrap",
                 marks=pytest.mark.skipif(not bwrap_available(),
                                          reason=f"bubblewrap is not usable here: "
                                                 f"{bwrap_problem()}")),
]


@pytest.mark.parametrize("use_bwrap, cgroup", PROCESS_MODES)
def test_what_a_call_starts_is_charged_to_it_and_ends_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_bwrap: bool, cgroup: bool) -> None:
    if not cgroup:
        monkeypatch.setenv("TTT_GRADER_NO_CGROUP", "1")
    marker = f"ttt-children-{uuid.uuid4().hex}"
    path = write(tmp_path, CHILDREN.replace("@MARKER@", marker))
    with Sandbox(path, FAST, use_bwrap=use_bwrap) as box:
        alone = box.call("mm_move", Position.empty(1), 20.0)
        children = box.call("mm_move", Position.empty(2), 20.0)
        left = marked(marker)
        after = box.call("mm_move", Position.empty(1), 20.0)
        layers = " ".join(box.isolation)
    assert alone.status == children.status == after.status == "ok", children.error
    # Two processes did the worker's work each: the call is charged for it (about twice
    # the work, and their start; CPU times on a busy machine vary: at least once).
    assert children.cpu_seconds > alone.cpu_seconds > 0, (children, alone)
    assert left == [], "processes the call started outlived it"
    assert after.cpu_seconds < 2 * alone.cpu_seconds  # nothing busy between calls
    assert "every process it starts ended when its call ends" in layers
    assert ("(cgroup)" in layers) is (cgroup and ROOT)
    assert gone(marker, 0.5)


@pytest.mark.skipif(not ROOT or own_cgroup() is None, reason="no cgroup v2 to write here")
def test_what_a_killed_grader_left_in_a_cgroup_is_ended_by_the_next_grader() -> None:
    gone_grader = subprocess.Popen(["true"])
    gone_grader.wait()                        # a pid nobody has now
    left = own_cgroup() / f"ttt-sandbox-{gone_grader.pid}-test"
    left.mkdir()
    student = subprocess.Popen(["sleep", "60"])
    try:
        (left / "cgroup.procs").write_text(str(student.pid))
        sweep(left.parent)
        assert student.wait(timeout=10) == -9
        assert not left.exists()
    finally:
        student.kill()
        student.wait()
        if left.exists():
            left.rmdir()


# -- the disk, without bubblewrap ------------------------------------------------------------

FILL = """
    import os
    def mm_move(board, player):
        home = os.environ["HOME"]
        if board.get_dim() == 1:   # 1 GiB in 16 MiB files (RLIMIT_FSIZE stops one at 16)
            chunk = b"z" * (1 << 20)
            for number in range(64):
                with open(os.path.join(home, "fill%d" % number), "wb") as file:
                    for _ in range(16):
                        file.write(chunk)
                        file.flush()
            return "wrote 1 GiB", (0, 0)
        return sorted(os.listdir(home)), (0, 0)
    """


@FALLBACK
def test_without_bubblewrap_writes_stop_at_64_mib(tmp_path: Path) -> None:
    with Sandbox(write(tmp_path, FILL), FAST, use_bwrap=False) as box:
        fill = box.call("mm_move", Position.empty(1), 60.0)
        after = box.call("mm_move", Position.empty(2), 5.0)
        layers = " ".join(box.isolation)
    assert fill.status == "crash", fill
    written = re.search(r"it wrote (\d+) MiB in its scratch folder, more than the "
                        r"sandbox's 64 MiB", fill.error)
    assert written, fill.error
    # Stopped at the first look past the limit: what one look's time allows, not 1 GiB.
    assert 64 < int(written.group(1)) < 512
    assert after.status == "ok" and after.answer[0] == []   # emptied for the next worker
    assert "scratch folder watched (64 MiB" in layers


# -- without Landlock ----------------------------------------------------------------------

def without_landlock(python: str, submission: Path, calls: list[list[float]],
                     pythonpath: Path = PROJECT) -> dict:
    """Run ``without_landlock.py`` with ``python`` (as root) and read what it printed."""
    spec = json.dumps({"submission": str(submission), "calls": calls})
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    env.pop("TTT_GRADER_NO_BWRAP", None)
    done = subprocess.run([python, str(HERE / "without_landlock.py"), spec], env=env,
                          cwd=pythonpath, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.skipif(not ROOT, reason=NOT_ROOT)
def test_without_landlock_the_grader_refuses_what_file_permissions_cannot_hold(
        tmp_path: Path) -> None:
    # This project's folder (or the Python that runs it) is open to other users: without
    # Landlock nothing but file permissions would keep the student's code out of it.
    ran = Path(tempfile.mkdtemp(prefix="ttt-ran-"))
    ran.chmod(0o777)
    try:
        path = write(tmp_path, f"""
            open({str(ran / "ran")!r}, "w").close()
            def mm_move(board, player):
                return 0, (0, 0)
            """)
        env = dict(os.environ, TTT_GRADER_NO_BWRAP="1")
        done = subprocess.run([sys.executable, str(HERE / "without_landlock.py"), "exec",
                               sys.executable, "-m", "grader", "grade", str(path)],
                              env=env, cwd=PROJECT, capture_output=True, text=True,
                              timeout=240)
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        report = " ".join(done.stdout.split())    # the report wraps its lines
        assert "GRADER ERROR" in report and "the student's code was not run" in report
        assert "neither bubblewrap" in report and "nor Landlock" in report, report
        assert "install bubblewrap" in report
        assert not (ran / "ran").exists()       # no line of the submission ran
    finally:
        shutil.rmtree(ran)


def python_open_to_all() -> str | None:
    """An interpreter every user can run and read (for a worker with no capability)."""
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        folders = [Path(candidate), *Path(candidate).parents]
        try:
            if all(f.stat().st_mode & stat.S_IXOTH for f in folders[1:]) and \
                    Path(candidate).stat().st_mode & stat.S_IROTH:
                return candidate
        except OSError:
            continue
    return None


OPEN_PYTHON = python_open_to_all()

SNOOP = """
    import os, sys, time
    TARGETS = [@TARGETS@]
    WORK = "total = 0\\nfor i in range(2_000_000):\\n    total += i\\n"
    CHILD = ("import os, sys\\n" + WORK + "os.write(int(sys.argv[1]), b'x')\\n"
             "while True:\\n    pass\\n")

    def mm_move(board, player):
        dim = board.get_dim()
        if dim == 1:
            read = []
            for target in TARGETS:
                try:
                    with open(target, "rb") as file:
                        read.append("%s: %r" % (target, file.read(40)))
                except OSError:
                    pass
            with open("/proc/self/status") as file:
                caps = [line.split()[1] for line in file if line.startswith("Cap")]
            return read, caps
        if dim == 2:    # writes 1 GiB in its home
            chunk = b"z" * (1 << 20)
            for number in range(64):
                with open(os.path.join(os.environ["HOME"], "f%d" % number), "wb") as file:
                    for _ in range(16):
                        file.write(chunk)
                        file.flush()
            return "wrote 1 GiB", (0, 0)
        if dim == 3:    # the work, by the worker
            exec(WORK)
        if dim == 4:    # the work, by a setsid'd child that then stays busy
            ready, tell = os.pipe()
            if os.fork() == 0:
                os.setsid()
                os.set_inheritable(tell, True)
                os.execv(sys.executable, [sys.executable, "-c", CHILD, str(tell), "@MARKER@"])
            os.read(ready, 1)
        return 0, (0, 0)
    """


@pytest.mark.skipif(not ROOT, reason=NOT_ROOT)
@pytest.mark.skipif(OPEN_PYTHON is None, reason="no Python here that every user can read")
def test_without_landlock_the_worker_holds_no_capability_and_reads_nothing_private(
        tmp_path: Path) -> None:
    # A copy of the project as an instructor would set it up without bubblewrap or
    # Landlock: the grader's folder closed to other users, provided open to them.
    top = Path(tempfile.mkdtemp(prefix="ttt-no-landlock-"))
    try:
        top.chmod(0o755)
        project = top / "project"
        for package in ("grader", "provided"):
            shutil.copytree(PROJECT / package, project / package,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (project / "grader").chmod(0o700)
        secret_folder = top / "course"
        secret_folder.mkdir(mode=0o700)
        (secret_folder / "secret.key").write_bytes(b"KEY-" + os.urandom(8).hex().encode())
        (secret_folder / "secret.key").chmod(0o600)
        (top / "hand-ins").mkdir(mode=0o700)
        marker = f"ttt-nolandlock-{uuid.uuid4().hex}"
        targets = [secret_folder / "secret.key", project / "grader/suite/test_rubric.py",
                   project / "grader/assignments/montecarlo/test_montecarlo.py",
                   project / "grader/judge/solver.py", "/etc/shadow"]
        path = write(top / "hand-ins", SNOOP.replace("@TARGETS@", ", ".join(
            repr(str(t)) for t in targets)).replace("@MARKER@", marker))
        result = without_landlock(OPEN_PYTHON, path, [[1, 5.0], [2, 60.0], [3, 20.0],
                                                      [4, 20.0]], pythonpath=project)
        assert "replies" in result, result
        (status, answer, error, _), fill, alone, child = result["replies"]
        layers = " ".join(result["isolation"])
        assert status == "ok", error
        read, caps = answer
        assert read == []                                # file permissions held
        assert caps == ["0000000000000000"] * 5          # CapInh, Prm, Eff, Bnd, Amb
        assert "no capabilities (all five sets empty)" in layers
        assert "no landlock: file permissions alone" in layers
        assert fill[0] == "crash" and "MiB in its scratch folder" in fill[2]
        assert alone[0] == child[0] == "ok"
        # The child's work is the call's: counted from /proc while it lives (every few
        # hundredths of a second, so not to the tick; a third off under a busy machine).
        assert child[3] > 0.5 * alone[3] > 0
        assert gone(marker, 0.5)                           # and it ended with it

        # The same installation with the grader's folder open to every user: refused.
        (project / "grader").chmod(0o755)
        result = without_landlock(OPEN_PYTHON, path, [[1, 5.0]], pythonpath=project)
        assert "refused" in result, result
        assert f"out of {project / 'grader'}" in result["refused"], result["refused"]
        assert f"chmod o-rwx {project / 'grader'}" in result["refused"]
    finally:
        shutil.rmtree(top, ignore_errors=True)
