"""What every page of ``grader serve`` shares: rendering a template with who is signed in
and the CSRF token, the path of a named route, a refusal as a page or as JSON, and the
error page.

    return render(request, "student_home.html", {"history": rows})
    return RedirectResponse(path_for(request, "submission", number=7), status_code=303)

Every link and redirect is built from a route's name (``Route(..., name="submission")``):
handlers with :func:`path_for`, templates with ``path_for('submission', number=row.id)``
(the app's template global). Both give the path alone (``/submissions/7``), as a page's own
links are: a relative link or redirect stays on the address the browser used.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.templating import Jinja2Templates

from grader.service.course import auth
from grader.service.course.intake import Refused, show_size, show_wait
from grader.service.course.times import show_time

log = logging.getLogger("grader.service")

REQUEST_OVERHEAD = 64 * 1024     # a form's fields and multipart headers around the file

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),      # a sign-in link must not leak as a referrer
    (b"x-frame-options", b"DENY"),
]


def route_path(router: Any, name: str, /, **params: Any) -> str:
    """The path of the route ``name`` of ``router`` (an app's, or a Router) with ``params``,
    each quoted (any student id makes a link that works; a ``path`` parameter is one name).

    >>> from starlette.routing import Route, Router
    >>> router = Router([Route("/instructor/students/{student_id}", None,
    ...                        name="instructor_student")])
    >>> route_path(router, "instructor_student", student_id="ada lovelace")
    '/instructor/students/ada%20lovelace'
    """
    return str(router.url_path_for(name, **{key: quote(str(value), safe="")
                                            for key, value in params.items()}))


def path_for(request: Request, name: str, /, **params: Any) -> str:
    """The path of the app's route ``name`` (see :func:`route_path`), for a redirect."""
    return route_path(request.app.router, name, **params)


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def base_context(request: Request) -> dict[str, Any]:
    session = request.scope.get("session")
    identity = auth.current_identity(request) if "app" in request.scope else None
    settings = getattr(request.app.state, "settings", None) if "app" in request.scope else None
    return {"me": identity, "read_only": bool(getattr(settings, "read_only", False)),
            "csrf": auth.csrf_token(session) if session is not None else "",
            "show_time": _shown_in(request), "show_size": show_size, "show_wait": show_wait}


def _shown_in(request: Request) -> Any:
    """``show_time`` in the course's time zone, for the templates."""
    settings = getattr(request.app.state, "settings", None) if "app" in request.scope else None
    zone = settings.zone if settings is not None else None

    def shown(moment: Any) -> str:
        return show_time(moment, zone)
    return shown


async def read_form(request: Request) -> Any:
    """The request's form, within the limits a hand-in needs (one file, a few fields)."""
    settings = request.app.state.settings
    return await request.form(max_files=2, max_fields=10,
                              max_part_size=settings.max_size * 4 + REQUEST_OVERHEAD)


def render(request: Request, name: str, context: dict[str, Any] | None = None,
           status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A page from ``templates/NAME`` (autoescaped), with ``me`` and ``csrf`` in its context."""
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context or {}, status_code=status_code,
                                      headers={"cache-control": "no-store", **(headers or {})})


def refused(request: Request, problem: Refused, page: str | None = None,
             context: dict[str, Any] | None = None) -> Response:
    headers = {"retry-after": str(problem.retry_after)} if problem.retry_after else None
    if page is None:
        body: dict[str, Any] = {"error": problem.message}
        if problem.retry_after:
            body["retry_after"] = problem.retry_after
        return JSONResponse(body, problem.status, headers=headers)
    return render(request, page, {**(context or {}), "refusal": problem.message},
                  problem.status, headers)



def error_response(request: Request, status: int, message: str, error_id: str | None = None) -> Response:
    if is_api(request):
        body = {"error": message}
        if error_id:
            body["error_id"] = error_id
        response: Response = JSONResponse(body, status)
    else:
        try:
            response = render(request, "error.html",
                              {"status": status, "message": message, "error_id": error_id},
                              status)
        except Exception:           # the page itself failed: plain text, still no traceback
            log.exception("cannot render the error page")
            response = Response(f"{message}\n" + (f"error id {error_id}\n" if error_id else ""),
                                status, media_type="text/plain; charset=utf-8")
    for name, value in SECURITY_HEADERS:        # the outermost handler is outside them
        response.headers.setdefault(name.decode(), value.decode())
    return response


def csv_response(text: str, name: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{name}"',
                             "cache-control": "no-store"})


def with_inline_styles(html: str) -> HTMLResponse:
    """A page of ``batch`` (one file with its own <style>): the CSP allows exactly those
    styles by their hash, and still no script at all."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
        for style in re.findall(r"<style>(.*?)</style>", html, flags=re.S))
    policy = CSP.replace("style-src 'self'", f"style-src 'self' {hashes}".rstrip())
    return HTMLResponse(html, headers={"content-security-policy": policy,
                                       "cache-control": "no-store"})
