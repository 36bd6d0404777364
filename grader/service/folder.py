"""The course's folder is the instructor's alone: the folder 0700, its files 0600.

It holds the course key (secret.key signs every link), the database (every student's files,
grades and the hashes of their links) and the files being graded; nobody else on the machine
should list or read any of it. A new folder is made private; one made by an earlier release
(0755, its database 0644) is tightened when the server starts, and each change is told.

    for message in secure_course_folder(Path("ttt-course")):
        print(message)          # made ttt-course 0700 (was 0755): ...

Grading is unaffected: the grading runs read DATA/work/ as the server's own user (root or
not), and the sandbox gets a copy of the submission in a folder of its own.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
# The subfolders the service writes the course's data in (the queue's, the instructor's).
COURSE_SUBFOLDERS = ("work", "configs", "similarity")


def secure_course_folder(data: Path) -> list[str]:
    """Make ``data`` 0700 (created so when missing) and every file directly in it or in its
    course subfolders (work, configs, similarity) 0600, their folders 0700: one message per
    change made (none for a folder that was private already). Only what others could read
    is changed (a file 0400 stays so); symbolic links are never followed.

    >>> import tempfile
    >>> data = Path(tempfile.mkdtemp()) / "course"
    >>> secure_course_folder(data), oct(data.stat().st_mode & 0o777)
    ([], '0o700')
    >>> (data / "notes.txt").write_text("x"); (data / "notes.txt").chmod(0o644)
    1
    >>> secure_course_folder(data)[0].endswith("notes.txt 0600 (was 0644): other users could "
    ...                                        "read it")
    True
    """
    data = Path(data)
    if not data.exists():
        data.mkdir(mode=FOLDER_MODE, parents=True)
        data.chmod(FOLDER_MODE)                   # mkdir's mode passes through the umask
        return []
    if data.is_symlink() or not data.is_dir():
        raise NotADirectoryError(f"{data} is not a folder: give --data the course's folder "
                                 "(it is made when missing)")
    messages: list[str] = []
    _tighten(data, messages)
    for entry in sorted(data.iterdir()):
        if entry.is_symlink():
            continue
        if entry.is_file():
            _tighten(entry, messages)
        elif entry.is_dir() and entry.name in COURSE_SUBFOLDERS:
            for folder, folders, files in os.walk(entry):    # does not follow links
                _tighten(Path(folder), messages)
                for name in sorted(files):
                    _tighten(Path(folder) / name, messages)
    return messages


def _tighten(path: Path, messages: list[str]) -> None:
    """Make ``path`` 0700 (a folder) or 0600 (a regular file) if others may use it."""
    info = path.lstat()
    if stat.S_ISDIR(info.st_mode):
        mode, why = FOLDER_MODE, "other users could list and open the course's files"
    elif stat.S_ISREG(info.st_mode):
        mode, why = FILE_MODE, "other users could read it"
    else:                                         # a link, a socket: nothing to read here
        return
    was = stat.S_IMODE(info.st_mode)
    if not was & 0o077:
        return
    try:
        os.chmod(path, mode)          # lstat said it is no link (Linux cannot chmod one)
    except OSError as problem:
        messages.append(f"cannot make {path} {mode:04o} (it is {was:04o}): "
                        f"{problem.strerror}; run chmod {mode:o} {path} as its owner")
        return
    messages.append(f"made {path} {mode:04o} (was {was:04o}): {why}")
