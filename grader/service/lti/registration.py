"""LTI Dynamic Registration (Moodle 4.x, Canvas): the instructor pastes the course's
registration URL into the LMS; the LMS opens it with its ``openid_configuration`` and a
``registration_token``; the page reads the platform's configuration, registers the tool at
the platform's registration endpoint, and stores the platform with the client id (and
deployment) it was given.

The URL holds a registration code (``lti_registration_code``, shown on the LTI page): a
platform can only be added by someone the instructor gave it to, since a platform's launches
sign students in. The code is used once; the page then shows a new one.

    code = registration_code(store)
    platform = register(tool, code, openid_configuration, registration_token, base_url)
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit

import httpx

from grader.service import auth
from grader.service.lti.errors import RegistrationError
from grader.service.lti.nrps import NRPS_SCOPE
from grader.service.lti.platforms import Platform, PlatformInfo, add_platform, tool_urls
from grader.service.lti.people import CANVAS_USER_ID
from grader.service.storage import Store

CODE_SETTING = "lti_registration_code"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = ("https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly", NRPS_SCOPE)
TOOL_NAME = "Tic-Tac-Toe minimax submissions"


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


def _get_json(http: httpx.Client, url: str, token: str, what: str) -> dict[str, Any]:
    headers = {"accept": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    try:
        answer = http.get(url, headers=headers)
        data = answer.json() if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise RegistrationError(f"the platform's {what} at {url} cannot be read: start the "
                                "registration again from the LMS")
    return data


def tool_configuration(base_url: str, platform_config: dict[str, Any]) -> dict[str, Any]:
    """What the tool asks the platform to register (OpenID Connect client metadata with
    LTI's tool configuration)."""
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
            "messages": [{"type": "LtiResourceLinkRequest", "target_link_uri": urls.launch,
                          "label": TOOL_NAME}]}}


def _product(platform_config: dict[str, Any]) -> str:
    found = platform_config.get(PLATFORM_CONFIGURATION)
    return str(found.get("product_family_code", "")) if isinstance(found, dict) else ""


def register(tool: Any, code: str, openid_configuration: str, registration_token: str,
             base_url: str) -> Platform:
    """The whole exchange; the platform as stored. RegistrationError says what went wrong."""
    store: Store = tool.store
    check_code(store, code)
    if not openid_configuration:
        raise RegistrationError("this is the course's Dynamic Registration URL: paste it into "
                                "the LMS's tool registration (it adds openid_configuration)")
    config = _get_json(tool.http, openid_configuration, registration_token,
                       "OpenID configuration")
    issuer = str(config.get("issuer") or "")
    if not issuer or not openid_configuration.startswith(issuer.rstrip("/")):
        raise RegistrationError(f"the platform's issuer {issuer!r} does not match the address "
                                f"of its configuration {openid_configuration}: refused")
    needed = ("authorization_endpoint", "token_endpoint", "jwks_uri", "registration_endpoint")
    missing = [name for name in needed if not config.get(name)]
    if missing:
        raise RegistrationError(f"the platform's configuration lacks {', '.join(missing)}")
    headers = {"content-type": "application/json", "accept": "application/json"}
    if registration_token:
        headers["authorization"] = f"Bearer {registration_token}"
    try:
        answer = tool.http.post(str(config["registration_endpoint"]),
                                json=tool_configuration(base_url, config), headers=headers)
        client = answer.json() if answer.status_code in (200, 201) else None
    except (httpx.HTTPError, ValueError):
        client = None
    if not isinstance(client, dict) or not client.get("client_id"):
        raise RegistrationError("the platform did not register the tool (its registration "
                                "endpoint refused or gave no client_id): start again from the "
                                "LMS, or register it by hand with --lti-platform")
    given = client.get(TOOL_CONFIGURATION)
    deployment = given.get("deployment_id") if isinstance(given, dict) else None
    name = _product(config) or urlsplit(issuer).netloc
    info = PlatformInfo(issuer, str(client["client_id"]), str(config["authorization_endpoint"]),
                        str(config["token_endpoint"]), str(config["jwks_uri"]),
                        (str(deployment),) if deployment else (), name)
    platform = add_platform(store, info, who="dynamic registration")
    registration_code(store, renew=True)          # the code registered one platform
    return platform

