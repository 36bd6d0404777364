"""The LTI routes: the tool's key set, the OIDC login and the launch, the hand-off to a new
tab, Dynamic Registration, and the instructor's LTI page.

    GET       /lti/jwks.json               the tool's public key set
    GET|POST  /lti/login                   OIDC login initiation (from the LMS)
    POST      /lti/launch                  the id_token launch (the redirect URL)
    GET       /lti/enter/CODE              after a launch: the page, or "open it in a new tab"
    GET       /lti/register/CODE           Dynamic Registration (from the LMS)
    GET       /lti/close.js                tells the LMS the registration window may close
    GET       /instructor/lti              platforms, the tool's URLs, roster, grades outbox
    POST      /instructor/lti/ACTION       sync, resend, choice, deployment, new-code
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Any

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.service import auth, sessions
from grader.service.lti import ags, embedding, nrps, outbox, platforms, registration
from grader.service.lti.errors import CookiesBlocked, LaunchRefused, LtiError, RegistrationError
from grader.service.lti.launch import digest, start_login, validate_launch
from grader.service.lti.people import Admitted, admit, token_hash_of
from grader.service.lti.tool import Tool
from grader.service.logtext import printable
from grader.service.pages import render
from grader.service.storage import INSTRUCTOR
from grader.service.times import format_time, now, utc_now

log = logging.getLogger("grader.service.lti")

BROWSER_COOKIE = "ttt_lti_browser"
BROWSER_MAX_AGE = 3600 * 24 * 30
HANDOFF_SECONDS = 300          # a launch's hand-off to a new tab is good for five minutes
CLOSE_SCRIPT = ("(window.opener || window.parent).postMessage("
                "{subject: 'org.imsglobal.lti.close'}, '*');\n")
MAX_FORM = 64 * 1024
MAX_LOGIN_PART = 8 * 1024      # a login field: at most launch.MAX_LOGIN_FIELD is taken


def tool_of(request: Request) -> Tool:
    """The course's LTI tool (made on first use when the app's lifespan did not)."""
    state = request.app.state
    tool = getattr(state, "lti", None)
    if tool is None:
        tool = state.lti = Tool.open(state.store, state.settings.data)
    return tool


def base_url(request: Request) -> str:
    return (request.app.state.settings.base_url or str(request.base_url)).rstrip("/")


def _secure(request: Request) -> bool:
    return bool(request.app.state.settings.secure_cookies)


def _refused(request: Request, problem: LtiError) -> Response:
    status = getattr(problem, "status", 400)
    blocked = isinstance(problem, CookiesBlocked)
    log.info("LTI refused (%s): %s", status, printable(problem))   # it quotes the LMS
    return render(request, "lti_error.html", {
        "message": str(problem), "status": status, "blocked": blocked,
        "retry_url": getattr(problem, "retry_url", None)}, status)


async def _parameters(request: Request) -> dict[str, Any]:
    """The login's query and form fields: no file, each field a few KB at most (longer ones
    are refused by launch.login_parameters with a page that says so)."""
    values: dict[str, Any] = dict(request.query_params)
    if request.method == "POST":
        form = await request.form(max_files=0, max_fields=30, max_part_size=MAX_LOGIN_PART)
        values.update({key: value for key, value in form.items() if isinstance(value, str)})
    return values


# --- the tool's key set, the login, the launch ---------------------------------------------

async def jwks(request: Request) -> Response:
    tool = await run_in_threadpool(tool_of, request)
    return JSONResponse(tool.key.jwks(), headers={"cache-control": "max-age=300"})


async def login(request: Request) -> Response:
    """The OIDC third-party-initiated login: to the platform's authorization endpoint."""
    parameters = await _parameters(request)
    store = request.app.state.store
    launch_url = platforms.tool_urls(base_url(request)).launch
    try:
        started = await run_in_threadpool(start_login, store, parameters,
                                          request.cookies.get(BROWSER_COOKIE), launch_url)
    except LaunchRefused as problem:
        return _refused(request, problem)
    response = RedirectResponse(started.redirect_url, status_code=302)
    embedding.set_frame_cookie(response, BROWSER_COOKIE, started.browser_id,
                               secure=_secure(request), max_age=BROWSER_MAX_AGE)
    return response


def _handoff(store: Any, token_hash: str, home: str) -> str:
    code = secrets.token_urlsafe(32)
    with store.database.transaction() as db:
        db.execute("DELETE FROM lti_handoffs WHERE created_at < ?",
                   (format_time(now() - timedelta(days=1)),))
        db.execute("INSERT INTO lti_handoffs (code_hash, token_hash, home, created_at) "
                   "VALUES (?, ?, ?, ?)", (digest(code), token_hash, home, utc_now()))
    return code


