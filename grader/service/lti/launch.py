"""An LTI 1.3 launch: the OIDC third-party-initiated login, then the id_token, validated.

    start = start_login(store, request_parameters, browser_id, launch_url)
    # redirect the browser to start.redirect_url (and set start.browser_id as its cookie)
    launch = validate_launch(store, keysets, form, browser_id)     # or LaunchRefused

The login draws a ``nonce`` and sends it in a signed ``state`` that stores nothing
(:mod:`grader.service.lti.login_state`: the platform, the time, the nonce, a tag of the
browser's cookie, which holds a random browser id); the launch is refused unless its state is
this course's, under ten minutes old, from the same browser and not used yet, and its
id_token is signed by a key of
the platform's key set, says the platform's issuer, the tool's client id as audience (and as
azp), is neither expired nor issued in the future (``LEEWAY`` seconds of clock skew), carries
the login's nonce, names a registered deployment, and is a resource link launch of LTI
1.3.0. Validation only reads (but for one write: a platform registered by Dynamic
Registration without a deployment, as Canvas does until the tool is installed, gets the
deployment of its first launch that passed every check): the state is recorded as used when
the launch is stored (:func:`grader.service.lti.people.admit`), once. The roster and grade
service URLs a launch names are kept only when on the platform's hosts
(:func:`grader.service.lti.platforms.service_hosts`); others are dropped, never called.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlencode

from joserfc import jwt
from joserfc.errors import BadSignatureError, JoseError
from joserfc.jws import extract_compact

from grader.service.course.storage import Store
from grader.service.lti.errors import CookiesBlocked, LaunchRefused, StorageCheck
from grader.service.lti.keysets import KeySets
from grader.service.lti.login_state import LoginState, digest, login_key, was_used
from grader.service.lti.platforms import (Platform, find_platform, on_platform_hosts, origin,
                                          platform_by_id, record_first_deployment)
from grader.service.lti.storage import storage_target

LEEWAY = 60                      # seconds of clock skew between the platform and the page
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
# LIS v1 role URNs, which LTI 1.3 (core spec, Appendix A) still lets a platform send.
LEGACY = {"urn:lti:role:ims/lis/": "", "urn:lti:instrole:ims/lis/": "institution/",
          "urn:lti:sysrole:ims/lis/": "system/"}
# What a launch's roles give on this page (the names are role_names'):
INSTRUCTOR_ACCESS, GRADER_ACCESS, LEARNER_ACCESS = "instructor", "grader", "learner"
ADMINISTRATORS = ("Administrator", "institution/Administrator", "system/Administrator",
                  "system/SysAdmin")
# Instructor sub-roles that grade but do not run the course (LIS v2's TeachingAssistant
# family, and Grader).
GRADING_SUB_ROLES = ("TeachingAssistant", "TeachingAssistantGroup",
                     "TeachingAssistantOffering", "TeachingAssistantSection",
                     "TeachingAssistantSectionAssociation", "TeachingAssistantTemplate",
                     "Grader")
LOGIN_FIELDS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id",
                "lti_deployment_id", "lti_storage_target")
# The longest login field taken: real ones are far shorter (Canvas's lti_message_hint, a
# signed JWT, is under 1 KB); a login is redirected with its lti_message_hint.
MAX_LOGIN_FIELD = 2048


def role_names(roles: Any) -> tuple[str, ...]:
    """The roles of a launch or a membership as short names: context roles as they are
    ("Instructor", "Learner"), a context sub-role as "Principal#Sub"
    ("Instructor#TeachingAssistant"), institution and system roles prefixed
    ("institution/Administrator", "system/User"). LIS v2 URIs, LIS v1 URNs and LTI 1.1's
    short names are read alike; anything else is left out.

    >>> role_names([MEMBERSHIP + "Learner", LIS + "membership/Instructor#TeachingAssistant",
    ...             "Instructor", "urn:lti:role:ims/lis/Instructor/Grader"])
    ('Learner', 'Instructor#TeachingAssistant', 'Instructor', 'Instructor#Grader')
    >>> role_names([LIS + "institution/person#Administrator", LIS + "system/person#User"])
    ('institution/Administrator', 'system/User')
    """
    names = []
    for role in roles if isinstance(roles, list) else []:
        role = str(role).strip()
        if role.startswith(MEMBERSHIP):
            names.append(role[len(MEMBERSHIP):])
        elif role.startswith(LIS + "membership/"):             # a sub-role
            names.append(role[len(LIS + "membership/"):])
        elif role.startswith((LIS + "institution/person#", LIS + "system/person#")):
            kind, _, name = role[len(LIS):].partition("/person#")
            names.append(f"{kind}/{name}")
        elif role.startswith(tuple(LEGACY)):
            prefix = next(one for one in LEGACY if role.startswith(one))
            names.append(LEGACY[prefix] + role[len(prefix):].replace("/", "#", 1)
                         if not LEGACY[prefix] else LEGACY[prefix] + role[len(prefix):])
        elif role and "/" not in role and ":" not in role:   # a short name (LTI 1.1's)
            names.append(role)
    return tuple(name for name in names if name)


def access(roles: tuple[str, ...]) -> str | None:
    """What the roles (role_names') give on this page: "instructor" (an Administrator of the
    context, the institution or the system, or a context Instructor), "grader" (a TA: an
    Instructor sub-role of the TeachingAssistant family or Grader, which decides even beside
    the principal role the LTI spec asks platforms to send with it), "learner" (a context
    Learner), or None (a Mentor, a ContentDeveloper, a system User alone: nothing here).

    >>> [access(one) for one in [("Instructor",), ("Instructor#TeachingAssistant",
    ...  "Instructor"), ("institution/Administrator", "system/User"), ("Learner",),
    ...  ("Mentor",), ("ContentDeveloper",), ("system/User",), ("TeachingAssistant",)]]
    ['instructor', 'grader', 'instructor', 'learner', None, None, None, 'grader']
    """
    if any(role in ADMINISTRATORS for role in roles):
        return INSTRUCTOR_ACCESS
    principals = {role.split("#")[0] for role in roles if "/" not in role}
    grading = any(role.split("#")[-1] in GRADING_SUB_ROLES for role in roles
                  if "/" not in role and (role.startswith("Instructor#") or "#" not in role))
    if grading:
        return GRADER_ACCESS
    if "Instructor" in principals:
        return INSTRUCTOR_ACCESS
    if "Learner" in principals:
        return LEARNER_ACCESS
    return None


def is_staff(roles: tuple[str, ...]) -> bool:
    """The course's staff: its instructor's rights or a grader's.

    >>> is_staff(("Learner",)), is_staff(("Instructor#TeachingAssistant",))
    (False, True)
    >>> is_staff(("Mentor",)), is_learner(("Mentor",))      # an observer: refused
    (False, False)
    """
    return access(roles) in (INSTRUCTOR_ACCESS, GRADER_ACCESS)


def is_learner(roles: tuple[str, ...]) -> bool:
    """A learner and nothing more (staff roles win)."""
    return access(roles) == LEARNER_ACCESS


def refusal_for_roles(roles: tuple[str, ...]) -> str:
    """Why a launch whose roles give nothing here is refused (the page's words)."""
    shown = ", ".join(roles) or "none"
    return (f"your roles in this LMS course ({shown}) give you nothing on this page: it is "
            "for the course's learners, its instructors and TAs, and the LMS's administrators. "
            "If you should have access, ask the instructor to change your role in the LMS "
            "course")


@dataclass(frozen=True)
class LoginStart:
    """Where the login sends the browser, and the browser id its cookie must hold."""

    redirect_url: str
    browser_id: str
    state: str = ""       # also kept in the LMS's storage when it offers one (lti/storage.py)


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
                launch_url: str, *, clock: Callable[[], float] = time.time) -> LoginStart:
    """The OIDC login initiation: a signed state and a nonce for the platform's
    authorization request (nothing stored). LaunchRefused for an unknown platform or
    deployment."""
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
    if deployment is not None and deployment not in platform.deployment_ids and \
            not platform.awaits_deployment:        # else its launch, once verified, records it
        raise LaunchRefused(_unknown_deployment(platform, deployment))
    browser_id = browser_id if browser_id and len(browser_id) <= 100 else \
        secrets.token_urlsafe(32)
    # Nothing is stored: the state is the login, signed (a flood of anonymous logins then
    # has nothing to push out).
    key = login_key(store)
    login = LoginState.new(key, platform.id, browser_id,
                           storage_target(fields.get("lti_storage_target")), clock)
    state, nonce = login.encode(key), login.nonce
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
             "prompt": "none", "client_id": platform.client_id, "redirect_uri": launch_url,
             "login_hint": hint, "state": state, "nonce": nonce}
    if "lti_message_hint" in fields:
        query["lti_message_hint"] = fields["lti_message_hint"]
    separator = "&" if "?" in platform.auth_login_url else "?"
    return LoginStart(f"{platform.auth_login_url}{separator}{urlencode(query)}", browser_id,
                      state)


