"""The worker's process: start it, talk to it over its pipes, and kill it with everything
it started.

Three pipes: requests in, answers out, the student's output out (capped, drained as it
comes, so that printing never clogs the answers).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import select
import signal
import subprocess
import time
from pathlib import Path

from grader.sandbox.clock import Late, ProcessClock, Watch
from grader.sandbox.errors import SandboxError
from grader.sandbox.family import Cgroup, Family, children
from grader.sandbox.layers import BOX, INSIDE, bwrap_command, landlock_rules, layout
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import MAX_ANSWER, Broken
from grader.sandbox.uids import kill_uid

BOOTSTRAP = ("import sys; sys.path[0:0] = [sys.argv[1]]; import worker; "
             "worker.main(sys.argv[2])")


def tail(output: str, lines: int = 5) -> str:
    kept = [line for line in output.strip().splitlines() if line.strip()][-lines:]
    return ("; its last output:\n" + "\n".join(kept)) if kept else ""


class Capture:
    """Bounded output: keeps the first ``limit`` bytes, counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def clear(self) -> None:
        self.data.clear()
        self.dropped = 0

    def take(self) -> str:
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped:,} more bytes of output dropped]"
        self.clear()
        return text


class Worker:
    """One child process and its three pipes: requests in, answers out, output out."""

    def __init__(self, proc: subprocess.Popen, requests: int, answers: int, output: int,
                 info: int | None, limit: int, tag: bytes, uid: int | None) -> None:
        self.proc = proc
        self.tag = tag
        self.uid = uid
        self.requests = requests
        self.answers = answers
        self.output_fd: int | None = output
        self.info = info
        self.init_pid: int | None = None
        self.clock = ProcessClock(proc.pid)   # the worker itself once find_pid has run
        # Every process below the supervisor (or bubblewrap's init), once find_pid has run.
        self.family = Family(proc.pid, proc.pid, frozenset({proc.pid}))
        self.output = Capture(limit)
        self.buffer = bytearray()
        self.poll = select.poll()
        self.poll.register(answers, select.POLLIN)
        self.poll.register(output, select.POLLIN)
        self.stopped = False
        # Whether it may have run student code: then, without a pid namespace or a cgroup
        # that was seen empty, every process of its uid (or mark) is swept when it stops.
        self.untrusted = True

    @classmethod
    def start(cls, box: Path, name: str, limits: Limits, bwrap: bool, uid: int | None,
              read_cap: bool, inside: Path = INSIDE) -> "Worker":
        """Start a worker (its own code in ``inside``): under bubblewrap, or outside it
        below a supervisor (``inside/confine.supervise``)."""
        paths = layout()
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        out_r, out_w = os.pipe()
        info_r, info_w = os.pipe() if bwrap else (None, None)
        seen_as = BOX if bwrap else str(box)
        home = "/tmp" if bwrap else str(box / ".tmp")
        config = {"req": req_r, "ans": ans_w, "box": seen_as, "file": name,
                  "supervise": not bwrap, "path": list(paths.sys_path), "uid": uid,
                  "gid": uid, "read_cap": read_cap,
                  "landlock": landlock_rules(paths, seen_as, home),
                  "rlimits": {"AS": limits.memory_bytes, "FSIZE": limits.file_bytes,
                              "NOFILE": limits.open_files, "NPROC": limits.processes,
                              "CORE": 0}}
        command = [paths.python, "-I", "-S", "-B", "-c", BOOTSTRAP, str(inside),
                   json.dumps(config)]
        # A mark of this worker alone (HOME is /tmp in every bubblewrap sandbox): how the
        # fallback finds what escaped its process group, and nothing of another sandbox's.
        tag = f"TTT_SANDBOX={secrets.token_hex(8)}"
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": home, "TMPDIR": home, "PYTHONDONTWRITEBYTECODE": "1",
               "TTT_SANDBOX": tag.partition("=")[2]}
        passed = [req_r, ans_w]
        if bwrap:
            assert info_w is not None
            command = bwrap_command(paths, box, limits, env, info_w) + command
            passed.append(info_w)
            env = {"PATH": env["PATH"]}
        try:
            proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out_w,
                                    stderr=out_w, env=env, cwd=box, close_fds=True,
                                    pass_fds=passed, start_new_session=True)
        except OSError as exc:
            for fd in (req_r, req_w, ans_r, ans_w, out_r, out_w, info_r, info_w):
                if fd is not None:
                    os.close(fd)
            raise SandboxError(f"cannot start {command[0]}: {exc}") from None
        for fd in passed + [out_w]:
            os.close(fd)
        for fd in (ans_r, out_r, req_w, info_r):
            if fd is not None:
                os.set_blocking(fd, False)
        return cls(proc, req_w, ans_r, out_r, info_r, limits.output_bytes, tag.encode(), uid)

    def send(self, message: dict) -> None:
        self.clock.at_answer = None  # asked something: no longer idle since its last answer
        data = (json.dumps(message) + "\n").encode()
        while data:
            try:
                data = data[os.write(self.requests, data):]
            except BlockingIOError:  # a big board: wait (briefly) for the worker to read
                writable = select.poll()
                writable.register(self.requests, select.POLLOUT)
                if not writable.poll(1000):
                    raise Broken("stopped reading requests") from None
            except OSError as exc:
                raise Broken(f"stopped reading requests ({exc.strerror})",
                              ended=True) from None

    def receive(self, token: str, deadline: float, check=None) -> dict:
        """The next answer line, which must carry ``token``; drains output meanwhile.

        ``check``, if given, is called at least every few hundredths of a second while
        waiting: it raises Late to stop, or returns how long to wait before the next look.
        """
        pause = Watch.POLL if check is not None else 0.1
        # When the next look is due: a call that floods its output is never quiet, and
        # must still be stopped at its limit, not at the backstop.
        look_at = time.monotonic() + pause
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                try:
                    message = json.loads(line)
                except (ValueError, RecursionError):  # RecursionError: "[[[[...]]]]"
                    raise Broken("sent garbage instead of an answer") from None
                if type(message) is not dict or message.get("tok") != token:
                    raise Broken("sent an answer to a question it was not asked")
                self._drain(limit=16)
                return message
            if len(self.buffer) > MAX_ANSWER:
                raise Broken("sent an answer that is far too long")
            left = deadline - time.monotonic()
            if left <= 0:
                raise Late(backstop=check is not None)
            try:
                events = self.poll.poll(math.ceil(min(left, pause) * 1000))
            except InterruptedError:
                continue
            if not events and self.proc.poll() is not None:
                self._read_answers()
                if b"\n" not in self.buffer:
                    raise Broken("ended", ended=True)
                continue
            for fd, _ in events:
                if fd == self.answers:
                    if not self._read_answers():
                        raise Broken("ended", ended=True)
                elif fd == self.output_fd:
                    self._drain(limit=1)
                else:
                    raise Broken("was closed")
            # Is the call still within its limit? Not asked when an answer has come in.
            if (check is not None and b"\n" not in self.buffer
                    and (not events or time.monotonic() >= look_at)):
                pause = check()
                look_at = time.monotonic() + pause

    def _read_answers(self) -> bool:
        """Move what the answer pipe holds into the buffer; False at end of file."""
        try:
            chunk = os.read(self.answers, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        self.buffer += chunk
        return bool(chunk)

    def _drain(self, limit: int) -> None:
        """Read at most ``limit`` chunks of output: a flood must not starve the answers."""
        for _ in range(limit):
            if self.output_fd is None:
                return
            try:
                chunk = os.read(self.output_fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:  # every writer closed it; the worker may still live
                self.poll.unregister(self.output_fd)
                os.close(self.output_fd)
                self.output_fd = None
                return
            self.output.add(chunk)

    def find_pid(self) -> None:
        """Learn the worker's own pid, so that its clock reads the right process: the one
        child of bubblewrap's init (whose death empties the pid namespace), or of the
        supervisor; and so the family of processes below either."""
        top = self.proc.pid
        if self.info is not None:
            try:
                data = os.read(self.info, 65536).decode()
                pid = json.JSONDecoder().raw_decode(data.lstrip())[0]["child-pid"]
            except (OSError, ValueError, KeyError, TypeError):
                return
            if type(pid) is not int or parent_of(pid) != self.proc.pid:
                return
            self.init_pid = top = pid
        below = children(top)
        worker = below[0] if len(below) == 1 else top   # it has sent its hello: it exists
        if worker != self.clock.pid:
            self.clock.close()
            self.clock = ProcessClock(worker)
        self.family = Family(top, worker, frozenset({self.proc.pid, top, worker}))

    def count_family(self) -> str:
        """From now on, count the CPU time of every process the worker starts as its own
        (and end them with ``end_others``): in a cgroup of its own where one can be had.
        Call it before any student code runs. Says how ("cgroup", "subreaper", ...)."""
        family = self.family
        family.cgroup = Cgroup.make()
        if family.cgroup is not None:
            # Everything there is now is ours: the worker has not loaded the submission.
            pending = [self.proc.pid]
            while pending:
                pid = pending.pop(0)
                family.cgroup.add(pid)
                pending += children(pid)
        self.clock.family = family
        if family.cgroup is not None:
            return "cgroup"
        if self.init_pid is not None:
            return "pid namespace"
        return "subreaper" if family.top != family.worker else "process tree"

    def end_others(self) -> bool:
        """End every process the worker started; whether there was any."""
        return self.family.end_others()

    def stop(self, grace: float = 0.0) -> str:
        """Kill everything; return how the process ended if it ended by itself (waiting
        up to ``grace`` seconds for that). Ctrl-C and SIGTERM wait until it is done."""
        if self.stopped:
            return ""
        blocked = block_interrupts()
        try:
            ended = self._kill_all(grace)
        finally:
            unblock_interrupts(blocked)
        self.stopped = True
        self.clock.close()
        self._drain(limit=16)
        for fd in (self.requests, self.answers, self.output_fd, self.info):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.output_fd = None
        return ended

    def _kill_all(self, grace: float) -> str:
        ended = ""
        try:
            # Bubblewrap and the supervisor both pass a signal N on as status 128 + N.
            ended = describe_exit(self.proc.wait(timeout=grace), True)
        except subprocess.TimeoutExpired:
            pass
        emptied = self.family.end_all()   # while the supervisor still holds the orphans
        if self.init_pid is not None:
            # Killing the namespace's init kills every process in it; bubblewrap reaps it
            # and exits, so once proc.wait() returns nothing of the student's is left.
            kill(self.init_pid, lambda pid: os.kill(pid, signal.SIGKILL))
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        cleared = emptied or (self.init_pid is not None and self.proc.returncode is not None)
        if not cleared:
            # Without a pid namespace: the process group (it outlives its leader while any
            # member lives), then whatever left the group: every process of the sandbox's
            # own uid, or (not root) whatever still carries our HOME in its environment.
            kill(self.proc.pid, lambda pgid: os.killpg(pgid, signal.SIGKILL))
        self.proc.wait()
        if not cleared and self.untrusted:
            if self.uid is not None:
                kill_uid(self.uid)
            kill_tagged(self.tag)  # in case the worker could not become its uid
        self.family.close()
        return ended


def kill(pid: int, how) -> None:
    try:
        how(pid)
    except (ProcessLookupError, PermissionError):
        pass


def block_interrupts() -> set[int] | None:
    """Hold SIGINT and SIGTERM back (they stay pending) while processes are being killed."""
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    except (OSError, ValueError):
        return None


def unblock_interrupts(previous: set[int] | None) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def kill_tagged(tag: bytes) -> None:
    """SIGKILL every process whose environment holds ``tag``: how the fallback finds what
    escaped the process group (a setsid daemon), unless it also replaced its environment."""
    needle = b"\0" + tag + b"\0"
    for _ in range(5):  # a few rounds: one may fork while we look
        found = False
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as file:
                    environ = b"\0" + file.read() + b"\0"
            except OSError:
                continue
            if needle in environ and int(entry.name) != os.getpid():
                kill(int(entry.name), lambda pid: os.kill(pid, signal.SIGKILL))
                found = True
        if not found:
            return


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return int(file.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def describe_exit(code: int | None, wrapped: bool) -> str:
    """How the worker ended, from the status of the process the grader started: itself,
    or one that passes a signal N on as status 128 + N (bubblewrap, the supervisor)."""
    if code is None:
        return ""
    if code < 0 or (wrapped and code > 128):
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        extra = " (out of memory?)" if name == "SIGKILL" else ""
        return f"was killed by {name}{extra}"
    return f"exited with status {code}"
