"""An LTI 1.3 launch: the OIDC third-party-initiated login, then the id_token, validated.

    start = start_login(store, request_parameters, browser_id, launch_url)
    # redirect the browser to start.redirect_url (and set start.browser_id as its cookie)
    launch = validate_launch(store, keysets, form, browser_id)     # or LaunchRefused

The login draws a ``state`` (kept hashed, bound to the browser by a cookie holding a random
browser id) and a ``nonce``; the launch is refused unless its id_token is signed by a key of
the platform's key set, says the platform's issuer, the tool's client id as audience (and as
azp), is neither expired nor issued in the future (``LEEWAY`` seconds of clock skew), carries
the login's nonce, names a registered deployment, and is a resource link launch of LTI
1.3.0. Validation only reads: the login is marked used when the launch is stored
(:func:`grader.service.lti.people.admit`), once.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.errors import BadSignatureError, JoseError
from joserfc.jws import extract_compact

from grader.service.lti.errors import CookiesBlocked, LaunchRefused
from grader.service.lti.keysets import KeySets
from grader.service.lti.platforms import Platform, find_platform, platform_by_id
from grader.service.storage import Store
from grader.service.times import format_time, now, parse_time, utc_now

LEEWAY = 60                      # seconds of clock skew between the platform and the page
LOGIN_SECONDS = 600              # a login's state is good for ten minutes
KEEP_LOGINS = timedelta(days=1)  # used or stale logins are purged after a day
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
# Roles that open the instructor's pages (a TA is an Instructor sub-role in LIS v2). A
# Mentor (Canvas's observer: a parent, an advisor) is not staff: they would see the class.
STAFF = ("Instructor", "Administrator", "ContentDeveloper")
LOGIN_FIELDS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id",
                "lti_deployment_id")
# The longest login field taken: real ones are far shorter (Canvas's lti_message_hint, a
# signed JWT, is under 1 KB); the anonymous login stores its fields, so 200 logins with 60 KB
# fields grew the database by 36 MB in 3.5 s.
MAX_LOGIN_FIELD = 2048
MAX_LOGINS_KEPT = 1000           # logins kept per platform: the oldest go first past it


def digest(value: str) -> str:
    """What the database keeps of a state, a browser id or a hand-off code."""
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def role_names(roles: Any) -> tuple[str, ...]:
    """The context roles of a launch or a membership, short ("Instructor", "Learner",
    "Instructor#TeachingAssistant"); institution and system roles are left out.

    >>> role_names([MEMBERSHIP + "Learner", "http://purl.imsglobal.org/vocab/lis/v2/"
    ...             "membership/Instructor#TeachingAssistant", "Instructor"])
    ('Learner', 'Instructor#TeachingAssistant', 'Instructor')
    """
    names = []
    for role in roles if isinstance(roles, list) else []:
        role = str(role)
        if role.startswith(MEMBERSHIP):
            names.append(role[len(MEMBERSHIP):])
        elif role.startswith(MEMBERSHIP[:-1] + "/"):          # a sub-role
            names.append(role[len(MEMBERSHIP):])
        elif "/" not in role and ":" not in role:               # a short name (LTI 1.1's)
            names.append(role)
    return tuple(names)


def is_staff(roles: tuple[str, ...]) -> bool:
    """An Instructor (a TA among them) or another role that runs the course.

    >>> is_staff(("Learner",)), is_staff(("Instructor#TeachingAssistant",))
    (False, True)
    >>> is_staff(("Mentor",)), is_learner(("Mentor",))      # an observer: refused
    (False, False)
    """
    return any(role.split("#")[0] in STAFF for role in roles)


def is_learner(roles: tuple[str, ...]) -> bool:
    return any(role.split("#")[0] == "Learner" for role in roles)


@dataclass(frozen=True)
class LoginStart:
    """Where the login sends the browser, and the browser id its cookie must hold."""

    redirect_url: str
    browser_id: str


def login_parameters(parameters: Mapping[str, Any]) -> dict[str, str]:
    """The login request's LTI fields (what a new tab needs to start it again); LaunchRefused
    (400) for one longer than MAX_LOGIN_FIELD characters.

    >>> login_parameters({"iss": "https://lms.example", "other": "x" * 9999})
    {'iss': 'https://lms.example'}
    >>> login_parameters({"login_hint": "x" * 5000})
    Traceback (most recent call last):
    ...
    grader.service.lti.errors.LaunchRefused: the login's login_hint is 5000 characters long (at most 2048): this is not a login an LMS sends; open the assignment from the LMS's course page
    """
    fields = {name: str(parameters[name]) for name in LOGIN_FIELDS if parameters.get(name)}
    for name, value in fields.items():
        if len(value) > MAX_LOGIN_FIELD:
            raise LaunchRefused(f"the login's {name} is {len(value)} characters long (at most "
                                f"{MAX_LOGIN_FIELD}): this is not a login an LMS sends; open "
                                "the assignment from the LMS's course page", status=400)
    return fields


def start_login(store: Store, parameters: Mapping[str, Any], browser_id: str | None,
                launch_url: str) -> LoginStart:
    """The OIDC login initiation: a state and a nonce for the platform's authorization
    request. LaunchRefused for an unknown platform or deployment."""
    fields = login_parameters(parameters)
    issuer, hint = fields.get("iss"), fields.get("login_hint")
    if not issuer or not hint:
        raise LaunchRefused("this address starts a launch from an LMS (it needs iss and "
                            "login_hint): open the assignment from the LMS's course page",
                            status=400)
    platform = find_platform(store, issuer, fields.get("client_id"))
    if platform is None:
        several = store.database.one("SELECT COUNT(*) AS n FROM lti_platforms WHERE issuer = ?",
                                     (issuer,))
        if several is not None and several["n"] > 1:
            raise LaunchRefused(f"{issuer} is registered more than once and the LMS did not "
                                "say which client id: configure the LMS to send client_id "
                                "with the login", status=400)
        raise LaunchRefused(f"the LMS {issuer} is not registered with this course (client id "
                            f"{fields.get('client_id', 'not given')}): the instructor "
                            "registers it on the LTI page, or with --lti-platform")
    deployment = fields.get("lti_deployment_id")
    if deployment is not None and deployment not in platform.deployment_ids:
        raise LaunchRefused(_unknown_deployment(platform, deployment))
    browser_id = browser_id if browser_id and len(browser_id) <= 100 else \
        secrets.token_urlsafe(32)
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    with store.database.transaction() as db:
        db.execute("DELETE FROM lti_logins WHERE created_at < ?",
                   (format_time(now() - KEEP_LOGINS),))
        db.execute("INSERT INTO lti_logins (state_hash, nonce, platform, browser_hash, request, "
                   "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                   (digest(state), nonce, platform.id, digest(browser_id), json.dumps(fields),
                    utc_now()))
        # A flood of logins (anyone may start one) keeps the table this small: a real login
        # comes back within seconds, long before a thousand others push it out.
        db.execute("DELETE FROM lti_logins WHERE platform = ? AND rowid NOT IN (SELECT rowid "
                   "FROM lti_logins WHERE platform = ? ORDER BY rowid DESC LIMIT ?)",
                   (platform.id, platform.id, MAX_LOGINS_KEPT))
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
             "prompt": "none", "client_id": platform.client_id, "redirect_uri": launch_url,
             "login_hint": hint, "state": state, "nonce": nonce}
    if "lti_message_hint" in fields:
        query["lti_message_hint"] = fields["lti_message_hint"]
    separator = "&" if "?" in platform.auth_login_url else "?"
    return LoginStart(f"{platform.auth_login_url}{separator}{urlencode(query)}", browser_id)


def _unknown_deployment(platform: Platform, deployment: str) -> str:
    return (f"the deployment {deployment!r} of {platform.label} is not registered with this "
            "course: the instructor adds it (the platform's deployment_ids, on the LTI page "
            "or with --lti-platform)")


@dataclass(frozen=True)
class Launch:
    """A validated launch: who, from where, and the services it offers."""

    platform: Platform
    state_hash: str
    deployment_id: str
    sub: str
    name: str
    email: str
    sourcedid: str
    roles: tuple[str, ...]
    context_id: str
    context_title: str
    resource_link_id: str
    lineitem: str | None
    lineitems: str | None
    ags_scopes: tuple[str, ...]
    memberships_url: str | None
    custom: dict[str, str]

    @property
    def is_staff(self) -> bool:
        return is_staff(self.roles)

    @property
    def is_learner(self) -> bool:
        return is_learner(self.roles)


def _claims(id_token: str, key_set_of: Callable[[str | None], Any]) -> dict[str, Any]:
    """The id_token's claims once its signature verifies (RS256 only)."""
    try:
        header = extract_compact(id_token.encode("ascii")).headers()
    except (JoseError, UnicodeEncodeError, ValueError):
        raise LaunchRefused("the launch's id_token is not a signed JWT: open the assignment "
                            "in the LMS again", status=400) from None
    if header.get("alg") != "RS256":
        raise LaunchRefused(f"the launch's id_token is signed with {header.get('alg')!r}; "
                            "LTI 1.3 launches are signed with RS256")
    kid = header.get("kid")
    key_set = key_set_of(kid if isinstance(kid, str) else None)
    try:
        claims = jwt.decode(id_token, key_set, algorithms=["RS256"]).claims
    except BadSignatureError:
        raise LaunchRefused("the launch's signature does not verify with the platform's key: "
                            "the token was altered or is not the platform's") from None
    except JoseError as problem:
        raise LaunchRefused(f"the launch's id_token cannot be verified ({problem.error}): "
                            "open the assignment in the LMS again") from None
    if not isinstance(claims, dict):
        raise LaunchRefused("the launch's id_token holds no claims", status=400)
    return claims


