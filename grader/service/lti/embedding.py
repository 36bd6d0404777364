"""The page inside an LMS's frame: which sites may frame it, and cookies a frame keeps.

Every page says ``frame-ancestors 'none'`` (and X-Frame-Options: DENY) unless platforms are
registered; then the LMSs' origins may frame it (each platform's issuer and login origins,
and the Origin of its instructor's launches: Canvas frames the tool from the school's
domain), so a student's page opens inside the course. Only bare origins reach the policy,
checked when stored and again when read (platforms.bare_origin): a launch's Origin header is
the browser's word, and a learner or a TA can replay their own launch with any header. A refusal page
(and the steps of a cookie-less launch) may be framed by any site: see framable_anywhere.

A cookie that a page in another site's frame must get back is SameSite=None; Secure (and
Partitioned, so that browsers that block third-party cookies keep it for that LMS alone);
browsers take those only over HTTPS, so under http:// it stays SameSite=Lax and a launch in
a frame says plainly that it cannot sign in there, with a link to open it in a new tab.

    app = Starlette(middleware=[Middleware(FrameAncestors, store=store), ...])
    set_frame_cookie(response, "ttt_lti_browser", browser_id, secure=True, max_age=3600)
"""

from __future__ import annotations

import re
import threading
import time
import weakref
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.service.course.storage import Store
from grader.service.lti.platforms import frame_origins
from grader.service.pages.pages import CSP

ORIGINS_TTL = 30.0        # seconds a list of origins is kept (a platform registered meanwhile
                          # from the command line frames the page within this)
NONE = b"frame-ancestors 'none'"
_COOKIE_TOKEN = re.compile(r"[A-Za-z0-9_.~-]+")
_instances: "weakref.WeakSet[FrameAncestors]" = weakref.WeakSet()


def origins_changed() -> None:
    """A platform was registered or launched from a new origin: every page says so at once."""
    for instance in list(_instances):
        instance.forget()


def frame_cookie_header(name: str, value: str, *, secure: bool, max_age: int,
                        httponly: bool = True) -> str:
    """The Set-Cookie value of a cookie a page inside an LMS's frame gets back (see the
    module), built here because Starlette's ``set_cookie(partitioned=True)`` raises below
    Python 3.14 (its ``http.cookies`` lacks Partitioned) and the course runs on 3.10 and up.
    ``name`` and ``value`` are the tool's own (random URL-safe ids), never a request's.

    >>> frame_cookie_header("ttt_lti_browser", "abc", secure=True, max_age=60)
    'ttt_lti_browser=abc; Path=/; Max-Age=60; HttpOnly; Secure; SameSite=None; Partitioned'
    >>> frame_cookie_header("ttt_lti_browser", "abc", secure=False, max_age=60)
    'ttt_lti_browser=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax'
    """
    if not _COOKIE_TOKEN.fullmatch(name) or not _COOKIE_TOKEN.fullmatch(value):
        raise ValueError(f"a frame cookie's name and value are URL-safe tokens, not {name!r}")
    parts = [f"{name}={value}", "Path=/", f"Max-Age={int(max_age)}"]
    if httponly:
        parts.append("HttpOnly")
    # A cross-site frame gets the cookie back only with SameSite=None, which browsers take
    # only with Secure; Partitioned (CHIPS) keeps it for this LMS alone where third-party
    # cookies are blocked.
    parts += ["Secure", "SameSite=None", "Partitioned"] if secure else ["SameSite=Lax"]
    return "; ".join(parts)


def set_frame_cookie(response: Response, name: str, value: str, *, secure: bool,
                     max_age: int, httponly: bool = True) -> None:
    """Set a cookie a page inside an LMS's frame gets back (see the module).

        set_frame_cookie(response, "ttt_session", session.id, secure=True, max_age=3600)
    """
    response.raw_headers.append(
        (b"set-cookie", frame_cookie_header(name, value, secure=secure, max_age=max_age,
                                            httponly=httponly).encode("latin-1")))


def framable_anywhere(response: Response) -> Response:
    """Let any site frame ``response``: only for a refusal page (a launch or login the tool
    refused). Canvas frames the tool from the school's own domain (school.instructure.com),
    neither the issuer nor the login URL, so before a launch records that origin a refusal
    would be blocked and the administrator would see an empty frame. This is safe because a
    refusal page holds no action and nobody's data: no form, no session, no link that signs
    anyone in; framing it lets another site show a message, nothing more (clickjacking
    needs something to click). Every other page keeps ``frame-ancestors 'none'`` until an
    origin is known.

        return framable_anywhere(render(request, "lti_error.html", context, 403))
    """
    response.headers["content-security-policy"] = CSP.replace(NONE.decode(),
                                                              "frame-ancestors *")
    return response


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
