"""Roster and grades with Canvas and Moodle as their sources say (the test platform's
"canvas" and "moodle" profiles, tests/service/fixtures/): Canvas's services on the school's
domain, its NRPS pages by Link header, its submission extension and its 422 once an
assignment's attempts are used up; Moodle's scores URL with a query. And a launch that names
roster and grade URLs on another host: they are never called and never get a token."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from lti_platform import CANVAS_SUBMISSION, LtiPlatform  # noqa: E402
from lti_tool import ToolServer, fast_sender, graded, launch, wait_until  # noqa: E402

from grader.service import lti  # noqa: E402
from grader.service.course.record_queries import set_adjustment  # noqa: E402
from grader.service.lti import nrps, outbox, platforms, registration  # noqa: E402
from grader.service.lti.errors import PlatformError  # noqa: E402

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"


def registered(tool: ToolServer, lms: LtiPlatform) -> LtiPlatform:
    lms.start()
    code = registration.registration_code(tool.store)
    lms.register_dynamically(f"{tool.url}/lti/register/{code}")
    tool.bind(lms)                  # the course bound to the LMS course, as the first
    return lms                      # instructor's launch binds it


@pytest.fixture
def canvas(tool: ToolServer) -> Iterator[LtiPlatform]:
    lms = registered(tool, LtiPlatform(profile="canvas", canvas_attempts=1))
    yield lms
    lms.stop()


def test_canvas_roster_on_the_school_domain_is_read_page_by_page(tool, canvas):
    canvas.page_size = 2
    launch(canvas, "alan")                                   # the instructor: the context
    [context] = tool.store.database.query("SELECT * FROM lti_contexts")
    assert context["memberships_url"] == canvas.memberships_url
    assert context["memberships_url"].startswith(canvas.school_url)    # not the issuer's
    tool_ = lti.Tool.open(tool.store, tool.data)
    try:
        result = nrps.sync_context(tool.store, tool_, int(context["id"]))
    finally:
        tool_.close()
    assert result.members == len(canvas.users)               # 6 members on 3 pages
    pages = [path for method, path, status in canvas.service_requests
             if path.endswith("/names_and_roles") and status == 200]
    assert len(pages) >= 3


def test_canvas_gets_its_submission_extension_and_a_regrade_updates_the_attempt(tool, canvas):
    launch(canvas, "ada")
    sender = fast_sender(tool)
    number = graded(tool.store, "S1815", 70.0)
    lti.grade_changed(tool.store, "S1815")
    first = canvas.wait_for_scores(1)[0].body
    assert first[CANVAS_SUBMISSION]["new_submission"] is True      # the hand-in: an attempt
    assert first[CANVAS_SUBMISSION]["submitted_at"] == first["submission"]["submittedAt"]
    set_adjustment(tool.store, number, 5.0, "style", who="instructor")
    lti.submission_changed(tool.store, number)
    second = canvas.wait_for_scores(2)[1].body               # one attempt allowed, and used
    assert second["scoreGiven"] == 75.0
    assert second[CANVAS_SUBMISSION]["new_submission"] is False    # the same attempt
    sender.stop()
    assert [score.status for score in canvas.received_scores] == [200, 200]


def test_an_adjustment_while_the_first_score_is_on_its_way_updates_the_same_attempt(
        tool, canvas, monkeypatch):
    # The instructor adjusts the grade while its first score is still being sent: the second
    # is queued before the first is recorded as sent. It must still be the same attempt
    # (Canvas allows one here), not a second one that Canvas refuses with 422.
    send = outbox.ags.send_score
    def adjusted_in_flight(*args, **kwargs):
        send(*args, **kwargs)
        if len(canvas.received_scores) == 1:
            set_adjustment(tool.store, number, 5.0, "style", who="instructor")
            lti.submission_changed(tool.store, number)
    monkeypatch.setattr(outbox.ags, "send_score", adjusted_in_flight)
    launch(canvas, "ada")
    number = graded(tool.store, "S1815", 70.0)
    sender = fast_sender(tool)
    lti.grade_changed(tool.store, "S1815")
    second = canvas.wait_for_scores(2)[1].body
    sender.stop()
    assert [score.status for score in canvas.received_scores] == [200, 200]
    assert second["scoreGiven"] == 75.0
    assert second[CANVAS_SUBMISSION]["new_submission"] is False
    assert outbox.counts(tool.store)["sent"] == 2


def test_canvas_refusing_a_new_attempt_is_a_failure_the_instructor_sees(tool, canvas):
    canvas.canvas_attempts = 0                                # the attempts are used up
    launch(canvas, "ada")
    sender = fast_sender(tool)
    graded(tool.store, "S1815", 70.0)
    lti.grade_changed(tool.store, "S1815")
    wait_until(lambda: outbox.counts(tool.store)["failed"] == 1)
    sender.stop()
    assert [score.status for score in canvas.received_scores] == [422]    # tried once
    [row] = outbox.rows(tool.store, ("failed",))
    assert row.attempts == 1 and "maximum number of allowed attempts" in row.last_error
    with tool.browser() as teacher:
        launch(canvas, "alan", teacher)
        page = teacher.get(tool.url + "/instructor/lti").text
    assert "maximum number of allowed attempts" in page and "raise the limit" in page


def test_moodle_takes_the_score_at_its_scores_url_with_a_query(tool):
    moodle = registered(tool, LtiPlatform(profile="moodle"))
    try:
        launch(moodle, "ada")
        sender = fast_sender(tool)
        graded(tool.store, "S1815", 60.0)
        lti.grade_changed(tool.store, "S1815")
        score = moodle.wait_for_scores(1)[0]
        sender.stop()
        assert score.body["scoreGiven"] == 60.0 and score.status == 200
        # Canvas's extension goes to every platform: Moodle's scores.php reads only the
        # fields it knows (fixtures/moodle/score_replies.json)
        assert score.body[CANVAS_SUBMISSION]["new_submission"] is True
        assert moodle.lineitem_url.endswith("/lineitem?type_id=3")
    finally:
        moodle.stop()


def test_roster_and_grade_urls_on_another_host_never_get_the_token(tool, canvas):
    with LtiPlatform() as elsewhere:
        foreign = {NRPS_CLAIM: {"context_memberships_url": elsewhere.memberships_url,
                                "service_versions": ["2.0"]},
                   AGS_CLAIM: {"scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
                               "lineitems": elsewhere.lineitems_url,
                               "lineitem": elsewhere.lineitem_url}}
        page = launch(canvas, "alan", extra_claims=foreign)
        assert str(page.url) == tool.url + "/instructor"
        [context] = tool.store.database.query("SELECT * FROM lti_contexts")
        assert context["memberships_url"] is None and context["lineitems_url"] is None
        assert tool.store.database.query("SELECT * FROM lti_lineitems") == []
        [platform] = platforms.platforms(tool.store)
        tool_ = lti.Tool.open(tool.store, tool.data)
        try:
            assert nrps.sync_all(tool.store, tool_) == []      # no roster service to call
            with pytest.raises(PlatformError, match="not on the platform's hosts"):
                tool_.tokens.call(platform, [nrps.NRPS_SCOPE], "the roster service", "GET",
                                  elsewhere.memberships_url)
        finally:
            tool_.close()
        assert elsewhere.service_requests == [] and elsewhere.token_requests == []
        asked = len(canvas.token_requests)
        assert asked == 0                                     # not even a token was asked for
