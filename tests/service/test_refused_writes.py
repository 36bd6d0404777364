"""Every write of the page and the API does all it says or changes nothing: each route that
takes a POST, PUT, DELETE or PATCH (read from the application's own routes, so that a new
one cannot escape this test) is sent a request that is right up to its last field, which is
wrong; it must refuse, and the whole course (every row of its database, every file of its
folder: course_dump.py) must be as it was.

The course is served in process (Starlette's TestClient, no grading thread, no LMS on the
network): two assignments, three students with graded hand-ins of each, an adjustment, own
deadlines, the course's dates and late policy, an LMS platform and a link of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from starlette.routing import Route
from test_course_records import CSRF, Course

from course_dump import differences, dump
from grader.service.course import course_assignments, record_queries
from grader.service.lti import platforms

WRITES = {"POST", "PUT", "DELETE", "PATCH"}
MINIMAX_FILE = b"def mm_move(board, player):\n    return 0, (-1, -1)\n"
GOOD = "2026-12-15T23:59"
EARLIER = "2026-12-01T23:59"
BAD_ROSTER = b'id,name,email\nnew1,New One,n1@example.org\nnew2,"New Two,n2@example.org\n'
BAD_DEADLINES = (b"student_id,assignment,deadline,late_deadline\n"
                 b"alice,montecarlo,2026-12-20T23:59,\nbob,minimax,2026-12-20T23:59,soon\n")
LTI_LINK = {"platform": "1", "deployment": "dep-1", "context": "ctx-1", "link": "link-1"}


class Doors:
    """The course and the clients that knock: the instructor's API (Bearer) and browser
    (session, with its CSRF token), and a student's."""

    def __init__(self, folder: Path) -> None:
        self.course = Course(folder)
        store = self.course.store
        course_assignments.add(store, "montecarlo", who="instructor")
        self.minimax = self.course.graded("alice", 60.0)
        self.course.graded("bob", 90.0)
        carlo = store.add_submission("alice", "mc_player.py", b"def mc_move(b, p, t):\n",
                                     late=False, config="default", assignment="montecarlo")
        self.course.regraded(carlo.id, 75.0)
        record_queries.set_adjustment(store, self.minimax, 5, "well explained", who="instructor")
        record_queries.set_deadline(store, "bob", "2026-12-20T22:59:00.000000Z", None,
                                    who="instructor")
        api = self.course.api()
        assert api.put("/api/course", json={"deadline": "2026-12-10T23:59",
                                            "late_deadline": "2026-12-12T23:59",
                                            "late_penalty": "10%/day"}).status_code == 200
        platforms.add_platform(store, platforms.PlatformInfo(
            "https://lms.example.edu", "client-1", "https://lms.example.edu/auth",
            "https://lms.example.edu/token", "https://lms.example.edu/jwks", ("dep-1",)),
            who="instructor")
        store.database.script(
            "INSERT INTO lti_links VALUES (1, 'dep-1', 'ctx-1', 'link-1', 'minimax', "
            "'the test', '2026-11-01T00:00:00.000000Z')")
        self.api = api
        self.teacher = self.course.browser("instructor")
        self.teacher_csrf = CSRF.search(self.teacher.get("/instructor/roster").text).group(1)
        self.student = self.course.browser("alice")
        self.student_csrf = CSRF.search(self.student.get("/").text).group(1)
        self.student_api = self.course.api("alice")
        # What the pages make on first use, by reading: the LTI tool's key, the LTI page's
        # registration code.
        assert self.teacher.get("/lti/jwks.json").status_code == 200
        assert self.teacher.get("/instructor/lti").status_code == 200

    def form(self, path: str, fields: dict[str, str], files: Any = None) -> Any:
        return self.teacher.post(path, data={"csrf": self.teacher_csrf, **fields}, files=files)


@dataclass(frozen=True)
class Refused:
    """One request a route must refuse: what its last field is, and how it is sent."""

    route: str
    last: str
    send: Callable[[Doors], Any]

    def __str__(self) -> str:
        return f"{self.route}: {self.last}"


def lti_action(action: str, last: str, fields: dict[str, str]) -> Refused:
    return Refused("lti_instructor_action", f"{action}: {last}",
                   lambda d: d.form(f"/instructor/lti/{action}", fields))


