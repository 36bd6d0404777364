"""grader.suite.report: the text report, Gradescope's results.json, CSV, atomic writes."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.judge.checks import board_changed
from grader.judge.position import Position
from grader.sandbox.submission import course_imports
from grader.suite.report import (isolation_line, item_report, paste_lines, student_label,
                                 summary_text, text_report)
from grader.timing.policy import TimePolicy
from grader.suite.results_json import GRADESCOPE_VISIBILITIES, gradescope_results
from grader.suite.table import CSV_FIXED, csv_header, csv_row, write_csv
from grader.suite.writers import write_json_atomic
from grader.judge.results import Failure, GradeResult, ItemResult

# ---------------------------------------------------------------- results built by hand

BOARD = "\n".join([
    "     0   1   2",
    "0    X |   |  ",
    "    -----------",
    "1    O | O |  ",
    "    -----------",
    "2      | X |  ",
])
BOARD_ROW = "1    O | O |  "
CALL = ("mm_move(TTTBoard(3, False, [[PLAYERX, EMPTY, EMPTY], [PLAYERO, PLAYERO, EMPTY], "
        "[EMPTY, PLAYERX, EMPTY]]), PLAYERX)")
WHY = "after (2, 2), O wins with (1, 2)"
GAME_CALL = "play_game(move_wrapper, 1, False)"
MOVES = ("X (0, 0)", "O (1, 1)", "X (2, 2)", "O (0, 2)", "X (2, 0)", "O (1, 0)")
NOTE = "accepted a list [score, move] for a tuple"


def wrong_score(column: int) -> Failure:
    return Failure("wrong score", CALL, "score 0", f"(1, (2, {column}))", why=WHY, board=BOARD)


ILLEGAL = Failure("illegal move", CALL, "a move to an empty square", "(0, (0, 0))",
                  why="(0, 0) is taken by X", board=BOARD)
LOST = Failure("lost game", GAME_CALL, "a draw or a win for X", "O wins",
               why="X (2, 2) lets O fork", board=BOARD, moves=MOVES)

RUBRIC = [("finished boards", 10.0), ("scores", 20.0), ("moves", 20.0), ("other sizes", 10.0),
          ("reverse games", 10.0), ("board untouched", 5.0), ("game play", 15.0),
          ("time", 10.0)]

COMMON = dict(student_cpu_seconds=1.25, wall_seconds=4.5, calls=812, timeouts=1, restarts=1,
              isolation=("subprocess", "rlimit"))


def perfect() -> GradeResult:
    items = tuple(ItemResult(name, weight, passed=10, total=10) for name, weight in RUBRIC)
    return GradeResult("subs/ann.py", "ann", items=items, **COMMON)


def failing() -> GradeResult:
    # scores: 5 failures of two categories; game play: one lost game; moves: a note.
    scores = ItemResult("scores", 20.0, passed=35, total=40,
                        failures=(wrong_score(0), wrong_score(1), ILLEGAL, wrong_score(2),
                                  wrong_score(3)))
    play = ItemResult("game play", 15.0, passed=9, total=10, failures=(LOST,))
    moves = ItemResult("moves", 20.0, passed=40, total=40, notes=(NOTE,))
    untouched = ItemResult("board untouched", 5.0, passed=10, total=10)
    return GradeResult("subs/bob.py", "bob", items=(scores, moves, untouched, play),
                       **COMMON)


def not_loaded() -> GradeResult:
    items = tuple(ItemResult(name, weight) for name, weight in RUBRIC)
    return GradeResult("subs/cat.py", "cat", items=items,
                       load_error="line 3: `print x` is Python 2; write print(x)",
                       load_kind="python2", load_output="hello from import\n")


def grader_failed() -> GradeResult:
    items = (ItemResult("scores", 20.0, passed=40, total=40),
             ItemResult("time", 10.0, error="KeyError: 'limit'"))
    return GradeResult("subs/dan.py", "dan", items=items,
                       grader_error="RuntimeError: the solver disagreed with itself", **COMMON)


ALL_RESULTS = [perfect, failing, not_loaded, grader_failed]

# ---------------------------------------------------------------- text report


def test_perfect_report_has_header_ok_lines_and_footer():
    text = text_report(perfect())
    assert "Submission: ann.py" in text
    assert "Student: ann" in text
    assert "Score: 100 / 100" in text
    assert "[ok] board untouched (5.0 / 5.0)" in text
    assert text.count("[ok]") == len(RUBRIC)
    assert "pts]" not in text
    assert "1.25 s CPU" in text and "4.50 s wall" in text
    assert "812 calls, 1 timeout, 1 restart" in text
    # The sandbox's layers are for the instructor (stderr, extra_data), not in the report.
    assert "isolation" not in text and "rlimit" not in text
    assert isolation_line(perfect()) == "isolation: subprocess, rlimit"


def test_deduction_lines_in_course_style():
    text = text_report(failing())
    assert "Score: 56 / 60" in text       # 17.5 + 20 + 5 + 13.5 of the items present
    assert "[-2.5 pts] scores: 5 of 40 checks failed" in text
    assert "[-1.5 pts] game play: 1 of 10 checks failed" in text
    assert "[ok] moves (20.0 / 20.0)" in text


def test_failure_shows_pasteable_call_expected_received_board_and_why():
    lines = text_report(failing()).splitlines()
    # The course's line, starting at column 0 so that it pastes into a prompt.
    assert f"{CALL} expected score 0 but received (1, (2, 0))" in lines
    first = lines.index(f"{CALL} expected score 0 but received (1, (2, 0))")
    after = lines[first + 1:first + 9]
    assert "    " + BOARD_ROW in after     # the board, indented
    assert f"  why: {WHY}" in after


def test_lost_game_shows_its_moves():
    text = text_report(failing())
    assert f"{GAME_CALL} expected a draw or a win for X but received O wins" in text
    assert "X (2, 2) lets O fork" in text
    assert ("moves: 1. X (0, 0), 2. O (1, 1), 3. X (2, 2), 4. O (0, 2), 5. X (2, 0), "
            "6. O (1, 0)") in text


def test_only_examples_failures_are_shown_then_the_rest_is_counted():
    text = text_report(failing(), examples=3)
    assert text.count(f"{CALL} expected") == 3
    # the rest of scores: wrong_score(2) and wrong_score(3)
    assert "... and 2 more like this: 2 wrong score" in text
    text = text_report(failing(), examples=1)
    assert text.count(f"{CALL} expected") == 1
    assert "... and 4 more like this: 3 wrong score, 1 illegal move" in text
    text = text_report(failing(), examples=0)
    assert CALL not in text
    assert "... and 5 more like this: 4 wrong score, 1 illegal move" in text


def test_notes_are_printed_under_their_item():
    text = text_report(failing())
    assert f"note: {NOTE}" in text


def test_categories_hide_calls_boards_why_and_moves_but_keep_scores_and_counts():
    text = text_report(failing(), visibility="categories")
    assert CALL not in text and GAME_CALL not in text
    assert BOARD_ROW not in text
    assert WHY not in text and "why:" not in text and "moves:" not in text
    assert "expected" not in text and "received" not in text
    assert NOTE not in text
    assert "seed" not in text
    assert "scores: 4 wrong score, 1 illegal move" in text
    assert "game play: 1 lost game" in text
    assert "Score: 56 / 60" in text
    assert "[-2.5 pts] scores: 5 of 40 checks failed" in text


def test_load_failure_says_why_with_score_zero():
    text = text_report(not_loaded())
    assert "Score: 0 / 100" in text
    assert "could not be run (python2)" in text
    assert "`print x` is Python 2; write print(x)" in text
    assert "hello from import" in text
    assert "[-20.0 pts] scores: not run" in text
    assert "[ok]" not in text


def test_grader_error_is_flagged_for_the_instructor():
    text = text_report(grader_failed())
    assert "GRADER ERROR" in text
    assert "report it" in text
    assert "RuntimeError: the solver disagreed with itself" in text
    assert "[-10.0 pts] time: not checked, the grader failed on this item" in text
    assert "KeyError: 'limit'" in text


def test_bad_options_are_refused():
    with pytest.raises(ValueError):
        text_report(perfect(), visibility="secret")
    with pytest.raises(ValueError):
        gradescope_results(perfect(), visibility="hidden")
    with pytest.raises(ValueError):
        text_report(perfect(), examples=-1)

# ---------------------------------------------------------------- the report leads with the cause

ROOT = Path(__file__).resolve().parents[2]
COURSE_FILE = ROOT / "tests" / "submissions" / "course" / "course_template_filled.py"
# X to move on a board where O threatens the middle row: X blocks at (1, 2), a draw.
BLOCK = Position.from_grid([[2, 1, 1], [3, 3, 1], [1, 2, 1]], 2)
BLOCK_ANSWER = "(0, (1, 2))"
FULL = Position.from_grid([[2, 3, 2], [3, 3, 2], [2, 2, 3]], 2)


def no_clone() -> GradeResult:
    """A search that plays on its own board: the board changes, and so do its answers."""
    changed = board_changed(BLOCK, FULL)
    wrong = Failure("wrong score", BLOCK.call("mm_move"), "score 0", "(1, (0, 1))",
                    why=WHY, board=BLOCK.drawing())
    items = (ItemResult("scores", 20.0, passed=38, total=40, failures=(wrong, wrong)),
             ItemResult("moves", 20.0, passed=40, total=40),
             ItemResult("board untouched", 5.0, passed=6, total=10,
                        failures=(changed,) * 4),
             ItemResult("game play", 15.0, passed=9, total=10, failures=(LOST,)))
    return GradeResult("/srv/grades/.work/unzipped/Ann Lee_12345_assignsubmission_file_/"
                       "mm_player.py", "12345", items=items, **COMMON)


def test_a_changed_board_is_said_first_as_the_likely_cause_with_counts():
    text = text_report(no_clone())
    lines = text.splitlines()
    cause = next(i for i, line in enumerate(lines) if "likely cause" in line)
    first_item = next(i for i, line in enumerate(lines) if line.startswith(("[ok]", "[-")))
    assert cause < first_item                     # before the deduction lines
    assert "mm_move changes the board it is given (on 4 of 10 calls)" in " ".join(lines)
    assert "scores 2 of 2" in text                # failures on calls that changed the board
    # Its item's details come first, the others after it with one example each.
    sections = [line.split(" (")[0] for line in lines if line.startswith("--- ")]
    assert sections == ["--- board untouched", "--- scores", "--- game play"]
    assert text.count(BLOCK.call("mm_move") + " expected score 0") == 1
    assert "(all 2 failures here were on calls that also changed the board" in text


def test_a_changed_board_alone_is_said_first_too():
    result = no_clone()
    alone = text_report(dataclasses.replace(result, items=result.items[2:3]))
    assert alone.splitlines()[4].startswith("First: mm_move changes the board it is given")
    assert "other checks" not in alone
    # Other failures, none on a call that changed the board: not claimed as their cause.
    games = text_report(dataclasses.replace(result, items=result.items[2:]))
    assert games.splitlines()[4].startswith("First: mm_move changes the board it is given")
    assert "likely cause" not in games and "It may be why other checks failed too" in games


def test_both_boards_of_a_changed_board_are_labelled():
    lines = text_report(no_clone()).splitlines()
    before = lines.index("  board before the call:")
    after = lines.index("  board after the call:")
    assert lines[before + 1:after] == ["    " + row for row in BLOCK.drawing().splitlines()]
    assert lines[after + 1:after + 1 + len(FULL.drawing().splitlines())] == [
        "    " + row for row in FULL.drawing().splitlines()]
    # Every board printed has its label on the line above it.
    header = "    " + BLOCK.drawing().splitlines()[0]
    for index, line in enumerate(lines):
        if line == header:
            assert lines[index - 1].startswith("  board"), lines[index - 1]


def test_a_changed_board_hides_both_boards_before_the_deadline():
    text = text_report(no_clone(), visibility="categories")
    assert "likely cause" in text
    assert "board after" not in text and "board before" not in text
    assert BLOCK.call("mm_move") not in text


def timed() -> GradeResult:
    """Two failures on time; the reference was timed three times, the last at 4.42 s."""
    policy = TimePolicy()
    why = (f"mm_move used more than its limit of 0.60 s of CPU time and was stopped. "
           f"The limit: {policy.describe()}. Look for repeated work.")
    late = Failure("timeout", CALL, "an answer within 0.60 s", "no answer in time", why=why,
                   board=BOARD)
    items = (ItemResult("scores", 20.0, passed=39, total=40, failures=(late.unjudged(),),
                        no_answer=1),
             ItemResult("time", 10.0, passed=38, total=40, failures=(late, late)))
    timing = {"factor": policy.factor, "small": policy.small, "budget": policy.budget,
              "budget_spent": 3.0, "calibrations": 3, "reference_empty_board_seconds": 4.42,
              "budget_seconds": 198.9}
    return GradeResult("subs/eve.py", "eve", items=items, timing=timing,
                       too_slow=("finished 3x3 boards (normal game)",), **COMMON)


def test_the_time_policy_is_said_once_and_no_figure_contradicts_the_failures():
    text = text_report(timed())
    flat = " ".join(text.split())       # prose is wrapped; calls and boards are not
    assert flat.count(" ".join(TimePolicy().describe().split())) == 1
    assert text.count('The limit: see "time limits"') == 2     # the time item's examples
    # The limits were set when each call was made: the footer gives no limit of its own
    # (0.2 x 4.42 s = 0.88 s), only the rule, the reference's time and how often it was timed.
    assert "0.88" not in text and "on small positions)" not in text
    assert "0.60 s" in text
    assert "(full timings on this run: 3; 4.42 s for the empty 3x3 board at the last)" in flat
    # The item with the time cause comes first; the items it explains say so in a line.
    assert text.index("--- time") < text.index("--- scores")
    assert "no answer on 1 check (1 timeout): see 'time' for the call that decided it" in text
    assert flat.count("Too slow for the grader's time limits on: finished 3x3 boards "
                      "(normal game)") == 1
    # A Gradescope test's output points to the summary, which holds the policy once.
    assert TimePolicy().describe() not in item_report(timed(), timed().items[1])
    assert " ".join(summary_text(timed(), "full").split()).count(
        " ".join(TimePolicy().describe().split())) == 1


def test_a_call_that_never_returns_is_said_first_as_stuck():
    result = timed()
    stuck = Failure("stuck", CALL, "an answer", "no answer: it did not return", board=BOARD)
    items = (dataclasses.replace(result.items[0], failures=(stuck.unjudged(),)),
             dataclasses.replace(result.items[1], failures=(stuck, stuck)))
    text = " ".join(text_report(dataclasses.replace(result, items=items)).split())
    assert text.startswith("Submission: eve.py Student: eve Score: 29 / 30 mm_move did not "
                           "return (an endless loop?) on: finished 3x3 boards")
    assert "no answer on 1 check (1 stuck): see 'time'" in text
    assert "too slow or stuck (not asked beyond): finished 3x3 boards" in text


def test_a_report_with_no_call_late_says_so_in_one_paragraph_a_student_reads():
    # It said "3.0 of 45 such searches used": words only an instructor could decode. It
    # says what a limit is measured against, and how much of the grade's time the code took.
    result = dataclasses.replace(perfect(), timing=timed().timing)
    text = text_report(result)
    paragraph = " ".join(text[text.index("time limits:"):].split("\n\n")[0].split())
    assert paragraph == (
        "time limits: every call was within its limit. A limit is measured against a plain "
        "minimax (a clone at every step, no pruning) on a board written like the course's, "
        "timed on this machine: it needs 4.42 s of CPU time for the empty 3x3 board. A call "
        "may take 5 times what that minimax needs for a position as hard, and all your calls "
        "together may take as long as 45 of that minimax's searches of the empty 3x3 board "
        "(about 199 s here); your code took as long as 3.0 of them (about 13 s).")
    assert "such searches" not in text


def test_a_report_with_calls_late_says_what_the_code_used_of_the_whole_grade():
    flat = " ".join(text_report(timed()).split())
    assert ("For the whole grade, all your calls together may take as long as 45 of that "
            "minimax's searches of the empty 3x3 board (about 199 s here); your code took as "
            "long as 3.0 of them (about 13 s).") in flat
    assert "such searches" not in flat and "used)" not in flat


def test_the_submission_line_names_the_file_never_the_graders_folders():
    result = dataclasses.replace(
        not_loaded(), submission="/srv/grades/.work/unzipped/ann/mm_player.py",
        load_error="/srv/grades/.work/unzipped/ann/mm_player.py is empty: submit the file")
    text = text_report(result)
    assert "Submission: mm_player.py" in text
    assert "mm_player.py is empty" in text
    assert ".work" not in text and "/srv" not in text
    assert ".work" not in text_report(no_clone())


def test_a_game_the_file_starts_on_import_is_noted_once():
    for visibility in ("full", "categories"):
        result = dataclasses.replace(perfect(), import_calls=("run_gui", "run_gui"))
        text = text_report(result, visibility)
        assert text.count("note: your file calls run_gui(...) when it is imported; the "
                          "grader skipped that call") == 1, text
    assert "when it is imported" not in text_report(perfect())


def test_the_calls_are_preceded_once_by_the_lines_that_import_them():
    text = text_report(no_clone())
    assert text.count("from provided import *") == 1
    # Not a module name (Moodle's folder is not the file's name: the file is).
    assert "    from mm_player import mm_move, move_wrapper" in text.splitlines()
    assert text.index("from provided import *") < text.index(BLOCK.call("mm_move"))
    assert "from provided import *" not in text_report(perfect())
    assert "from provided import *" not in text_report(no_clone(), visibility="categories")
    # results.json's summary (above the items' tests) carries them too.
    assert summary_text(no_clone(), "full").count("from provided import *") == 1
    assert "from provided import *" not in summary_text(no_clone(), "categories")


def run_pasted(lines: list[str], call: str, folder: Path) -> subprocess.CompletedProcess:
    """What a student gets who starts python3 in ``folder`` and pastes the report's lines."""
    code = "\n".join(lines + [f"print({call})"])
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True,
                          text=True, timeout=120)


