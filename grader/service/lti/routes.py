"""The LTI routes: the tool's key set, the OIDC login and the launch, the hand-off to a new
tab, Dynamic Registration, and the instructor's LTI page.

    GET       /lti/jwks.json               the tool's public key set
    GET|POST  /lti/login                   OIDC login initiation (from the LMS)
    POST      /lti/launch                  the id_token launch (the redirect URL)
    POST      /lti/launch/checked          the launch again, once the LMS's storage vouched
    GET|POST  /lti/enter/CODE              after a launch: the page, or "open it in a new tab"
    GET       /lti/register/CODE           Dynamic Registration (from the LMS)
    GET       /lti/close.js                tells the LMS the registration window may close
    GET       /lti/unchosen                a student's launch of a link whose assignment the
                                           instructor has not chosen yet
    GET|POST  /instructor/lti/link         which assignment a new LMS link is (asked after
                                           the instructor's launch of it)
    GET       /instructor/lti              platforms, the tool's URLs, roster, the links'
                                           assignments, grades outbox
    POST      /instructor/lti/ACTION       sync, resend, choice, deployment, new-code,
                                           bind, unbind, unlink, remove-grader,
                                           restore-grader, link-assignment
"""

from __future__ import annotations

import functools
import logging
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.service import sessions
from grader.service.course import auth, course_assignments, course_dates
from grader.service.course.storage import INSTRUCTOR
from grader.service.course.times import format_time, now, utc_now
from grader.service.logtext import printable
from grader.service.lti import (addresses, ags, binding, embedding, nrps, outbox, platforms,
                                registration, resource_links, staff)
from grader.service.lti.errors import (CookiesBlocked, LaunchRefused, LtiError,
                                       RegistrationError, StorageCheck)
from grader.service.lti.launch import INSTRUCTOR_ACCESS, digest, start_login, validate_launch
from grader.service.lti.people import Admitted, admit, links, token_hash_of, unlink
from grader.service.lti.storage import storage_key, storage_target
from grader.service.lti.tool import Tool
from grader.service.pages.pages import read_form, render

log = logging.getLogger("grader.service.lti")

BROWSER_COOKIE = "ttt_lti_browser"
BROWSER_MAX_AGE = 3600 * 24 * 30
HANDOFF_SECONDS = 300          # a launch's hand-off to a new tab is good for five minutes
CLOSE_SCRIPT = ("(window.opener || window.parent).postMessage("
                "{subject: 'org.imsglobal.lti.close'}, '*');\n")
MAX_FORM = 64 * 1024
NO_FRAME = "'none'"
STORAGE_CHECKED = "ttt.lti.storage_checked"    # in the scope: launch_checked vouched for it
MAX_LOGIN_PART = 8 * 1024      # a login field: at most launch.MAX_LOGIN_FIELD is taken


def tool_of(request: Request) -> Tool:
    """The course's LTI tool (made on first use when the app's lifespan did not)."""
    state = request.app.state
    tool = getattr(state, "lti", None)
    if tool is None:
        tool = state.lti = Tool.open(
            state.store, state.settings.data,
            allow_private=getattr(state.settings, "lti_allow_private", False))
    return tool


def base_url(request: Request) -> str:
    return (request.app.state.settings.base_url or str(request.base_url)).rstrip("/")


def _secure(request: Request) -> bool:
    return bool(request.app.state.settings.secure_cookies)


