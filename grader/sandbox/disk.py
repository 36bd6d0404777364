"""The sandbox's folder (the box: a copy of the submission, a scratch folder), and the
fallback's disk limit: a watchdog on the scratch folder.

Under bubblewrap the worker writes only to a private /tmp of ``Limits.tmp_bytes`` (a
tmpfs: a write past it fails). Without bubblewrap its scratch folder (HOME and TMPDIR; with
Landlock the only place it may write) lies on the machine's own disk, so the grader looks at
it while the student's code runs, at most every few hundredths of a second, and stops the
call (or the import) once it holds more than ``Limits.tmp_bytes`` or more than
``Limits.tmp_entries`` files and folders; the folder is then emptied. One file is also
limited by RLIMIT_FSIZE. A call may write a little past the limit before it is stopped:
what it writes in one look's time.

>>> import tempfile
>>> scratch = Scratch(Path(tempfile.mkdtemp()), Limits())
>>> scratch.check(force=True)   # empty: nothing to say
>>> (scratch.folder / "notes.txt").write_bytes(b"x" * 5000)
5000
>>> size, entries = scratch.used()
>>> size >= 5000, entries
(True, 1)
>>> shutil.rmtree(scratch.folder)
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from grader.sandbox.errors import SandboxError
from grader.sandbox.helpers import name_problem
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import Broken


class Overflow(Broken):
    """The student's code wrote more than the sandbox's disk limit."""


class Scratch:
    """The scratch folder of one sandbox and its limits."""

    EVERY = 0.02   # seconds between two looks (each one walks the folder)

    def __init__(self, folder: Path, limits: Limits) -> None:
        self.folder = folder
        self.limit = limits.tmp_bytes
        self.entries = limits.tmp_entries
        self._last = 0.0

    def used(self) -> tuple[int, int]:
        """(bytes, files and folders) below the folder; the walk stops past the entry
        limit (a folder of a million empty files must not cost the grader a second a look).
        A file counts by its size or its blocks, whichever is larger; a hard link once."""
        total = entries = 0
        seen: set[tuple[int, int]] = set()
        folders = [self.folder]
        while folders and entries <= self.entries:
            try:
                listing = os.scandir(folders.pop())
            except OSError:
                continue
            with listing:
                for entry in listing:
                    entries += 1
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISDIR(info.st_mode):
                        folders.append(Path(entry.path))
                    if (info.st_dev, info.st_ino) not in seen:
                        seen.add((info.st_dev, info.st_ino))
                        total += max(info.st_size, info.st_blocks * 512)
        return total, entries

    def check(self, force: bool = False) -> None:
        """Raise Overflow if the folder is past a limit; without ``force``, look only if
        the last look is older than ``EVERY`` seconds."""
        now = time.monotonic()
        if not force and now - self._last < self.EVERY:
            return
        self._last = now
        size, entries = self.used()
        if entries > self.entries:
            raise Overflow(f"was stopped: it made more than {self.entries:,} files and folders "
                           f"in its scratch folder (the sandbox's limit)")
        if size > self.limit:
            raise Overflow(f"was stopped: it wrote {size / (1 << 20):.0f} MiB in its scratch "
                           f"folder, more than the sandbox's {self.limit >> 20} MiB")

    def empty(self) -> None:
        """Remove everything in the folder (the worker that wrote it has been stopped)."""
        try:
            listing = list(os.scandir(self.folder))
        except OSError:
            return
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass


def safe_name(name: str) -> str:
    """The submission's file name if it is a plain one, else submission.py.

    >>> safe_name("mm_player.py"), safe_name("../x.py")
    ('mm_player.py', 'submission.py')
    """
    if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\- ]{0,99}", name):
        return name
    return "submission.py"


def make_box(name: str, source: bytes, uid: int | None,
             helpers: tuple[tuple[str, bytes], ...] = ()) -> Path:
    """A private directory holding only a copy of the submission and of its ``helpers``
    (``grader.sandbox.helpers``: each a module's file name and its content), and, unused
    under bubblewrap, a scratch directory for HOME and TMPDIR, owned by ``uid``."""
    for helper, _ in helpers:   # the chooser's rules, held here too: nothing shadows
        problem = name_problem(helper, name, source.decode("utf-8", "replace"))
        if problem:
            raise SandboxError(f"{helper!r} cannot be copied beside the submission: {problem}")
    box = Path(tempfile.mkdtemp(prefix="ttt-sandbox-"))
    try:
        box.chmod(0o755)  # the sandbox's uid must read it; only the grader may write
        for file_name, data in ((name, source), *helpers):
            (box / file_name).write_bytes(data)
            (box / file_name).chmod(0o644)
        scratch = box / ".tmp"
        scratch.mkdir(mode=0o700)
        if uid is not None:
            os.chown(scratch, uid, uid)
    except BaseException:
        shutil.rmtree(box, ignore_errors=True)
        raise
    return box
