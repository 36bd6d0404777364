"""The grader end to end, as an instructor runs it: ``python -m grader grade FILE --json``.

Every fixture submission under tests/submissions/grader is graded once (two at a
time, in subprocesses, each on a CPU of its own as a batch does), then each test reads
its results.json: correct solutions get full marks, each classic bug loses the rubric
items it should. The tests compare what the grader promises (scores, verdicts, what the
report says), never how long it took: they pass on a busy machine too.
"""

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.sandbox.cpu import CPU_VARIABLE

HERE = Path(__file__).resolve().parents[1]   # tests/
SUBMISSIONS = HERE / "submissions" / "grader"
# The slowest to grade first, so that two at a time end together.
SLOWEST = ["bug_reverse_wrong", "too_slow", "bug_infinite_loop", "bug_crash"]
FIXTURES = sorted((p.stem for p in SUBMISSIONS.glob("*.py")),
                  key=lambda name: (name not in SLOWEST, SLOWEST.index(name)
                                    if name in SLOWEST else 0, name))
JOBS = 2
ITEMS = ["finished boards", "scores", "moves", "other sizes", "reverse games",
         "board untouched", "game play", "time"]
# For the tests that are the first to use `graded` (its grades count in their timeout).
uses_graded = pytest.mark.grades(len(FIXTURES), jobs=JOBS)


def run_grader(*args: str, timeout: float = 600,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """name -> (exit status, stdout, results.json) for every fixture submission."""
    out = tmp_path_factory.mktemp("graded")

    def grade(name):
        path = out / f"{name}.json"
        # Each of the two threads grades on a CPU of its own, as `batch --jobs 2` does:
        # two grades never share one CPU while the other is idle.
        slot = threading.current_thread().name.rpartition("_")[2]
        done = run_grader("grade", str(SUBMISSIONS / f"{name}.py"), "--json", str(path),
                          env={**os.environ, CPU_VARIABLE: slot})
        return name, (done.returncode, done.stdout + done.stderr,
                      json.loads(path.read_text()) if path.exists() else None)

    with ThreadPoolExecutor(max_workers=JOBS, thread_name_prefix="grade") as pool:
        return dict(pool.map(grade, FIXTURES))


def item_scores(results):
    return {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]}


def lost(results):
    return {name for name, (score, top) in item_scores(results).items() if score < top}


@pytest.mark.long
@uses_graded
@pytest.mark.parametrize("name", ["correct_plain", "correct_pruned", "correct_random_best",
                                  "correct_memoised"])
def test_correct_solutions_get_full_marks(graded, name):
    status, output, results = graded[name]
    assert status == 0, output
    assert results["score"] == 100, output
    assert list(item_scores(results)) == ITEMS
    assert results["extra_data"]["timeouts"] == 0


@uses_graded
@pytest.mark.parametrize("name, must_lose, must_keep", [
    ("bug_sign_error_o", {"scores", "moves", "game play"}, {"board untouched"}),
    ("bug_no_base_case", {"finished boards"}, {"board untouched"}),
    ("bug_draws_as_losses", {"scores", "finished boards"}, {"board untouched"}),
    ("bug_opponent_move", {"moves", "game play"}, {"scores", "finished boards"}),
    ("bug_mutates_board", {"board untouched"}, {"scores", "moves", "finished boards"}),
    ("bug_no_clone", {"board untouched", "scores", "moves"}, {"finished boards", "time"}),
    ("bug_reverse_wrong", {"reverse games", "finished boards"}, {"scores", "moves", "other sizes"}),
    ("bug_only_3x3", {"other sizes"}, {"scores", "moves", "game play"}),
    ("bug_no_move_when_losing", {"other sizes", "reverse games"}, {"scores", "finished boards"}),
    ("bug_crash", {"scores", "moves", "game play"}, set()),
    ("bug_infinite_loop", {"scores", "time"}, set()),
    ("too_slow", {"time"}, {"finished boards"}),
])
@pytest.mark.long
def test_each_classic_bug_loses_the_right_items(graded, name, must_lose, must_keep):
    status, output, results = graded[name]
    assert status == 0, output
    assert must_lose <= lost(results), (lost(results), output)
    assert not (must_keep & lost(results)), (lost(results), output)
    assert 0 <= results["score"] < 100


@pytest.mark.long
@uses_graded
def test_a_changed_board_is_named_first_as_the_likely_cause(graded):
    _, output, _ = graded["bug_no_clone"]
    summary, _, details = output.partition("\n[")
    assert "The likely cause of the other failures: mm_move changes the board" in summary
    assert "board.clone()" in summary
    # Every board printed is labelled, before and after the call.
    assert "board before the call:" in details and "board after the call:" in details
    assert len(output.splitlines()) < 200   # grouped by cause, not a page per failure