def _after_launch(tool: Tool, admitted: Admitted, context_sync: bool) -> None:
    """What a launch starts but nobody waits for: the instructor's launch syncs the roster;
    a student's grade (maybe handed in before the LMS knew them) goes to the LMS."""
    if context_sync:
        try:
            for outcome in nrps.sync_all(tool.store, tool):
                log.info("roster sync on the instructor's launch: %s",
                         outcome.describe() if isinstance(outcome, nrps.SyncResult)
                         else outcome)
        except Exception:            # the launch is done; the instructor can sync by hand
            log.exception("the roster sync on the instructor's launch failed")
    if admitted.student is not None:
        outbox.grade_changed(tool.store, admitted.student)


async def launch(request: Request) -> Response:
    """The launch: validated, recorded, the person signed in; then their page."""
    state = request.app.state
    form = await request.form(max_files=0, max_fields=20, max_part_size=MAX_FORM)
    tool = await run_in_threadpool(tool_of, request)
    try:
        found = await run_in_threadpool(validate_launch, state.store, tool.keysets, form,
                                        request.cookies.get(BROWSER_COOKIE))
        admitted = await run_in_threadpool(admit, state.store, found,
                                           request.headers.get("origin"))
        token_hash = await run_in_threadpool(token_hash_of, state.store, admitted)
    except LaunchRefused as problem:
        return _refused(request, problem)
    embedding.origins_changed()
    old = sessions.current(request)
    if old is not None:                          # one browser, one person
        await run_in_threadpool(state.sessions.end, old.id)
    session = await run_in_threadpool(state.sessions.start, token_hash)
    code = await run_in_threadpool(_handoff, state.store, token_hash, admitted.home)
    log.info("LTI launch from %s: %s", found.platform.label,
             "the instructor" if admitted.student is None else
             f"{admitted.student}{' (added to the roster)' if admitted.added else ''}")
    response = RedirectResponse(f"/lti/enter/{code}", status_code=303,
                                background=BackgroundTask(_after_launch, tool, admitted,
                                                          found.is_staff))
    embedding.set_frame_cookie(response, auth.SESSION_COOKIE, session.id,
                               secure=_secure(request), max_age=auth.SESSION_MAX_AGE)
    return response


def _take_handoff(store: Any, code: str, token_hash: str | None) -> Any:
    """The hand-off ``code`` names, marked used (only if its token is ``token_hash``, when
    given); None when it is unknown, used or too old."""
    since = format_time(now() - timedelta(seconds=HANDOFF_SECONDS))
    with store.database.transaction() as db:
        row = db.execute("SELECT * FROM lti_handoffs WHERE code_hash = ? AND used_at IS NULL "
                         "AND created_at > ?", (digest(code), since)).fetchone()
        if row is None or (token_hash is not None and
                           not auth.same(row["token_hash"], token_hash)):
            return None
        db.execute("UPDATE lti_handoffs SET used_at = ? WHERE code_hash = ?",
                   (utc_now(), row["code_hash"]))
        return row


async def enter(request: Request) -> Response:
    """After a launch: the person's page when the browser kept the session's cookie; else
    say so, with a link that opens the page in a new tab (where cookies are first-party)."""
    state = request.app.state
    code = request.path_params["code"]
    session = sessions.current(request)
    if session is not None:
        row = await run_in_threadpool(_take_handoff, state.store, code, session.token_hash)
        if row is not None:
            return RedirectResponse(row["home"], status_code=303)
    if request.query_params.get("tab") == "1":
        row = await run_in_threadpool(_take_handoff, state.store, code, None)
        if row is None:
            return _refused(request, LaunchRefused(
                "this sign-in from the LMS was used already or is too old: open the "
                "assignment in the LMS again", status=403))
        if session is not None:
            await run_in_threadpool(state.sessions.end, session.id)
        fresh = await run_in_threadpool(state.sessions.start, row["token_hash"])
        response = RedirectResponse(row["home"], status_code=303)
        sessions.set_cookie(response, fresh, _secure(request))
        return response
    return render(request, "lti_error.html", {
        "message": "your browser blocks the cookies this page needs inside the LMS's frame "
                   "(third-party cookies), so you are not signed in here",
        "status": 200, "blocked": True, "retry_url": f"/lti/enter/{code}?tab=1"})


# --- Dynamic Registration --------------------------------------------------------------------

async def register(request: Request) -> Response:
    tool = await run_in_threadpool(tool_of, request)
    try:
        platform = await run_in_threadpool(
            registration.register, tool, request.path_params["code"],
            request.query_params.get("openid_configuration", ""),
            request.query_params.get("registration_token", ""), base_url(request))
    except RegistrationError as problem:
        response = render(request, "lti_registered.html", {"problem": str(problem)}, 400)
    else:
        embedding.origins_changed()
        log.info("LTI platform registered by Dynamic Registration: %s", platform.label)
        response = render(request, "lti_registered.html", {"problem": None,
                                                           "platform": platform})
    # the LMS shows this page in its own frame before it is a registered platform
    response.headers["content-security-policy"] = (
        "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors *")
    return response


