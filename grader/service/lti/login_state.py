"""The OIDC login's state, carried by the browser and the LMS, signed: nothing is stored for a
login until its launch succeeds.

Anyone may start a login (``/lti/login`` is anonymous), so a login must cost the server
nothing it keeps: a table of pending logins with a cap lets a flood of anonymous logins push a
real one out before its launch comes back. The state the platform hands back is therefore the
login itself: the platform it is for, when it was made, its nonce, a tag of the browser that
started it (its cookie), and the LMS's storage frame when the login named one, signed with a
key derived from the course's key (HMAC-SHA256). A launch is taken only with a state this
course signed, less than ``LOGIN_SECONDS`` old, from the browser that started it, whose
nonce the id_token carries. Once a launch is admitted, its state is recorded as used
(:func:`use_once`): a state, and so its nonce, signs in once. Those rows come only from
launches that passed every check (an id_token signed by the platform), never from a login.

    key = login_key(store)
    state = LoginState.new(key, platform.id, browser_id, storage=None).encode(key)
    LoginState.decode(key, state)          # the same LoginState, or None if forged

>>> key = b"k" * 32
>>> made = LoginState(platform=3, issued=1_700_000_000, nonce="n0", browser="b0", storage="")
>>> LoginState.decode(key, made.encode(key)) == made
True
>>> LoginState.decode(key, made.encode(key).replace(".3.", ".4.")) is None    # altered
True
>>> LoginState.decode(b"x" * 32, made.encode(key)) is None                      # another key
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import sqlite3
import time
from dataclasses import dataclass
from datetime import timedelta

from grader.service.course import auth
from grader.service.course.storage import Store
from grader.service.course.times import format_time, now, utc_now

LOGIN_SECONDS = 600              # a login's state is good for ten minutes
KEEP_USED = timedelta(days=1)    # used states are kept a day (a state is refused after ten
                                 # minutes anyway: the rows are only what used it)
VERSION = "1"
MAX_STATE = 400                  # a state this tool signs is about 160 characters long


def login_key(store: Store) -> bytes:
    """The key that signs the course's login states: derived from the course's key
    (DATA/secret.key, beside the database), so that a value signed for any other purpose
    is never a state."""
    secret = auth.load_secret(store.path.parent)
    return hmac.new(secret, b"lti login state\0", hashlib.sha256).digest()


def _mac(key: bytes, text: str) -> str:
    digest = hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def browser_tag(key: bytes, browser_id: str) -> str:
    """What a state keeps of the browser id (its cookie): a keyed hash, 128 bits.

    >>> browser_tag(b"k" * 32, "one") != browser_tag(b"k" * 32, "two")
    True
    """
    return _mac(key, "browser\0" + browser_id)[:22]


@dataclass(frozen=True)
class LoginState:
    """One login: ``platform`` (its row id), ``issued`` (Unix seconds), ``nonce``,
    ``browser`` (:func:`browser_tag` of the cookie) and ``storage`` (the LMS's storage
    frame, or "")."""

    platform: int
    issued: int
    nonce: str
    browser: str
    storage: str

    @classmethod
    def new(cls, key: bytes, platform: int, browser_id: str, storage: str | None,
            clock=time.time) -> "LoginState":
        """A fresh login: a random nonce, issued now."""
        return cls(platform, int(clock()), secrets.token_urlsafe(32),
                   browser_tag(key, browser_id), storage or "")

    def encode(self, key: bytes) -> str:
        """The state to send: its fields and their signature, dot-separated (no field holds
        a dot: numbers, URL-safe base64, a storage frame's name)."""
        payload = ".".join((VERSION, str(self.platform), str(self.issued), self.nonce,
                            self.browser, self.storage))
        return f"{payload}.{_mac(key, payload)}"

    @classmethod
    def decode(cls, key: bytes, state: str) -> "LoginState | None":
        """The login ``state`` says, if this course signed it (whatever its age); else None."""
        if len(state) > MAX_STATE:
            return None
        payload, _, signature = state.rpartition(".")
        if not hmac.compare_digest(signature.encode("ascii", "replace"),
                                   _mac(key, payload).encode("ascii")):
            return None
        parts = payload.split(".")
        if len(parts) != 6 or parts[0] != VERSION or not parts[1].isdigit() \
                or not parts[2].isdigit():
            return None
        return cls(int(parts[1]), int(parts[2]), parts[3], parts[4], parts[5])

    def expired(self, moment: float) -> bool:
        """Whether the login is too old for its launch at ``moment`` (Unix seconds)."""
        return moment - self.issued > LOGIN_SECONDS

    def from_browser(self, key: bytes, browser_id: str) -> bool:
        """Whether the browser whose cookie holds ``browser_id`` started this login."""
        return hmac.compare_digest(self.browser, browser_tag(key, browser_id))


def digest(value: str) -> str:
    """What the database keeps of a used state (or of a hand-off code)."""
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def was_used(store: Store, state: str) -> bool:
    """Whether a launch with ``state`` was admitted already."""
    return store.database.one("SELECT 1 AS used FROM lti_logins WHERE state_hash = ?",
                              (digest(state),)) is not None


def use_once(db: sqlite3.Connection, state_hash: str, login: LoginState) -> bool:
    """Record the state as used, inside the admitting transaction; False when it was used
    already (a replayed launch). Used states older than a day are forgotten here."""
    db.execute("DELETE FROM lti_logins WHERE created_at < ?", (format_time(now() - KEEP_USED),))
    moment = utc_now()
    return db.execute(
        "INSERT INTO lti_logins (state_hash, nonce, platform, browser_hash, request, "
        "created_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (state_hash) DO NOTHING",
        (state_hash, login.nonce, login.platform, login.browser, "{}", moment,
         moment)).rowcount == 1
