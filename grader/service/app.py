"""The web application of ``grader serve``: student pages, the JSON API, static files, and
the instructor's routes (``grader.service.instructor``).

    app = create_app(ServiceSettings(data=Path("ttt-course")))
    uvicorn.run(app)

Every page is a Jinja2 template with autoescaping (student text is never marked safe); every
response carries a Content-Security-Policy that forbids inline scripts; every form that
changes something carries the session's CSRF token; an unexpected error shows a page with an
id that the log also has, never a traceback. A student may only see their own submissions:
any other id answers 404 with the same body as a missing one. ``app.state`` holds ``store``,
``queue``, ``settings`` and ``templates`` for the instructor's routes.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, AsyncIterator

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from grader.service import auth
from grader.service.intake import (Deadlines, Refused, check_content, check_deadline,
                                   clean_name, refusal_for, show_size, show_time, show_wait)
from grader.service.queue import GradingQueue, QueueOptions, estimate_wait, read_progress
from grader.service.storage import InFlight, Store, SubmissionRow, TooMany, parse_time

log = logging.getLogger("grader.service")

HERE = Path(__file__).resolve().parent
DATABASE = "course.sqlite3"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),      # a sign-in link must not leak as a referrer
    (b"x-frame-options", b"DENY"),
]
PASTED_NAME = "mm_player.py (pasted)"
REQUEST_OVERHEAD = 64 * 1024     # a form's fields and multipart headers around the file
LIVE_STATUSES = ("queued", "running")


@dataclass(frozen=True)
class ServiceSettings:
    """How the course is served: where its data lives, the limits, the grading."""

    data: Path = Path("ttt-course")
    base_url: str = ""                  # the links' base; "" = the address asked (Host)
    queue: QueueOptions = field(default_factory=QueueOptions)
    per_hour: int = 10
    max_size: int = 256 * 1024
    deadlines: Deadlines = field(default_factory=Deadlines)

    @property
    def visibility(self) -> str:
        return self.queue.grading.visibility

    @property
    def secure_cookies(self) -> bool:
        return self.base_url.startswith("https://")


def open_store(data: Path) -> Store:
    """The course's database in ``data`` (folder, key and database made on the first start)."""
    data = Path(data)
    data.mkdir(parents=True, exist_ok=True)
    return Store(data / DATABASE, auth.load_secret(data))


# --- middleware --------------------------------------------------------------------------

class SecurityHeaders:
    """Adds the Content-Security-Policy and its companions to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    header for header in SECURITY_HEADERS if header[0] not in names]
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


# --- helpers for pages -------------------------------------------------------------------

def _now() -> datetime:
    return datetime.now(timezone.utc)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _base_context(request: Request) -> dict[str, Any]:
    session = request.scope.get("session")
    identity = auth.current_identity(request) if "app" in request.scope else None
    return {"me": identity,
            "csrf": auth.csrf_token(session) if session is not None else "",
            "show_time": show_time, "show_size": show_size, "show_wait": show_wait}


def render(request: Request, name: str, context: dict[str, Any] | None = None,
           status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A page from ``templates/NAME`` (autoescaped), with ``me`` and ``csrf`` in its context."""
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context or {}, status_code=status_code,
                                      headers={"cache-control": "no-store", **(headers or {})})


def _refused(request: Request, problem: Refused, page: str | None = None,
             context: dict[str, Any] | None = None) -> Response:
    headers = {"retry-after": str(problem.retry_after)} if problem.retry_after else None
    if page is None:
        body: dict[str, Any] = {"error": problem.message}
        if problem.retry_after:
            body["retry_after"] = problem.retry_after
        return JSONResponse(body, problem.status, headers=headers)
    return render(request, page, {**(context or {}), "refusal": problem.message},
                  problem.status, headers)


def wait_for(store: Store, queue: GradingQueue, row: SubmissionRow) -> float | None:
    """Estimated seconds until ``row`` has its report (None when it has one)."""
    recent = store.recent_seconds()
    if row.status == "queued":
        return estimate_wait(store.queue_position(row.id), queue.jobs, recent) + \
            _running_left(store, recent) / max(queue.jobs, 1)
    if row.status == "running" and row.started_at:
        elapsed = (_now() - parse_time(row.started_at)).total_seconds()
        return max(1.0, estimate_wait(1, 1, recent) - elapsed)
    return None