def _refused(request: Request, problem: LtiError) -> Response:
    """The page of a refused login or launch, which any site may frame (see
    embedding.framable_anywhere: it holds no action and nobody's data); or, for a launch
    whose state the LMS keeps (StorageCheck), the page that asks the LMS for it."""
    if isinstance(problem, StorageCheck):
        return embedding.framable_anywhere(render(request, "lti_storage_get.html", {
            "target": problem.target, "origin": problem.platform_origin,
            "key": storage_key(problem.state), "value": problem.state,
            "id_token": problem.id_token}))
    status = getattr(problem, "status", 400)
    blocked = isinstance(problem, CookiesBlocked)
    log.info("LTI refused (%s): %s", status, printable(problem))   # it quotes the LMS
    return embedding.framable_anywhere(render(request, "lti_error.html", {
        "message": str(problem), "status": status, "blocked": blocked,
        "retry_url": getattr(problem, "retry_url", None)}, status))


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
    target = storage_target(parameters.get("lti_storage_target"))
    if target is None:
        response: Response = RedirectResponse(started.redirect_url, status_code=302)
    else:       # keep the state in the LMS's storage too, then on (see lti/storage.py)
        state = started.state
        # Safe in any frame: it holds no action, and its one message goes to the LMS's
        # origin only (see embedding.framable_anywhere).
        response = embedding.framable_anywhere(render(request, "lti_storage_put.html", {
            "target": target, "origin": platforms.origin(started.redirect_url),
            "key": storage_key(state), "value": state, "next": started.redirect_url}))
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
        found = await run_in_threadpool(functools.partial(
            validate_launch, storage_checked=bool(request.scope.get(STORAGE_CHECKED))),
            state.store, tool.keysets, form, request.cookies.get(BROWSER_COOKIE))
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
             f"{admitted.student}{' (added to the roster)' if admitted.added else ''}"
             if admitted.student is not None else
             "a TA" if admitted.grader_hash is not None else "the instructor")
    response = RedirectResponse(f"/lti/enter/{code}", status_code=303,
                                background=BackgroundTask(_after_launch, tool, admitted,
                                                          found.access == INSTRUCTOR_ACCESS))
    embedding.set_frame_cookie(response, auth.SESSION_COOKIE, session.id,
                               secure=_secure(request), max_age=auth.SESSION_MAX_AGE)
    return response


def _take_handoff(store: Any, code: str, token_hash: str | None, *,
                  peek: bool = False) -> Any:
    """The hand-off ``code`` names, marked used (only if its token is ``token_hash``, when
    given; ``peek``: not marked); None when it is unknown, used or too old."""
    since = format_time(now() - timedelta(seconds=HANDOFF_SECONDS))
    with store.database.transaction() as db:
        row = db.execute("SELECT * FROM lti_handoffs WHERE code_hash = ? AND used_at IS NULL "
                         "AND created_at > ?", (digest(code), since)).fetchone()
        if row is None or (token_hash is not None and
                           not auth.same(row["token_hash"], token_hash)):
            return None
        if not peek:
            db.execute("UPDATE lti_handoffs SET used_at = ? WHERE code_hash = ?",
                       (utc_now(), row["code_hash"]))
        return row


def _who(store: Any, token_hash: str) -> str | None:
    """How a page names whom ``token_hash`` signs in; None when it signs in nobody now."""
    identity = store.identify_hash(token_hash)
    if identity is None:
        return None
    if identity.is_instructor:
        return "the instructor"
    student = store.student(identity.student)
    return f"{student.name} ({identity.student})" if student and student.name \
        else identity.student


USED = ("this sign-in from the LMS was used already or is too old: open the assignment in "
        "the LMS again")