def course_result(name: str) -> GradeResult:
    source = COURSE_FILE.read_text()
    failure = Failure("wrong score", BLOCK.call("mm_move"), "score 0", "(1, (0, 1))")
    item = ItemResult("scores", 20.0, passed=0, total=1, failures=(failure,))
    return GradeResult(name, "ann", items=(item,), import_calls=("run_gui",),
                       course_imports=course_imports(source))


def pasted_lines(result: GradeResult) -> list[str]:
    lines = text_report(result).splitlines()
    start = lines.index("    from provided import *")
    end = lines.index("", start)
    return [line.strip() for line in lines[start:end]]


def test_a_pasted_call_works_on_a_course_file_in_the_repository():
    result = course_result(str(COURSE_FILE))
    lines = pasted_lines(result)
    assert "from provided.console import load_move_function" in lines
    done = run_pasted(lines, BLOCK.call("mm_move"), COURSE_FILE.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == BLOCK_ANSWER
    # The old line fails there: the course's modules exist only in the handout.
    old = run_pasted(["from provided import *", f"from {COURSE_FILE.stem} import mm_move"],
                     BLOCK.call("mm_move"), COURSE_FILE.parent)
    assert old.returncode != 0 and "poc_ttt_gui" in old.stderr


def test_a_pasted_call_works_on_a_course_file_in_the_handout(tmp_path):
    handout = tmp_path / "handout.zip"
    built = subprocess.run([sys.executable, "-m", "grader", "handout", str(handout)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(handout) as archive:
        archive.extractall(tmp_path)
    folder = tmp_path / "ttt-minimax"
    (folder / "grace.py").write_text(COURSE_FILE.read_text())
    lines = pasted_lines(course_result("grace.py"))
    done = run_pasted(lines, BLOCK.call("mm_move"), folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == BLOCK_ANSWER
    # The handout's own board module answered, not this project's.
    where = run_pasted(["import provided"], "provided.__file__", folder)
    assert where.stdout.strip().startswith(str(folder))


def test_a_pasted_call_works_on_a_plain_file():
    plain = ROOT / "tests" / "submissions" / "grader" / "bug_mutates_board.py"
    result = GradeResult(str(plain), "ann", course_imports=course_imports(plain.read_text()))
    lines = paste_lines(result)
    assert lines == ["from provided import *", "from bug_mutates_board import mm_move"]
    done = run_pasted(lines, BLOCK.call("mm_move"), plain.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == BLOCK_ANSWER


# ---------------------------------------------------------------- Gradescope

# The autograder specifications (gradescope-autograders.readthedocs.io, "Output format").
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
            "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
            "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output",
             "output_format", "tags", "visibility", "extra_data"}
FORMATS = {"text", "simple_format", "html", "md", "ansi"}
VISIBILITY_VALUES = {"hidden", "after_due_date", "after_published", "visible"}


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_gradescope(data: dict) -> None:
    """The documented results.json schema, plus what this grader promises on top of it."""
    assert set(data) <= TOP_KEYS, set(data) - TOP_KEYS
    for key in ("score", "execution_time", "output", "tests", "extra_data"):
        assert key in data, key
    assert is_number(data["score"]) and is_number(data["execution_time"])
    assert isinstance(data["output"], str) and isinstance(data["extra_data"], dict)
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data.get(key, "text") in FORMATS
    for key in ("visibility", "stdout_visibility"):
        assert data.get(key, "visible") in VISIBILITY_VALUES
    assert isinstance(data["tests"], list) and data["tests"]
    for test in data["tests"]:
        assert set(test) <= TEST_KEYS, set(test) - TEST_KEYS
        for key in ("name", "score", "max_score", "status", "output", "visibility"):
            assert key in test, key
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert is_number(test["score"]) and is_number(test["max_score"])
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITY_VALUES
        assert test.get("output_format", "text") in FORMATS
    assert data["score"] == pytest.approx(sum(test["score"] for test in data["tests"]))
    # Plain JSON: survives a strict round trip unchanged (no tuples, no NaN).
    assert json.loads(json.dumps(data, allow_nan=False)) == data


def test_gradescope_visibility_values_match_the_documentation():
    assert set(GRADESCOPE_VISIBILITIES) == VISIBILITY_VALUES


@pytest.mark.parametrize("visibility", ["full", "categories"])
@pytest.mark.parametrize("make", ALL_RESULTS, ids=lambda make: make.__name__)
def test_gradescope_results_follow_the_schema(make, visibility):
    result = make()
    data = gradescope_results(result, visibility)
    check_gradescope(data)
    graded = [test["name"] for test in data["tests"] if test["visibility"] == "visible"]
    assert graded == [item.name for item in result.items]
    assert data["stdout_visibility"] == "hidden"


def test_gradescope_tests_carry_their_part_of_the_report():
    data = gradescope_results(failing())
    tests = {test["name"]: test for test in data["tests"]}
    assert data["score"] == 56.0
    assert tests["scores"]["status"] == "failed"
    assert tests["scores"]["score"] == 17.5 and tests["scores"]["max_score"] == 20.0
    assert f"{CALL} expected score 0 but received (1, (2, 0))" in tests["scores"]["output"]
    assert BOARD_ROW in tests["scores"]["output"]
    assert GAME_CALL not in tests["scores"]["output"]
    assert "moves: 1. X (0, 0)" in tests["game play"]["output"]
    assert tests["moves"]["status"] == "passed"
    assert NOTE in tests["moves"]["output"]
    assert "Score: 56 / 60" in data["output"]
    assert all(test["visibility"] == "visible" for test in data["tests"])


def test_gradescope_categories_keep_positions_out_of_what_students_see_before_the_deadline():
    data = gradescope_results(failing(), visibility="categories")
    now = [test for test in data["tests"] if test["visibility"] == "visible"]
    dumped = json.dumps({"output": data["output"], "tests": now, "extra": data["extra_data"]})
    assert "mm_move(" not in dumped and "play_game(" not in dumped
    assert "O | O" not in dumped and WHY not in dumped and NOTE not in dumped
    tests = {test["name"]: test for test in data["tests"]}
    assert "4 wrong score, 1 illegal move" in tests["scores"]["output"]
    assert tests["scores"]["score"] == 17.5


def test_gradescope_categories_show_the_failures_in_full_after_the_deadline():
    data = gradescope_results(failing(), visibility="categories")
    later = {test["name"]: test for test in data["tests"]
             if test["visibility"] == "after_due_date"}
    # One companion for each item that failed, worth nothing, with the full feedback.
    assert set(later) == {"scores: the failures in full", "game play: the failures in full"}
    assert CALL in later["scores: the failures in full"]["output"]
    assert WHY in later["scores: the failures in full"]["output"]
    assert "moves: 1. X (0, 0)" in later["game play: the failures in full"]["output"]
    assert all(test["score"] == test["max_score"] == 0 for test in later.values())
    assert data["score"] == gradescope_results(failing())["score"]
    check_gradescope(data)


def test_gradescope_full_feedback_needs_no_companions():
    data = gradescope_results(failing())
    assert all(test["visibility"] == "visible" for test in data["tests"])
    assert len(data["tests"]) == len(failing().items)


def test_the_leaderboard_is_offered_for_a_correct_submission_only():
    timed = dataclasses.replace(perfect(), timing={"empty_board_cpu_seconds": 2.34567})
    board = gradescope_results(timed, leaderboard=True)["leaderboard"]
    assert board == [{"name": "empty board, CPU s", "value": 2.3457, "order": "asc"}]
    assert "leaderboard" not in gradescope_results(timed)          # an option, off by default
    assert "leaderboard" not in gradescope_results(perfect(), leaderboard=True)  # not timed
    check_gradescope(gradescope_results(timed, leaderboard=True))


def test_gradescope_extra_data_has_times_counts_and_items():
    data = gradescope_results(failing())
    extra = data["extra_data"]
    assert extra["student_cpu_seconds"] == 1.25
    assert extra["wall_seconds"] == 4.5
    assert data["execution_time"] == 4.5
    assert (extra["calls"], extra["timeouts"], extra["restarts"]) == (812, 1, 1)
    assert extra["isolation"] == ["subprocess", "rlimit"]
    assert (extra["student_id"], extra["load_kind"]) == ("bob", None) and "seed" not in extra
    scores = extra["items"][0]
    assert (scores["name"], scores["passed"], scores["total"]) == ("scores", 35, 40)
    assert scores["categories"] == {"wrong score": 4, "illegal move": 1}


def test_gradescope_load_failure_scores_zero_on_every_item():
    data = gradescope_results(not_loaded())
    assert data["score"] == 0
    assert len(data["tests"]) == len(RUBRIC)
    for test in data["tests"]:
        assert test["score"] == 0 and test["status"] == "failed"
        assert "Python 2" in test["output"]
    assert "could not be run" in data["output"]
    assert data["extra_data"]["load_kind"] == "python2"
    # ItemResult calls an item that checked nothing "passed"; the report does not.
    assert all(item["status"] == "failed" for item in data["extra_data"]["items"])


def test_gradescope_grader_error_is_in_the_output():
    data = gradescope_results(grader_failed())
    assert "GRADER ERROR" in data["output"]
    assert data["extra_data"]["grader_error"] == "RuntimeError: the solver disagreed with itself"
    time = data["tests"][1]
    assert time["status"] == "failed" and "KeyError: 'limit'" in time["output"]

# ---------------------------------------------------------------- files


def test_write_json_atomic_creates_folders_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "autograder" / "results" / "results.json"
    data = gradescope_results(failing())
    write_json_atomic(path, data)
    assert json.loads(path.read_text(encoding="utf-8")) == data
    write_json_atomic(path, {"score": 1.0})   # replaces the old file
    assert json.loads(path.read_text(encoding="utf-8")) == {"score": 1.0}
    assert [p.name for p in path.parent.iterdir()] == ["results.json"]


def test_write_json_atomic_refuses_nan_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "results.json"
    write_json_atomic(path, {"score": 1.0})
    with pytest.raises(ValueError):
        write_json_atomic(path, {"score": float("nan")})
    assert json.loads(path.read_text(encoding="utf-8")) == {"score": 1.0}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]

# ---------------------------------------------------------------- CSV


def test_csv_header_and_rows():
    assert csv_header(["scores", "moves"]) == CSV_FIXED + ["scores", "moves", "status",
                                                          "cpu_seconds", "wall_seconds"]
    row = csv_row(failing())
    assert row["student_id"] == "bob"
    assert (row["score"], row["max_score"]) == (56.0, 60.0)
    assert (row["scores"], row["game play"], row["moves"]) == (17.5, 13.5, 20.0)
    assert row["status"] == "graded"
    assert (row["cpu_seconds"], row["wall_seconds"]) == (1.25, 4.5)
    assert csv_row(grader_failed())["status"] == "grader error"


def test_csv_row_of_a_submission_that_did_not_load():
    row = csv_row(not_loaded())
    assert row["status"] == "not run: python2"
    assert row["score"] == 0 and row["max_score"] == 100.0
    assert all(row[name] == 0 for name, _ in RUBRIC)


def test_csv_refuses_an_item_named_like_a_fixed_column():
    with pytest.raises(ValueError):
        csv_header(["score"])


def test_write_csv_uses_the_union_of_item_columns_in_first_seen_order(tmp_path):
    path = tmp_path / "batch" / "grades.csv"
    write_csv(path, iter([failing(), grader_failed(), not_loaded()]))
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames
        rows = list(reader)
    item_columns = header[len(CSV_FIXED):-3]
    assert item_columns[:5] == ["scores", "moves", "board untouched", "game play", "time"]
    assert sorted(item_columns) == sorted(name for name, _ in RUBRIC)
    assert [row["student_id"] for row in rows] == ["bob", "dan", "cat"]
    assert rows[0]["time"] == ""              # bob's run had no time item
    assert rows[1]["status"] == "grader error"
    assert rows[2]["status"] == "not run: python2" and float(rows[2]["score"]) == 0
    assert float(rows[0]["scores"]) == 17.5
    assert [p.name for p in path.parent.iterdir()] == ["grades.csv"]


def test_csv_is_safe_in_a_spreadsheet_and_readable_by_excel(tmp_path):
    path = tmp_path / "row.csv"
    evil = GradeResult("subs/x.py", "=HYPERLINK(\"http://x\")", items=(ItemResult("scores", 15.0, 3, 4),))
    write_csv(path, [evil])
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")            # UTF-8 with a BOM: Excel reads accents
    text = raw.decode("utf-8-sig")
    row = next(csv.DictReader(text.splitlines()[1:], fieldnames=text.splitlines()[0].split(",")))
    assert row["student_id"] == "'=HYPERLINK(\"http://x\")"          # text, not a formula
    assert ",11.25," in text                        # numbers stay numbers


# ---------------------------------------------------------------- the student's name


def test_the_header_names_the_student_by_name_and_id():
    text = text_report(failing(), student_name="Ada  Lovelace")
    assert text.splitlines()[1] == "Student: Ada Lovelace (bob)"
    assert "Student: bob\n" in text_report(failing())
    assert student_label("ada42", "ada42") == "ada42"      # a name that is the id: once


def test_a_name_changes_the_header_and_the_name_field_only():
    for make in ALL_RESULTS:
        result = make()
        for visibility in ("full", "categories"):
            named = text_report(result, visibility, student_name="Ada Lovelace")
            plain = text_report(result, visibility)
            assert named.replace("Ada Lovelace (", "").replace(
                f"Student: {result.student_id})", f"Student: {result.student_id}") == plain
            with_name = gradescope_results(result, visibility, student_name="Ada Lovelace")
            without = gradescope_results(result, visibility)
            assert with_name["extra_data"].pop("student_name") == "Ada Lovelace"
            assert "student_name" not in without["extra_data"]
            assert with_name["output"].replace("Ada Lovelace (", "").replace(
                f"{result.student_id})", result.student_id, 1) == without["output"]
            del with_name["output"], without["output"]
            assert with_name == without


def test_grade_student_name_reaches_the_report_and_results_json_only(tmp_path, monkeypatch,
                                                                     capsys):
    from grader import cli
    from grader.suite import engine

    seen = []

    def fake_grade(path, options):   # the engine sees no name: it cannot change a score
        seen.append(options)
        return dataclasses.replace(failing(), student_id=options.student_id)

    monkeypatch.setattr(engine, "grade", fake_grade)
    from grader.suite import command as grade_command
    monkeypatch.setattr(grade_command.signal, "signal", lambda *args: None)   # pytest's SIGTERM
    submission = tmp_path / "mm_player.py"
    submission.write_text("def mm_move(board, player):\n    return 0, (-1, -1)\n")
    outputs = {}
    for tag, extra in (("named", ["--student-name", "Ada Lovelace"]), ("plain", [])):
        out = tmp_path / f"{tag}.json"
        assert cli.main(["grade", str(submission), "--student-id", "ada42", "--json",
                         str(out), *extra]) == 0
        outputs[tag] = (capsys.readouterr().out, json.loads(out.read_text()))
    assert seen[0] == seen[1]
    (named_text, named), (plain_text, plain) = outputs["named"], outputs["plain"]
    assert "Student: Ada Lovelace (ada42)" in named_text
    assert named_text.replace("Ada Lovelace (ada42)", "ada42") == plain_text
    assert named["extra_data"].pop("student_name") == "Ada Lovelace"
    assert named.pop("output").replace("Ada Lovelace (ada42)", "ada42") == plain.pop("output")
    assert named == plain


# ---------------------------------------------------------------- calls that wait


def stuck_on_tiers(waited: tuple[str, ...]) -> GradeResult:
    result = timed()
    stuck = Failure("stuck", CALL, "an answer", "no answer: it did not return", board=BOARD)
    items = (dataclasses.replace(result.items[0], failures=(stuck.unjudged(),)),
             dataclasses.replace(result.items[1], failures=(stuck, stuck)))
    tiers = ("finished 3x3 boards (normal game)", "finished 3x3 boards (reverse game)")
    return dataclasses.replace(result, items=items, too_slow=tiers,
                               timing={**result.timing, "waited_tiers": list(waited)})


def test_calls_that_waited_are_said_to_have_waited_not_to_loop():
    result = stuck_on_tiers(("finished 3x3 boards (normal game)",
                             "finished 3x3 boards (reverse game)"))
    lines = text_report(result).splitlines()
    lead = lines[4]
    assert lead.startswith("mm_move's calls waited without computing")
    flat = " ".join(text_report(result).split())
    assert "judged by the time policy like any call" in flat
    assert "endless loop" not in flat
    assert "judged by the time policy" in " ".join(summary_text(result, "full").split())


def test_an_endless_loop_keeps_its_words_and_a_mix_says_which_waited():
    looping = " ".join(text_report(stuck_on_tiers(())).split())
    assert "mm_move did not return (an endless loop?) on: finished 3x3 boards" in looping
    assert "waited" not in looping
    mixed = " ".join(text_report(stuck_on_tiers(("finished 3x3 boards (reverse game)",)))
                     .split())
    assert "mm_move did not return (an endless loop?) on:" in mixed
    assert "On 1 of them its calls waited without computing" in mixed
