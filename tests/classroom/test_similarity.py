"""grader.classroom.similarity: `python -m grader batch --similarity [FOLDER]`.

The fixtures (tests/submissions/similarity/): in class/, bob copied alice's code and renamed
every name, frank copied a known solution, carol wrote her own, and dave and erin share only
the handout's template (each with a few lines of their own). known/ holds two known
solutions, near copies of each other. fast/ is a class that grades in seconds (ben copied
ann, cat shares only the template) for the one test that runs the real batch.

Most tests call the comparison directly (no grading); one runs the command end to end.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("copydetect")

from grader.classroom import (Attempt, BatchOptions, Job, Submission,  # noqa: E402
                              run_batch, summary)
from grader.classroom import similarity  # noqa: E402
from grader.classroom.gradebook import Row  # noqa: E402
from grader.classroom.similarity import Pair, SimilarityError, SimilarityOptions  # noqa: E402
from test_batch import GRADER, FakeRunner, read_gradebook, results_json  # noqa: E402

HERE = Path(__file__).resolve().parents[1]   # tests/
FIXTURES = HERE / "submissions" / "similarity"
CLASS, KNOWN, FAST = FIXTURES / "class", FIXTURES / "known", FIXTURES / "fast"


def class_files(folder: Path = CLASS) -> dict[str, Path]:
    return {path.stem: path for path in sorted(folder.glob("*.py"))}


def compare_class(**extra) -> similarity.Similarity:
    return similarity.compare(class_files(), similarity.known_solutions(KNOWN),
                              known_folder="known", **extra)


def pair_of(found: similarity.Similarity, first: str, second: str) -> Pair | None:
    return next((pair for pair in found.pairs if (pair.first, pair.second) == (first, second)),
                None)


def run_cli(*args: str, env: dict[str, str] | None = None,
            timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADER, "batch", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=HERE.parent, env=env)


# ---------------------------------------------------------------- the comparison itself


def test_copies_come_first_and_independent_work_is_not_listed() -> None:
    found = compare_class()

    assert [(pair.first, pair.second, pair.known) for pair in found.listed] == [
        ("alice", "bob", False),                       # renamed names change nothing
        ("frank", "public/minimax_blog.py", True),
        ("frank", "2023-fall/solution.py", True),
    ]
    copied = pair_of(found, "alice", "bob")
    assert copied is not None and copied.first_score >= 0.95 and copied.second_score >= 0.95
    assert copied.tokens >= 300
    for first, second in (("frank", "public/minimax_blog.py"), ("frank", "2023-fall/solution.py")):
        pair = pair_of(found, first, second)
        assert pair is not None and min(pair.first_score, pair.second_score) >= 0.9
    # carol wrote her own minimax: some common idioms, far below the line
    for other in ("alice", "bob"):
        pair = pair_of(found, other, "carol")
        assert pair is not None and pair.score < 0.3 and not pair.listed
    assert all("carol" not in (pair.first, pair.second) for pair in found.listed)
    # most similar first, then by shared tokens, then by name: the CSV's order too
    keys = [(-pair.score, -pair.tokens) for pair in found.pairs]
    assert keys == sorted(keys)
    assert found.submissions == 6 and found.known == 2 and found.unread == ()


def test_the_handouts_template_does_not_count() -> None:
    found = compare_class()
    # dave and erin share only the template (its docstrings, imports, SCORES, move_wrapper)
    assert pair_of(found, "dave", "erin") is None
    assert all({"dave", "erin"}.isdisjoint({pair.first, pair.second}) for pair in found.listed)

    # without the template as boilerplate, the same two files look copied
    unfiltered = compare_class(template=None)
    pair = pair_of(unfiltered, "dave", "erin")
    assert pair is not None and pair.listed and pair.score > 0.8


def test_known_solutions_are_compared_with_every_submission_not_with_each_other() -> None:
    found = compare_class()
    students = set(class_files())
    assert all(pair.first in students for pair in found.pairs)
    assert all((pair.second in students) != pair.known for pair in found.pairs)
    # the two known solutions are near copies of each other: never a pair
    known_names = {"public/minimax_blog.py", "2023-fall/solution.py"}
    assert not any({pair.first, pair.second} <= known_names for pair in found.pairs)


def test_only_pairs_without_a_known_folder() -> None:
    found = similarity.compare(class_files())
    assert found.known == 0 and not any(pair.known for pair in found.pairs)
    assert [(pair.first, pair.second) for pair in found.listed] == [("alice", "bob")]


def test_same_files_same_output_whatever_the_paths_order_and_hash_seed(tmp_path: Path) -> None:
    found = compare_class()
    # the same files elsewhere, handed over in another order
    moved = {}
    for name, path in reversed(list(class_files().items())):
        moved[name] = shutil.copy(path, tmp_path / f"copy-of-{name}.py")
    again = similarity.compare(moved, similarity.known_solutions(KNOWN), known_folder="known")
    assert similarity.similarity_csv(again) == similarity.similarity_csv(found)
    assert again.pages == found.pages
    # another process with another str hash seed (copydetect hashes with hash())
    script = ("import sys\nfrom pathlib import Path\n"
              "from grader.classroom import similarity as s\n"
              f"root = Path({str(FIXTURES)!r})\n"
              "files = {p.stem: p for p in sorted((root / 'class').glob('*.py'))}\n"
              "found = s.compare(files, s.known_solutions(root / 'known'), known_folder='known')\n"
              "sys.stdout.write(s.similarity_csv(found))\n")
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           cwd=HERE.parent, env={**os.environ, "PYTHONHASHSEED": "12345"},
                           timeout=120)
    assert other.returncode == 0, other.stderr
    assert other.stdout == similarity.similarity_csv(found)


def test_pages_csv_and_summary_section(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stale = out / similarity.PAGES / "pair-099.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("from an earlier run")
    found = similarity.compare_and_write(out, class_files(), SimilarityOptions(known=KNOWN))

    assert not stale.exists()
    pages = sorted(path.name for path in (out / similarity.PAGES).iterdir())
    assert pages == ["pair-001.html", "pair-002.html", "pair-003.html"]
    first = (out / "similarity" / "pair-001.html").read_text(encoding="utf-8")
    assert "<h1>alice and bob</h1>" in first and "<mark>" in first
    assert "def explore(grid, who, level):" in first      # bob's own code, side by side
    assert 'href="../summary.html#similarity"' in first
    known_page = (out / "similarity" / "pair-003.html").read_text(encoding="utf-8")
    assert "known solution 2023-fall/solution.py" in known_page

    with open(out / "similarity.csv", newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    assert [(row["first"], row["second"]) for row in rows[:3]] == [
        ("alice", "bob"), ("frank", "public/minimax_blog.py"), ("frank", "2023-fall/solution.py")]
    assert [row["listed"] for row in rows[:4]] == ["yes", "yes", "yes", ""]
    assert rows[2]["second_is_known"] == "known" and rows[0]["second_is_known"] == ""
    assert rows[0]["page"] == "similarity/pair-001.html" and rows[3]["page"] == ""
    assert float(rows[0]["first_score"]) >= 0.95
    assert len(rows) == len(found.pairs)

    page = summary.summary_html([Row("alice", "graded", 80.0, 100.0)], similarity=found)
    section = page.split('<h2 id="similarity">Most similar pairs</h2>')[1].split("<h2>")[0]
    table_rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td>([^<]*)</td>"
                            r"<td class=\"num\">(\d+)%</td><td>([^<]*)</td>", section)
    assert [(rank, first, second) for rank, first, _, second in table_rows] == [
        ("1", "alice", "bob"), ("2", "frank", "known: public/minimax_blog.py"),
        ("3", "frank", "known: 2023-fall/solution.py")]
    links = re.findall(r'<a href="([^"]+)">view</a>', section)
    assert links == [f"similarity/pair-00{rank}.html" for rank in (1, 2, 3)]
    assert all((out / link).is_file() for link in links)
    assert 'href="similarity.csv"' in section and "6 submissions compared" in section
    assert "Most similar pairs" not in summary.summary_html([Row("alice", "graded", 80.0, 100.0)])


def test_a_class_with_nothing_similar_says_so() -> None:
    found = similarity.compare({name: class_files()[name] for name in ("alice", "carol")})
    assert found.listed == () and found.pages == ()
    section = "\n".join(summary.similarity_section(found))
    assert "No pair is that similar (the closest: alice and carol, 11%)" in section


def test_known_folder_problems_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(SimilarityError, match=f"--similarity {re.escape(str(tmp_path))}/nope: "
                                              "no such folder"):
        similarity.known_solutions(tmp_path / "nope")
    (tmp_path / "notes.txt").write_text("not a folder")
    with pytest.raises(SimilarityError, match="notes.txt: not a folder"):
        similarity.known_solutions(tmp_path / "notes.txt")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "empty" / "sub" / "readme.md").write_text("no code")
    with pytest.raises(SimilarityError, match="empty: no .py file in the folder"):
        similarity.known_solutions(tmp_path / "empty")
    assert sorted(similarity.known_solutions(KNOWN)) == ["2023-fall/solution.py",
                                                         "public/minimax_blog.py"]


def test_similarity_changes_no_grade_and_no_grading_run(tmp_path: Path) -> None:
    submissions = [Submission(name, path) for name, path in class_files().items()]
    submissions.append(Submission("zed", None, problem="empty folder"))
    runs = {}
    for compared in (None, SimilarityOptions()):
        out = tmp_path / ("with" if compared else "without")
        runner = FakeRunner(graded)
        outcome = run_batch(submissions, BatchOptions(out=out, similarity=compared), runner)
        jobs = sorted((job.submission.student_id, job.submission, job.options)
                      for job in runner.jobs)
        runs[compared is not None] = (jobs, read_gradebook(out))
        assert (outcome.similarity is not None) == (compared is not None)
    assert runs[True] == runs[False]
    assert (tmp_path / "with" / "similarity.csv").is_file()
    assert not (tmp_path / "without" / "similarity.csv").exists()
    assert "Most similar pairs" in (tmp_path / "with" / "summary.html").read_text()


def graded(job: Job) -> Attempt:
    return Attempt(job.submission.student_id, 0, results_json(7.5))


# ---------------------------------------------------------------- the command


def test_batch_with_similarity_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli(str(FAST), "--out", str(out), "--jobs", "2", f"--similarity={KNOWN}")
    assert done.returncode == 0, done.stderr
    assert "similarity: 1 pair listed in the summary" in done.stderr

    _, rows = read_gradebook(out)
    assert sorted(rows) == ["ann", "ben", "cat"] and all(row["score"] for row in rows.values())
    page = (out / "summary.html").read_text(encoding="utf-8")
    section = page.split('<h2 id="similarity">Most similar pairs</h2>')[1].split("<h2>")[0]
    assert "3 submissions compared with each other and with 2 known solutions" in section
    links = re.findall(r'<a href="([^"]+)">view</a>', section)
    assert links == ["similarity/pair-001.html"]
    side_by_side = (out / links[0]).read_text(encoding="utf-8")
    assert "<h1>ann and ben</h1>" in side_by_side and "def ranking(b):" in side_by_side
    with open(out / "similarity.csv", newline="", encoding="utf-8-sig") as file:
        pairs = [(row["first"], row["second"], row["listed"]) for row in csv.DictReader(file)]
    assert pairs[0] == ("ann", "ben", "yes")
    assert all(listed == "" for _, _, listed in pairs[1:])      # cat shares only the template


def test_usage_errors_of_similarity(tmp_path: Path) -> None:
    for folder, words in ((tmp_path / "missing", "no such folder"),
                          (FAST / "ann.py", "not a folder"),
                          (tmp_path, "no .py file in the folder")):
        failed = run_cli(str(FAST), "--out", str(tmp_path / "out"), f"--similarity={folder}")
        lines = failed.stderr.strip().splitlines()
        assert failed.returncode == 2 and len(lines) == 1, failed.stderr
        assert lines[0].startswith(f"python -m grader batch: error: --similarity {folder}: "
                                   f"{words}")
        assert not (tmp_path / "out" / "results").exists()     # nothing was graded

    # copydetect missing: one line naming the extra to install
    fake = tmp_path / "site" / "copydetect"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named copydetect')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    missing = run_cli(str(FAST), "--out", str(tmp_path / "out"), "--similarity", env=env)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        "python -m grader batch: error: --similarity needs copydetect: "
        "pip install 'ttt-minimax[similarity]'"]

    help_text = run_cli("--help").stdout
    assert "--similarity [FOLDER]" in help_text and "50%" in help_text
