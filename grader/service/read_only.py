"""``serve --read-only``: look at a course folder (a backup, say) without changing anything of
it. Its files are copied into a temporary folder of this process's own (removed when the
server stops) and the copy is served: the folder itself is only read, never opened as a
database (SQLite would make its -wal and -shm files beside it), its port is not kept, a
folder of an older schema is migrated in the copy only, and the app grades nothing, sends
nothing to an LMS and refuses every request that would change the course (403, saying so).

    copy = snapshot(Path("/var/backups/ttt-grader/2026-12-01"))   # a private temporary folder
    ...                                                            # serve it: read_only=True
    shutil.rmtree(copy)

While a server serves the folder (it holds its lock), its database is copied with SQLite's
online backup instead (a file copied while it is written could be torn); the live server's
-wal and -shm files are there already.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from grader.service.course import serving_lock

DATABASE = "course.sqlite3"
SECRET = "secret.key"
# What is not copied: the files being graded, the lock, the database's own (copied apart).
NOT_COPIED = ("work", serving_lock.LOCK_FILE, DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm")
READS = ("GET", "HEAD", "OPTIONS")
# What a read-only server still takes: signing in and out (sessions of the copy).
SIGNING = ("/signout",)
REFUSAL = ("this server shows a copy of the course read-only (grader serve --read-only): "
           "nothing can be changed here. Change the course on its own server")


class NotACourse(Exception):
    """The folder holds no course to look at; the message says what is missing."""


def snapshot(data: Path) -> Path:
    """A copy of the course folder ``data`` in a new private temporary folder: its database
    (and its -wal, whose changes the copy then holds), key, configurations, LMS key and
    similarity results. NotACourse when ``data`` has no database or no key. Nothing in
    ``data`` is written, made or changed."""
    data = Path(data)
    if not (data / DATABASE).is_file():
        raise NotACourse(f"{data} holds no course ({DATABASE} is missing): give --data the "
                         "course's folder, or the folder of its backup")
    if not (data / SECRET).is_file():
        raise NotACourse(f"{data} has {DATABASE} but no {SECRET} (it signs the links): copy "
                         "it beside the database from the course's folder, as a backup keeps "
                         "them together")
    copy = Path(tempfile.mkdtemp(prefix="ttt-read-only-"))      # 0700
    try:
        for entry in sorted(data.iterdir()):
            if entry.name in NOT_COPIED or entry.is_symlink():
                continue
            if entry.is_dir():
                shutil.copytree(entry, copy / entry.name, symlinks=True)
            elif entry.is_file():
                shutil.copyfile(entry, copy / entry.name)
        if serving_lock.holder(data) is not None:
            _online_backup(data / DATABASE, copy / DATABASE)
        else:
            for name in (DATABASE, f"{DATABASE}-wal"):
                if (data / name).is_file():
                    shutil.copyfile(data / name, copy / name)
        for path in copy.rglob("*"):
            os.chmod(path, 0o700 if path.is_dir() else 0o600)
    except BaseException:
        shutil.rmtree(copy, ignore_errors=True)
        raise
    return copy


def _online_backup(source: Path, target: Path) -> None:
    """Copy the database a server is writing, consistently (SQLite's online backup)."""
    reading = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    written = sqlite3.connect(target)
    try:
        reading.backup(written)
    finally:
        written.close()
        reading.close()


class ReadOnlyDoor:
    """Refuses every request that would change the course (403: a page, or JSON for the
    API), and every LMS route (an LMS cannot launch into a copy); signing in and out, which
    only touch the copy's sessions, pass."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and refused(scope["method"], scope["path"]):
            from grader.service.pages.pages import error_response
            await error_response(Request(scope, receive), 403, REFUSAL)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def refused(method: str, path: str) -> bool:
    """Whether a read-only server refuses ``method path``.

    >>> refused("GET", "/instructor"), refused("POST", "/api/assignments")
    (False, True)
    >>> refused("POST", "/s/abc"), refused("GET", "/lti/login")
    (False, True)
    """
    if path.startswith("/lti/"):
        return True
    if method in READS:
        return False
    return not (path in SIGNING or (path.startswith("/s/") and path.count("/") == 2))


def described(copy: Path, data: Path) -> str:
    """What the start line says of the copy."""
    return (f"read-only: serving a copy of {data}/ made in {copy}/ (removed when this server "
            f"stops); nothing of {data}/ is changed, nothing is graded or sent to an LMS, and "
            "every change is refused")


def remove(copy: Any) -> None:
    """Remove the copy (at the server's end)."""
    shutil.rmtree(copy, ignore_errors=True)
