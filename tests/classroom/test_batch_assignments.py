"""A class of both assignments through ``python -m grader batch``: each file graded as the
assignment whose functions it defines, each gradebook (plain, Canvas, Moodle) with a column
or a file per assignment holding only that assignment's scores, one true sentence of what
was graded as what, a second run that grades nothing, a student's two hand-ins both kept,
a Monte Carlo hand-in graded with the helper module it imports from beside it,
``--assignment NAME`` refusing
another assignment's file, and an earlier release's output folder read.

Grading is the cost: four quick files (two per assignment) are graded once, by one batch in
a module-scoped fixture, and the tests read what it wrote; every other run here grades
nothing, or one file that defines no function.
"""

from __future__ import annotations

import csv
import html
import json
import shutil
from pathlib import Path

import pytest

from test_batch import CONSTANT, RUBRIC, copy, read_gradebook, run_batch_cli

from grader.classroom import find_submissions
from grader.classroom.gradebook import cell
from grader.classroom.discover import submission_in_folder

HERE = Path(__file__).resolve().parents[1]           # tests/
MC = HERE.parent / "grader" / "assignments" / "montecarlo" / "submissions"
PRUNED = HERE / "submissions" / "grader" / "correct_pruned.py"     # the minimax: 100
CLONE = MC / "correct_clone.py"                                    # the Monte Carlo: 100
SPLIT = HERE / "submissions" / "helpers"            # CLONE in two files: mc_player.py, mc_trials.py
MIN_NOT_MAX = MC / "bug_min_not_max.py"                           # the Monte Carlo: 70-odd
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MC_ITEMS = ["mc_trial", "mc_update_scores", "get_best_move", "mc_move", "game play"]
ROSTER = ("id,name,email\nalice,Alice A,alice@x.org\nbob,Bob B,bob@x.org\n"
          "erin,Erin E,erin@x.org\nfrank,Frank F,frank@x.org\ngina,Gina G,gina@x.org\n")
SENTENCE = ("grading each file as the assignment whose functions it defines: minimax 2 files, "
            "montecarlo 2 files; 1 file defines none of their functions and is not graded")


def make_class(root: Path) -> Path:
    """alice: a minimax file; bob: a Monte Carlo file that imports a module of his beside
    it, and another file it does not import; erin: one of each; frank: a file of neither;
    gina (on the roster): nothing."""
    copy(PRUNED, root / "alice.py")
    for name in ("mc_player.py", "mc_trials.py"):
        copy(SPLIT / name, root / "bob" / name)
    (root / "bob" / "helpers.py").write_text("def count_empty(board):\n    return 0\n")
    copy(CONSTANT, root / "erin" / "mm_player.py")
    copy(MIN_NOT_MAX, root / "erin" / "mc_player.py")
    (root / "frank.py").write_text("x = 1\n")
    return root


def erins(out: Path) -> tuple[str, str]:
    """Erin's two scores as the gradebooks write them (her minimax is wrong but fast, her
    Monte Carlo loses get_best_move's points): what her two results say."""
    return tuple(cell(json.loads((out / "results" / assignment / "erin.json").read_text())
                      ["score"]) for assignment in ("minimax", "montecarlo"))


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        return list(reader.fieldnames or []), list(reader)


def batch_args(root: Path) -> list[str]:
    return ["--roster", str(root / "roster.csv"), "--gradebook-format", "canvas",
            "--gradebook-format", "moodle", "--assignment-name", "montecarlo=Monte Carlo (77)"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path, str]:
    """The class graded once: (its folder, the output folder, what the batch said)."""
    root = tmp_path_factory.mktemp("mixed")
    source = make_class(root / "class")
    (root / "roster.csv").write_text(ROSTER)
    done = run_batch_cli(source, root / "out", *batch_args(root))
    assert done.returncode == 0, done.stderr
    return source, root / "out", done.stderr


@pytest.mark.long
@pytest.mark.grades(4, jobs=2)
def test_it_says_in_one_sentence_what_it_graded_as_what(graded):
    _, out, said = graded
    assert f"python -m grader batch: {SENTENCE}" in said
    assert "grading every file as the minimax assignment" not in said
    page = html.unescape((out / "summary.html").read_text())
    assert "What was graded as what: " + SENTENCE in page


