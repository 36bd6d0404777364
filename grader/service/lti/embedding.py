"""The page inside an LMS's frame: which sites may frame it, and cookies a frame keeps.

Every page says ``frame-ancestors 'none'`` (and X-Frame-Options: DENY) unless platforms are
registered; then the LMSs' origins may frame it (each platform's issuer and login origins,
and the Origin its launches came from), so a student's page opens inside the course.

A cookie that a page in another site's frame must get back is SameSite=None; Secure (and
Partitioned, so that browsers that block third-party cookies keep it for that LMS alone);
browsers take those only over HTTPS, so under http:// it stays SameSite=Lax and a launch in
a frame says plainly that it cannot sign in there, with a link to open it in a new tab.

    app = Starlette(middleware=[Middleware(FrameAncestors, store=store), ...])
    set_frame_cookie(response, "ttt_lti_browser", browser_id, secure=True, max_age=3600)
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.service.lti.platforms import frame_origins
from grader.service.storage import Store

ORIGINS_TTL = 30.0        # seconds a list of origins is kept (a platform registered meanwhile
                          # from the command line frames the page within this)
NONE = b"frame-ancestors 'none'"
_instances: "weakref.WeakSet[FrameAncestors]" = weakref.WeakSet()


def origins_changed() -> None:
    """A platform was registered or launched from a new origin: every page says so at once."""
    for instance in list(_instances):
        instance.forget()


def set_frame_cookie(response: Response, name: str, value: str, *, secure: bool,
                     max_age: int, httponly: bool = True) -> None:
    """Set a cookie a page inside an LMS's frame gets back (see the module)."""
    response.set_cookie(name, value, max_age=max_age, path="/", secure=secure,
                        httponly=httponly, samesite="none" if secure else "lax",
                        partitioned=secure)


class FrameAncestors:
    """ASGI middleware, outside SecurityHeaders: lets the registered LMSs frame the pages."""

    def __init__(self, app: ASGIApp, store: Store, ttl: float = ORIGINS_TTL) -> None:
        self.app = app
        self.store = store
        self.ttl = ttl
        self._lock = threading.Lock()
        self._cached: tuple[float, bytes] | None = None
        _instances.add(self)

    def forget(self) -> None:
        """Read the origins again at the next request (a platform was registered)."""
        with self._lock:
            self._cached = None

    def _ancestors(self) -> bytes:
        with self._lock:
            cached = self._cached
        if cached is not None and time.monotonic() - cached[0] < self.ttl:
            return cached[1]
        origins = frame_origins(self.store)
        value = ("frame-ancestors 'self' " + " ".join(origins)).encode() if origins else NONE
        with self._lock:
            self._cached = (time.monotonic(), value)
        return value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = rewrite(list(message.get("headers", [])),
                                             self._ancestors())
            await send(message)

        await self.app(scope, receive, framed)


def rewrite(headers: list[Any], ancestors: bytes) -> list[Any]:
    """``headers`` with frame-ancestors 'none' replaced by ``ancestors``, and without
    X-Frame-Options wherever the policy lets some site frame the page.

    >>> rewrite([(b"content-security-policy", b"a; frame-ancestors 'none'"),
    ...          (b"x-frame-options", b"DENY")], b"frame-ancestors 'self' https://lms")
    [(b'content-security-policy', b"a; frame-ancestors 'self' https://lms")]
    """
    out = []
    framed = False
    for name, value in headers:
        if name.lower() == b"content-security-policy":
            value = value.replace(NONE, ancestors)
            framed = framed or (b"frame-ancestors" in value and NONE not in value)
        out.append((name, value))
    if framed:      # browsers ignore X-Frame-Options beside frame-ancestors; old ones do not
        out = [(name, value) for name, value in out if name.lower() != b"x-frame-options"]
    return out
