"""Run one sandbox as if the kernel had no Landlock, and print what happened as JSON.

The test's own process must not lose Landlock, so this runs in a process of its own: as
root, it installs a seccomp filter that makes Landlock's three system calls fail with
ENOSYS (as on a kernel before 5.13), for itself and every process it starts (the worker
inherits it), then starts a sandbox without bubblewrap and makes the calls asked for::

    python without_landlock.py '{"submission": PATH, "calls": [[DIM, CPU_LIMIT], ...]}'

It prints ``{"refused": MESSAGE}`` when the sandbox refuses to start, or
``{"isolation": [...], "replies": [[STATUS, ANSWER, ERROR, CPU_SECONDS], ...]}``. Or it runs
a command under the filter (``python without_landlock.py exec python -m grader grade F``).
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
LANDLOCK_CALLS = (444, 446)          # create_ruleset, add_rule, restrict_self (every arch)
ENOSYS = 38


def forbid_landlock() -> None:
    """A seccomp filter: Landlock's system calls fail with ENOSYS, every other one runs."""
    code = [(0x20, 0, 0, 0),                                # A = the system call's number
            (0x35, 0, 2, LANDLOCK_CALLS[0]),                # A < 444: allow
            (0x25, 1, 0, LANDLOCK_CALLS[1]),                # A > 446: allow
            (0x06, 0, 0, 0x00050000 | ENOSYS),              # SECCOMP_RET_ERRNO | ENOSYS
            (0x06, 0, 0, 0x7FFF0000)]                       # SECCOMP_RET_ALLOW

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8),
                    ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(Instruction))]

    instructions = (Instruction * len(code))(*[Instruction(*line) for line in code])
    program = Program(len(code), instructions)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the seccomp filter could not be installed")
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(LANDLOCK_CALLS[0], None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if version >= 0 or ctypes.get_errno() != ENOSYS:
        raise OSError("the seccomp filter did not hide Landlock")


def main() -> None:
    if sys.argv[1] == "exec":
        forbid_landlock()
        os.execvp(sys.argv[2], sys.argv[2:])
    spec = json.loads(sys.argv[1])
    forbid_landlock()
    from grader.judge.position import Position
    from grader.sandbox import Sandbox, SandboxError
    try:
        with Sandbox(Path(spec["submission"]), use_bwrap=False) as box:
            replies = [box.call("mm_move", Position.empty(dim), limit)
                       for dim, limit in spec["calls"]]
            result = {"isolation": list(box.isolation),
                      "replies": [[r.status, r.answer, r.error, r.cpu_seconds] for r in replies]}
    except SandboxError as exc:
        result = {"refused": str(exc)}
    print(json.dumps(result, default=repr))


if __name__ == "__main__":
    main()
