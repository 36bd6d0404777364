"""Sign-in tokens, who is signed in, and protection against cross-site requests.

A sign-in token is ``HMAC-SHA256(course key, nonce)`` in URL-safe base64 (256 bits): the
course key (DATA/secret.key, 0600, 32 random bytes) and a random nonce per person. The
database keeps the nonce and the token's SHA-256, never the token: a copy of the database
alone signs nobody in, and ``--links`` can still print every link. Renewing a link draws a
new nonce. Sessions are the server's (:mod:`grader.service.sessions`): the cookie holds a
random id, the database the id's hash with the token's hash, so signing out, a revoked or a
renewed link ends them. Every form that changes something carries the session's CSRF token,
an HMAC of the session id (:func:`csrf_for`, :func:`require_csrf`).

>>> token = derive_token(b"k" * 32, "nonce")
>>> len(token), token == derive_token(b"k" * 32, "nonce")
(43, True)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import Any, Mapping

SECRET_FILE = "secret.key"
SESSION_COOKIE = "ttt_session"
SESSION_MAX_AGE = 30 * 24 * 3600       # a term's sign-in lasts a month; the link signs in again
SESSION_IDLE = 14 * 24 * 3600          # a session unused for two weeks ends (a lost laptop's)
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


class Refusal(Exception):
    """A request the page refuses, with the HTTP status it answers (one error handler in
    ``app`` renders them all: a page, or JSON under /api/)."""

    status = 400
    prefix = ""          # what the message is said after ("you are not signed in: ")

    @property
    def message(self) -> str:
        return self.prefix + str(self)


class CsrfError(Refusal):
    """A form arrived without this session's CSRF token (another site's form, or an old page)."""

    status = 403


def new_nonce() -> str:
    """A fresh random nonce (128 bits) for a person's token."""
    return secrets.token_hex(16)


def derive_token(secret: bytes, nonce: str) -> str:
    """The sign-in token of ``nonce`` under the course key ``secret`` (43 URL-safe characters).

    >>> derive_token(b"k" * 32, "a") != derive_token(b"k" * 32, "b")
    True
    """
    digest = hmac.new(secret, nonce.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def hash_token(token: str) -> str:
    """What the database keeps of a token.

    >>> hash_token("abc")[:8]
    'ba7816bf'
    """
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def same(left: str, right: str) -> bool:
    """Compare two secrets in constant time."""
    return hmac.compare_digest(left.encode(), right.encode())


def load_secret(data: Path) -> bytes:
    """The course key in ``data/secret.key``, created (0600) on the first start."""
    path = Path(data) / SECRET_FILE
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_hex(32) + "\n")
    return bytes.fromhex(path.read_text().strip())


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None.

    >>> bearer_token({"authorization": "Bearer abc"})
    'abc'
    """
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def require_api_csrf(request: Any) -> None:
    """A JSON API call that changes something: a Bearer token (which another site cannot make
    a browser send), or the session's cookie WITH the X-CSRF-Token header; CsrfError else."""
    if bearer_token(request.headers) is None:
        require_csrf(request)


def session_token_hash(session: Mapping[str, Any]) -> str | None:
    """The token hash of a session's mapping (``request.session``), or None without one."""
    value = session.get("token_hash")
    return value if isinstance(value, str) else None


def session_of(request: Any) -> Mapping[str, Any]:
    """``request.session``, or an empty mapping where no session middleware ran (Starlette's
    ``request.session`` asserts instead: a request without one is simply signed out)."""
    scope = getattr(request, "scope", None)
    session = scope.get("session") if scope is not None else getattr(request, "session", None)
    return session if session is not None else {}