async def close_script(request: Request) -> Response:
    return Response(CLOSE_SCRIPT, media_type="text/javascript",
                    headers={"cache-control": "max-age=3600"})


# --- the instructor's LTI page ---------------------------------------------------------------

def page_context(request: Request) -> dict[str, Any]:
    store = request.app.state.store
    code = registration.registration_code(store)
    return {
        "platforms": platforms.platforms(store), "urls": platforms.tool_urls(base_url(request),
                                                                             code),
        "contexts": [dict(row) for row in store.database.query(
            "SELECT c.*, p.issuer, (SELECT COUNT(*) FROM lti_members m WHERE m.context = c.id "
            "AND m.student IS NOT NULL AND m.status != 'left') AS learners, "
            "(SELECT COUNT(*) FROM lti_members m WHERE m.context = c.id AND m.status = 'left') "
            "AS gone, (SELECT COUNT(*) FROM lti_lineitems l WHERE l.context = c.id) AS items "
            "FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform ORDER BY c.id")],
        "left": [dict(row) for row in store.database.query(
            "SELECT DISTINCT m.student, m.left_at, s.name FROM lti_members m JOIN students s ON "
            "s.id = m.student WHERE m.status = 'left' ORDER BY m.student")],
        "counts": outbox.counts(store), "waiting": outbox.rows(store),
        "choice": ags.grade_choice(store), "outcomes": [], "problem": None,
        "http_warning": platforms.plain_http_warning(base_url(request))}


async def instructor_page(request: Request) -> Response:
    auth.require_instructor(request)
    return render(request, "lti_instructor.html",
                  await run_in_threadpool(page_context, request))


async def instructor_action(request: Request) -> Response:
    """The LTI page's forms (each with the CSRF token)."""
    auth.require_instructor(request)
    form = await request.form(max_files=0, max_fields=10, max_part_size=MAX_FORM)
    auth.require_csrf(request, form)
    store = request.app.state.store
    action = request.path_params["action"]
    outcomes: list[str] = []
    problem = None
    if action == "sync":
        tool = await run_in_threadpool(tool_of, request)
        found = await run_in_threadpool(nrps.sync_all, store, tool)
        outcomes = [one.describe() if isinstance(one, nrps.SyncResult) else str(one)
                    for one in found] or ["no LMS course offers its roster yet: launch the "
                                          "tool from the LMS as an instructor first"]
        await run_in_threadpool(outbox.grades_changed, store)
    elif action == "resend":
        number = str(form.get("row") or "")
        count = await run_in_threadpool(outbox.resend, store,
                                        int(number) if number.isdigit() else None)
        outcomes = [f"{count} grades will be sent again now"]
    elif action == "choice":
        choice = str(form.get("choice") or "")
        if choice not in ("latest", "best"):
            problem = "choose latest or best"
        else:
            await run_in_threadpool(store.set_setting, ags.CHOICE_SETTING, choice)
            count = await run_in_threadpool(outbox.grades_changed, store)
            outcomes = [f"the LMS gets each student's {choice} submission; {count} grades "
                        "changed and will be sent"]
    elif action == "deployment":
        problem = await run_in_threadpool(_add_deployment, store, form)
        outcomes = [] if problem else ["deployment added"]
    elif action == "new-code":
        await run_in_threadpool(registration.registration_code, store, True)
        outcomes = ["a new registration URL: the old one no longer registers anything"]
    else:
        return render(request, "error.html", {"status": 404, "message": "there is no such page",
                                              "error_id": None}, 404)
    context = await run_in_threadpool(page_context, request)
    context.update(outcomes=outcomes, problem=problem)
    return render(request, "lti_instructor.html", context, 400 if problem else 200)


def _add_deployment(store: Any, form: Any) -> str | None:
    number, deployment = str(form.get("platform") or ""), str(form.get("deployment") or "")
    platform = platforms.platform_by_id(store, int(number)) if number.isdigit() else None
    if platform is None or not deployment.strip():
        return "choose a platform and give the deployment id the LMS shows"
    info = platforms.PlatformInfo(platform.issuer, platform.client_id, platform.auth_login_url,
                                  platform.auth_token_url, platform.key_set_url,
                                  (deployment.strip(),), platform.name)
    platforms.add_platform(store, info, who=INSTRUCTOR)
    return None


routes = [
    Route("/lti/jwks.json", jwks, methods=["GET"], name="lti_jwks"),
    Route("/lti/login", login, methods=["GET", "POST"], name="lti_login"),
    Route("/lti/launch", launch, methods=["POST"], name="lti_launch"),
    Route("/lti/enter/{code}", enter, methods=["GET"], name="lti_enter"),
    Route("/lti/register/{code}", register, methods=["GET"], name="lti_register"),
    Route("/lti/close.js", close_script, methods=["GET"], name="lti_close_script"),
    Route("/instructor/lti", instructor_page, methods=["GET"], name="lti_instructor_page"),
    Route("/instructor/lti/{action}", instructor_action, methods=["POST"],
          name="lti_instructor_action"),
]
