"""The web application of ``grader serve``: student pages, the JSON API, static files, and
the instructor's routes (``grader.service.pages``: ``instructor``, ``roster_routes``,
``gradebook_routes``, ``config_routes``, ``similarity_routes``, ``records_routes``, ...).

    app = create_app(ServiceSettings(data=Path("ttt-course")))
    uvicorn.run(app)

Every page is a Jinja2 template with autoescaping (student text is never marked safe); every
response carries a Content-Security-Policy that forbids inline scripts; every form that
changes something carries the session's CSRF token; an unexpected error shows a page with an
id that the log also has, never a traceback. A student may only see their own submissions:
any other id answers 404 with the same body as a missing one, and so does an id no database
could hold. Sessions are the server's (:mod:`grader.service.sessions`); under an https://
base URL every answer also says Strict-Transport-Security. ``app.state`` holds ``store``,
``queue``, ``settings``, ``sessions`` and ``templates`` for the routes.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import secrets
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import jinja2
import markupsafe
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.convertors import IntegerConvertor
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.service import lti, read_only, sessions
from grader.service.course import auth, course_dates
from grader.service.course.checking import Checker
from grader.service.course.folder import secure_course_folder
from grader.service.course.intake import show_size
from grader.service.course.storage import Store
from grader.service.course.times import format_time
from grader.service.pages import (assignments_routes, config_routes, course_dates_routes,
                                  gradebook_routes, instructor, records_routes, roster_routes,
                                  signin, similarity_routes, student_routes)
from grader.service.pages.pages import (CSP, REQUEST_OVERHEAD, SECURITY_HEADERS, base_context,
                                        error_response, route_path)
from grader.service.queue import GradingQueue
from grader.service.server import Occasional
from grader.service.settings import ServiceSettings
from grader.suite.table import without_bidi

__all__ = ["CSP", "ServiceSettings", "create_app", "open_store"]

log = logging.getLogger("grader.service")

HERE = Path(__file__).resolve().parent
DATABASE = "course.sqlite3"


HSTS = b"max-age=31536000"      # a year: browsers then refuse http:// for the course's host
SQLITE_MAX_INTEGER = 2 ** 63 - 1


def open_store(data: Path, tell: Callable[[str], None] | None = None) -> Store:
    """The course's database in ``data`` (folder, key and database made on the first start).

    The folder is made private first (:func:`secure_course_folder`): each change is passed
    to ``tell`` (default: logged as a warning), e.g. "made ttt-course 0700 (was 0755): ...".

        store = open_store(Path("ttt-course"), tell=print)
    """
    data = Path(data)
    for message in secure_course_folder(data):
        (tell or log.warning)(message)
    return Store(data / DATABASE, auth.load_secret(data))


# --- middleware --------------------------------------------------------------------------

class SecurityHeaders:
    """Adds the Content-Security-Policy and its companions to every response, and with
    ``https`` (the course is served under an https:// base URL) Strict-Transport-Security."""

    def __init__(self, app: ASGIApp, https: bool = False) -> None:
        self.app = app
        self.headers = SECURITY_HEADERS + ([(b"strict-transport-security", HSTS)] if https
                                           else [])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    header for header in self.headers if header[0] not in names]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Refuses a request body over ``limit`` bytes with the service's own 413 (JSON for the
    API, a page otherwise): at once when Content-Length says so, else when the bytes read
    pass it (an HTTPException inside the endpoint, answered by the app's handler)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            await self.app(scope, _refuse_body, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise HTTPException(413)
            return message

        await self.app(scope, counted, send)


async def _refuse_body() -> Message:
    raise HTTPException(413)


# --- ids a database can hold ---------------------------------------------------------------

class SQLiteInteger(IntegerConvertor):
    """``{number:int}`` of a route, answered 404 when SQLite could not hold it (an id of 23
    digits made the query raise OverflowError: a 500 and two tracebacks in the log)."""

    def convert(self, value: str) -> int:
        # len first: int() of over 4300 digits raises ValueError (Python's own limit)
        if len(value.lstrip("0")) > len(str(SQLITE_MAX_INTEGER)) or \
                int(value) > SQLITE_MAX_INTEGER:
            raise HTTPException(404)          # answered as any missing page
        return int(value)


def _sqlite_ids(route: BaseRoute) -> BaseRoute:
    """``route`` with its ``:int`` parameters bounded to SQLite's integers (a copy, its name
    kept for ``path_for``: the route lists of the other modules are left as they are)."""
    if not isinstance(route, Route) or not any(isinstance(convertor, IntegerConvertor)
                                               for convertor in route.param_convertors.values()):
        return route
    bounded = copy.copy(route)
    bounded.param_convertors = {
        name: SQLiteInteger() if isinstance(convertor, IntegerConvertor) else convertor
        for name, convertor in route.param_convertors.items()}
    return bounded


# --- errors ------------------------------------------------------------------------------

async def _http_error(request: Request, problem: Exception) -> Response:
    assert isinstance(problem, HTTPException)
    status = problem.status_code
    if status == 413:
        limit = show_size(request.app.state.settings.max_size)
        message = f"the request is too large: the limit for a hand-in's file is {limit}"
    elif status == 404 and problem.detail in ("Not Found", None):
        message = "there is no such page"
    elif status == 405:
        message = "this address does not take that kind of request"
    elif status == 400:
        message = f"the request could not be read ({problem.detail}): send it again"
    else:
        message = str(problem.detail)
    return error_response(request, status, message)


async def _refused(request: Request, problem: Exception) -> Response:
    """Every refusal that carries its status (auth.Refusal: not signed in, not allowed, an
    old or foreign form)."""
    assert isinstance(problem, auth.Refusal)
    return error_response(request, problem.status, problem.message)


CLIENTS_LEFT = Occasional(10.0)    # a flood of cut connections is one line in ten seconds


async def _client_left(request: Request, problem: Exception) -> Response:
    """A client that closed its connection (or whose body came too slowly and was cut) before
    its request ended: one line, no traceback (before: two, the handler's and uvicorn's);
    under a flood, one line every ten seconds with the count of the others."""
    unsaid = CLIENTS_LEFT.due()
    if unsaid is not None:
        log.info("%s %s: the client closed the connection before its request ended (%s)%s",
                 request.method, request.url.path,
                 request.client.host if request.client else "?",
                 f"; {unsaid} more since the last such line" if unsaid else "")
    return Response(status_code=400)                   # nobody is left to read it


async def _unexpected(request: Request, problem: Exception) -> Response:
    error_id = secrets.token_hex(6)
    log.error("error %s on %s %s", error_id, request.method, request.url.path,
              exc_info=problem)
    response = error_response(request, 500, "something went wrong on the server; it has been "
                              "logged. If it happens again, tell your instructor the error id "
                              f"{error_id}", error_id)
    if request.app.state.settings.secure_cookies:     # this handler is outside SecurityHeaders
        response.headers.setdefault("strict-transport-security", HSTS.decode())
    return response


# --- the application ---------------------------------------------------------------------

def shown(value: Any) -> Any:
    """What a page shows of ``{{ value }}``: text without bidirectional controls (a name
    with U+202E would show reversed, as someone else's), the rest as it is (the templates'
    ``finalize``; escaping comes after).

    >>> shown("Ada \u202egnp.exe"), shown(3)
    ('Ada gnp.exe', 3)
    """
    if isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(without_bidi(str(value)))
    return without_bidi(value) if isinstance(value, str) else value


def _given_dates(store: Store, settings: ServiceSettings) -> None:
    """Set the course's dates and late policy that ``settings`` gives (an embedding program's,
    the tests'; ``serve`` stores its options itself and gives none) in its records, where the
    pages read them; a change is logged as "server start"."""
    wanted: dict[str, str | None] = {}
    if settings.deadlines is not None:
        deadline, late = settings.deadlines.deadline, settings.deadlines.late_deadline
        wanted[course_dates.DEADLINE] = format_time(deadline) if deadline else None
        wanted[course_dates.LATE_DEADLINE] = format_time(late) if late else None
    if settings.late_policy is not None:
        wanted[course_dates.LATE_PENALTY] = settings.late_policy.text
    if wanted and course_dates.change(store, wanted, who="server start"):
        lti.grades_changed(store)                     # the LMS's grades follow the dates


def create_app(settings: ServiceSettings, store: Store | None = None,
               queue: GradingQueue | None = None) -> Starlette:
    """The application; the grading threads start and stop with it (its lifespan)."""
    store = store or open_store(settings.data)
    _given_dates(store, settings)
    queue = queue or GradingQueue(store, settings.data, settings.queue)
    queue.graded.append(lambda student: lti.grade_changed(store, student))
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined,
                                     finalize=shown)
    templates = Jinja2Templates(env=environment, context_processors=[base_context])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.read_only:           # a copy looked at: nothing graded, nothing sent
            yield
            return
        recovered = queue.start()
        if recovered:
            log.info("queued again %d submissions a stopped server was grading", recovered)
        await run_in_threadpool(lti.start_sender, app)     # grades a stopped server left
        try:
            yield
        finally:
            await run_in_threadpool(lti.stop_sender, app)
            await run_in_threadpool(queue.stop)

    routes: list[BaseRoute] = [_sqlite_ids(route) for route in [
        *student_routes.routes,
        *signin.routes,
        *instructor.routes,
        *roster_routes.routes,
        *gradebook_routes.routes,
        *config_routes.routes,
        *similarity_routes.routes,
        *records_routes.routes,
        *course_dates_routes.routes,
        *assignments_routes.routes,
        *lti.routes,
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]]
    server_sessions = sessions.Sessions(store.database, auth.load_secret(settings.data))
    middleware = [
        Middleware(lti.FrameAncestors, store=store),     # the LMS's frame may show a page
        Middleware(SecurityHeaders, https=settings.secure_cookies),
        Middleware(BodyLimit, limit=settings.max_size * 4 + REQUEST_OVERHEAD),
        Middleware(sessions.ServerSessions, sessions=server_sessions,
                   identify_hash=store.identify_hash),
    ] + ([Middleware(read_only.ReadOnlyDoor)] if settings.read_only else [])
    handlers: dict[Any, Any] = {HTTPException: _http_error, auth.Refusal: _refused,
                                ClientDisconnect: _client_left, Exception: _unexpected}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers,
                    lifespan=lifespan)
    app.state.store = store
    app.state.queue = queue
    app.state.checker = Checker()          # hand-ins are read in a child, never here
    app.state.settings = settings
    app.state.sessions = server_sessions
    app.state.templates = templates
    # every link of a page comes from a route's name: {{ path_for('submission', number=7) }}
    environment.globals["path_for"] = functools.partial(route_path, app.router)
    return app

