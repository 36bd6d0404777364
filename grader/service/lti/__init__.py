"""The submission page as an LTI 1.3 tool: launched from Canvas or Moodle, its roster and
grades synced with the LMS. One more room beside the pages (DESIGN.md):

    platforms     registration and storage of platforms and deployments (--lti-platform)
    registration  LTI Dynamic Registration (the URL pasted into the LMS)
    addresses     every URL the tool calls checked: parsed origins, public addresses only
    tool_keys     the tool's own RSA key (DATA/lti-tool-key.json, 0600) and its key set
    keysets       the platforms' key sets, fetched and cached
    login_state   the login's state: signed, carried by the browser, stored only once used
    launch        the OIDC login and the id_token launch, validated
    binding       the one LMS course the course is bound to (its first instructor launch)
    resource_links  which assignment each LMS link is (its custom parameter, the course's
                  only one, or the instructor's choice at its first launch)
    people        who an LMS user is on the roster (linked once); what a launch records
    staff         the course's TAs as graders (listed, removed, restored by the instructor)
    embedding     the page inside the LMS's frame (frame-ancestors, cookies)
    storage       launches without cookies (the LMS's postMessage storage)
    nrps          the roster from the LMS (Names and Role Provisioning)
    ags, outbox   grades to the LMS (Assignment and Grade Services) through an outbox: each
                  assignment's grade to its own links' line items
    routes        /lti/... and the instructor's /instructor/lti

The hooks the rest of the page calls, each one line:

    lti.routes                              # in create_app's routes
    Middleware(lti.FrameAncestors, store=store)   # first in create_app's middleware
    lti.start_sender(app) / lti.stop_sender(app)  # in create_app's lifespan
    lti.grade_changed(store, student_id)    # a result, a regrade, a student's deadline
    lti.grade_changed(store, student_id, assignment="montecarlo")   # ...of one assignment
    lti.submission_changed(store, number)   # an adjustment set or removed
    lti.grades_changed(store)               # the course's dates, late policy or choice changed
    lti.grades_changed(store, assignment="montecarlo")   # ...one assignment's own
    print(lti.register_platform_file(store, data, path, base_url))    # serve --lti-platform
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from grader.service.course.storage import Store
from grader.service.lti.ags import Course
from grader.service.lti.embedding import FrameAncestors
from grader.service.lti.errors import (CookiesBlocked, LaunchRefused, LtiError, PlatformError,
                                       RegistrationError)
from grader.service.lti.outbox import (Sender, grade_changed, grades_changed,
                                       submission_changed)
from grader.service.lti.platforms import add_platform, read_platform_file, tool_urls
from grader.service.lti.routes import routes
from grader.service.lti.tool import Tool
from grader.service.lti.tool_keys import ToolKey

__all__ = ["CookiesBlocked", "FrameAncestors", "LaunchRefused", "LtiError", "PlatformError",
           "RegistrationError", "Sender", "Tool", "grade_changed", "grades_changed",
           "register_platform_file", "routes", "start_sender", "stop_sender",
           "submission_changed", "tool_urls"]

log = logging.getLogger("grader.service.lti")


def start_sender(app: Any) -> Sender:
    """Open the course's LTI tool and start its grade sender (in the app's lifespan, after
    the queue): grades a stopped server left in the outbox are sent first.

        sender = lti.start_sender(app)       # app.state.lti is the Tool, .lti_sender this
    """
    state = app.state
    tool = getattr(state, "lti", None) or Tool.open(
        state.store, state.settings.data,
        allow_private=getattr(state.settings, "lti_allow_private", False))
    course = Course(base_url=state.settings.base_url)   # its dates: read as grades change
    sender = Sender(tool, course)
    sender.start()
    state.lti, state.lti_sender = tool, sender
    return sender


def stop_sender(app: Any) -> None:
    """Stop the grade sender (what it had not sent stays in the outbox) and the tool's HTTP
    client. Safe to call when it never started."""
    sender = getattr(app.state, "lti_sender", None)
    if sender is not None:
        sender.stop()
        app.state.lti_sender = None
    tool = getattr(app.state, "lti", None)
    if tool is not None:
        tool.close()
        app.state.lti = None


def register_platform_file(store: Store, data: Path, path: Path, base_url: str) -> str:
    """``serve --lti-platform FILE.json``: store the platform the file describes (its
    deployments added to any stored before) and say what to paste into the LMS.
    RegistrationError (its message names the file and the field) when it cannot.

        print(lti.register_platform_file(store, Path("course"), Path("moodle.json"), url))
    """
    platform = add_platform(store, read_platform_file(path), who="command line",
                            may_change_urls=True)
    ToolKey.load(data)                    # the key set URL serves it from the first start
    urls = tool_urls(base_url)
    return (f"LTI platform stored: {platform.label}, deployments "
            f"{', '.join(platform.deployment_ids)}.\n"
            "Paste these into the LMS's tool registration:\n"
            f"  OIDC login initiation URL: {urls.login}\n"
            f"  Redirect (launch) URL:     {urls.launch}\n"
            f"  Target link URI:           {urls.launch}\n"
            f"  Public key set URL:        {urls.jwks}\n")
