"""The report on the submission page reads like the terminal one.

Real reports: a few fixture files are graded once (``python -m grader grade --json``, in a
subprocess, for the whole session) and their text and results.json stored as the queue
stores them; the page is rendered in this process (``create_app`` under Starlette's
TestClient: no server, no grading threads) or its parts are asked of ``presentation``.

- the lead (the likely cause, a game started at import, a file that cannot run) and the
  lines to paste come first, then the rubric, then each item's failures, the cause's first;
- a file that cannot run has one headline and one error, not one under each item;
- the wait is honest (never "report in about 1 s" for 40 s, never "number 0 in the queue"),
  and the live items go on to the last one;
- the title counts the student's hand-ins; the final score shows its parts.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import jinja2
import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():          # Starlette would rather have httpx2; httpx works
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient  # noqa: E402

from grader.service.app import create_app, open_store  # noqa: E402
from grader.service.course.intake import Deadlines, show_size, show_wait  # noqa: E402
from grader.service.course.records import Adjustment, FinalScore, LatePolicy  # noqa: E402
from grader.service.course.storage import Store, Submission  # noqa: E402
from grader.service.course.times import format_time, show_time  # noqa: E402
from grader.service.pages import presentation  # noqa: E402
from grader.service.queue import PROGRESS_NAME, WORK  # noqa: E402
from grader.service.settings import ServiceSettings  # noqa: E402

# Five fixture files graded for real first, one too slow on purpose (about 35 s of the
# machine): not in the default run; .ci/run runs it after (python -m pytest -m long).
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions"
TEMPLATES = ROOT / "grader" / "service" / "templates"
# The files graded once for the session: what each shows on the page.
FIXTURES = {
    "correct": SUBMISSIONS / "course" / "course_template_filled.py",   # starts a game at import
    "buggy": SUBMISSIONS / "grader" / "bug_sign_error_o.py",
    "mutates": SUBMISSIONS / "grader" / "bug_no_clone.py",     # the board: the likely cause
    "slow": SUBMISSIONS / "timing" / "double_recursion.py",    # too slow from 6 empty squares
    "syntax": SUBMISSIONS / "class" / "syntax_error.py",       # cannot run
}


@dataclass(frozen=True)
class Graded:
    """A fixture file as a grade left it: its bytes, report and results.json."""

    name: str
    data: bytes
    report: str
    results: str


def _grade(name: str, path: Path, folder: Path) -> Graded:
    out = folder / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--json",
                           str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return Graded(path.name, path.read_bytes(), done.stdout, out.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Graded]:
    folder = tmp_path_factory.mktemp("graded")
    with ThreadPoolExecutor(max_workers=2) as pool:     # two cores: two grades at a time
        futures = {name: pool.submit(_grade, name, path, folder)
                   for name, path in FIXTURES.items()}
        return {name: future.result() for name, future in futures.items()}


class Course:
    """A course in a temporary folder, its app (not started: no grading threads), and the
    fixture files handed in and graded as the queue stores them."""

    def __init__(self, data: Path, **settings) -> None:
        self.store: Store = open_store(data)
        self.store.ensure_instructor()
        self.store.upsert_students([("alice", "Alice Liddell", "alice@example.org")])
        self.settings = ServiceSettings(data=data, **settings)
        self.app = create_app(self.settings, self.store)
        self.queue = self.app.state.queue

    def browser(self, who: str = "alice") -> TestClient:
        client = TestClient(self.app, follow_redirects=False)
        token = (self.store.instructor_token() if who == "instructor"
                 else self.store.student_token(who))
        assert client.get(f"/s/{token}").status_code == 303
        return client

    def api(self, who: str = "alice") -> TestClient:
        token = (self.store.instructor_token() if who == "instructor"
                 else self.store.student_token(who))
        return TestClient(self.app, headers={"authorization": f"Bearer {token}"})

    def handed_in(self, filename: str = "mm_player.py", data: bytes = b"x = 1\n") -> int:
        row = self.store.add_submission("alice", filename, data, late=False, config="default")
        return row.id

    def graded(self, graded: Graded) -> int:
        number = self.handed_in(graded.name, graded.data)
        assert self.store.claim_next("test").id == number
        results = json.loads(graded.results)
        self.store.finish(number, score=float(results["score"]),
                          max_score=sum(test["max_score"] for test in results["tests"]),
                          results_json=graded.results, report_text=graded.report,
                          seconds=10.0)
        return number

    def row(self, number: int) -> Submission:
        return self.store.submission(number)

    def set_started(self, number: int, seconds_ago: float) -> None:
        """The running row's grade started ``seconds_ago`` (the database, as a run leaves it)."""
        started = format_time(datetime.now(timezone.utc) - timedelta(seconds=seconds_ago))
        database = sqlite3.connect(self.settings.data / "course.sqlite3")
        with database:
            database.execute("UPDATE submissions SET started_at = ? WHERE id = ?",
                             (started, number))
        database.close()


