"""Whether a ``grader serve`` is serving a course's folder: a lock on DIR/serving.lock that the
serving process holds (``fcntl.flock``) for as long as it lives.

The kernel lets go of the lock when the process ends however it ends (a crash, SIGKILL, a
reboot), so a server that died leaves no stale lock, as a file holding a process id alone
would; and a port probe would miss a server on another port or address. The file keeps the
process id only to name it in the message.

    lock = take(Path("ttt-course"))       # Serving, when another process serves the folder
    ...                                   # serve; the lock goes with the process
    holder(Path("ttt-course"))            # from another process: "12345" (its id), or None

Only Unix: the service runs there (its sandbox needs Linux).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from grader.service.course.folder import FILE_MODE, private_folder

LOCK_FILE = "serving.lock"


class Serving(Exception):
    """Another process serves the folder; ``pid`` is its process id as it wrote it ("" when
    it had not yet)."""

    def __init__(self, data: Path, pid: str) -> None:
        super().__init__(f"a server is serving {data}/"
                         + (f" (process {pid})" if pid else ""))
        self.data = data
        self.pid = pid


def take(data: Path) -> IO[bytes]:
    """Lock ``data`` (made 0700 when missing) for this process and write its id in the lock
    file; keep the returned file open as long as the process serves (closing it, or the
    process ending, lets go). Serving when another process holds it.

    >>> import tempfile
    >>> data = Path(tempfile.mkdtemp()) / "course"
    >>> lock = take(data); holder(data) == str(os.getpid())
    True
    >>> lock.close(); holder(data) is None
    True
    """
    data = Path(data)
    private_folder(data)
    descriptor = os.open(data / LOCK_FILE, os.O_RDWR | os.O_CREAT, FILE_MODE)
    lock = os.fdopen(descriptor, "r+b")   # not inherited by the programs it starts (PEP 446)
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = lock.read(32).decode("ascii", "replace").strip()
        lock.close()
        raise Serving(data, pid) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()}\n".encode("ascii"))
    lock.flush()
    return lock


def holder(data: Path) -> str | None:
    """The id of the process serving ``data`` ("" when unknown), or None when none does (no
    lock file, or nobody holds it: a server that crashed). Nothing is made or changed."""
    try:
        lock = open(Path(data) / LOCK_FILE, "rb")
    except OSError:
        return None
    with lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return lock.read(32).decode("ascii", "replace").strip()
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        return None