def _check_times(claims: dict[str, Any], moment: float, leeway: int) -> None:
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, (int, float)) or not isinstance(iat, (int, float)):
        raise LaunchRefused("the launch's id_token lacks exp or iat")
    if exp < moment - leeway:
        raise LaunchRefused("the launch's token has expired: open the assignment in the LMS "
                            "again (if it keeps happening, the server's or the LMS's clock is "
                            "wrong)")
    if iat > moment + leeway:
        raise LaunchRefused("the launch's token was issued in the future: the server's or the "
                            "LMS's clock is wrong")


def _check_audience(claims: dict[str, Any], platform: Platform) -> None:
    if claims.get("iss") != platform.issuer:
        raise LaunchRefused(f"the launch's issuer {claims.get('iss')!r} is not the platform's "
                            f"({platform.issuer})")
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    if platform.client_id not in audiences:
        raise LaunchRefused(f"the launch is meant for another tool (audience {audience!r}, "
                            f"this course's client id is {platform.client_id})")
    azp = claims.get("azp")
    if (len(audiences) > 1 or azp is not None) and azp != platform.client_id:
        raise LaunchRefused(f"the launch's authorized party {azp!r} is not this course's "
                            f"client id {platform.client_id}")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def validate_launch(store: Store, keysets: KeySets, form: Mapping[str, Any],
                    browser_id: str | None, *, clock: Callable[[], float] = time.time,
                    leeway: int = LEEWAY) -> Launch:
    """The launch the form (the platform's form_post) carries, validated fully; reads only.
    LaunchRefused (CookiesBlocked when the browser kept no cookie) otherwise."""
    if form.get("error"):
        raise LaunchRefused(f"the LMS refused the launch: {_text(form.get('error'))} "
                            f"{_text(form.get('error_description'))}".strip(), status=400)
    state, id_token = _text(form.get("state")), _text(form.get("id_token"))
    if not state:
        raise LaunchRefused("the launch has no state: start it from the LMS's course page",
                            status=400)
    if not id_token:
        raise LaunchRefused("the launch has no id_token: start it from the LMS's course page",
                            status=400)
    row = store.database.one("SELECT * FROM lti_logins WHERE state_hash = ?", (digest(state),))
    if row is None:
        raise LaunchRefused("the launch's state is unknown (it came from another login, or "
                            "was made up): open the assignment in the LMS again", status=400)
    if row["used_at"] is not None:
        raise LaunchRefused("this launch was used already (a launch signs in once): open the "
                            "assignment in the LMS again")
    if parse_time(row["created_at"]) < now() - timedelta(seconds=LOGIN_SECONDS):
        raise LaunchRefused("the launch took more than ten minutes: open the assignment in "
                            "the LMS again")
    platform = platform_by_id(store, int(row["platform"]))
    assert platform is not None              # a login's platform is never removed
    if not browser_id:
        raise CookiesBlocked(
            "your browser did not keep this page's cookie inside the LMS's frame (it blocks "
            "third-party cookies), so it cannot sign you in here",
            retry_url="/lti/login?" + urlencode(json.loads(row["request"])))
    if digest(browser_id) != row["browser_hash"]:
        raise LaunchRefused("the launch's state belongs to another browser: open the "
                            "assignment in the LMS again, in this browser")
    claims = _claims(id_token, lambda kid: keysets.get(platform.key_set_url, kid))
    _check_audience(claims, platform)
    _check_times(claims, clock(), leeway)
    if claims.get("nonce") != row["nonce"]:
        raise LaunchRefused("the launch's nonce is not its login's (a replayed token): open "
                            "the assignment in the LMS again")
    deployment = _text(claims.get(LTI + "deployment_id"))
    if deployment not in platform.deployment_ids:
        raise LaunchRefused(_unknown_deployment(platform, deployment))
    kind, version = claims.get(LTI + "message_type"), claims.get(LTI + "version")
    if kind != "LtiResourceLinkRequest":
        raise LaunchRefused(f"this tool takes resource link launches, not {kind!r}: add it "
                            "to the course as an assignment (external tool) link", status=400)
    if version != "1.3.0":
        raise LaunchRefused(f"this tool speaks LTI 1.3.0, not {version!r}", status=400)
    sub = _text(claims.get("sub"))
    if not sub:
        raise LaunchRefused("the launch does not say who you are (an anonymous launch): "
                            "the LMS must share the user's id with this tool")
    roles = role_names(claims.get(LTI + "roles"))
    if not is_staff(roles) and not is_learner(roles):
        raise LaunchRefused("your role in this LMS course is neither a learner's nor an "
                            "instructor's, so this page has nothing for you")
    context, link = _dict(claims.get(LTI + "context")), _dict(claims.get(LTI + "resource_link"))
    ags, nrps = _dict(claims.get(AGS)), _dict(claims.get(NRPS))
    lis = _dict(claims.get(LTI + "lis"))
    name = _text(claims.get("name")) or " ".join(
        part for part in (_text(claims.get("given_name")), _text(claims.get("family_name")))
        if part)
    scopes = ags.get("scope") if isinstance(ags.get("scope"), list) else []
    return Launch(platform=platform, state_hash=row["state_hash"], deployment_id=deployment,
                  sub=sub, name=name, email=_text(claims.get("email")),
                  sourcedid=_text(lis.get("person_sourcedid")), roles=roles,
                  context_id=_text(context.get("id")) or f"link:{_text(link.get('id'))}",
                  context_title=_text(context.get("title")),
                  resource_link_id=_text(link.get("id")),
                  lineitem=_text(ags.get("lineitem")) or None,
                  lineitems=_text(ags.get("lineitems")) or None,
                  ags_scopes=tuple(str(scope) for scope in scopes),
                  memberships_url=_text(nrps.get("context_memberships_url")) or None,
                  custom={str(k): str(v) for k, v in _dict(claims.get(LTI + "custom")).items()})
