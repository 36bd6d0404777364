"""The LMS by assignment (issue 35, item 3): a course holding the minimax and the Monte Carlo
assignments, in an LMS course with one link (resource link) per assignment.

- The Monte Carlo link names its assignment with the custom parameter ``assignment=montecarlo``;
  the minimax link is bound by the instructor on the page their first launch of it shows.
- A student's launch of each lands on its assignment's page; each assignment's grade goes to
  its own link's line item, never to the other's; a change of one assignment's grade queues
  only its line item.
- A custom parameter never re-binds a bound link; a student's launch of a link not chosen yet
  says so (no guessing); the instructor changes a link's assignment on the LTI page (logged).
- With the real server: scores of both assignments wait in the outbox (the LMS is down), the
  server is killed with SIGKILL and started again: each is delivered once, to its own line
  item.

The platform is tests/service/lti_platform.py; ``tool`` and ``platform`` are conftest.py's.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("lti1p3platform")

from lti_platform import (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY,  # noqa: E402
                          SCOPE_RESULT_READONLY, SCOPE_SCORE, LtiPlatform)
from lti_tool import RESULTS, csrf_of, fast_sender, launch, wait_until  # noqa: E402
from service_helpers import ROOT, free_port, open_store  # noqa: E402

from grader.service import lti  # noqa: E402
from grader.service.course import course_assignments, record_queries  # noqa: E402
from grader.service.course.storage import Store  # noqa: E402
from grader.service.lti import outbox, resource_links  # noqa: E402

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
MINIMAX_LINK = "rl-minimax-handin"          # the platform's own first link and line item
MONTECARLO_LINK = "rl-montecarlo-handin"
FILES = {"minimax": "mm_player.py", "montecarlo": "mc_player.py"}


# --- the course ----------------------------------------------------------------------------

class Course:
    """The LMS course's two links, each with its line item: ``open(who, "montecarlo")``."""

    def __init__(self, platform: LtiPlatform) -> None:
        self.platform = platform
        first = next(iter(platform.line_items))
        item = platform.add_line_item("Monte Carlo hand-in", 100,
                                      resource_link_id=MONTECARLO_LINK, tag="grade",
                                      resource_id="montecarlo")
        second = next(key for key, one in platform.line_items.items() if one is item)
        # the platform's line item number (what its scores endpoint records) of each link
        self.items = {MINIMAX_LINK: first, MONTECARLO_LINK: second}
        self.urls = {MINIMAX_LINK: platform.line_items[first]["id"], MONTECARLO_LINK: item["id"]}

    def open(self, who: str, link: str, client: Any = None, **options: Any) -> Any:
        """``who`` launches the tool from ``link`` (its own line item in the AGS claim)."""
        claim = {"scope": [SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY,
                           SCOPE_SCORE],
                 "lineitems": self.platform.lineitems_url, "lineitem": self.urls[link]}
        return launch(self.platform, who, client, resource_link_id=link,
                      extra_claims={AGS: claim}, **options)

    def scores(self, link: str) -> list[dict[str, Any]]:
        """The scores the platform accepted on ``link``'s line item."""
        return [one.body for one in self.platform.accepted_scores()
                if one.line_item_id == self.items[link]]


def holds_both(store: Store) -> None:
    course_assignments.add(store, "minimax", who="the test")
    course_assignments.add(store, "montecarlo", who="the test")


def graded_for(store: Store, student: str, assignment: str, score: float) -> int:
    """A hand-in of ``assignment`` graded as the queue stores it (no grading run)."""
    row = store.add_submission(student, FILES[assignment], b"def move(b, p): pass\n",
                               late=False, config="default", assignment=assignment)
    claimed = store.claim_next("test")
    assert claimed is not None and claimed.id == row.id
    store.finish(row.id, score=score, max_score=100.0,
                 results_json=RESULTS.replace("80.0", str(score)), report_text="report",
                 seconds=1.0)
    return row.id


def links_of(store: Store) -> dict[str, tuple[str, str]]:
    """Each recorded link: (its assignment, how it was bound)."""
    return {link.key.resource_link_id: (link.assignment, link.how)
            for link in resource_links.listing(store)}


def line_items_of(store: Store) -> dict[str, str]:
    """Each recorded line item's resource link: its assignment."""
    return {row["resource_link_id"]: row["assignment"] for row in store.database.query(
        "SELECT resource_link_id, assignment FROM lti_lineitems")}


def landed_on(page: Any) -> tuple[str, dict[str, list[str]]]:
    """Where a launch ended: (path, query)."""
    url = urlsplit(str(page.url))
    return url.path, parse_qs(url.query)


