"""The sandbox's limits: memory, files, processes, output, and how long a call may wait.

>>> Limits().backstop(2.0)
50.0
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Per-sandbox limits.

    A call that waits (sleeps, blocks on input) is stopped ``grace`` seconds past its limit;
    whatever /proc says, the wall-clock backstop of a call is ``backstop(limit)``.

    >>> Limits().backstop(2.0)
    50.0
    """

    memory_bytes: int = 1 << 30     # address space (RLIMIT_AS)
    output_bytes: int = 64 * 1024   # stdout+stderr kept per call and at load; the rest is counted
    load_seconds: float = 10.0      # wall time to import the submission (and time the reference)
    grace: float = 0.1              # seconds a waiting call may run past its limit
    backstop_factor: float = 20.0   # only when /proc cannot be read, or the machine is swamped
    backstop_slack: float = 10.0
    file_bytes: int = 16 << 20      # largest file the student may write (RLIMIT_FSIZE)
    open_files: int = 64            # RLIMIT_NOFILE
    processes: int = 64             # RLIMIT_NPROC; threads count; root ignores it, nobody doesn't
    tmp_bytes: int = 64 << 20       # disk: bubblewrap's private /tmp, the fallback's scratch
    tmp_entries: int = 4096         # files and folders in the fallback's scratch folder

    def backstop(self, limit: float) -> float:
        return limit * self.backstop_factor + self.backstop_slack