def _running_left(store: Store, recent: list[float]) -> float:
    typical = estimate_wait(1, 1, recent)
    now = _now()
    return sum(max(0.0, typical - (now - parse_time(started)).total_seconds())
               for started in store.running_started() if started)


def student_results(row: SubmissionRow, deadlines: Deadlines,
                    instructor: bool = False) -> dict[str, Any] | None:
    """The results.json a person may see: the instructor all of it; a student what Gradescope
    would show them (no hidden tests, no extra_data; "after the due date" tests only after
    the deadline)."""
    if not row.results_json:
        return None
    try:
        results = json.loads(row.results_json)
    except ValueError:
        return None
    if instructor:
        return results
    after_deadline = deadlines.passed(_now())
    shown = ("visible", "after_due_date", "after_published") if after_deadline else ("visible",)
    results["tests"] = [test for test in results.get("tests", [])
                        if test.get("visibility", "visible") in shown]
    results.pop("extra_data", None)
    return results


def report_view(row: SubmissionRow, deadlines: Deadlines,
                instructor: bool = False) -> dict[str, Any] | None:
    """What the report part of a page shows: the score, the rubric table, and each item's
    failures as the terminal report gives them, split into blocks (a call to paste, the
    board, expected and received, why)."""
    results = student_results(row, deadlines, instructor)
    if results is None:
        return None
    rows, sections = [], []
    for test in results.get("tests", []):
        extra = test.get("extra_data") or {}
        rows.append({"name": test.get("name", ""), "score": test.get("score", 0),
                     "max_score": test.get("max_score", 0),
                     "status": extra.get("state") or test.get("status", ""),
                     "passed": extra.get("passed"), "total": extra.get("total")})
        output = str(test.get("output") or "")
        if test.get("status") != "passed" and output.strip():
            sections.append({"name": test.get("name", ""), "score": test.get("score", 0),
                             "max_score": test.get("max_score", 0),
                             "blocks": [_block(text) for text in _blocks(output)]})
    every = json.loads(row.results_json or "{}").get("tests", [])
    return {"score": results.get("score"), "max_score": row.max_score,
            "summary": row.report_text or str(results.get("output") or ""),
            "rows": rows, "sections": sections,
            "hidden_until_deadline": len(every) > len(results.get("tests", []))}


def _blocks(text: str) -> list[str]:
    """Paragraphs of a report (blank-line separated), each kept as it is."""
    blocks, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def _block(text: str) -> dict[str, str]:
    """A failure's block: its call (to paste) apart from the rest, when it starts with one."""
    first, _, rest = text.partition("\n")
    for function in ("mm_move(", "move_wrapper(", "play_game("):
        if first.startswith(function) and " expected " in first:
            call, _, verdict = first.partition(" expected ")
            return {"call": call, "verdict": "expected " + verdict, "text": rest}
    return {"call": "", "verdict": "", "text": text}


def poll_after(status: str, wait: float | None) -> float | None:
    """Seconds a page or script should wait before asking about a submission again: every
    second while it is graded (its items come live), every tenth of the estimated wait while
    it is queued (1 to 10 s: a class of 300 waiting at a deadline does not poll the server
    300 times a second), None once it is finished.

    >>> poll_after("running", None), poll_after("queued", 600.0), poll_after("done", None)
    (1.0, 10.0, None)
    """
    if status in ("done", "error"):
        return None
    if status == "queued" and wait is not None:
        return round(min(10.0, max(1.0, wait / 10)), 1)
    return 1.0


