"""The platforms (LMSs) the course is registered with, and their deployments.

A platform is described in the field names tools commonly use (issuer, client_id,
deployment_ids, auth_login_url, auth_token_url, key_set_url); the same issuer may be
registered with several client ids (two Canvas developer keys), and each platform with
several deployments. A launch is bound to the platform and deployment it came from.

    platform = add_platform(store, describe_platform(json.loads(text)), who="command line")
    find_platform(store, "https://canvas.instructure.com", "10000000000001")
    urls = tool_urls("https://grader.example.org")  # what to paste into the LMS
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

from grader.service.lti.errors import RegistrationError
from grader.service.storage import Store
from grader.service.times import utc_now

FIELDS = ("issuer", "client_id", "auth_login_url", "auth_token_url", "key_set_url")
# What other tools' files call the same things (pylti1.3's, ltijs's, Moodle's tool page).
ALIASES = {"iss": "issuer", "oidc_auth_url": "auth_login_url", "auth_url": "auth_login_url",
           "authentication_request_url": "auth_login_url", "token_url": "auth_token_url",
           "access_token_url": "auth_token_url", "key_set": "key_set_url",
           "jwks_url": "key_set_url", "public_keyset_url": "key_set_url",
           "deployment_id": "deployment_ids"}


@dataclass(frozen=True)
class PlatformInfo:
    """A platform as described, before it is stored."""

    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    deployment_ids: tuple[str, ...] = ()
    name: str = ""


@dataclass(frozen=True)
class Platform:
    """A stored platform (``id``: its row) and its deployments."""

    id: int
    issuer: str
    client_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    name: str
    deployment_ids: tuple[str, ...]
    frame_origins: tuple[str, ...]
    added_at: str

    @property
    def label(self) -> str:
        """How a page names it: its name, else its issuer (and client id)."""
        return self.name or f"{self.issuer} (client {self.client_id})"


@dataclass(frozen=True)
class ToolUrls:
    """The tool's own addresses, to paste into the LMS."""

    login: str          # OIDC login initiation URL
    launch: str         # redirect (launch) URL, also the target link URI
    jwks: str           # public key set URL
    registration: str   # Dynamic Registration (with the course's registration code)


def tool_urls(base_url: str, registration_code: str = "CODE") -> ToolUrls:
    """The tool's URLs under ``base_url``.

    >>> tool_urls("https://grader.example.org/").launch
    'https://grader.example.org/lti/launch'
    """
    base = base_url.rstrip("/")
    return ToolUrls(f"{base}/lti/login", f"{base}/lti/launch", f"{base}/lti/jwks.json",
                    f"{base}/lti/register/{registration_code}")


def plain_http_warning(base_url: str) -> str | None:
    """What to tell the instructor when the tool's URLs are plain http:// (an LMS refuses
    them, and its launches' cookies need https), else None.

    >>> plain_http_warning("https://grader.example.org") is None
    True
    >>> plain_http_warning("http://127.0.0.1:8000").startswith("the tool's URLs are http://")
    True
    """
    if not base_url.lower().startswith("http://"):
        return None
    return ("the tool's URLs are http://, and an LMS (Canvas, Moodle) needs https://: serve "
            "the page behind a reverse proxy with TLS (Caddy, nginx) and start it with "
            "--base-url https://YOUR.HOST (or give --ssl-keyfile and --ssl-certfile), then "
            "register these URLs")