REFUSALS = [
    # The student's hand-ins (refused before anything is stored: an assignment it has not).
    Refused("submit", "assignment: one the course has not", lambda d: d.student.post(
        "/submit", data={"csrf": d.student_csrf, "assignment": "nosuch"},
        files={"file": ("mm_player.py", MINIMAX_FILE)})),
    Refused("api_submit", "assignment: one the course has not", lambda d: d.student_api.post(
        "/api/submissions", data={"assignment": "nosuch"},
        files={"file": ("mm_player.py", MINIMAX_FILE)})),
    # Signing in and out.
    Refused("sign_in_confirm", "the link's token: none", lambda d: d.teacher.post(
        "/s/not-a-token", data={"csrf": d.teacher_csrf})),
    Refused("sign_out", "csrf: another form's", lambda d: d.teacher.post(
        "/signout", data={"csrf": "forged"})),
    # The class.
    Refused("instructor_revoke", "the student: none such", lambda d: d.form(
        "/instructor/students/nobody/revoke", {})),
    Refused("instructor_renew", "the student: none such", lambda d: d.form(
        "/instructor/students/nobody/renew", {})),
    Refused("instructor_retry", "the submission: none such", lambda d: d.form(
        "/instructor/submissions/999999/retry", {})),
    Refused("instructor_regrade", "assignment: one the course has not", lambda d: d.form(
        "/instructor/regrade", {"assignment": "nosuch"})),
    Refused("instructor_similarity_run", "csrf: another form's", lambda d: d.teacher.post(
        "/instructor/similarity", data={"csrf": "forged"})),
    # The roster, the configuration, a new link.
    Refused("instructor_roster_import", "its last line: a quote left open", lambda d: d.form(
        "/instructor/roster", {}, files={"roster": ("class.csv", BAD_ROSTER)})),
    Refused("instructor_config_save", "its text: no configuration", lambda d: d.form(
        "/instructor/config", {"name": "x.cfg", "config": "[rubric]\nnot an item = 7\n"})),
    Refused("instructor_renew_link", "csrf: another form's", lambda d: d.teacher.post(
        "/instructor/renew-link", data={"csrf": "forged"})),
    # Students' own deadlines and adjustments.
    Refused("api_set_deadline", "late_deadline: not a time", lambda d: d.api.put(
        "/api/students/alice/deadline", json={"assignment": "minimax", "deadline": GOOD,
                                              "late_deadline": "soon"})),
    Refused("api_remove_deadline", "assignment: one the course has not", lambda d: d.api.delete(
        "/api/students/bob/deadline", params={"assignment": "nosuch"})),
    Refused("api_set_assignment_deadline", "late_deadline: before the deadline",
            lambda d: d.api.put("/api/assignments/montecarlo/students/alice/deadline",
                                json={"deadline": GOOD, "late_deadline": EARLIER})),
    Refused("api_remove_assignment_deadline", "the assignment: none such", lambda d: d.api.delete(
        "/api/assignments/nosuch/students/bob/deadline")),
    Refused("api_adjust", "note: empty", lambda d: d.api.post(
        f"/api/submissions/{d.minimax}/adjustment", json={"points": -3, "note": ""})),
    Refused("api_remove_adjustment", "the submission: none such", lambda d: d.api.delete(
        "/api/submissions/999999/adjustment")),
    Refused("instructor_deadline", "late_deadline: not a time", lambda d: d.form(
        "/instructor/students/alice/deadline", {"assignment": "montecarlo",
                                                "deadline": GOOD, "late_deadline": "soon"})),
    Refused("instructor_deadlines", "its last line: a late deadline that is no time",
            lambda d: d.form("/instructor/deadlines", {},
                             files={"deadlines": ("extensions.csv", BAD_DEADLINES)})),
    Refused("instructor_adjust", "note: empty", lambda d: d.form(
        f"/instructor/submissions/{d.minimax}/adjustment", {"points": "-3", "note": ""})),
    # The course's dates.
    Refused("instructor_course_dates_save", "choice: neither latest nor best", lambda d: d.form(
        "/instructor/course", {"deadline": GOOD, "late_deadline": "2026-12-17T23:59",
                               "late_penalty": "5%/day", "choice": "worst"})),
    Refused("api_change_course", "choice: neither latest nor best", lambda d: d.api.put(
        "/api/course", json={"deadline": GOOD, "late_penalty": "5%/day", "choice": "worst"})),
    # The assignments.
    Refused("api_add_assignment", "late_deadline: before its deadline", lambda d: d.api.post(
        "/api/assignments", json={"name": "minimax", "title": "Again",
                                  "deadline": GOOD, "late_deadline": EARLIER})),
    Refused("api_change_assignment", "late_deadline: before its deadline", lambda d: d.api.put(
        "/api/assignments/montecarlo", json={"open": False, "title": "Renamed",
                                             "position": 1, "late_penalty": "5%/day",
                                             "deadline": GOOD, "late_deadline": EARLIER})),
    Refused("api_change_assignment", "late_deadline: before the course's deadline",
            lambda d: d.api.put("/api/assignments/minimax", json={
                "open": False, "position": 2, "late_deadline": "2026-12-01T23:59"})),
    Refused("api_remove_assignment", "the assignment: it has hand-ins", lambda d: d.api.delete(
        "/api/assignments/montecarlo")),
    Refused("instructor_assignments_form", "late_deadline: before its deadline",
            lambda d: d.form("/instructor/assignments", {
                "name": "montecarlo", "action": "dates", "deadline": GOOD,
                "late_penalty": "5%/day", "late_deadline": EARLIER})),
    Refused("instructor_assignments_form", "remove: it has hand-ins", lambda d: d.form(
        "/instructor/assignments", {"name": "minimax", "action": "remove"})),
    # The LMS.
    Refused("lti_login", "lti_deployment_id: not the platform's", lambda d: d.teacher.post(
        "/lti/login", data={"iss": "https://lms.example.edu", "login_hint": "u1",
                            "target_link_uri": "http://testserver/lti/launch",
                            "client_id": "client-1", "lti_deployment_id": "dep-9"})),
    Refused("lti_launch", "id_token: no token", lambda d: d.teacher.post(
        "/lti/launch", data={"state": "s", "id_token": "not.a.token"})),
    Refused("lti_launch_checked", "id_token: no token", lambda d: d.teacher.post(
        "/lti/launch/checked", data={"state": "s", "id_token": "not.a.token"},
        headers={"sec-fetch-site": "same-origin"})),
    Refused("lti_enter_confirm", "the code: none such", lambda d: d.form(
        "/lti/enter/not-a-code", {})),
    Refused("lti_link_choose", "assignment: one the course has not", lambda d: d.form(
        "/instructor/lti/link", {**LTI_LINK, "assignment": "nosuch"})),
    lti_action("link-assignment", "assignment: one the course has not",
               {**LTI_LINK, "assignment": "nosuch"}),
    lti_action("choice", "choice: neither latest nor best", {"choice": "worst"}),
    lti_action("bind", "context: none such", {"context": "999"}),
    lti_action("deployment", "deployment: empty", {"platform": "1", "deployment": " "}),
    lti_action("unlink", "sub: nobody's", {"platform": "1", "sub": "nobody"}),
    lti_action("remove-grader", "sub: nobody's", {"platform": "1", "sub": "nobody"}),
]


@pytest.fixture(scope="module")
def doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Doors]:
    made = Doors(tmp_path_factory.mktemp("refusals") / "course")
    yield made
    made.course.store.close()


def test_every_write_route_is_sent_a_refused_request(doors: Doors) -> None:
    writes = {route.name for route in doors.course.app.routes
              if isinstance(route, Route) and WRITES & set(route.methods or ())}
    assert writes == {refusal.route for refusal in REFUSALS}


@pytest.mark.parametrize("refusal", REFUSALS, ids=str)
def test_a_refused_write_changes_nothing(doors: Doors, refusal: Refused) -> None:
    before = dump(doors.course.store)

    answer = refusal.send(doors)

    assert answer.status_code >= 400, (answer.status_code, answer.text[:500])
    assert differences(before, dump(doors.course.store)) == []