def csrf_for(secret: bytes, session_id: str) -> str:
    """The CSRF token of the session ``session_id``: an HMAC under the course key, so it is
    never stored and another site, which cannot read the cookie, cannot compute it.

    >>> csrf_for(b"k" * 32, "a") == csrf_for(b"k" * 32, "a") != csrf_for(b"k" * 32, "b")
    True
    """
    digest = hmac.new(secret, b"csrf\0" + session_id.encode("utf-8", "replace"),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def csrf_token(session: Mapping[str, Any]) -> str:
    """This session's CSRF token, for the forms of a page ("" without a session: a signed-out
    browser has nothing a form could change, and :func:`require_csrf` refuses "").

    >>> csrf_token({"csrf": "t"}), csrf_token({})
    ('t', '')
    """
    token = session.get(CSRF_FIELD)
    return token if isinstance(token, str) else ""


def require_csrf(request: Any, form: Mapping[str, Any] | None = None) -> None:
    """Raise CsrfError unless ``form`` (or, without one, the X-CSRF-Token header) carries
    this session's CSRF token. ``request`` is a Starlette request (its ``session``).

    >>> from types import SimpleNamespace
    >>> request = SimpleNamespace(session={"csrf": "t"}, headers={})
    >>> require_csrf(request, {"csrf": "t"})
    >>> require_csrf(request, {"csrf": "x"})
    Traceback (most recent call last):
    ...
    grader.service.course.auth.CsrfError: this form is out of date or came from another site: \
reload the page and try again
    """
    expected = csrf_token(session_of(request))
    sent = form.get(CSRF_FIELD) if form is not None else request.headers.get(CSRF_HEADER)
    if not (expected and isinstance(sent, str) and same(expected, sent)):
        raise CsrfError("this form is out of date or came from another site: "
                        "reload the page and try again")


# --- who is asking (a Starlette request; the app keeps its Store in app.state.store) -----

class NotSignedIn(Refusal):
    """No valid token or session: the person must open their sign-in link."""

    status = 401
    prefix = "you are not signed in: "


class Forbidden(Refusal):
    """Signed in, but this page is the instructor's."""

    status = 403


def current_identity(request: Any) -> Any:
    """Who is asking: an ``Authorization: Bearer`` token first, else the session; or None.

    The session keeps the token's hash, so a revoked or renewed link signs its sessions out."""
    store = request.app.state.store
    token = bearer_token(request.headers)
    if token is not None:
        return store.identify(token)
    token_hash = session_token_hash(session_of(request))
    return None if token_hash is None else store.identify_hash(token_hash)


def require_student(request: Any) -> Any:
    """The signed-in student's Identity; NotSignedIn otherwise (the instructor: Forbidden)."""
    identity = current_identity(request)
    if identity is None:
        raise NotSignedIn("open the personal sign-in link your instructor sent you")
    if identity.student is None:
        raise Forbidden("this page is a student's: the instructor's pages are under /instructor")
    return identity


def require_instructor(request: Any) -> Any:
    """The instructor's Identity; NotSignedIn or Forbidden otherwise: the course's settings,
    configuration, deadlines, roster, links and LMS connection are the instructor's alone."""
    identity = current_identity(request)
    if identity is None:
        raise NotSignedIn("open the instructor's sign-in link (python -m grader serve --links)")
    if not identity.is_instructor:
        raise Forbidden("this page is the instructor's" + (
            " (a TA grades: the class, submissions, reports and adjustments are open to you)"
            if getattr(identity, "is_grader", False) else ""))
    return identity


def require_grader(request: Any) -> Any:
    """The Identity of the instructor or of a grader (an LMS's TA, signed in by a launch);
    NotSignedIn or Forbidden otherwise: the grading pages (the class, the queue, submissions,
    reports, adjustments, regrades).

        identity = auth.require_grader(request)     # identity.who goes in the change log
    """
    identity = current_identity(request)
    if identity is None:
        raise NotSignedIn("open the instructor's sign-in link (python -m grader serve --links), "
                          "or the tool from the LMS course")
    if not identity.is_grader:
        raise Forbidden("this page is the course staff's")
    return identity