def choose(tool: Any, client: Any, page: Any, assignment: str) -> Any:
    """The instructor answers the choice page ``page`` with ``assignment``."""
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page.text))
    fields["assignment"] = assignment
    return client.post(tool.url + "/instructor/lti/link", data=fields, follow_redirects=False)


@pytest.fixture
def course(tool: Any, platform: LtiPlatform) -> Course:
    """The course holds both assignments; its LMS course, a link for each."""
    holds_both(tool.store)
    return Course(platform)


@pytest.fixture
def bound_links(tool: Any, course: Course) -> Course:
    """The Monte Carlo link bound by its custom parameter, the minimax one by the
    instructor's choice at their first launch of it."""
    with tool.browser() as alan:
        page = course.open("alan", MONTECARLO_LINK, alan, custom={"assignment": "montecarlo"})
        # bound: nothing to ask; the instructor lands on the link's assignment's class
        assert landed_on(page) == ("/instructor", {"assignment": ["montecarlo"]}), page.url
        assert "<h1>The class: Monte Carlo Tic-Tac-Toe</h1>" in page.text
        page = course.open("alan", MINIMAX_LINK, alan)
        assert page.status_code == 200 and landed_on(page)[0] == "/instructor/lti/link"
        assert "Which assignment is this LMS link?" in page.text
        assert MINIMAX_LINK in page.text and "Monte Carlo Tic-Tac-Toe" in page.text
        chosen = choose(tool, alan, page, "minimax")
        assert chosen.status_code == 303
        assert chosen.headers["location"] == "/instructor?assignment=minimax"
    return course


# --- launches and grades ---------------------------------------------------------------------

def test_each_link_is_bound_to_its_assignment_and_a_student_lands_on_it(tool, bound_links):
    course, store = bound_links, tool.store
    links = links_of(store)
    assert links[MONTECARLO_LINK][0] == "montecarlo"
    assert "custom parameter assignment=montecarlo" in links[MONTECARLO_LINK][1]
    assert links[MINIMAX_LINK] == ("minimax", "chosen by instructor")
    [change] = record_queries.changes(store, resource_links.KIND)
    assert (json.loads(change.before)["assignment"], json.loads(change.after)["assignment"]) \
        == (None, "minimax")

    for link, name, heading in ((MONTECARLO_LINK, "montecarlo", "mc_player.py"),
                                (MINIMAX_LINK, "minimax", "mm_player.py")):
        with tool.browser() as ada:
            page = course.open("ada", link, ada)
            assert page.status_code == 200
            assert landed_on(page) == ("/", {"assignment": [name]}), page.url
            assert f"Hand in {heading}" in page.text
    assert line_items_of(store) == {MINIMAX_LINK: "minimax", MONTECARLO_LINK: "montecarlo"}


def test_a_hand_in_from_a_link_is_for_its_assignment_only(tool, bound_links):
    """The Monte Carlo link's page takes a Monte Carlo file, and refuses a minimax one with
    the course unchanged (nothing is graded here: the tool's queue is not started)."""
    from test_hand_in_door import MINIMAX, MONTECARLO, NEITHER, course_data
    with tool.browser() as ada:
        page = bound_links.open("ada", MONTECARLO_LINK, ada)
        form = {"csrf": csrf_of(page), "assignment": re.search(
            r'name="assignment" value="([^"]*)"', page.text).group(1)}
        assert form["assignment"] == "montecarlo"
        before = course_data(tool.store)
        refused = ada.post(tool.url + "/submit", data=form,
                           files={"file": ("mm_player.py", MINIMAX)})
        assert refused.status_code == 400
        assert "is not a hand-in for Monte Carlo Tic-Tac-Toe" in html.unescape(refused.text)
        neither = ada.post(tool.url + "/submit", data=form,
                           files={"file": ("player.py", NEITHER)})
        assert neither.status_code == 400 and "does not define mc_trial" in neither.text
        assert course_data(tool.store) == before
        taken = ada.post(tool.url + "/submit", data=form,
                         files={"file": ("mc_player.py", MONTECARLO)})
        assert taken.status_code == 303, taken.text
    assert [(row.assignment, row.filename) for row in tool.store.history("S1815")] == [
        ("montecarlo", "mc_player.py")]