@pytest.mark.long
@uses_graded
def test_feedback_shows_a_pasteable_call_expected_received_and_why(graded):
    _, output, _ = graded["bug_sign_error_o"]
    assert "mm_move(TTTBoard(3, False, [[" in output
    assert "expected score" in output and "but received" in output
    assert "why:" in output and "after O (" in output


@pytest.mark.long
@uses_graded
def test_a_lost_game_is_shown_as_its_moves(graded):
    _, output, results = graded["bug_opponent_move"]
    assert "game:" in output and "moves: 1. X (" in output
    # The turning point as a call to paste, the best moves there, and the refutation.
    assert "move_wrapper(TTTBoard(3, False, [[" in output
    assert "expected one of the moves" in output or "expected the move" in output
    assert "it was lost here: after " in output and "but best play gives" in output
    failures = [f for item in results["extra_data"]["items"] if item["name"] == "game play"
                for f in item["failures"]]
    assert failures and all(f["call"].startswith("move_wrapper(TTTBoard(") for f in failures)


@pytest.mark.long
@uses_graded
def test_a_timeout_names_the_position_the_limit_and_the_policy(graded):
    _, output, results = graded["too_slow"]
    assert results["extra_data"]["timeouts"] >= 1
    assert "used more than its limit of" in output and "s of CPU time" in output
    assert "over the limit in most of its" in output          # decided by a majority
    assert "It was the hardest of the 3x3 positions with 6 empty squares" in output
    # The policy is said once (prose is wrapped), and each timeout points to it.
    assert "a call may take 5 times the CPU time that a plain minimax" in " ".join(output.split())
    assert 'The limit: see "time limits"' in output
    # The larger positions were not asked, each says why, with its own call to paste.
    assert ("expected an answer in time but received not run" in output
            or "received not asked" in output)
    assert "\nmm_move(TTTBoard(3, False, [[" in output
    assert results["extra_data"]["too_slow"][:1] == [
        "3x3 positions with 6 empty squares (normal game)"]


@pytest.mark.long
@uses_graded
def test_a_crash_costs_the_call_not_the_run(graded):
    _, output, results = graded["bug_crash"]
    assert "I only know how to open a game" in output
    # The empty board is the one position it answers: some checks pass.
    assert results["score"] > 0


@pytest.mark.long
@uses_graded
def test_python2_is_rejected_with_the_line_and_the_fix(graded):
    status, output, results = graded["python2"]
    assert status == 0
    assert results["score"] == 0
    assert results["extra_data"]["load_kind"] == "python2"
    assert 'print("thinking about", player)' in output


