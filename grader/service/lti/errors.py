"""What can go wrong between the page and an LMS, each with a message a person can act on.

    raise LaunchRefused("the launch's token has expired: open the assignment in the LMS again")

:class:`LaunchRefused` is answered with a page (nothing stored); :class:`PlatformError`
is a platform that cannot be reached or refused a call (the outbox retries it);
:class:`RegistrationError` a platform description that cannot be stored.
"""

from __future__ import annotations


class LtiError(Exception):
    """Something about an LMS that a person must act on; ``str()`` says what to do."""


class LaunchRefused(LtiError):
    """A login or launch that does not sign anybody in (``status``: the page's HTTP status).

    >>> LaunchRefused("the state is missing", status=400).status
    400
    """

    def __init__(self, message: str, status: int = 403, retry_url: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_url = retry_url        # where to start again in a new tab (blocked cookies)


class CookiesBlocked(LaunchRefused):
    """The browser did not send back the cookie set for this launch (a third-party frame)."""


class StorageCheck(CookiesBlocked):
    """No cookie came back, but the login put its state in the platform's storage (the LTI
    client-side postMessage storage): the tool's page asks the platform for it before the
    launch completes (see :mod:`grader.service.lti.storage`). Not a refusal: a step."""

    def __init__(self, target: str, platform_origin: str, state: str, id_token: str) -> None:
        super().__init__("checking with the LMS that this launch started in this browser",
                         status=200)
        self.target = target                     # the storage frame's name ("_parent", ...)
        self.platform_origin = platform_origin   # the origin its answers must come from
        self.state = state
        self.id_token = id_token


class PlatformError(LtiError):
    """A call to a platform failed (down, refused, or an answer that cannot be read).

    ``status`` is the HTTP status when the platform answered (None: it did not)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RegistrationError(LtiError):
    """A platform's description (a file, or a Dynamic Registration) that cannot be stored."""