def test_each_assignments_grade_goes_to_its_own_line_item_only(tool, bound_links):
    course, store = bound_links, tool.store
    for link in (MINIMAX_LINK, MONTECARLO_LINK):      # ada is a member: both line items known
        with tool.browser() as ada:
            course.open("ada", link, ada)
    minimax = graded_for(store, "S1815", "minimax", 70.0)
    graded_for(store, "S1815", "montecarlo", 90.0)
    assert lti.grade_changed(store, "S1815") == 2      # as the queue's hook calls it
    fast_sender(tool)
    wait_until(lambda: outbox.counts(store)["sent"] == 2)
    time.sleep(0.5)                                     # nothing more comes
    assert [one["scoreGiven"] for one in course.scores(MINIMAX_LINK)] == [70.0]
    assert [one["scoreGiven"] for one in course.scores(MONTECARLO_LINK)] == [90.0]
    assert "Hand-in 1 (latest): 90/100" in course.scores(MONTECARLO_LINK)[0]["comment"]

    # A change of the minimax grade (an adjustment) queues the minimax line item alone.
    record_queries.set_adjustment(store, minimax, -10, "docstrings", who="instructor")
    assert lti.submission_changed(store, minimax) == 1
    wait_until(lambda: outbox.counts(store)["sent"] == 3)
    assert [one["scoreGiven"] for one in course.scores(MINIMAX_LINK)] == [70.0, 60.0]
    assert [one["scoreGiven"] for one in course.scores(MONTECARLO_LINK)] == [90.0]
    # ...and a second Monte Carlo hand-in, the Monte Carlo one alone (its own numbering).
    graded_for(store, "S1815", "montecarlo", 95.0)
    assert lti.grade_changed(store, "S1815", assignment="montecarlo") == 1
    assert lti.grade_changed(store, "S1815") == 0       # nothing else changed
    wait_until(lambda: outbox.counts(store)["sent"] == 4)
    assert [one["scoreGiven"] for one in course.scores(MINIMAX_LINK)] == [70.0, 60.0]
    newest = course.scores(MONTECARLO_LINK)[-1]
    assert newest["scoreGiven"] == 95.0 and "Hand-in 2 (latest)" in newest["comment"]


def test_a_custom_parameter_never_rebinds_a_bound_link(tool, bound_links):
    course, store = bound_links, tool.store
    before = links_of(store)
    with tool.browser() as ada:
        page = course.open("ada", MONTECARLO_LINK, ada, custom={"assignment": "minimax"})
        assert landed_on(page) == ("/", {"assignment": ["montecarlo"]})
    with tool.browser() as alan:
        page = course.open("alan", MINIMAX_LINK, alan, custom={"assignment": "montecarlo"})
        assert landed_on(page) == ("/instructor", {"assignment": ["minimax"]})
    assert links_of(store) == before
    assert line_items_of(store) == {MINIMAX_LINK: "minimax", MONTECARLO_LINK: "montecarlo"}


def test_a_link_not_chosen_yet_is_not_guessed_and_the_lti_page_changes_one(tool, course):
    store = tool.store
    number = str(store.database.one("SELECT id FROM lti_platforms")["id"])
    graded_for(store, "S1815", "minimax", 70.0)
    # A custom parameter naming no assignment of the course binds nothing.
    with tool.browser() as ada:
        page = course.open("ada", MINIMAX_LINK, ada, custom={"assignment": "tictactoe"})
        assert page.status_code == 200 and landed_on(page) == ("/lti/unchosen", {})
        assert "not chosen yet" in page.text
    assert links_of(store) == {MINIMAX_LINK: ("", "")}
    assert line_items_of(store) == {MINIMAX_LINK: ""}
    assert lti.grade_changed(store, "S1815") == 0       # its line item takes no grade yet

    with tool.browser() as alan:
        course.open("alan", MINIMAX_LINK, alan)        # asks; the instructor goes elsewhere
        page = alan.get(tool.url + "/instructor/lti")
        assert "not chosen yet" in page.text
        answer = alan.post(tool.url + "/instructor/lti/link-assignment", data={
            "csrf": csrf_of(page), "platform": number, "deployment": course.platform.deployment_id,
            "context": course.platform.context_id, "link": MINIMAX_LINK,
            "assignment": "minimax"})
        assert answer.status_code == 200 and "is minimax from now on" in answer.text
        # Without the page's token: refused, nothing changed.
        refused = alan.post(tool.url + "/instructor/lti/link-assignment", data={
            "platform": number, "deployment": course.platform.deployment_id,
            "context": course.platform.context_id, "link": MINIMAX_LINK,
            "assignment": "montecarlo"})
        assert refused.status_code == 403
    assert links_of(store)[MINIMAX_LINK] == ("minimax", "chosen by instructor")
    assert line_items_of(store) == {MINIMAX_LINK: "minimax"}
    [waiting] = outbox.rows(store)                      # the change queued the minimax grade
    assert (waiting.assignment, waiting.score_given) == ("minimax", 70.0)

    # The instructor changes it: logged, the line item follows, the old grade is dropped.
    assert resource_links.assign(store, resource_links.LinkKey(
        int(number), course.platform.deployment_id, course.platform.context_id, MINIMAX_LINK),
        "montecarlo", who="instructor") == "minimax"
    assert line_items_of(store) == {MINIMAX_LINK: "montecarlo"}
    assert outbox.rows(store) == []                     # no Monte Carlo grade to send
    assert [json.loads(one.after)["assignment"] for one in
            record_queries.changes(store, resource_links.KIND)] == ["minimax", "montecarlo"]