@pytest.fixture
def course(tmp_path: Path) -> Course:
    made = Course(tmp_path / "course")
    yield made
    made.store.close()


def _main(page: str) -> str:
    """The page without its "whole report as text" (which repeats everything once)."""
    return page.split('<details class="summary">')[0]


def _environment() -> jinja2.Environment:
    """The templates as the app loads them (autoescaped, an undefined name an error)."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined)


def _render_report(view: dict) -> str:
    return _environment().get_template("_report.html").render(report=view)


def _render_page(course: Course, row: Submission, instructor: bool = False) -> str:
    """submission.html with ``presentation.page_context`` (what the route is to pass)."""
    context = presentation.page_context(course.store, course.queue, course.settings, row,
                                        instructor)
    return course.app.state.templates.env.get_template("submission.html").render(
        **context, me=None, csrf="", read_only=False, show_time=show_time, show_size=show_size,
        show_wait=show_wait)


# --- the order of the terminal report --------------------------------------------------------

def test_a_buggy_file_gives_the_lines_to_paste_then_the_rubric_then_each_item(course, graded):
    number = course.graded(graded["buggy"])
    view = presentation.report_view(course.row(number), course.settings.deadlines)
    assert view["lead"] == ()                    # no single cause: the report leads with nothing
    assert view["paste"].lines[1].text == "from provided import *"
    terminal = [line[4:].split(" (")[0] for line in graded["buggy"].report.splitlines()
                if line.startswith("--- ")]
    assert [section.name for section in view["sections"]] == terminal
    failure = view["sections"][0].blocks[0]
    assert failure.call.startswith("mm_move(TTTBoard(") and failure.verdict.startswith("expected ")
    assert failure.boards[0].label == "board" and "0   1   2" in failure.boards[0].text
    assert failure.why.startswith("with best play")

    page = _main(course.browser().get(f"/submissions/{number}").text)
    order = [page.index(text) for text in (
        "To try a call below", "from bug_sign_error_o import", '<table class="rubric">',
        '<article class="item-report">', "student code:")]
    assert order == sorted(order), order
    assert "why:" in page and "moves:" in page


def test_a_file_that_changes_its_board_leads_with_it_and_shows_that_item_first(course, graded):
    number = course.graded(graded["mutates"])
    view = presentation.report_view(course.row(number), course.settings.deadlines)
    assert [paragraph.kind for paragraph in view["lead"]] == ["cause"]
    cause = view["lead"][0]
    assert cause.lines[0].text.startswith("The likely cause of the other failures: mm_move "
                                          "changes the board it is given")
    assert "\n" not in cause.lines[0].text and len(cause.lines[0].text) > 200   # one line again
    assert cause.lines[1].indent and cause.lines[1].text.startswith("Failures on calls")
    first, *others = view["sections"]
    assert (first.name, first.is_cause) == ("board untouched", True)
    assert [board.label for board in first.blocks[0].boards] == [
        "board before the call", "board after the call"]
    assert not any(section.is_cause for section in others)
    assert others[0].blocks[0].other.startswith("(all ")    # "... on calls that also changed"

    page = _main(course.browser().get(f"/submissions/{number}").text)
    order = [page.index(text) for text in (
        "The likely cause of the other failures", "To try a call below",
        '<table class="rubric">', "board untouched (0.93 / 5.0)", "<h3>scores (")]
    assert order == sorted(order), order
    assert "the likely cause</span>" in page


def test_a_file_too_slow_from_a_tier_leads_with_it_and_shows_time_first(course, graded):
    number = course.graded(graded["slow"])
    view = presentation.report_view(course.row(number), course.settings.deadlines)
    assert view["lead"][0].kind == "cause"
    assert view["lead"][0].headline.startswith("Too slow for the grader's time limits on: 3x3 "
                                               "positions with 6 empty squares")
    first, *others = view["sections"]
    assert (first.name, first.is_cause) == ("time", True)
    for section in others:      # each only lacks answers: one line that points at 'time'
        assert [block.other.endswith("see 'time' for the call that decided it")
                for block in section.blocks] == [True]
    footer = [line.text for paragraph in view["footer"] for line in paragraph.lines]
    assert footer[0].startswith("student code: ")
    assert any(line.startswith("too slow (not asked beyond): ") for line in footer)


def test_a_game_started_at_import_is_said_first_and_a_correct_file_has_no_failures(course,
                                                                                 graded):
    number = course.graded(graded["correct"])
    view = presentation.report_view(course.row(number), course.settings.deadlines)
    assert [paragraph.kind for paragraph in view["lead"]] == ["note"]
    assert view["lead"][0].headline.startswith("note: your file calls run_gui(...) when it is "
                                               "imported; the grader skipped that call")
    assert view["sections"] == () and view["paste"] is None
    page = course.browser().get(f"/submissions/{number}").text
    assert "<h2>Score: 100 / 100</h2>" in page


# --- a file that cannot run ------------------------------------------------------------------

def test_a_file_that_cannot_run_has_one_headline_and_one_error(course, graded):
    number = course.graded(graded["syntax"])
    view = presentation.report_view(course.row(number), course.settings.deadlines)
    assert view["cannot_run"].headline == ("Your submission could not be run (syntax), so "
                                           "nothing was graded (score 0).")
    assert view["sections"] == ()
    assert {row["status"] for row in view["rows"]} == {"not run"}
    page = _main(course.browser().get(f"/submissions/{number}").text)
    assert page.count("could not be run") == 1
    assert page.count("SyntaxError") == 1
    assert "<pre>def mm_move(board, player)</pre>" in page


def test_without_a_text_report_a_file_that_cannot_run_still_says_it_once(course, graded):
    # A row whose text report is missing: the page reads results.json (whose every item's
    # output repeats the error).
    results = json.loads(graded["syntax"].results)
    assert all("could not be run" in test["output"] for test in results["tests"])
    row = replace(course.row(course.graded(graded["syntax"])), report_text=None)
    view = presentation.report_view(row, course.settings.deadlines)
    assert view["sections"] == ()
    assert _main(_render_report(view)).count("SyntaxError") == 1


# --- the wait ---------------------------------------------------------------------------------

def test_a_grade_running_past_its_estimate_says_so_with_the_time_so_far(course):
    number = course.handed_in()
    course.store.claim_next("test")
    course.set_started(number, 40)
    row = course.row(number)
    live = presentation.live_view(course.store, course.queue, course.settings, row)
    assert live["estimated_wait"] is None                   # never "about 1 s" for 40 s
    assert re.fullmatch(r"grading now: 4\d s so far", live["text"]), live["text"]
    data = course.api().get(f"/api/submissions/{number}").json()
    assert (data["phase"], data["estimated_wait"]) == ("running", None)
    assert data["status_text"].startswith("grading now: ") and data["elapsed"] >= 40
    page = course.browser().get(f"/submissions/{number}").text
    assert "report in about" not in page and "grading now" in page

    course.set_started(number, 2)                           # a typical run has time left
    live = presentation.live_view(course.store, course.queue, course.settings,
                                  course.row(number))
    assert live["estimated_wait"] > presentation.MIN_ESTIMATE
    assert "report in about" in live["text"]


def test_an_idle_server_says_grading_now_never_number_0(course):
    number = course.handed_in()
    row = course.row(number)
    live = presentation.live_view(course.store, course.queue, course.settings, row)
    assert (live["phase"], live["text"]) == ("running", "grading now, report in about 20 s")
    taken = replace(row, status="queued")                  # claimed since the page read it
    course.store.claim_next("test")
    live = presentation.live_view(course.store, course.queue, course.settings, taken)
    assert live["position"] == 0 and "number 0" not in live["text"]
    assert live["text"].startswith("grading now")


def test_a_queued_estimate_grows_while_the_run_ahead_overruns(course):
    ahead = course.handed_in()
    mine = course.handed_in()
    course.store.claim_next("test")
    waits = []
    for seconds in (30, 60, 120):          # past a typical run (20 s before any has finished)
        course.set_started(ahead, seconds)
        live = presentation.live_view(course.store, course.queue, course.settings,
                                      course.row(mine))
        assert live["phase"] == "queued" and live["text"].startswith("number 1 in the queue")
        waits.append(live["estimated_wait"])
    assert waits[0] < waits[1] < waits[2], waits


def test_the_live_items_come_in_rubric_order_and_go_on_to_the_last(course, graded):
    number = course.handed_in()
    course.store.claim_next("test")
    folder = course.settings.data / WORK / str(number)
    folder.mkdir(parents=True)
    (folder / PROGRESS_NAME).write_text(
        '{"name": "finished boards", "passed": 305, "total": 305}\n'
        '{"name": "scores", "passed": 600, "total": 661}\n', encoding="utf-8")
    data = course.api().get(f"/api/submissions/{number}").json()
    assert [item["name"] for item in data["items"]] == ["finished boards", "scores"]
    rubric = [name for name, points in course.queue.weights.items() if points]
    assert [item["name"] for item in data["pending"]] == rubric[2:]
    page = course.browser().get(f"/submissions/{number}").text
    assert "<li>scores: 13.62 / 15</li>" in page
    page = _render_page(course, course.row(number))
    assert "<li>scores: 13.62 / 15</li>" in page and "Still to come: moves," in page

    # Done: every item (none of Gradescope's after-the-deadline companions), none to come.
    done = course.graded(graded["buggy"])
    data = course.api().get(f"/api/submissions/{done}").json()
    assert [item["name"] for item in data["items"]] == rubric and data["pending"] == []


def test_the_script_reads_only_fields_the_json_has(course):
    number = course.handed_in()
    data = course.api().get(f"/api/submissions/{number}").json()
    script = (ROOT / "grader" / "service" / "static" / "submission.js").read_text()
    used = set(re.findall(r"\bdata\.(\w+)", script))
    assert used and used <= set(data), used - set(data)


# --- the title and the final score -------------------------------------------------------------

def test_the_title_counts_the_students_hand_ins_and_names_the_file(course):
    course.handed_in("first.py")
    second = course.handed_in("mm_player (2).py")
    page = course.browser().get(f"/submissions/{second}").text
    assert re.search(r"<h1>Hand-in 2 <span class=\"name\">mm_player \(2\)\.py</span></h1>",
                     page), page[:800]
    assert "<title>Hand-in 2</title>" in page
    teacher = course.browser("instructor").get(f"/instructor/submissions/{second}").text
    assert "Hand-in 2 of Alice Liddell (alice)" in teacher
    assert f"submission {second}" in teacher
    page = _render_page(course, course.row(second))
    assert "<h1>Hand-in 2 <span" in page and "Alice" not in page.split("<h1>")[1][:40]
    assert "Hand-in 2 of Alice Liddell (alice)" in _render_page(course, course.row(second),
                                                                instructor=True)


def test_a_late_and_adjusted_score_shows_its_parts(course, graded):
    number = course.graded(graded["buggy"])
    row = course.row(number)
    final = FinalScore.compute(row.score, row.max_score, late_by=timedelta(hours=30),
                               policy=LatePolicy.parse("10%/day"),
                               adjustment=Adjustment(number, 5.0, "the 4x4 boards were not "
                                                     "in the handout", "instructor",
                                                     "2026-01-02T03:04:05.000000Z"))
    view = presentation.report_view(row, course.settings.deadlines, final=final)
    assert view["score"] == final.final == round(row.score - 20 + 5, 2)
    parts = [(part.label, part.points, part.detail) for part in view["score_parts"]]
    assert parts == [("The grader's score", "57.3 / 100", ""),
                     ("2 days late", "-20", "20% of the maximum score; the late policy: "
                                            "10% of the maximum score per day late (or part "
                                            "of a day)"),
                     ("Adjusted by your instructor", "+5",
                      "the 4x4 boards were not in the handout"),
                     ("Final score", "42.3 / 100", "")]
    html = _render_report(view)
    assert "<h2>Final score: 42.3 / 100</h2>" in html and "2 days late" in html

    data = presentation.submission_json(course.store, course.queue, course.settings, row,
                                        final=final)
    assert (data["final_score"], data["score"]) == (42.3, 57.3)
    assert (data["penalty"], data["late_days"], data["penalty_fraction"]) == (-20.0, 2, 0.2)
    assert data["adjustment"] == 5.0
    assert data["adjustment_note"] == "the 4x4 boards were not in the handout"
    # Nothing to explain: the grader's score alone, penalty and adjustment None.
    plain = FinalScore.compute(row.score, row.max_score)
    assert presentation.report_view(row, course.settings.deadlines, final=plain)[
        "score_parts"] == ()
    data = presentation.submission_json(course.store, course.queue, course.settings, row)
    assert [data[key] for key in ("final_score", "score", "penalty", "adjustment")] == [
        row.score, row.score, None, None]


def test_after_the_deadline_the_counts_give_way_to_the_failures_in_full(tmp_path, graded):
    moment = datetime.now(timezone.utc)
    before = Course(tmp_path / "before", deadlines=Deadlines(moment + timedelta(days=1)))
    out = subprocess.run([sys.executable, "-m", "grader", "grade", str(FIXTURES["mutates"]),
                          "--visibility", "categories", "--json", str(tmp_path / "c.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    categories = Graded(FIXTURES["mutates"].name, b"", out.stdout,
                        (tmp_path / "c.json").read_text())
    row = before.row(before.graded(categories))
    hidden = presentation.report_view(row, before.settings.deadlines)
    assert hidden["hidden_until_deadline"]
    assert "mm_move(TTTBoard(" not in _render_report(hidden)
    after = presentation.report_view(row, Deadlines(moment - timedelta(days=1)))
    assert not after["hidden_until_deadline"]
    assert after["sections"][0].name == "board untouched"       # the report's order kept
    assert after["sections"][0].blocks[0].call.startswith("mm_move(TTTBoard(")
    before.store.close()


def test_the_whole_report_as_text_says_the_final_score_and_the_graders(course, graded):
    # Issue 34: the page's text said 57.3 under the heading "Score: 52.3".
    number = course.graded(graded["buggy"])
    row = course.row(number)
    final = FinalScore.compute(row.score, row.max_score, late_by=timedelta(hours=30),
                               policy=LatePolicy.parse("10%/day"))
    line = "Final score: 37.3 / 100 (the grader's 57.3, late penalty -20)"

    view = presentation.report_view(row, course.settings.deadlines, final=final)
    data = presentation.submission_json(course.store, course.queue, course.settings, row,
                                        final=final)

    assert "Score: 57.3 / 100" in row.report_text          # the grader's, as it graded
    for text in (view["summary"], data["report"]):
        assert line in text.splitlines()[:4]
        assert "Score: 57.3" not in text
    assert data["score_text"] == line
    assert "<h2>Final score: 37.3 / 100</h2>" in _render_report(view)
