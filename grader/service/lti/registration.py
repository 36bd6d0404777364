"""LTI Dynamic Registration (Moodle 4.x, Canvas): the instructor pastes the course's
registration URL into the LMS; the LMS opens it with its ``openid_configuration`` and a
``registration_token``; the page reads the platform's configuration, registers the tool at
the platform's registration endpoint, and stores the platform with the client id (and
deployment) it was given.

The URL holds a registration code (``lti_registration_code``, shown on the LTI page): a
platform can only be added by someone the instructor gave it to, since a platform's launches
sign students in. The code is spent by a registration that stored a platform (a failed one
leaves it); the page then shows a new one.

The deployment: Moodle names it inside the tool configuration; Canvas at the top level of
its reply, or not at all until the tool is installed: then the platform's first launch whose
signature verifies, under the client id it gave, records it (launch.py).

    code = registration_code(store)
    platform = register(tool, code, openid_configuration, registration_token, base_url)
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit

import httpx

from grader.service.course import auth
from grader.service.course.storage import Store
from grader.service.lti.addresses import AddressRefused, check_url, host_of, same_origin
from grader.service.lti.errors import RegistrationError
from grader.service.lti.nrps import NRPS_SCOPE
from grader.service.lti.people import CANVAS_USER_ID
from grader.service.lti.platforms import (DYNAMIC, Platform, PlatformInfo, add_platform,
                                          tool_urls)

CODE_SETTING = "lti_registration_code"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = ("https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly", NRPS_SCOPE)
TOOL_NAME = "Tic-Tac-Toe submissions"
# Where Canvas places the tool: the assignment's "External Tool" submission type, so the
# assignment is graded through AGS (canvas-lms app/models/lti/ims/registration.rb
# canvas_placement_name: its own placements by URI, the prefix taken off).
CANVAS_PLACEMENTS = ("https://canvas.instructure.com/lti/assignment_selection",)


def registration_code(store: Store, renew: bool = False) -> str:
    """The course's current registration code (drawn when there is none, or ``renew``)."""
    code = store.get_setting(CODE_SETTING)
    if code is None or renew:
        code = secrets.token_urlsafe(24)
        store.set_setting(CODE_SETTING, code)
    return code


def check_code(store: Store, code: str) -> None:
    """RegistrationError unless ``code`` is the course's current registration code."""
    current = store.get_setting(CODE_SETTING)
    if not current or not auth.same(current, code):
        raise RegistrationError("this registration URL is not (or no longer) the course's: "
                                "copy the current one from the instructor's LTI page")


def _claim_code(store: Store, code: str) -> str:
    """Take ``code`` for one registration: it is replaced at once by a fresh code (returned),
    so a second registration with it, even one running at the same time, is refused.
    RegistrationError when another took it first."""
    fresh = secrets.token_urlsafe(24)
    with store.database.transaction() as db:
        taken = db.execute("UPDATE settings SET value = ? WHERE key = ? AND value = ?",
                           (fresh, CODE_SETTING, code)).rowcount
    if taken != 1:
        raise RegistrationError("this registration URL is not (or no longer) the course's: "
                                "copy the current one from the instructor's LTI page")
    return fresh


def _give_back_code(store: Store, code: str, fresh: str) -> None:
    """A failed registration's code is the course's again (unless the instructor drew a
    new one meanwhile)."""
    with store.database.transaction() as db:
        db.execute("UPDATE settings SET value = ? WHERE key = ? AND value = ?",
                   (code, CODE_SETTING, fresh))


