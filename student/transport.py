"""How ``python -m student submit`` speaks to the submission page: one JSON API call with the
student's token (:func:`call`), a redirect followed only for a GET on the page's own origin
(the token never goes elsewhere), a multipart body for the file, and the page's refusals as
messages a student can act on. Standard library only: the handout installs nothing.

    answer = call("http://127.0.0.1:8000", token, "/api/limits")     # {"max_size": ...}
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timedelta
from typing import Any

EXIT_REFUSED, EXIT_USAGE = 1, 2
HTTP_TIMEOUT = 30.0        # seconds for one request; grading itself is waited for by polling


class SubmitError(Exception):
    """Handing in failed; ``exit_status`` says how ``python -m student submit`` ends."""

    exit_status = EXIT_REFUSED


class Refused(SubmitError):
    """The server answered with an error: its message is for the student.

    >>> str(Refused(413, "The file is larger than 256 KiB."))
    'The server refused it: too large: The file is larger than 256 KiB.'
    """

    def __init__(self, status: int, message: str, retry_after: float | None = None) -> None:
        self.status, self.message, self.retry_after = status, message, retry_after
        large = "too large: " if status == 413 and "too large" not in message else ""
        text = f"The server refused it: {large}{message}"
        if retry_after is not None and not _says_when(message):
            text += f" {when_to_retry(retry_after)}"   # the server did not say when: we do
        if status == 401:
            text += ("\nAsk your instructor for a new link, then give it once:\n"
                     "    python3 -m student submit --link NEW_LINK")
        super().__init__(text)


def _says_when(message: str) -> bool:
    """Whether the server's message already says when to try again (the page's rate limit
    does: "you can submit again at 14:02 (in 3 min)"), so the wait is stated once.

    >>> _says_when("you can submit again at 14:02 (in 3 min)"), _says_when("slow down")
    (True, False)
    """
    return "again at " in message or "try again in" in message.lower()


def when_to_retry(seconds: float, now: datetime | None = None) -> str:
    """A rate limit's wait, as a person reads it.

    >>> when_to_retry(125, datetime(2026, 1, 5, 14, 0, 0))
    'Try again in 3 minutes (after 14:02).'
    >>> when_to_retry(20, datetime(2026, 1, 5, 14, 0, 0))
    'Try again in 20 seconds (after 14:00).'
    """
    now = datetime.now() if now is None else now
    after = (now + timedelta(seconds=seconds)).strftime("%H:%M")
    if seconds < 60:
        return f"Try again in {round(seconds)} seconds (after {after})."
    minutes = -(-int(seconds) // 60)
    return f"Try again in {minutes} minute{'s' if minutes != 1 else ''} (after {after})."


def multipart(field: str, filename: str, data: bytes,
               fields: dict[str, str] | None = None) -> tuple[bytes, str]:
    """A multipart/form-data body with one file and text ``fields`` (urllib has no encoder
    for it).

    >>> body, kind = multipart("file", "a.py", b"x = 1", {"assignment": "minimax"})
    >>> body.count(b'name="assignment"'), body.count(b'filename="a.py"'), kind[:19]
    (1, 1, 'multipart/form-data')
    """
    boundary = f"ttt-{uuid.uuid4().hex}"
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
             f"{value}\r\n".encode() for name, value in (fields or {}).items()]
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
            f"filename=\"{quoted}\"\r\nContent-Type: text/x-python\r\n\r\n").encode()
    return (b"".join(parts) + head + data + f"\r\n--{boundary}--\r\n".encode(),
            f"multipart/form-data; boundary={boundary}")


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: scheme, host and port (the scheme's own when none is written).

    >>> origin("http://Page.example:80/s/x") == origin("http://page.example/api")
    True
    >>> origin("http://page.example/") == origin("https://page.example/")
    False
    """
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


class TooLarge(SubmitError):
    """The file is larger than the page takes: it is not sent."""


