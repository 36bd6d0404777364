"""A uid of its own for each sandbox (when the grader runs as root), and killing by uid.

A uid no other process has makes the sandbox's process limit its own, keeps it from
signalling or tracing anything else, and lets the grader find and kill everything it
started, whatever it forked or renamed.

>>> pick_uid() in SANDBOX_UIDS
True
"""

from __future__ import annotations

import os
import secrets
import signal
import time


# The uids a sandbox may take as its own when the grader runs as root: far above any real
# user's, and above the ranges that /etc/subuid usually hands out.
SANDBOX_UIDS = range(0x70000000, 0x70000000 + (1 << 24))


def pick_uid() -> int:
    """A uid of ``SANDBOX_UIDS`` that no process has now: the new sandbox's own."""
    used = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            uids = proc_status(entry.name).get("Uid", "").split()
            used.update(int(u) for u in uids)
    while True:
        uid = SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]
        if uid not in used:
            return uid


def kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid``, the sandbox's own, until none is left.

    A short-lived child of ours becomes that uid and calls kill(-1, SIGKILL), which the
    kernel sends, in one sweep, to exactly the processes that uid may signal: no fork can
    slip between a scan and a kill. Zombies do not count; their reaper ends them.
    """
    if uid == 0:
        raise ValueError("refusing to kill every process of root")
    for _ in range(20):
        pid = os.fork()
        if pid == 0:  # the child: syscalls only, then _exit
            code = 0
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                for _ in range(3):
                    os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except BaseException:
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if not processes_of(uid) or os.waitstatus_to_exitcode(status) == 1:
            return
        time.sleep(0.01)


def proc_status(pid: str) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return {}
    return dict(line.partition(":")[::2] for line in text.splitlines())


def processes_of(uid: int) -> list[int]:
    """Pids of the live (not zombie) processes whose real uid is ``uid``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            status = proc_status(entry.name)
            uids = status.get("Uid", "").split()
            zombie = status.get("State", "").strip().startswith("Z")
            if uids and int(uids[0]) == uid and not zombie:
                found.append(int(entry.name))
    return found
