"""Signing in with a personal link, and out.

    GET  /s/TOKEN     the link: a session for its holder, then their page; a browser signed
                      in as someone else is asked first (the GET changes nothing)
    POST /s/TOKEN     the answer "yes, sign in as the link's holder" (with the CSRF token)
    POST /signout     the session ends (a copy of its cookie signs nobody in)

Why ask: another site can make a browser open any link (an image, a redirect), so a GET that
replaced a signed-in student's session with another person's would send the student's next
hand-in to the other account. A link opened while signed out signs in at once, and so does
one's own link opened again.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from grader.service import sessions
from grader.service.course import auth
from grader.service.pages.pages import path_for, read_form, render


def _home(request: Request, identity: Any) -> str:
    return path_for(request, "instructor_class" if identity.is_instructor else "home")


def _who(request: Request, identity: Any) -> str:
    """How a page names the person ``identity`` signs in ("Ada Lovelace (ada42)")."""
    if identity.is_instructor:
        return "the instructor"
    student = request.app.state.store.student(identity.student)
    name = student.name if student is not None else ""
    return f"{name} ({identity.student})" if name else identity.student


async def _start(request: Request, identity: Any, token_hash: str) -> Response:
    """A new session for ``identity``, its cookie, and their page; the browser's session,
    if any, ends first (one browser, one person)."""
    state = request.app.state
    old = sessions.current(request)
    if old is not None:
        await run_in_threadpool(state.sessions.end, old.id)
    session = await run_in_threadpool(state.sessions.start, token_hash)
    response = RedirectResponse(_home(request, identity), status_code=303)
    sessions.set_cookie(response, session, state.settings.secure_cookies)
    return response


async def sign_in(request: Request) -> Response:
    """``GET /s/TOKEN``: sign in, unless this browser is signed in as someone else (then ask)."""
    token = request.path_params["token"]
    store = request.app.state.store
    identity = store.identify(token)
    if identity is None:
        return render(request, "signin_error.html", status_code=403)
    token_hash = auth.hash_token(token)
    session = sessions.current(request)
    if session is None:
        return await _start(request, identity, token_hash)
    if auth.same(session.token_hash, token_hash):        # one's own link again
        return RedirectResponse(_home(request, identity), status_code=303)
    signed_in = store.identify_hash(session.token_hash)
    if signed_in is None:                 # the link of the session just stopped working
        return await _start(request, identity, token_hash)
    return render(request, "signin_confirm.html", {
        "now_name": _who(request, signed_in), "link_name": _who(request, identity),
        "token": token, "home": _home(request, signed_in)})


async def confirm(request: Request) -> Response:
    """``POST /s/TOKEN`` from the page that asked: the browser's session is replaced."""
    form = await read_form(request)
    auth.require_csrf(request, form)      # only the page the server showed can say yes
    token = request.path_params["token"]
    identity = request.app.state.store.identify(token)
    if identity is None:
        return render(request, "signin_error.html", status_code=403)
    return await _start(request, identity, auth.hash_token(token))


async def sign_out(request: Request) -> Response:
    """``POST /signout``: the server ends the session, then the browser forgets its cookie."""
    form = await read_form(request)
    auth.require_csrf(request, form)
    state = request.app.state
    session = sessions.current(request)
    if session is not None:
        await run_in_threadpool(state.sessions.end, session.id)
    response = RedirectResponse(path_for(request, "home"), status_code=303)
    sessions.clear_cookie(response, state.settings.secure_cookies)
    return response


routes = [
    Route("/s/{token}", sign_in, methods=["GET"], name="sign_in"),
    Route("/s/{token}", confirm, methods=["POST"], name="sign_in_confirm"),
    Route("/signout", sign_out, methods=["POST"], name="sign_out"),
]