@pytest.mark.grades(4, jobs=2)
def test_each_file_is_graded_as_its_own_assignment_and_kept_by_student_and_assignment(graded):
    _, out, _ = graded
    kept = {path.relative_to(out / "results").as_posix(): json.loads(path.read_text())
            for path in (out / "results").rglob("*.json")}
    assert sorted(kept) == ["minimax/alice.json", "minimax/erin.json",
                            "montecarlo/bob.json", "montecarlo/erin.json"]
    for name, data in kept.items():
        assert data["extra_data"]["assignment"] == name.split("/")[0], name
    expected = json.loads((MC / "expected.json").read_text())[MIN_NOT_MAX.name]["score"]
    assert [kept[name]["score"] for name in ("minimax/alice.json", "montecarlo/bob.json",
                                             "montecarlo/erin.json")] == [100, 100, expected]
    assert 0 < kept["minimax/erin.json"]["score"] < 100
    assert sorted(path.relative_to(out / "reports").as_posix()
                  for path in (out / "reports").rglob("*.txt")) == [
        "minimax/alice.txt", "minimax/erin.txt", "montecarlo/bob.txt", "montecarlo/erin.txt"]


@pytest.mark.grades(4, jobs=2)
def test_a_monte_carlo_hand_in_is_chosen_by_its_functions_beside_its_helper(graded):
    _, out, _ = graded
    _, rows = read_csv(out / "gradebook-montecarlo.csv")
    bob = {row["student_id"]: row for row in rows}["bob"]
    assert (bob["score"], bob["status"], bob["source"]) == ("100", "graded", "bob/mc_player.py")


@pytest.mark.grades(4, jobs=2)
def test_a_hand_in_is_graded_with_the_modules_it_imports_from_its_folder(graded):
    """Bob's mc_player.py imports mc_trials.py beside it: graded with it, it scores what the
    same player in one file scores (it scored 0: ModuleNotFoundError), and his results and
    report name the helper; the file he does not import is not graded with it."""
    _, out, _ = graded
    bob = json.loads((out / "results" / "montecarlo" / "bob.json").read_text())
    single = json.loads((MC / "expected.json").read_text())[CLONE.name]["score"]
    assert bob["score"] == single == 100
    assert (bob["extra_data"]["helpers"], bob["extra_data"]["helper_notes"]) == (
        ["mc_trials.py"], [])
    report = (out / "reports" / "montecarlo" / "bob.txt").read_text()
    assert "Graded with: mc_trials.py (its helper modules)" in report.splitlines()[1]
    erin = json.loads((out / "results" / "montecarlo" / "erin.json").read_text())
    assert erin["extra_data"]["helpers"] == []    # her mm_player.py beside it is not imported
    # A file of the class's own folder (alice.py) is graded alone: its neighbours are
    # other students' files; a file of a student's folder, with the modules it imports.
    source = graded[0]
    found = {s.student_id: s.own_folder for s in find_submissions(source, source / ".w")[0]}
    assert (found["alice"], found["bob"]) == (False, True)


@pytest.mark.grades(4, jobs=2)
def test_the_lms_gradebooks_have_a_column_per_assignment_holding_only_its_scores(graded):
    _, out, said = graded
    header, lines = read_csv(out / "gradebook-canvas.csv")
    assert header == CANVAS_COLUMNS + ["Minimax", "Monte Carlo (77)"]
    canvas = {line["SIS User ID"]: (line["Minimax"], line["Monte Carlo (77)"]) for line in lines}
    assert canvas == {"alice": ("100", ""), "bob": ("", "100"), "erin": erins(out)}
    header, lines = read_csv(out / "gradebook-moodle.csv")
    assert header[-2:] == ["Minimax", "Monte Carlo (77)"]
    moodle = {line["Email address"]: (line["Minimax"], line["Monte Carlo (77)"])
              for line in lines}
    assert moodle == {"alice@x.org": ("100", ""), "bob@x.org": ("", "100"),
                      "erin@x.org": erins(out)}
    assert "is in 2 submissions" not in said          # erin's two are one of each