def submission_json(request: Request, row: SubmissionRow, instructor: bool = False) -> dict:
    """``GET /api/submissions/ID``: the status, the place in the queue, and the result."""
    state = request.app.state
    store: Store = state.store
    queue: GradingQueue = state.queue
    settings: ServiceSettings = state.settings
    wait = wait_for(store, queue, row)
    results = student_results(row, settings.deadlines, instructor)
    if results is not None:
        items = [{"name": test.get("name"), "score": test.get("score"),
                  "max_score": test.get("max_score")} for test in results.get("tests", [])]
    elif row.status == "running":
        items = [{"name": item["name"], "score": item["score"], "max_score": item["max_score"]}
                 for item in read_progress(settings.data, row.id, queue.weights)]
    else:
        items = []
    done = row.status == "done"
    return {"id": row.id, "status": row.status, "received_at": row.received_at,
            "filename": row.filename, "size": row.size, "sha256": row.sha256,
            "late": row.late, "queue_position": store.queue_position(row.id),
            "estimated_wait": None if wait is None else round(wait, 1),
            "poll_after": poll_after(row.status, wait),
            "started_at": row.started_at, "finished_at": row.finished_at,
            "attempts": row.attempts, "config": row.config, "items": items,
            "score": row.score if done else None,
            "max_score": row.max_score if done else None,
            "error": row.error if row.status == "error" else None,
            "results": results,
            "report": row.report_text if (done or instructor) else None}


# --- the student's pages -------------------------------------------------------------------

async def home(request: Request) -> Response:
    identity = auth.current_identity(request)
    if identity is None:
        return render(request, "signin_needed.html", status_code=200)
    if identity.is_instructor:
        return RedirectResponse("/instructor", status_code=303)
    return _home_page(request, identity.student)


def _home_page(request: Request, student: str, refusal: Refused | None = None,
               code: str = "") -> Response:
    state = request.app.state
    store: Store = state.store
    settings: ServiceSettings = state.settings
    now = _now()
    deadlines = settings.deadlines
    context = {"student": store.student(student), "history": store.history(student),
               "deadline": deadlines.deadline, "late_deadline": deadlines.late_deadline,
               "closed": deadlines.closed(now), "late": deadlines.is_late(now),
               "per_hour": settings.per_hour, "max_size": settings.max_size,
               "code": code, "refusal": refusal.message if refusal else None}
    status = refusal.status if refusal else 200
    headers = {"retry-after": str(refusal.retry_after)} if refusal and refusal.retry_after \
        else None
    return render(request, "student_home.html", context, status, headers)


async def submit_form(request: Request) -> Response:
    """``POST /submit``: the home page's form (a chosen file, or pasted code)."""
    identity = auth.require_student(request)
    form = await _form(request)
    auth.require_csrf(request, form)
    upload = form.get("file")
    code = form.get("code")
    code = code if isinstance(code, str) else ""
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            filename, data = clean_name(upload.filename), await upload.read()
        elif code.strip():
            filename, data = PASTED_NAME, code.replace("\r\n", "\n").encode("utf-8")
        else:
            raise Refused(400, "nothing was handed in: choose your mm_player.py file, or paste "
                               "its code in the box")
        row = await _accept(request, identity.student, filename, data)
    except Refused as problem:
        return _home_page(request, identity.student, problem, code)
    return RedirectResponse(f"/submissions/{row.id}", status_code=303)


async def _form(request: Request) -> Any:
    settings: ServiceSettings = request.app.state.settings
    return await request.form(max_files=2, max_fields=10,
                              max_part_size=settings.max_size * 4 + REQUEST_OVERHEAD)


async def _accept(request: Request, student: str, filename: str, data: bytes) -> SubmissionRow:
    """Check and store a submission (Refused when it is not accepted), then wake a grader."""
    state = request.app.state
    settings: ServiceSettings = state.settings
    store: Store = state.store
    now = _now()
    check_content(filename, data, settings.max_size)
    late = check_deadline(settings.deadlines, now)
    try:
        row = await run_in_threadpool(
            store.add_submission, student, filename, data, late=late,
            config=state.queue.label, one_in_flight=True,
            per_hour=settings.per_hour if settings.per_hour > 0 else None)
    except InFlight as problem:
        raise refusal_for(problem, now, wait_for(store, state.queue, problem.row)) from None
    except TooMany as problem:
        raise refusal_for(problem, now) from None
    log.info("received submission %s of %s (%d bytes, sha256 %s%s)", row.id, student,
             row.size, row.short_hash, ", late" if late else "")
    state.queue.wake()
    return row