async def enter(request: Request) -> Response:
    """After a launch: the person's page when the browser kept the session's cookie; else
    say so, with a link that opens the page in a new tab (where cookies are first-party).

    In the new tab (``?tab=1``) a browser signed in as someone else is asked first, as
    ``/s/TOKEN`` asks (signin.py): another site can make a browser open any link, and a GET
    that replaced the session would send the next hand-in to another person's account."""
    state = request.app.state
    code = request.path_params["code"]
    session = sessions.current(request)
    if session is not None:
        row = await run_in_threadpool(_take_handoff, state.store, code, session.token_hash)
        if row is not None:
            return RedirectResponse(row["home"], status_code=303)
    if request.query_params.get("tab") == "1":
        if session is not None:
            now_name = await run_in_threadpool(_who, state.store, session.token_hash)
            row = await run_in_threadpool(functools.partial(_take_handoff, peek=True),
                                          state.store, code, None)
            if row is None:
                return _refused(request, LaunchRefused(USED, status=403))
            if now_name is not None:
                link_name = await run_in_threadpool(_who, state.store, row["token_hash"])
                return render(request, "lti_switch.html", {
                    "now_name": now_name, "link_name": link_name or "someone else",
                    "code": code, "home": "/instructor" if now_name == "the instructor"
                    else "/"})
        return await _enter_new_tab(request, code)
    return render(request, "lti_error.html", {
        "message": "your browser blocks the cookies this page needs inside the LMS's frame "
                   "(third-party cookies), so you are not signed in here",
        "status": 200, "blocked": True, "retry_url": f"/lti/enter/{code}?tab=1"})


async def enter_confirm(request: Request) -> Response:
    """``POST /lti/enter/CODE`` from the page that asked (with its CSRF token): the browser's
    session is replaced by the launch's."""
    form = await read_form(request)
    auth.require_csrf(request, form)      # only the page the server showed can say yes
    return await _enter_new_tab(request, request.path_params["code"])


async def _enter_new_tab(request: Request, code: str) -> Response:
    state = request.app.state
    row = await run_in_threadpool(_take_handoff, state.store, code, None)
    if row is None:
        return _refused(request, LaunchRefused(USED, status=403))
    session = sessions.current(request)
    if session is not None:
        await run_in_threadpool(state.sessions.end, session.id)
    fresh = await run_in_threadpool(state.sessions.start, row["token_hash"])
    response = RedirectResponse(row["home"], status_code=303)
    sessions.set_cookie(response, fresh, _secure(request))
    return response


async def launch_checked(request: Request) -> Response:
    """``POST /lti/launch/checked``: the launch again, from the tool's own page
    (lti_storage_get.html) once the LMS's storage gave back its state (lti/storage.py).
    Only that page may post here: browsers send Origin with every cross-site POST, so
    another site's form (an id_token of the attacker's own, to sign a victim in as them)
    says its own origin and is refused; the check cannot be skipped."""
    # A browser says where a POST came from in Sec-Fetch-Site (which no page can set);
    # one too old for it says Origin (the page has Referrer-Policy same-origin for this).
    site = request.headers.get("sec-fetch-site")
    own = platforms.origin(base_url(request))
    if not (site == "same-origin" or (site is None and request.headers.get("origin") == own)):
        return _refused(request, LaunchRefused(
            "this address completes a launch from the tool's own page only: open the "
            "assignment in the LMS again", status=403))
    request.scope[STORAGE_CHECKED] = True
    return await launch(request)


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
    # the LMS shows this page in its own frame before it is a registered platform: only
    # the registering platform's origin (its openid_configuration's) may frame it
    framer = addresses.csp_origin(request.query_params.get("openid_configuration", ""))
    response.headers["content-security-policy"] = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; "
        f"frame-ancestors {framer or NO_FRAME}")
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
            "AS gone, (SELECT COUNT(*) FROM lti_lineitems l WHERE l.context = c.id) AS line_items "
            "FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform ORDER BY c.id")],
        "left": [dict(row) for row in store.database.query(
            "SELECT DISTINCT m.student, m.left_at, s.name FROM lti_members m JOIN students s ON "
            "s.id = m.student WHERE m.status = 'left' ORDER BY m.student")],
        "binding": binding.current(store), "links": links(store),
        "resource_links": resource_links.listing(store),
        "link_changes": resource_links.changes(store),
        "assignments": course_assignments.listing(store),
        "graders": staff.graders(store),
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
            # The course's one choice (Course dates): logged, and the LMS's grades follow.
            if await run_in_threadpool(course_dates.change, store,
                                       {course_dates.CHOICE: choice}, who=INSTRUCTOR):
                await run_in_threadpool(outbox.grades_changed, store)
            outcomes = [f"each student's {choice} submission counts (the LMS's grade, the "
                        "gradebook, their page); the grades that changed will be sent"]
    elif action == "deployment":
        problem = await run_in_threadpool(_add_deployment, store, form)
        outcomes = [] if problem else ["deployment added"]
    elif action == "new-code":
        await run_in_threadpool(registration.registration_code, store, True)
        outcomes = ["a new registration URL: the old one no longer registers anything"]
    elif action == "bind":
        problem = await run_in_threadpool(_bind, store, form)
        outcomes = [] if problem else ["the course is bound to that LMS course: launches "
                                       "from any other are refused, and its TAs' sessions "
                                       "ended"]
    elif action == "unbind":
        await run_in_threadpool(binding.unbind, store)
        outcomes = ["the course is bound to no LMS course: the next instructor launch binds "
                    "it (learners are refused until then; the TAs' sessions ended)"]
    elif action == "unlink":
        number, sub = str(form.get("platform") or ""), str(form.get("sub") or "")
        student = await run_in_threadpool(unlink, store, int(number), sub, INSTRUCTOR) \
            if number.isdigit() else None
        if student is None:
            problem = "there is no such link (undone already?)"
        else:
            log.info("the instructor undid the link of %s to LMS user %s", student, sub)
            outcomes = [f"{student} is no longer linked to LMS user {sub}: that user's next "
                        "launch links them again by SIS id or email, or adds them"]
    elif action in ("remove-grader", "restore-grader"):
        problem, outcomes = await run_in_threadpool(_grader_action, store, action, form)
    elif action == "link-assignment":
        problem, outcomes = await run_in_threadpool(_link_assignment, store, form)
    else:
        return render(request, "error.html", {"status": 404, "message": "there is no such page",
                                              "error_id": None}, 404)
    context = await run_in_threadpool(page_context, request)
    context.update(outcomes=outcomes, problem=problem)
    return render(request, "lti_instructor.html", context, 400 if problem else 200)