def _url(value: Any, name: str, source: str) -> str:
    text = str(value or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RegistrationError(f"{source}: {name} must be an http(s) URL, not {text!r} "
                                "(copy it from the LMS's tool registration page)")
    return text


def describe_platform(data: Any, source: str = "the platform") -> PlatformInfo:
    """A platform from its JSON description (the common field names, or their aliases).

    >>> info = describe_platform({"issuer": "https://lms.example", "client_id": "7",
    ...     "deployment_ids": ["1"], "auth_login_url": "https://lms.example/auth",
    ...     "auth_token_url": "https://lms.example/token",
    ...     "key_set_url": "https://lms.example/jwks"})
    >>> info.client_id, info.deployment_ids
    ('7', ('1',))
    """
    if not isinstance(data, dict):
        raise RegistrationError(f"{source} must be a JSON object with the fields "
                                f"{', '.join(FIELDS)}, deployment_ids")
    fields = {ALIASES.get(key, key): value for key, value in data.items()}
    missing = [name for name in FIELDS if not fields.get(name)]
    if missing:
        raise RegistrationError(f"{source} lacks {', '.join(missing)}: every platform needs "
                                f"{', '.join(FIELDS)} (and deployment_ids), as the LMS shows "
                                "them when the tool is registered")
    deployments = fields.get("deployment_ids") or []
    if isinstance(deployments, (str, int)):
        deployments = [deployments]
    if not isinstance(deployments, list) or not deployments or \
            not all(isinstance(one, (str, int)) and str(one).strip() for one in deployments):
        raise RegistrationError(f"{source}: deployment_ids must be a list of the deployment "
                                "ids the LMS gave, e.g. [\"1\"]")
    return PlatformInfo(
        issuer=_url(fields["issuer"], "issuer", source),
        client_id=str(fields["client_id"]).strip(),
        auth_login_url=_url(fields["auth_login_url"], "auth_login_url", source),
        auth_token_url=_url(fields["auth_token_url"], "auth_token_url", source),
        key_set_url=_url(fields["key_set_url"], "key_set_url", source),
        deployment_ids=tuple(dict.fromkeys(str(one).strip() for one in deployments)),
        name=str(fields.get("name") or "").strip())


def read_platform_file(path: Path) -> PlatformInfo:
    """The platform described in the JSON file at ``path``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as problem:
        raise RegistrationError(f"cannot read {path}: {problem.strerror or problem}") from None
    except ValueError as problem:
        raise RegistrationError(f"{path} is not JSON ({problem}): write an object such as "
                                '{"issuer": "https://...", "client_id": "...", ...}') from None
    return describe_platform(data, str(path))


def origin(url: str) -> str:
    """The origin (scheme://host[:port]) of ``url``.

    >>> origin("https://lms.example:8443/mod/lti/auth.php")
    'https://lms.example:8443'
    """
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def add_platform(store: Store, info: PlatformInfo, *, who: str) -> Platform:
    """Store ``info`` (an issuer and client id already stored: its URLs updated, the new
    deployments added; none is ever removed): the platform as stored."""
    now = utc_now()
    origins = sorted({origin(info.issuer), origin(info.auth_login_url)})
    with store.database.transaction() as db:
        row = db.execute("SELECT id, frame_origins FROM lti_platforms WHERE issuer = ? AND "
                         "client_id = ?", (info.issuer, info.client_id)).fetchone()
        if row is None:
            number = db.execute(
                "INSERT INTO lti_platforms (issuer, client_id, auth_login_url, auth_token_url, "
                "key_set_url, name, frame_origins, added_at, added_by) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info.issuer, info.client_id, info.auth_login_url, info.auth_token_url,
                 info.key_set_url, info.name, json.dumps(origins), now, who)).lastrowid
        else:
            number = row["id"]
            kept = sorted(set(json.loads(row["frame_origins"])) | set(origins))
            db.execute("UPDATE lti_platforms SET auth_login_url = ?, auth_token_url = ?, "
                       "key_set_url = ?, name = COALESCE(NULLIF(?, ''), name), "
                       "frame_origins = ? WHERE id = ?",
                       (info.auth_login_url, info.auth_token_url, info.key_set_url, info.name,
                        json.dumps(kept), number))
        for deployment in info.deployment_ids:
            db.execute("INSERT OR IGNORE INTO lti_deployments VALUES (?, ?, ?)",
                       (number, deployment, now))
    found = platform_by_id(store, int(number))
    assert found is not None
    return found


def add_frame_origin(store: Store, platform: int, seen: str) -> None:
    """Remember ``seen`` (a launch's Origin) as a page the platform frames the tool in."""
    with store.database.transaction() as db:
        row = db.execute("SELECT frame_origins FROM lti_platforms WHERE id = ?",
                         (platform,)).fetchone()
        origins = set(json.loads(row["frame_origins"])) if row is not None else set()
        if row is not None and seen not in origins:
            db.execute("UPDATE lti_platforms SET frame_origins = ? WHERE id = ?",
                       (json.dumps(sorted(origins | {seen})), platform))


def _platforms(rows: Iterable[sqlite3.Row], store: Store) -> list[Platform]:
    deployments: dict[int, list[str]] = {}
    for row in store.database.query("SELECT platform, deployment_id FROM lti_deployments "
                                    "ORDER BY added_at, deployment_id"):
        deployments.setdefault(int(row["platform"]), []).append(row["deployment_id"])
    return [Platform(int(row["id"]), row["issuer"], row["client_id"], row["auth_login_url"],
                     row["auth_token_url"], row["key_set_url"], row["name"],
                     tuple(deployments.get(int(row["id"]), ())),
                     tuple(json.loads(row["frame_origins"])), row["added_at"])
            for row in rows]


def platforms(store: Store) -> list[Platform]:
    """Every registered platform, oldest first."""
    return _platforms(store.database.query("SELECT * FROM lti_platforms ORDER BY id"), store)


def platform_by_id(store: Store, number: int) -> Platform | None:
    found = _platforms(store.database.query("SELECT * FROM lti_platforms WHERE id = ?",
                                            (number,)), store)
    return found[0] if found else None


def find_platform(store: Store, issuer: str, client_id: str | None) -> Platform | None:
    """The platform of ``issuer`` (and ``client_id``; without one, the issuer's only
    platform). None when it is unknown or the issuer has several and no client id says which."""
    if client_id:
        rows = store.database.query("SELECT * FROM lti_platforms WHERE issuer = ? AND "
                                    "client_id = ?", (issuer, client_id))
    else:
        rows = store.database.query("SELECT * FROM lti_platforms WHERE issuer = ?", (issuer,))
    found = _platforms(rows, store)
    return found[0] if len(found) == 1 else None


def frame_origins(store: Store) -> list[str]:
    """Every origin a registered platform may frame the page in."""
    seen: set[str] = set()
    for row in store.database.query("SELECT frame_origins FROM lti_platforms"):
        seen.update(json.loads(row["frame_origins"]))
    return sorted(seen)
