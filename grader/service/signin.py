"""Signing in with a personal link, and out.

    GET /s/TOKEN      the link: a session for its holder, then their page
    POST /signout     the session ends
"""

from __future__ import annotations


from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from grader.service import auth
from grader.service.pages import read_form, render

async def sign_in(request: Request) -> Response:
    token = request.path_params["token"]
    identity = request.app.state.store.identify(token)
    if identity is None:
        return render(request, "signin_error.html", status_code=403)
    auth.sign_in(request.session, auth.hash_token(token))
    return RedirectResponse("/instructor" if identity.is_instructor else "/", status_code=303)


async def sign_out(request: Request) -> Response:
    form = await read_form(request)
    auth.require_csrf(request, form)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


routes = [
    Route("/s/{token}", sign_in),
    Route("/signout", sign_out, methods=["POST"]),
]