def _bind(store: Any, form: Any) -> str | None:
    """The bind form: a recorded LMS course (``context``, a row of lti_contexts) or one
    given by platform, deployment id and context id. Its problem, or None."""
    number = str(form.get("context") or "")
    if number.isdigit():
        row = store.database.one("SELECT * FROM lti_contexts WHERE id = ?", (int(number),))
        if row is None:
            return "choose an LMS course of the list"
        chosen = binding.Binding(int(row["platform"]), row["deployment_id"], row["context_id"],
                                 row["title"])
    else:
        platform = str(form.get("platform") or "")
        if not platform.isdigit():
            return "choose a platform"
        chosen = binding.Binding(int(platform), str(form.get("deployment") or ""),
                                 str(form.get("context_id") or ""))
    try:
        binding.bind(store, chosen, who=INSTRUCTOR)
    except ValueError as problem:
        return str(problem)
    return None


def _link_assignment(store: Any, form: Any) -> tuple[str | None, list[str]]:
    """The form that says which assignment an LMS link is (``platform``, ``deployment``,
    ``context``, ``link``, ``assignment``): (problem, outcomes)."""
    key = resource_links.LinkKey.from_fields(form)
    if key is None:
        return "choose a link of the list", []
    assignment = str(form.get("assignment") or "")
    try:
        before = resource_links.assign(store, key, assignment, who=INSTRUCTOR)
    except ValueError as problem:
        return str(problem), []
    log.info("the instructor set the assignment of LMS link %s to %s (was %s)",
             printable(key.resource_link_id), assignment, before or "not chosen")
    if before == assignment:
        return None, [f"the link {key.resource_link_id} is {assignment} already"]
    return None, [f"the link {key.resource_link_id} is {assignment} from now on: its "
                  f"students land on {assignment}, and its line items take {assignment}'s "
                  "grades (those that changed are sent)"]


