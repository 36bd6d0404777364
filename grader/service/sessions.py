"""Sessions the server can end: the browser's cookie holds only a random id, the database
(table ``sessions``) keeps the id's SHA-256 with the hash of the token that signed it in.

Signing out, a revoked or renewed link, an age over ``auth.SESSION_MAX_AGE`` or a silence
over ``auth.SESSION_IDLE`` ends a session: a copy of its cookie then signs nobody in. The
cookie says nothing (no student id, no token hash, no signed payload to decode), and a copy
of the database gives no cookie (only hashes of ids). The CSRF token of a session is an HMAC
of its id under the course key, so it is never stored.

    sessions = Sessions(store.database, secret)
    session = sessions.start(auth.hash_token(token))    # on sign-in: set session.id as cookie
    sessions.find(session.id).token_hash                 # on each request
    sessions.end(session.id)                             # on sign-out

:class:`ServerSessions` is the ASGI middleware that reads the cookie: ``request.session`` is
a read-only mapping (``token_hash`` and ``csrf`` of a live session, empty otherwise) and
:func:`current` the :class:`Session` itself; only :mod:`grader.service.pages.signin` starts and
ends sessions (:func:`set_cookie`, :func:`clear_cookie`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Any, Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from grader.service.course import auth
from grader.service.course.database import Database
from grader.service.course.times import format_time, now

SCOPE_KEY = "ttt.session"     # the request's Session (or None) in the ASGI scope
# How stale seen_at may get before a request writes it again: a page polls every few
# seconds, and a write per request would be a synced transaction per request.
SEEN_EVERY = timedelta(minutes=5)
EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Session:
    """A live session: ``id`` is the cookie's value (never stored), ``token_hash`` the hash
    of the token that signed it in, ``csrf`` the token its forms carry."""

    id: str
    token_hash: str
    csrf: str

    def as_mapping(self) -> Mapping[str, Any]:
        """What ``request.session`` shows of it (read-only: nothing written there is kept)."""
        return MappingProxyType({"token_hash": self.token_hash, auth.CSRF_FIELD: self.csrf})


def hash_id(session_id: str) -> str:
    """What the database keeps of a session id.

    >>> hash_id("abc")[:8]
    'ba7816bf'
    """
    return hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()


class Sessions:
    """The course's sessions (the ``sessions`` table of its database).

    >>> import tempfile, pathlib
    >>> from grader.service.course.schema import migrate
    >>> database = Database(pathlib.Path(tempfile.mkdtemp()) / "course.sqlite3")
    >>> _ = migrate(database)
    >>> sessions = Sessions(database, b"k" * 32)
    >>> session = sessions.start("TOKENHASH")
    >>> sessions.find(session.id) == session, sessions.end(session.id), sessions.find(session.id)
    (True, True, None)
    """

    def __init__(self, database: Database, secret: bytes, *,
                 max_age: int = auth.SESSION_MAX_AGE, idle: int = auth.SESSION_IDLE) -> None:
        self.database = database
        self._secret = secret
        self.max_age = timedelta(seconds=max_age)
        self.idle = timedelta(seconds=idle)

    def _session(self, session_id: str, token_hash: str) -> Session:
        return Session(session_id, token_hash, auth.csrf_for(self._secret, session_id))

    def start(self, token_hash: str) -> Session:
        """A new session for the holder of the token with ``token_hash`` (sessions that can
        no longer be used are purged on the way)."""
        session_id = secrets.token_urlsafe(32)          # 256 bits, the cookie's whole value
        moment = format_time(now())
        with self.database.transaction() as db:
            self._purge(db)
            db.execute("INSERT INTO sessions (id_hash, token_hash, created_at, seen_at) "
                       "VALUES (?, ?, ?, ?)", (hash_id(session_id), token_hash, moment, moment))
        return self._session(session_id, token_hash)

    def lookup(self, session_id: str) -> tuple[Session, bool] | None:
        """The live session ``session_id`` names and whether its ``seen_at`` is due to be
        written again (:meth:`seen`); None when it is unknown, ended, too old or idle too
        long. Reads only."""
        if not session_id or len(session_id) > 200:
            return None
        moment = now()
        row = self.database.one(
            "SELECT token_hash, seen_at < ? AS due FROM sessions WHERE id_hash = ? AND "
            "ended_at IS NULL AND created_at > ? AND seen_at > ?",
            (format_time(moment - SEEN_EVERY), hash_id(session_id),
             format_time(moment - self.max_age), format_time(moment - self.idle)))
        if row is None:
            return None
        return self._session(session_id, row["token_hash"]), bool(row["due"])

    def find(self, session_id: str) -> Session | None:
        """The live session ``session_id`` names (it is seen now), or None."""
        found = self.lookup(session_id)
        if found is None:
            return None
        if found[1]:
            self.seen(session_id)
        return found[0]

    def seen(self, session_id: str) -> None:
        """The session was used now (an idle session ends ``idle`` after this)."""
        with self.database.transaction() as db:
            db.execute("UPDATE sessions SET seen_at = ? WHERE id_hash = ?",
                       (format_time(now()), hash_id(session_id)))

    def end(self, session_id: str) -> bool:
        """End the session ``session_id`` (sign-out): False if it was not live."""
        with self.database.transaction() as db:
            return db.execute("UPDATE sessions SET ended_at = ? WHERE id_hash = ? AND "
                              "ended_at IS NULL", (format_time(now()), hash_id(session_id))
                              ).rowcount == 1

    def end_all(self, token_hash: str) -> int:
        """End every session the token with ``token_hash`` started: how many were live."""
        return end_sessions(self.database, token_hash)

    def purge(self) -> int:
        """Delete the sessions that can no longer be used: how many."""
        with self.database.transaction() as db:
            return self._purge(db)

    def _purge(self, db: Any) -> int:
        moment = now()
        return db.execute("DELETE FROM sessions WHERE ended_at IS NOT NULL OR created_at <= ? "
                          "OR seen_at <= ?", (format_time(moment - self.max_age),
                                              format_time(moment - self.idle))).rowcount


def end_sessions(database: Database, token_hash: str) -> int:
    """End every live session signed in by the token with ``token_hash`` (for a link that is
    revoked or renewed: call it with the old hash): how many were live.

        end_sessions(store.database, auth.hash_token(old_token))
    """
    with database.transaction() as db:
        return db.execute("UPDATE sessions SET ended_at = ? WHERE token_hash = ? AND "
                          "ended_at IS NULL", (format_time(now()), token_hash)).rowcount


def end_student_sessions(database: Database, student_id: str) -> int:
    """End every live session of ``student_id``'s current link (call it before revoking or
    renewing the link): how many were live.

        end_student_sessions(store.database, "alice"); store.set_revoked("alice")
    """
    with database.transaction() as db:
        return db.execute("UPDATE sessions SET ended_at = ? WHERE ended_at IS NULL AND "
                          "token_hash = (SELECT token_hash FROM students WHERE id = ?)",
                          (format_time(now()), student_id)).rowcount


# --- the cookie ------------------------------------------------------------------------------

def set_cookie(response: Response, session: Session, secure: bool) -> None:
    """Name ``session`` in the browser's cookie: HttpOnly (no script reads it), SameSite=Lax
    (another site's form does not send it), Path=/, Secure when the page is served over
    HTTPS; it lasts as long as the session may."""
    response.set_cookie(auth.SESSION_COOKIE, session.id, max_age=auth.SESSION_MAX_AGE,
                        path="/", secure=secure, httponly=True, samesite="lax")


def clear_cookie(response: Response, secure: bool) -> None:
    """Ask the browser to forget the session's cookie (the server has ended it already)."""
    response.delete_cookie(auth.SESSION_COOKIE, path="/", secure=secure, httponly=True,
                           samesite="lax")


def current(connection: HTTPConnection) -> Session | None:
    """The live session of this request's cookie, or None (set by :class:`ServerSessions`)."""
    return connection.scope.get(SCOPE_KEY)


class ServerSessions:
    """ASGI middleware: the session the request's cookie names, if it is live and its link
    still signs someone in. A session whose link was revoked or renewed is ended here, the
    first time its cookie comes back, so that reinstating the link does not revive it."""

    def __init__(self, app: ASGIApp, sessions: Sessions, identify_hash: Any) -> None:
        self.app = app
        self.sessions = sessions
        self.identify_hash = identify_hash        # Store.identify_hash

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        session = None
        session_id = HTTPConnection(scope).cookies.get(auth.SESSION_COOKIE, "")
        found = self.sessions.lookup(session_id) if session_id else None
        if found is not None:
            session, due = found
            if self.identify_hash(session.token_hash) is None:
                await run_in_threadpool(self.sessions.end, session_id)
                session = None
            elif due:              # a write waits for the disk: not on the event loop
                await run_in_threadpool(self.sessions.seen, session_id)
        scope[SCOPE_KEY] = session
        scope["session"] = session.as_mapping() if session is not None else EMPTY
        await self.app(scope, receive, send)