@pytest.mark.grades(4, jobs=2)
def test_the_plain_gradebook_has_each_assignments_columns_and_each_its_own_file(graded):
    _, out, said = graded
    header, lines = read_csv(out / "gradebook.csv")
    assert header == ["student_id", "name", "sid", "email", "roster",
                      "minimax score", "minimax max_score", "minimax status",
                      "montecarlo score", "montecarlo max_score", "montecarlo status",
                      "not graded"]
    book = {line["student_id"]: line for line in lines}
    assert sorted(book) == ["alice", "bob", "erin", "frank", "gina"]
    assert [(book[sid]["minimax score"], book[sid]["montecarlo score"])
            for sid in ("alice", "bob", "erin")] == [("100", ""), ("", "100"), erins(out)]
    assert book["bob"]["minimax status"] == "not graded: no submission"
    assert book["frank"]["not graded"].startswith(
        "not graded: no assignment's functions: it defines the functions of none of this "
        "class's assignments (minimax: mm_move; montecarlo: mc_trial,")
    assert book["frank"]["minimax status"] == book["frank"]["montecarlo status"] == ""
    assert book["gina"]["minimax status"] == book["gina"]["montecarlo status"] == \
        "not graded: no submission"

    header, lines = read_csv(out / "gradebook-minimax.csv")
    assert header[:3 + len(RUBRIC)] == ["student_id", "score", "max_score", *RUBRIC]
    assert {line["student_id"]: line["score"] for line in lines} == {
        "alice": "100", "erin": erins(out)[0], "bob": "", "gina": ""}
    header, lines = read_csv(out / "gradebook-montecarlo.csv")
    assert header[3:3 + len(MC_ITEMS)] == MC_ITEMS and "scores" not in header
    assert {line["student_id"]: line["score"] for line in lines} == {
        "bob": "100", "erin": erins(out)[1], "alice": "", "gina": ""}
    assert ("2 on the roster handed in nothing for the minimax assignment (no score): bob, "
            "gina") in said
    assert "gradebook of one assignment:" in said and "gradebook-montecarlo.csv" in said


@pytest.mark.grades(4, jobs=2)
def test_the_summary_has_a_part_per_assignment_and_no_false_warning(graded):
    _, out, _ = graded
    page = (out / "summary.html").read_text()
    assert "The minimax assignment" in page and "The montecarlo assignment" in page
    assert "graded under 2 configurations" not in page      # one each: comparable within
    assert "Every submission (minimax)" in page and "Every submission (montecarlo)" in page
    assert "for no assignment that can be told" in page


@pytest.mark.grades(4, jobs=2)
def test_a_second_run_grades_nothing_and_regrade_changed_settles(graded):
    source, out, _ = graded
    before = {path: path.stat().st_mtime_ns for path in (out / "results").rglob("*.json")}
    root = out.parent
    for extra in ([], ["--regrade-changed"]):
        again = run_batch_cli(source, out, *batch_args(root), *extra)
        assert again.returncode == 0, again.stderr
        assert "0 graded now, 4 already done" in again.stderr
        assert "graded under another configuration" not in again.stderr
    assert {path: path.stat().st_mtime_ns for path in before} == before


@pytest.mark.grades(5, jobs=2)
def test_with_assignment_a_file_of_another_is_refused_not_graded_0(graded, tmp_path):
    """--assignment minimax grades every file as the minimax: bob's Monte Carlo file is
    refused and said so; erin's minimax file is taken from her two; frank's is graded 0."""
    source, out, _ = graded
    copied = tmp_path / "out"
    shutil.copytree(out, copied)
    done = run_batch_cli(source, copied, "--assignment", "minimax")
    assert done.returncode == 0, done.stderr
    assert ("grading 3 files as the minimax assignment (--assignment minimax); 1 file defines "
            "another assignment's functions and is not graded") in done.stderr
    assert "1 graded now, 2 already done" in done.stderr      # frank's, the only one graded
    columns, rows = read_gradebook(copied)
    assert columns[:3] == ["student_id", "score", "max_score"]   # a class of one assignment
    assert rows["bob"]["score"] == ""
    assert rows["bob"]["status"] == (
        "not graded: for another assignment: it defines the montecarlo assignment's "
        "functions (mc_trial, mc_update_scores, get_best_move, mc_move), not the minimax "
        "assignment's (mm_move); grade it with --assignment montecarlo, or without "
        "--assignment")
    assert (rows["erin"]["score"], rows["erin"]["source"]) == (erins(out)[0], "erin/mm_player.py")
    assert (rows["frank"]["score"], rows["frank"]["status"]) == ("0", "not run: no_function")
    page = html.unescape((copied / "summary.html").read_text())
    assert ("<b>1</b>submission not graded: for another assignment (it defines another "
            "assignment's functions: its student meant that one") in page