def _link_page(request: Request, key: resource_links.LinkKey | None,
               problem: str | None = None) -> Response:
    store = request.app.state.store
    found = None if key is None else next(
        (one for one in resource_links.listing(store) if one.key == key), None)
    if found is None:
        return render(request, "error.html", {
            "status": 404, "message": "this LMS link never launched the tool: the LTI page "
                                     "lists the links that did", "error_id": None}, 404)
    return render(request, "lti_link_choice.html", {
        "link": found, "assignments": course_assignments.listing(store),
        "problem": problem}, 400 if problem else 200)


async def link_page(request: Request) -> Response:
    """``GET /instructor/lti/link?platform=&deployment=&context=&link=``: which assignment
    this LMS link is (where the instructor's launch of a new link lands)."""
    auth.require_instructor(request)
    key = resource_links.LinkKey.from_fields(request.query_params)
    return await run_in_threadpool(_link_page, request, key)


async def link_choose(request: Request) -> Response:
    """``POST /instructor/lti/link`` from that page (with its CSRF token): the link is bound
    to the assignment chosen, and the instructor goes on to their page."""
    auth.require_instructor(request)
    form = await request.form(max_files=0, max_fields=10, max_part_size=MAX_FORM)
    auth.require_csrf(request, form)
    problem, _ = await run_in_threadpool(_link_assignment, request.app.state.store, form)
    if problem:
        return await run_in_threadpool(_link_page, request,
                                       resource_links.LinkKey.from_fields(form), problem)
    chosen = urlencode({"assignment": str(form.get("assignment"))})
    return RedirectResponse(f"/instructor?{chosen}", status_code=303)  # the link's class


async def unchosen(request: Request) -> Response:
    """Where a student's launch of a link lands while its assignment is not chosen."""
    return render(request, "lti_link_unchosen.html", {})


def _grader_action(store: Any, action: str, form: Any) -> tuple[str | None, list[str]]:
    """The graders' forms (``platform``, ``sub``): remove one (their sessions end now, their
    launches are refused) or restore one. (problem, outcomes)."""
    number, sub = str(form.get("platform") or ""), str(form.get("sub") or "")
    if not number.isdigit() or not sub:
        return "choose a grader of the list", []
    if action == "remove-grader":
        name = staff.remove(store, int(number), sub, INSTRUCTOR)
        if name is None:
            return "there is no such grader (removed already?)", []
        log.info("the instructor removed the grader %s (LMS user %s)", name, sub)
        return None, [f"{name} is no longer a grader: their sessions ended, and their "
                      "launches are refused until you restore them"]
    name = staff.restore(store, int(number), sub, INSTRUCTOR)
    if name is None:
        return "there is no such removed grader (restored already?)", []
    log.info("the instructor restored the grader %s (LMS user %s)", name, sub)
    return None, [f"{name} is a grader again from their next launch (as long as the LMS "
                  "says they are a TA of the bound course)"]


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
    Route("/lti/launch/checked", launch_checked, methods=["POST"], name="lti_launch_checked"),
    Route("/lti/enter/{code}", enter, methods=["GET"], name="lti_enter"),
    Route("/lti/enter/{code}", enter_confirm, methods=["POST"], name="lti_enter_confirm"),
    Route("/lti/register/{code}", register, methods=["GET"], name="lti_register"),
    Route("/lti/close.js", close_script, methods=["GET"], name="lti_close_script"),
    Route("/lti/unchosen", unchosen, methods=["GET"], name="lti_unchosen"),
    Route("/instructor/lti/link", link_page, methods=["GET"], name="lti_link_page"),
    Route("/instructor/lti/link", link_choose, methods=["POST"], name="lti_link_choose"),
    Route("/instructor/lti", instructor_page, methods=["GET"], name="lti_instructor_page"),
    Route("/instructor/lti/{action}", instructor_action, methods=["POST"],
          name="lti_instructor_action"),
]