async def submission_page(request: Request) -> Response:
    identity = auth.require_student(request)
    row = _own_submission(request, identity.student)
    return render_submission(request, row, instructor=False)


def render_submission(request: Request, row: SubmissionRow, instructor: bool) -> Response:
    """The page of one submission (the instructor's pages use it too)."""
    state = request.app.state
    store: Store = state.store
    settings: ServiceSettings = state.settings
    wait = wait_for(store, state.queue, row)
    return render(request, "submission.html", {
        "row": row, "position": store.queue_position(row.id), "wait": wait,
        "report": report_view(row, settings.deadlines, instructor),
        "progress": read_progress(settings.data, row.id, state.queue.weights)
        if row.status == "running" else [],
        "instructor": instructor,
        "file_url": (f"/instructor/submissions/{row.id}/file" if instructor
                     else f"/submissions/{row.id}/file"),
        "api_url": f"/api/submissions/{row.id}"})


def _own_submission(request: Request, student: str | None) -> SubmissionRow:
    """The submission of the URL if it is ``student``'s; 404 with one body otherwise."""
    row = request.app.state.store.submission(request.path_params["number"], student=student)
    if row is None:     # the same answer for another student's id as for a missing one
        raise HTTPException(404, "there is no such submission among yours")
    return row


async def submission_file(request: Request) -> Response:
    identity = auth.require_student(request)
    row = _own_submission(request, identity.student)
    return file_response(request.app.state.store, row)


def file_response(store: Store, row: SubmissionRow) -> Response:
    """The handed-in file as a download (never shown inline: it is the student's text)."""
    name = "".join(ch if ch.isalnum() or ch in "._-" else "_"
                   for ch in row.filename.replace(" (pasted)", ""))
    return Response(store.submission_bytes(row.id), media_type="text/x-python; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{name}"',
                             "cache-control": "no-store"})


async def sign_in(request: Request) -> Response:
    token = request.path_params["token"]
    identity = request.app.state.store.identify(token)
    if identity is None:
        return render(request, "signin_error.html", status_code=403)
    auth.sign_in(request.session, auth.hash_token(token))
    return RedirectResponse("/instructor" if identity.is_instructor else "/", status_code=303)


async def sign_out(request: Request) -> Response:
    form = await _form(request)
    auth.require_csrf(request, form)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


# --- the JSON API --------------------------------------------------------------------------

async def api_submit(request: Request) -> Response:
    """``POST /api/submissions`` (multipart field ``file``; Bearer token, or a session with
    the X-CSRF-Token header)."""
    identity = _api_identity(request)
    if identity.student is None:
        return JSONResponse({"error": "the instructor's token cannot hand in a submission: "
                                      "use a student's"}, 403)
    if auth.bearer_token(request.headers) is None:
        auth.require_csrf(request)
    form = await _form(request)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        return JSONResponse({"error": "no file: send mm_player.py as the multipart field "
                                      "'file'"}, 400)
    try:
        row = await _accept(request, identity.student, clean_name(upload.filename),
                            await upload.read())
    except Refused as problem:
        return _refused(request, problem)
    return JSONResponse({"id": row.id, "status": row.status, "received_at": row.received_at,
                         "size": row.size, "sha256": row.sha256, "late": row.late,
                         "queue_position": request.app.state.store.queue_position(row.id),
                         "url": f"/submissions/{row.id}"}, 201)


async def api_submission(request: Request) -> Response:
    identity = _api_identity(request)
    if identity.is_instructor:
        row = _own_submission(request, None)
    else:
        row = _own_submission(request, identity.student)
    return JSONResponse(submission_json(request, row, identity.is_instructor),
                        headers={"cache-control": "no-store"})


async def api_history(request: Request) -> Response:
    identity = auth.require_student(request)
    store: Store = request.app.state.store
    return JSONResponse({"submissions": [
        {"id": row.id, "status": row.status, "received_at": row.received_at,
         "filename": row.filename, "size": row.size, "sha256": row.sha256, "late": row.late,
         "score": row.score, "max_score": row.max_score}
        for row in store.history(identity.student)]}, headers={"cache-control": "no-store"})