def _unknown_deployment(platform: Platform, deployment: str) -> str:
    return (f"the deployment {deployment!r} of {platform.label} is not registered with this "
            "course: the instructor adds it (the platform's deployment_ids, on the LTI page "
            "or with --lti-platform)")


@dataclass(frozen=True)
class Launch:
    """A validated launch: who, from where, and the services it offers."""

    platform: Platform
    state_hash: str           # what the database keeps of its state, once used
    login: LoginState         # the login the state carried
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
    def access(self) -> str | None:
        """"instructor", "grader", "learner" (see :func:`access`)."""
        return access(self.roles)

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
                    leeway: int = LEEWAY, storage_checked: bool = False) -> Launch:
    """The launch the form (the platform's form_post) carries, validated fully; reads only.
    LaunchRefused otherwise: CookiesBlocked when the browser kept no cookie, StorageCheck
    when it kept none but the login put the state in the platform's storage.
    ``storage_checked``: the tool's own page found the state there (routes.launch_checked),
    which binds the launch to this browser in place of the cookie."""
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
    key = login_key(store)
    login = LoginState.decode(key, state)
    if login is None:
        raise LaunchRefused("the launch's state is unknown (it came from another login, or "
                            "was made up): open the assignment in the LMS again", status=400)
    if was_used(store, state):
        raise LaunchRefused("this launch was used already (a launch signs in once): open the "
                            "assignment in the LMS again")
    if login.expired(clock()):
        raise LaunchRefused("the launch took more than ten minutes: open the assignment in "
                            "the LMS again")
    platform = platform_by_id(store, login.platform)
    if platform is None:                     # removed since: its logins went with it
        raise LaunchRefused("the launch's LMS is no longer registered with this course: "
                            "the instructor registers it on the LTI page")
    if not browser_id and not storage_checked:
        target = storage_target(login.storage)
        if target is not None:          # the platform keeps the state for us (see storage)
            raise StorageCheck(target, origin(platform.auth_login_url), state, id_token)
        # Why no link that logs in again: Canvas's and Moodle's lti_message_hint is good for
        # one login, and neither authorizes a login without it, so only the LMS can start
        # a fresh one (its link, opened in a new tab, where cookies are first-party).
        raise CookiesBlocked(
            "your browser did not keep this page's cookie inside the LMS's frame (it blocks "
            "third-party cookies), so it cannot sign you in here")
    if storage_checked:
        if storage_target(login.storage) is None:
            raise LaunchRefused("this launch's login did not use the LMS's storage: open the "
                                "assignment in the LMS again")
    elif not login.from_browser(key, str(browser_id)):
        raise LaunchRefused("the launch's state belongs to another browser: open the "
                            "assignment in the LMS again, in this browser")
    claims = _claims(id_token, lambda kid: keysets.get(platform.key_set_url, kid))
    _check_audience(claims, platform)
    _check_times(claims, clock(), leeway)
    if claims.get("nonce") != login.nonce:
        raise LaunchRefused("the launch's nonce is not its login's (a replayed token): open "
                            "the assignment in the LMS again")
    deployment = _text(claims.get(LTI + "deployment_id"))
    first_deployment = platform.awaits_deployment and bool(deployment)
    if deployment not in platform.deployment_ids and not first_deployment:
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
    if access(roles) is None:
        raise LaunchRefused(refusal_for_roles(roles))
    context, link = _dict(claims.get(LTI + "context")), _dict(claims.get(LTI + "resource_link"))
    ags, nrps = _dict(claims.get(AGS)), _dict(claims.get(NRPS))
    lis = _dict(claims.get(LTI + "lis"))
    name = _text(claims.get("name")) or " ".join(
        part for part in (_text(claims.get("given_name")), _text(claims.get("family_name")))
        if part)
    scopes = ags.get("scope") if isinstance(ags.get("scope"), list) else []
    if first_deployment:
        # Canvas registered the tool without a deployment: this launch, signed by the
        # platform's key for this client id, names the one it was installed as (unless
        # another launch recorded one first).
        record_first_deployment(store, platform, deployment)
        platform = platform_by_id(store, platform.id) or platform
        if deployment not in platform.deployment_ids:
            raise LaunchRefused(_unknown_deployment(platform, deployment))

    def service_url(value: Any) -> str | None:
        url = _text(value)
        return url if url and on_platform_hosts(store, platform, url) else None

    return Launch(platform=platform, state_hash=digest(state), login=login,
                  deployment_id=deployment,
                  sub=sub, name=name, email=_text(claims.get("email")),
                  sourcedid=_text(lis.get("person_sourcedid")), roles=roles,
                  context_id=_text(context.get("id")) or f"link:{_text(link.get('id'))}",
                  context_title=_text(context.get("title")),
                  resource_link_id=_text(link.get("id")),
                  lineitem=service_url(ags.get("lineitem")),
                  lineitems=service_url(ags.get("lineitems")),
                  ags_scopes=tuple(str(scope) for scope in scopes),
                  memberships_url=service_url(nrps.get("context_memberships_url")),
                  custom={str(k): str(v) for k, v in _dict(claims.get(LTI + "custom")).items()})