class Redirected(SubmitError):
    """The page sent a request on elsewhere: another origin (the token is never sent
    there), or a hand-in (a POST is never sent again)."""


class _OwnOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only for a GET and only to the page's own origin (with the token);
    any other stops with :class:`Redirected` before a byte goes to the new address."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> urllib.request.Request | None:
        if origin(newurl) != origin(req.full_url):
            raise Redirected(_elsewhere(req.full_url, newurl))
        if req.get_method() != "GET":
            raise Redirected(f"The submission page answered with a redirect to {newurl}: "
                             "nothing was handed in. Check your link, or ask your instructor "
                             "for the page's address.")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _elsewhere(url: str, newurl: str) -> str:
    """What to say of a redirect to another origin (not followed).

    >>> print(_elsewhere("http://page.example/api/limits", "https://page.example/api/limits"))
    The submission page at http://page.example sent the request on to https://page.example: not followed, and your link's token was not sent there.
    The page is served over HTTPS: give your link once more with https:// in place of http:// (--link https://...).
    """
    old, new = urllib.parse.urlsplit(url), urllib.parse.urlsplit(newurl)
    said = (f"The submission page at {old.scheme}://{old.netloc} sent the request on to "
            f"{new.scheme}://{new.netloc}: not followed, and your link's token was not sent "
            "there.")
    if new.scheme == "https" and old.scheme == "http" and new.hostname == old.hostname:
        return said + ("\nThe page is served over HTTPS: give your link once more with "
                       "https:// in place of http:// (--link https://...).")
    return said + "\nIf the page moved, ask your instructor for its new link."


_OPENER = urllib.request.build_opener(_OwnOrigin)


def _refusal(error: urllib.error.HTTPError) -> Refused:
    """The server's own message from an error answer (JSON ``{"error": ...}``)."""
    try:
        data = json.loads(error.read().decode("utf-8"))
    except (ValueError, OSError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    message = str(data.get("error") or f"HTTP {error.code} {error.reason}")
    retry = data.get("retry_after", error.headers.get("Retry-After") if error.headers else None)
    try:
        retry_after = float(retry) if retry is not None else None
    except (TypeError, ValueError):
        retry_after = None
    return Refused(error.code, message, retry_after)


def show_size(size: int) -> str:
    """A size as the page says it.

    >>> show_size(5_000_000), show_size(262144), show_size(2000), show_size(300)
    ('4.8 MiB', '256 KiB', '2.0 KiB', '300 bytes')
    """
    if size < 1024:
        return f"{size} bytes"
    if size < 10 * 1024:
        return f"{size / 1024:.1f} KiB"
    if size < 1024 * 1024:
        return f"{size // 1024} KiB"
    return f"{size / 1024 / 1024:.1f} MiB"



def call(base: str, token: str, path: str, body: bytes | None = None,
         content_type: str | None = None) -> dict[str, Any]:
    """One JSON API call to the page at ``base`` with the student's ``token`` (a POST when
    there is a ``body``); errors become :class:`SubmitError` with what to do."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(base + path, data=body, headers=headers,
                                     method="POST" if body is not None else "GET")
    try:
        with _OPENER.open(request, timeout=HTTP_TIMEOUT) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise _refusal(error) from None
    except (urllib.error.URLError, OSError) as problem:
        reason = getattr(problem, "reason", problem)
        if body is not None and isinstance(reason, (BrokenPipeError, ConnectionResetError)):
            raise SubmitError(f"The submission page at {base} closed the connection "
                              f"while {show_size(len(body))} were sent: the file is probably "
                              "too large for the page (its limit is on the page).") from None
        raise SubmitError(f"Cannot reach the submission page at {base} ({reason}). "
                          "Check your connection, or ask your instructor whether it is up.") from None
    except ValueError:
        raise SubmitError(f"{base} did not answer as a submission page does (not JSON): "
                          "is the link right?") from None