@pytest.mark.grades(4, jobs=2)
def test_an_earlier_releases_folder_is_read_and_moved_by_each_results_assignment(
        graded, tmp_path):
    """results/ID.json and reports/ID.txt, as a batch of the previous release wrote them
    (its Monte Carlo class's too): done, moved to results/ASSIGNMENT/, never graded again."""
    source, out, _ = graded
    earlier = tmp_path / "out"
    for sid, assignment in (("alice", "minimax"), ("bob", "montecarlo")):
        copy(out / "results" / assignment / f"{sid}.json", earlier / "results" / f"{sid}.json")
        copy(out / "reports" / assignment / f"{sid}.txt", earlier / "reports" / f"{sid}.txt")
    two = tmp_path / "class"
    copy(source / "alice.py", two / "alice.py")
    shutil.copytree(source / "bob", two / "bob")
    done = run_batch_cli(two, earlier)
    assert done.returncode == 0, done.stderr
    assert "0 graded now, 2 already done" in done.stderr
    assert "2 results of an earlier batch moved" in done.stderr
    assert sorted(path.relative_to(earlier).as_posix() for path in earlier.rglob("*")
                  if path.is_file() and path.parts[-2] in ("results", "reports", "minimax",
                                                           "montecarlo")) == [
        "reports/minimax/alice.txt", "reports/montecarlo/bob.txt",
        "results/minimax/alice.json", "results/montecarlo/bob.json"]
    _, rows = read_csv(earlier / "gradebook.csv")
    assert {row["student_id"]: row["minimax score"] or row["montecarlo score"]
            for row in rows} == {"alice": "100", "bob": "100"}


# ---------------------------------------------------------------- choosing the file (no grading)


def test_a_students_file_is_the_one_that_defines_an_assignments_functions(tmp_path):
    root = tmp_path / "class"
    copy(CLONE, root / "ann" / "src" / "player.py")                 # any name, a subfolder
    (root / "ann" / "test_player.py").write_text("import player\n")
    copy(CLONE, root / "cy_1_2_mc_player-1.py")                     # Canvas, resubmitted
    copy(CLONE, root / "cy_1_3_helpers.py")                         # ...with a helper
    copy(CLONE, root / "dee" / "a.py")                              # two of one assignment
    copy(CLONE, root / "dee" / "b.py")
    (root / "eve").mkdir()
    (root / "eve" / "mc_player.py").write_text("def mc_trial(board, player):\n    return (\n")
    (root / "eve" / "notes.py").write_text("TODO = 1\n")
    (root / "fay").mkdir()
    (root / "fay" / "mc_player.py").write_text("")                  # empty: its name says
    (root / "fay" / "notes.py").write_text("")
    found, _ = find_submissions(root, tmp_path / "work")
    by_id = {s.student_id: s for s in found}
    assert (by_id["ann"].source, by_id["ann"].assignment) == ("ann/src/player.py", "montecarlo")
    assert not by_id["ann"].told                           # `grade` recognises it itself
    assert by_id["1"].source == "cy_1_2_mc_player-1.py" and by_id["1"].problem is None
    assert by_id["dee"].problem == ("several .py files define the montecarlo assignment's "
                                    "functions and not exactly one named mc_player.py: "
                                    "dee/a.py, dee/b.py")
    assert (by_id["eve"].source, by_id["eve"].assignment) == \
        ("eve/mc_player.py", "montecarlo")                    # does not compile: its def lines
    assert (by_id["fay"].source, by_id["fay"].assignment) == ("fay/mc_player.py", "montecarlo")
    # Under --assignment minimax, a student's Monte Carlo file is for another assignment.
    found, _ = find_submissions(root, tmp_path / "work", "minimax")
    assert {s.student_id: s.problem[:22] for s in found if s.problem} == {
        "ann": "for another assignment", "1": "for another assignment",
        "dee": "several .py files defi", "eve": "for another assignment",
        "fay": "for another assignment"}


def test_a_gradescope_hand_in_of_both_assignments_is_graded_only_as_the_zips(tmp_path):
    """What the autograder grades in /autograder/submission: the file of the zip's
    assignment; without one, files of two assignments cannot be told apart (a 0 that
    says so, never the wrong assignment's grade)."""
    folder = tmp_path / "submission"
    copy(CONSTANT, folder / "mm_player.py")
    copy(CLONE, folder / "mc_player.py")
    (folder / "helpers.py").write_text("SIZE = 3\n")
    assert submission_in_folder(folder, "42", "montecarlo").path == folder / "mc_player.py"
    assert submission_in_folder(folder, "42", "minimax").path == folder / "mm_player.py"
    both = submission_in_folder(folder, "42")
    assert both.path is None and both.problem == (
        "files for several assignments: submission/mm_player.py (minimax), "
        "submission/mc_player.py (montecarlo); hand in one assignment's file")