def test_a_course_of_one_assignment_binds_every_link_silently(tool, platform):
    course = Course(platform)
    with tool.browser() as alan:
        assert landed_on(course.open("alan", MONTECARLO_LINK, alan))[0] == "/instructor"
    with tool.browser() as ada:
        assert landed_on(course.open("ada", MINIMAX_LINK, ada)) == ("/", {})
    assert links_of(tool.store) == {
        MINIMAX_LINK: ("minimax", "the course's only assignment"),
        MONTECARLO_LINK: ("minimax", "the course's only assignment")}


# --- the real server: a SIGKILL while both assignments' scores wait --------------------------

def outbox_of(data: Path) -> list[tuple[str, str, float]]:
    database = sqlite3.connect(data / "course.sqlite3")
    try:
        return database.execute(
            "SELECT o.status, l.resource_link_id, o.score_given FROM lti_outbox o JOIN "
            "lti_lineitems l ON l.id = o.lineitem ORDER BY o.id").fetchall()
    finally:
        database.close()


@pytest.mark.long
@pytest.mark.timeout(600)
def test_scores_of_both_assignments_waiting_at_a_sigkill_are_each_delivered_once(
        serve, tmp_path: Path) -> None:
    data = tmp_path / "course"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with LtiPlatform() as platform:
        described = tmp_path / "platform.json"
        described.write_text(json.dumps({
            "issuer": platform.issuer, "client_id": platform.client_id,
            "deployment_ids": platform.deployment_ids,
            "auth_login_url": platform.auth_login_url,
            "auth_token_url": platform.auth_token_url, "key_set_url": platform.key_set_url}))
        stored = subprocess.run(
            [sys.executable, "-m", "grader", "serve", "--data", str(data), "--port", str(port),
             "--lti-platform", str(described)], cwd=ROOT, capture_output=True, text=True,
            timeout=120, stdin=subprocess.DEVNULL)
        assert stored.returncode == 0, stored.stderr
        pasted = dict(re.findall(r"^\s+(.+?):\s+(http\S+)$", stored.stdout, re.M))
        platform.register_tool(login_url=pasted["OIDC login initiation URL"],
                               redirect_uris=[pasted["Redirect (launch) URL"]],
                               jwks_url=pasted["Public key set URL"])
        store = open_store(data)               # the course, and ada's graded hand-ins
        try:
            holds_both(store)
            store.upsert_students([("S1815", "Ada L.", "")])
            graded_for(store, "S1815", "minimax", 70.0)
            graded_for(store, "S1815", "montecarlo", 90.0)
        finally:
            store.close()
        course = Course(platform)
        server = serve(data, "--port", str(port), "--jobs", "1")
        assert server.url == url
        platform.scores_down()                                    # the LMS is down

        with httpx.Client(timeout=30.0) as alan:
            page = course.open("alan", MONTECARLO_LINK, alan, custom={"assignment": "montecarlo"})
            assert landed_on(page)[0] == "/instructor"
            page = course.open("alan", MINIMAX_LINK, alan)
            assert landed_on(page)[0] == "/instructor/lti/link"
            fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"',
                                     page.text))
            chosen = alan.post(url + "/instructor/lti/link", data={**fields,
                                                                  "assignment": "minimax"})
            assert chosen.status_code == 303
        for link, name in ((MINIMAX_LINK, "minimax"), (MONTECARLO_LINK, "montecarlo")):
            with httpx.Client(timeout=30.0) as ada:
                assert landed_on(course.open("ada", link, ada)) == ("/", {"assignment": [name]})

        # Both grades wait in the outbox: the LMS answered 503 (the sender then lets it
        # rest, so the second may not have been tried yet).
        wait_until(lambda: any(one.status == 503 for one in platform.received_scores) and
                   sorted(outbox_of(data)) == [("pending", MINIMAX_LINK, 70.0),
                                               ("pending", MONTECARLO_LINK, 90.0)], 60)
        assert platform.accepted_scores() == []
        server.stop(kill=True)
        platform.restore()

        again = serve(data, "--port", str(port), "--jobs", "1")
        platform.wait_for_scores(2, timeout=120)
        time.sleep(2)                                   # nothing more comes
        assert [one["scoreGiven"] for one in course.scores(MINIMAX_LINK)] == [70.0]
        assert [one["scoreGiven"] for one in course.scores(MONTECARLO_LINK)] == [90.0]
        assert len(platform.accepted_scores()) == 2
        assert sorted(outbox_of(data)) == [("sent", MINIMAX_LINK, 70.0),
                                           ("sent", MONTECARLO_LINK, 90.0)]
        again.stop()
