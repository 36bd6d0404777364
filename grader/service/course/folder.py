"""The course's folder is the instructor's alone: the folder 0700, its files 0600.

It holds the course key (secret.key signs every link), the database (every student's files,
grades and the hashes of their links) and the files being graded; nobody else on the machine
should list or read any of it. A new folder is made private; one made by an earlier release
(0755, its database 0644) is tightened when the server starts, and each change is told
that others could have used (something inside a folder that was private already is
tightened without a word: nobody else could reach it). What the server makes while it
serves is private from the start (:func:`private_folder`, :func:`write_private`).

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
    change that others could have used (none inside a folder that was private already).
    Only what others could read is changed (a file 0400 stays so); symbolic links are
    never followed.

    >>> import tempfile
    >>> data = Path(tempfile.mkdtemp()) / "course"
    >>> secure_course_folder(data), oct(data.stat().st_mode & 0o777)
    ([], '0o700')
    >>> (data / "notes.txt").write_text("x"); (data / "notes.txt").chmod(0o644)
    1
    >>> secure_course_folder(data), oct((data / "notes.txt").stat().st_mode)  # unreachable
    ([], '0o100600')
    >>> data.chmod(0o755); (data / "notes.txt").chmod(0o644)
    >>> secure_course_folder(data)[1].endswith("notes.txt 0600 (was 0644): other users could "
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
    data_open = _tighten(data, messages, tell=True)
    for entry in sorted(data.iterdir()):
        if entry.is_symlink():
            continue
        if entry.is_file():
            _tighten(entry, messages, tell=data_open)
        elif entry.is_dir() and entry.name in COURSE_SUBFOLDERS:
            reachable: dict[Path, bool] = {}          # could others reach into the folder
            for folder, folders, files in os.walk(entry):    # does not follow links
                here = Path(folder)
                parent_open = reachable.get(here.parent, data_open)
                reachable[here] = _tighten(here, messages, tell=parent_open) and parent_open
                for name in sorted(files):
                    _tighten(here / name, messages, tell=reachable[here])
    return messages


def private_folder(path: Path) -> Path:
    """Make the folder ``path`` (and each missing parent) 0700 from the start (``mkdir(
    parents=True)`` makes the parents 0755 whatever its mode); an existing one is left.

    >>> import tempfile
    >>> made = private_folder(Path(tempfile.mkdtemp()) / "work" / "7")
    >>> oct(made.stat().st_mode & 0o777), oct(made.parent.stat().st_mode & 0o777)
    ('0o700', '0o700')
    """
    path = Path(path)
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)      # the umask only takes bits away: 0700 stays
        except FileExistsError:                 # another thread made it meanwhile
            pass
    return missing[0] if missing else path


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to the file ``path``, 0600 from the start (and an existing one made so).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "mm_player.py"
    >>> write_private(path, b"x"); oct(path.stat().st_mode & 0o777)
    '0o600'
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(descriptor, "wb") as file:
        os.fchmod(file.fileno(), FILE_MODE)    # a file that was there keeps its mode else
        file.write(data)


def _tighten(path: Path, messages: list[str], tell: bool = True) -> bool:
    """Make ``path`` 0700 (a folder) or 0600 (a regular file) if others may use it; the change
    is told when ``tell`` (others could reach it). True when others could use it."""
    info = path.lstat()
    if stat.S_ISDIR(info.st_mode):
        mode, why = FOLDER_MODE, "other users could list and open the course's files"
    elif stat.S_ISREG(info.st_mode):
        mode, why = FILE_MODE, "other users could read it"
    else:                                         # a link, a socket: nothing to read here
        return False
    was = stat.S_IMODE(info.st_mode)
    if not was & 0o077:
        return False
    try:
        os.chmod(path, mode)          # lstat said it is no link (Linux cannot chmod one)
    except OSError as problem:
        messages.append(f"cannot make {path} {mode:04o} (it is {was:04o}): "
                        f"{problem.strerror}; run chmod {mode:o} {path} as its owner")
        return True
    if tell:
        messages.append(f"made {path} {mode:04o} (was {was:04o}): {why}")
    return True