def _get_json(http: httpx.Client, url: str, token: str, what: str) -> dict[str, Any]:
    headers = {"accept": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    try:
        answer = http.get(url, headers=headers, follow_redirects=False)
        data = answer.json() if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise RegistrationError(f"the platform's {what} at {url} cannot be read: start the "
                                "registration again from the LMS")
    return data


def _messages(launch: str, product: str) -> list[dict[str, Any]]:
    """The tool's one message: a resource link launch, placed where Canvas makes it a graded
    assignment. Canvas reads ``placements`` (its own by URI, the prefix taken off, or a short
    name; none at all means only link_selection, a module link that sends no grade back);
    Moodle reads only deep linking messages and adds the tool as a preconfigured activity,
    graded because the tool asks for the score scope."""
    message: dict[str, Any] = {"type": "LtiResourceLinkRequest", "target_link_uri": launch,
                               "label": TOOL_NAME}
    if product == "canvas":
        message["placements"] = list(CANVAS_PLACEMENTS)
    return [message]


def tool_configuration(base_url: str, platform_config: dict[str, Any]) -> dict[str, Any]:
    """What the tool asks the platform to register (OpenID Connect client metadata with
    LTI's tool configuration).

    >>> asked = tool_configuration("https://grader.example.org", {
    ...     PLATFORM_CONFIGURATION: {"product_family_code": "canvas"}})
    >>> asked[TOOL_CONFIGURATION]["messages"][0]["placements"]
    ['https://canvas.instructure.com/lti/assignment_selection']
    """
    urls = tool_urls(base_url)
    supported = platform_config.get("scopes_supported")
    scopes = [scope for scope in SCOPES
              if not isinstance(supported, list) or scope in supported]
    product = _product(platform_config)
    custom = {CANVAS_USER_ID: "$Canvas.user.id"} if product == "canvas" else {}
    return {
        "application_type": "web", "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls.login, "redirect_uris": [urls.launch],
        "client_name": TOOL_NAME, "jwks_uri": urls.jwks,
        "token_endpoint_auth_method": "private_key_jwt", "scope": " ".join(scopes),
        TOOL_CONFIGURATION: {
            "domain": urlsplit(base_url).netloc, "target_link_uri": urls.launch,
            "custom_parameters": custom,
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": _messages(urls.launch, product)}}


def _product(platform_config: dict[str, Any]) -> str:
    found = platform_config.get(PLATFORM_CONFIGURATION)
    return str(found.get("product_family_code", "")) if isinstance(found, dict) else ""


def _deployment(client: dict[str, Any]) -> str | None:
    """The deployment the registration reply names: Canvas puts it at the top level (and
    leaves it out until the tool is installed), Moodle inside the tool configuration."""
    given = client.get(TOOL_CONFIGURATION)
    for value in (client.get("deployment_id"),
                  given.get("deployment_id") if isinstance(given, dict) else None):
        if isinstance(value, (str, int)) and not isinstance(value, bool) and \
                str(value).strip():
            return str(value).strip()
    return None


def _checked(url: Any, what: str, allow_private: bool) -> str:
    try:
        return check_url(str(url or ""), what, allow_private)
    except AddressRefused as problem:
        raise RegistrationError(f"the platform's {problem}") from None


def register(tool: Any, code: str, openid_configuration: str, registration_token: str,
             base_url: str) -> Platform:
    """The whole exchange; the platform as stored. RegistrationError says what went wrong
    (and the registration code stays as it was: only a registration that stored a platform
    spends it; the code is taken for the exchange, so another registration with it meanwhile
    is refused).

    Every URL is checked before it is called or stored: http(s), no user name, on a public
    address unless ``tool.allow_private`` (serve --lti-allow-private); the issuer must have
    the configuration URL's origin (scheme, host and port, parsed); redirects are not
    followed; a registered issuer and client id keep their URLs.
    """
    store: Store = tool.store
    check_code(store, code)
    # The code is taken now, not when the platform is stored: two registrations running at
    # once with one code would both pass a check made here and both store a platform.
    fresh = _claim_code(store, code)
    try:
        return _register(tool, openid_configuration, registration_token, base_url)
    except BaseException:
        _give_back_code(store, code, fresh)
        raise


def _register(tool: Any, openid_configuration: str, registration_token: str,
              base_url: str) -> Platform:
    """:func:`register` once its code is taken."""
    store: Store = tool.store
    allow = bool(getattr(tool, "allow_private", False))
    if not openid_configuration:
        raise RegistrationError("this is the course's Dynamic Registration URL: paste it into "
                                "the LMS's tool registration (it adds openid_configuration)")
    _checked(openid_configuration, "openid_configuration", allow)
    config = _get_json(tool.http, openid_configuration, registration_token,
                       "OpenID configuration")
    issuer = str(config.get("issuer") or "")
    if not issuer or not same_origin(issuer, openid_configuration):
        raise RegistrationError(f"the platform's issuer {issuer!r} is not at the origin of its "
                                f"configuration {openid_configuration}: refused")
    needed = ("authorization_endpoint", "token_endpoint", "jwks_uri", "registration_endpoint")
    missing = [name for name in needed if not config.get(name)]
    if missing:
        raise RegistrationError(f"the platform's configuration lacks {', '.join(missing)}")
    urls = {name: _checked(config[name], name, allow) for name in needed}
    _checked(issuer, "issuer", allow)
    headers = {"content-type": "application/json", "accept": "application/json"}
    if registration_token:
        headers["authorization"] = f"Bearer {registration_token}"
    try:
        answer = tool.http.post(urls["registration_endpoint"],
                                json=tool_configuration(base_url, config), headers=headers,
                                follow_redirects=False)
        client = answer.json() if answer.status_code in (200, 201) else None
    except (httpx.HTTPError, ValueError):
        client = None
    if not isinstance(client, dict) or not client.get("client_id"):
        raise RegistrationError("the platform did not register the tool (its registration "
                                "endpoint refused or gave no client_id): start again from the "
                                "LMS, or register it by hand with --lti-platform")
    deployment = _deployment(client)
    name = _product(config) or urlsplit(issuer).netloc
    # Canvas serves the roster and grade services on the school's domain, where its
    # registration endpoint is (its issuer, login and keys are elsewhere): that host is
    # the platform's too.
    info = PlatformInfo(issuer, str(client["client_id"]), urls["authorization_endpoint"],
                        urls["token_endpoint"], urls["jwks_uri"],
                        (deployment,) if deployment else (), name,
                        (host_of(urls["registration_endpoint"]),))
    return add_platform(store, info, who=DYNAMIC)
