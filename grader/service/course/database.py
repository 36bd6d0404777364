"""The course's SQLite file: one connection for writes, one per thread for reads.

WAL mode, ``synchronous=FULL`` (a commit is on the disk when it returns: what the page calls
"received" survives a SIGKILL), foreign keys on. Writes go through one connection under a
lock, as one ``BEGIN IMMEDIATE`` transaction each; reads use a connection of the calling
thread, never behind the writer's lock (WAL lets them read while a commit waits for the
disk), so a page does not wait for a grader. Inside a transaction, reads see its writes.

    database = Database(Path("ttt-course/course.sqlite3"))
    with database.transaction() as db:
        db.execute("INSERT INTO settings VALUES ('a', 'b')")
    database.query("SELECT value FROM settings WHERE key = ?", ("a",))[0]["value"]   # 'b'

The schema is not this module's: :mod:`grader.service.course.schema` brings a file up to date.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator


class Database:
    """One SQLite file, shared by the web server's and the grading threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        if not self.path.exists():   # the course's data is the instructor's alone; SQLite
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))  # gives -wal its mode
        self._db = self._connect(check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._readers = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._writing: int | None = None               # the thread inside a transaction

    def _connect(self, check_same_thread: bool = True) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, check_same_thread=check_same_thread,
                                     isolation_level=None, timeout=30.0)
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA synchronous=FULL")     # "received" means on the disk
        connection.execute("PRAGMA foreign_keys=ON")
        return connection

    def _reader(self) -> sqlite3.Connection:
        """This thread's connection for reading (the writer's, inside a transaction)."""
        if self._writing == threading.get_ident():
            return self._db
        connection = getattr(self._readers, "connection", None)
        if connection is None:
            connection = self._readers.connection = self._connect(check_same_thread=False)
            with self._lock:
                self._opened.append(connection)
        return connection

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``with database.transaction() as db:`` one atomic write (BEGIN IMMEDIATE);
        an exception rolls it back. Nested use in one thread joins the outer one."""
        with self._lock:
            if self._writing == threading.get_ident():
                yield self._db
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._writing = threading.get_ident()
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
            finally:
                self._writing = None

    def script(self, sql: str) -> None:
        """Run a script of statements outside any transaction (for the schema's DDL)."""
        with self._lock:
            self._db.executescript(sql)

    def query(self, sql: str, parameters: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Every row ``sql`` selects."""
        return self._reader().execute(sql, tuple(parameters)).fetchall()

    def one(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Row | None:
        """The first row ``sql`` selects, or None."""
        rows = self.query(sql, parameters)
        return rows[0] if rows else None

    def close(self) -> None:
        with self._lock:
            self._db.close()
            for connection in self._opened:
                with contextlib.suppress(sqlite3.ProgrammingError):   # another thread's
                    connection.close()