@pytest.mark.long
@uses_graded
def test_results_json_has_gradescopes_shape_and_our_details(graded):
    _, _, results = graded["correct_pruned"]
    assert {"score", "execution_time", "output", "tests", "extra_data"} <= set(results)
    for test in results["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
    extra = results["extra_data"]
    assert extra["student_cpu_seconds"] > 0 and extra["wall_seconds"] > 0
    assert extra["isolation"] and "seed" not in extra
    timing = extra["timing"]
    assert timing["factor"] == 5 and timing["reference_empty_board_seconds"] > 0
    assert 0 < timing["budget_spent"] < timing["budget"] and not timing["budget_exhausted"]


@pytest.mark.parametrize("make, words", [
    (lambda tmp: tmp / "missing.py", "there is no file"),
    (lambda tmp: tmp, "is a folder"),
])
def test_a_typo_in_the_path_is_a_usage_error_not_a_grade(tmp_path, make, words):
    done = run_grader("grade", str(make(tmp_path)), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 2
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == "" and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("make, words", [
    (lambda tmp: _write(tmp / "empty.py", b""), "empty"),
    (lambda tmp: _write(tmp / "binary.py", b"\x00\x01\x02"), "binary"),
    (lambda tmp: _write(tmp / "latin.py", "x = 'caf\xe9'\n".encode("latin-1")), "UTF-8"),
    (lambda tmp: _write(tmp / "syntax.py", b"def mm_move(board, player)\n    pass\n"), "line 1"),
])
def test_unrunnable_files_get_a_zero_and_a_reason_not_a_traceback(tmp_path, make, words):
    path = make(tmp_path)
    done = run_grader("grade", str(path), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert words in done.stdout
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["score"] == 0 and len(results["tests"]) == len(ITEMS)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_call_with_no_answer_is_not_judged_it_is_no_answer(tmp_path):
    """The template raises at once: nothing changed the board, nothing was slow."""
    path = tmp_path / "r.json"
    done = run_grader("grade", str(HERE.parent / "student" / "mm_player.py"), "--json",
                      str(path))
    assert done.returncode == 0, done.stderr
    results = json.loads(path.read_text())
    assert results["score"] == 0
    for item in results["extra_data"]["items"]:
        assert item["state"] == "no answer", item["name"]
        assert item["passed"] == 0 and item["no_answer"] == item["total"] > 0
        assert set(item["categories"]) == {"exception"}
    for test in results["tests"]:
        assert test["extra_data"]["failed"] == 0
    assert "No call gave an answer" in done.stdout
    assert "[-5.0 pts] board untouched: no answer on" in done.stdout
    assert "[-10.0 pts] time: no answer on" in done.stdout
    assert "board changed" not in done.stdout and "timeout)" not in done.stdout


def test_no_arguments_prints_help_and_grades_the_template():
    done = run_grader()
    assert done.returncode == 0, done.stderr
    assert "usage: python -m grader" in done.stdout
    assert "not written yet" in done.stdout
    assert "Score: 0" in done.stdout
    assert len(done.stdout.splitlines()) <= 100      # a screen or two, not one per check
    assert "landlock" not in done.stdout.lower()     # the sandbox's details are not the student's


def test_usage_errors_exit_2():
    assert run_grader("grade").returncode == 2
    assert run_grader("frobnicate").returncode == 2
    done = run_grader("grade", str(SUBMISSIONS / "correct_pruned.py"), "--config", "/nonexistent")
    assert done.returncode == 2 and "configuration" in done.stderr


@pytest.mark.long
@pytest.mark.grades(3)
def test_every_student_is_asked_the_same_positions_and_gets_the_same_score(tmp_path):
    def graded_as(student_id):
        path = tmp_path / f"{student_id}.json"
        # A fast bug with hundreds of failures, each with its call (1 s a grade).
        run_grader("grade", str(SUBMISSIONS / "bug_no_clone.py"), "--student-id", student_id,
                   "--json", str(path))
        results = json.loads(path.read_text())
        items = results["extra_data"]["items"]
        return results["score"], [f["call"] for item in items for f in item["failures"]]

    alice = graded_as("alice")
    assert alice[1] and alice == graded_as("1002") == graded_as("bob")


@pytest.mark.long
def test_a_plain_minimax_never_times_out_even_with_the_other_core_busy(tmp_path):
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        path = tmp_path / "r.json"
        done = run_grader("grade", str(SUBMISSIONS / "correct_plain.py"), "--json", str(path))
    finally:
        burner.kill()
        burner.wait()
    results = json.loads(path.read_text())
    assert done.returncode == 0
    assert results["extra_data"]["timeouts"] == 0 and results["score"] == 100


@pytest.mark.long
def test_exhaustive_mode_checks_every_reachable_3x3_position(tmp_path):
    path = tmp_path / "r.json"
    done = run_grader("grade", str(SUBMISSIONS / "correct_memoised.py"), "--exhaustive",
                      "--json", str(path))
    assert done.returncode == 0, done.stderr
    items = {i["name"]: i for i in json.loads(path.read_text())["extra_data"]["items"]}
    assert items["scores"]["total"] >= 5478 - 958   # and the off-turn ones
    assert items["finished boards"]["total"] >= 2 * 958
    assert json.loads(path.read_text())["score"] == 100


@pytest.mark.long
def test_before_the_deadline_failures_show_only_their_category(tmp_path):
    done = run_grader("grade", str(SUBMISSIONS / "bug_sign_error_o.py"), "--visibility",
                      "categories", "--json", str(tmp_path / "r.json"), "--csv",
                      str(tmp_path / "row.csv"))
    assert done.returncode == 0
    assert "wrong score" in done.stdout
    assert "mm_move(TTTBoard(" not in done.stdout and "why:" not in done.stdout
    results = json.loads((tmp_path / "r.json").read_text())
    now = [t for t in results["tests"] if t["visibility"] == "visible"]
    later = [t for t in results["tests"] if t["visibility"] == "after_due_date"]
    assert "mm_move(TTTBoard(" not in json.dumps([now, results["extra_data"], results["output"]])
    # After the deadline Gradescope shows the companion tests: the calls, in full, one
    # for each item that failed.
    assert [t["name"] for t in later] == [f"{t['name']}: the failures in full"
                                          for t in now if t["status"] == "failed"]
    scores = next(t for t in later if t["name"] == "scores: the failures in full")
    assert "mm_move(TTTBoard(" in scores["output"] and "why:" in scores["output"]
    header, row = (tmp_path / "row.csv").read_text(encoding="utf-8-sig").splitlines()
    assert header.startswith("student_id,score") and "scores" in header
    assert row.startswith("bug_sign_error_o,")