def _api_identity(request: Request) -> Any:
    identity = auth.current_identity(request)
    if identity is None:
        raise auth.NotSignedIn("no valid token: send the header 'Authorization: Bearer TOKEN' "
                               "(the last part of your sign-in link)")
    return identity


# --- errors ------------------------------------------------------------------------------

def _error(request: Request, status: int, message: str, error_id: str | None = None) -> Response:
    if _is_api(request):
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


async def _http_error(request: Request, problem: Exception) -> Response:
    assert isinstance(problem, HTTPException)
    status = problem.status_code
    if status == 413:
        limit = show_size(request.app.state.settings.max_size)
        message = f"the request is too large: the limit for mm_player.py is {limit}"
    elif status == 404 and problem.detail in ("Not Found", None):
        message = "there is no such page"
    elif status == 405:
        message = "this address does not take that kind of request"
    elif status == 400:
        message = f"the request could not be read ({problem.detail}): send it again"
    else:
        message = str(problem.detail)
    return _error(request, status, message)


async def _not_signed_in(request: Request, problem: Exception) -> Response:
    return _error(request, 401, f"you are not signed in: {problem}")


async def _forbidden(request: Request, problem: Exception) -> Response:
    return _error(request, 403, str(problem))


async def _csrf(request: Request, problem: Exception) -> Response:
    return _error(request, 403, str(problem))


async def _unexpected(request: Request, problem: Exception) -> Response:
    error_id = secrets.token_hex(6)
    log.error("error %s on %s %s", error_id, request.method, request.url.path,
              exc_info=problem)
    return _error(request, 500, "something went wrong on the server; it has been logged. "
                                f"If it happens again, tell your instructor the error id "
                                f"{error_id}", error_id)


# --- the application ---------------------------------------------------------------------

def _instructor_routes() -> list[BaseRoute]:
    try:
        instructor = importlib.import_module("grader.service.instructor")
    except ModuleNotFoundError as problem:
        if problem.name != "grader.service.instructor":
            raise
        return []
    return list(instructor.routes)


def create_app(settings: ServiceSettings, store: Store | None = None,
               queue: GradingQueue | None = None) -> Starlette:
    """The application; the grading threads start and stop with it (its lifespan)."""
    store = store or open_store(settings.data)
    queue = queue or GradingQueue(store, settings.data, settings.queue)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined)
    templates = Jinja2Templates(env=environment, context_processors=[_base_context])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        recovered = queue.start()
        if recovered:
            log.info("queued again %d submissions a stopped server was grading", recovered)
        try:
            yield
        finally:
            await run_in_threadpool(queue.stop)

    routes: list[BaseRoute] = [
        Route("/", home),
        Route("/submit", submit_form, methods=["POST"]),
        Route("/s/{token}", sign_in),
        Route("/signout", sign_out, methods=["POST"]),
        Route("/submissions/{number:int}", submission_page),
        Route("/submissions/{number:int}/file", submission_file),
        Route("/api/submissions", api_submit, methods=["POST"]),
        Route("/api/submissions", api_history, methods=["GET"]),
        Route("/api/submissions/{number:int}", api_submission),
        *_instructor_routes(),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    secret = auth.load_secret(settings.data)
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(BodyLimit, limit=settings.max_size * 4 + REQUEST_OVERHEAD),
        Middleware(SessionMiddleware, secret_key=secret.hex(), session_cookie=auth.SESSION_COOKIE,
                   max_age=auth.SESSION_MAX_AGE, same_site="lax",
                   https_only=settings.secure_cookies),
    ]
    handlers: dict[Any, Any] = {HTTPException: _http_error, auth.NotSignedIn: _not_signed_in,
                                auth.Forbidden: _forbidden, auth.CsrfError: _csrf,
                                Exception: _unexpected}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers,
                    lifespan=lifespan)
    app.state.store = store
    app.state.queue = queue
    app.state.settings = settings
    app.state.templates = templates
    return app
