"""grader.classroom.similarity: `python -m grader batch --similarity [FOLDER]`.

The fixtures (tests/submissions/similarity/): in class/, bob copied alice's code and renamed
every name, frank copied a known solution, carol wrote her own, and dave and erin share only
the handout's template (each with a few lines of their own). known/ holds two known
solutions, near copies of each other. fast/ is a class that grades in seconds (ben copied
ann, cat shares only the template) for the one test that runs the real batch. In
templates/, gus and hal share only the original course's template (hal spells its assert
and test lines as many students did), ivy and jon only an earlier handout's helpers
(handouts/week1_helpers.py). similar_class.py generates larger classes with planted copies.

Most tests call the comparison directly (no grading); one runs the command end to end.
"""

from __future__ import annotations

import csv
import dataclasses
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
from similar_class import generate_class  # noqa: E402
from test_batch import GRADER, FakeRunner, read_gradebook, results_json  # noqa: E402

HERE = Path(__file__).resolve().parents[1]   # tests/
FIXTURES = HERE / "submissions" / "similarity"
CLASS, KNOWN, FAST = FIXTURES / "class", FIXTURES / "known", FIXTURES / "fast"
TEMPLATES, WEEK1 = FIXTURES / "templates", FIXTURES / "handouts" / "week1_helpers.py"


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

    # all three are whole copies (renamed names, docstrings change nothing): the most
    # shared code first
    assert [(pair.first, pair.second, pair.known) for pair in found.listed] == [
        ("frank", "2023-fall/solution.py", True),
        ("frank", "public/minimax_blog.py", True),
        ("alice", "bob", False),
    ]
    copied = pair_of(found, "alice", "bob")
    assert copied is not None and copied.first_score >= 0.95 and copied.second_score >= 0.95
    assert copied.tokens >= 250
    for first, second in (("frank", "public/minimax_blog.py"), ("frank", "2023-fall/solution.py")):
        pair = pair_of(found, first, second)
        assert pair is not None and min(pair.first_score, pair.second_score) >= 0.9
    # carol wrote her own minimax: some common idioms, far below the line
    for other in ("alice", "bob"):
        pair = pair_of(found, other, "carol")
        assert pair is not None and pair.score < 0.3 and not pair.listed
    assert all("carol" not in (pair.first, pair.second) for pair in found.listed)
    # the listed first, then the most similar (the mean of the two shares), then by shared
    # tokens: the CSV's order too
    keys = [(not pair.listed, -pair.share, -pair.tokens) for pair in found.pairs]
    assert keys == sorted(keys)
    assert all(pair.first_own >= pair.tokens > 0 and pair.second_own > 0
               for pair in found.pairs)
    assert found.submissions == 6 and found.known == 2 and found.unread == ()


def test_the_handouts_template_does_not_count() -> None:
    found = compare_class()
    # dave and erin share only the template (its docstrings, imports, SCORES, move_wrapper)
    assert pair_of(found, "dave", "erin") is None
    assert all({"dave", "erin"}.isdisjoint({pair.first, pair.second}) for pair in found.listed)

    # without the templates as boilerplate (nor the common code), the same two files look
    # copied
    unfiltered = compare_class(templates=(), common=False)
    pair = pair_of(unfiltered, "dave", "erin")
    assert pair is not None and pair.listed and pair.score > 0.8


def test_the_courses_own_template_is_recognised_without_being_given() -> None:
    files = class_files(TEMPLATES)
    found = similarity.compare(files)
    # gus and hal share the course's template (its SCORES, move_wrapper and its assert in
    # either spelling, the test lines commented or not) and nothing else
    assert pair_of(found, "gus", "hal") is None
    assert "the course's template" in found.templates
    # the handout's template alone does not know it: they would look copied
    handout_only = similarity.compare(files, templates=(similarity.TEMPLATE,), common=False)
    pair = pair_of(handout_only, "gus", "hal")
    assert pair is not None and pair.listed and pair.tokens >= 100


def test_an_earlier_handout_given_as_a_template_does_not_count() -> None:
    files = class_files(TEMPLATES)
    # ivy and jon both kept the week 1 helpers, then wrote different players
    shared = pair_of(similarity.compare(files), "ivy", "jon")
    assert shared is not None and shared.listed

    options = similarity.from_arguments(True, [WEEK1])
    assert options == SimilarityOptions(known=None, templates=(WEEK1,))
    found = similarity.compare(files, templates=similarity.DEFAULT_TEMPLATES + options.templates)
    pair = pair_of(found, "ivy", "jon")
    assert pair is None or (not pair.listed and pair.score < 0.3)
    assert str(WEEK1) in found.templates
    # a folder of templates: its .py files
    assert similarity.template_files([WEEK1.parent]) == (WEEK1,)
    # the option alone turns the comparison on
    assert similarity.from_arguments(None, [WEEK1]) == options
    assert similarity.from_arguments(None, []) is None


def test_a_class_ranks_its_planted_copies_first_and_common_code_is_no_evidence(
        tmp_path: Path) -> None:
    # 30 students in the styles of the fixtures, 2 more who copied one each (names,
    # comments, docstrings and the order of the functions changed)
    planted = generate_class(tmp_path, size=32, copies=2, seed=2, extra_line_copies=0)
    files = class_files(tmp_path)
    found = similarity.compare(files)

    assert found.common_limit == 3 and found.common > 100
    assert sorted((pair.first, pair.second) for pair in found.listed[:2]) == sorted(planted)
    assert all(pair.share >= 0.95 for pair in found.listed[:2])
    assert all(pair.share < 0.8 for pair in found.listed[2:])
    # what most of the class shares (the loop that clones, moves and recurses) is no
    # evidence: counted, it lists many more pairs, none of them a copy
    everything = similarity.compare(files, common=False)
    assert len(everything.listed) >= 3 * len(found.listed)
    assert sorted((pair.first, pair.second) for pair in everything.listed[:2]) == sorted(planted)
    not_listed_now = [pair for pair in everything.listed[2:]
                      if not getattr(pair_of(found, pair.first, pair.second), "listed", False)]
    assert len(not_listed_now) >= 0.8 * len(everything.listed[2:])

    # the side by side page of a copy: the templates' lines are not highlighted, though
    # they are in both files
    page = dict(found.pages)[found.listed[0].page]
    marked = re.findall(r"<mark>(.*?)</mark>", page, re.S)
    assert marked
    for template_line in ("import provided", "SCORES = {", "set_timeout",
                          "returned illegal move"):
        assert not any(template_line in part for part in marked), template_line


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
    third = (out / "similarity" / "pair-003.html").read_text(encoding="utf-8")
    assert "<h1>alice and bob</h1>" in third and "<mark>" in third
    assert "def explore(grid, who, level):" in third      # bob's own code, side by side
    assert 'href="../summary.html#similarity"' in third
    known_page = (out / "similarity" / "pair-001.html").read_text(encoding="utf-8")
    assert "known solution 2023-fall/solution.py" in known_page

    with open(out / "similarity.csv", newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    assert [(row["first"], row["second"]) for row in rows[:3]] == [
        ("frank", "2023-fall/solution.py"), ("frank", "public/minimax_blog.py"), ("alice", "bob")]
    assert [row["listed"] for row in rows[:4]] == ["yes", "yes", "yes", ""]
    assert rows[0]["second_is_known"] == "known" and rows[2]["second_is_known"] == ""
    assert rows[0]["page"] == "similarity/pair-001.html" and rows[3]["page"] == ""
    assert float(rows[0]["first_score"]) >= 0.95
    assert len(rows) == len(found.pairs)

    page = summary.summary_html([Row("alice", "graded", 80.0, 100.0)], similarity=found)
    section = page.split('<h2 id="similarity">Most similar pairs</h2>')[1].split("<h2>")[0]
    table_rows = re.findall(r"<tr><td class=\"num\">(\d+)</td><td>([^<]*)</td>"
                            r"<td class=\"num\" title=\"[^\"]*\">(\d+)%</td><td>([^<]*)</td>",
                            section)
    assert [(rank, first, second) for rank, first, _, second in table_rows] == [
        ("1", "frank", "known: 2023-fall/solution.py"),
        ("2", "frank", "known: public/minimax_blog.py"), ("3", "alice", "bob")]
    links = re.findall(r'<a href="([^"]+)">view</a>', section)
    assert links == [f"similarity/pair-00{rank}.html" for rank in (1, 2, 3)]
    assert all((out / link).is_file() for link in links)
    assert 'href="similarity.csv"' in section and "6 submissions compared" in section
    assert "3 pairs above the threshold, all shown" in section
    assert "the templates (the handout&#x27;s template, the course&#x27;s template)" in section
    assert "nor code found in more than 3 of the 6 submissions" in section
    assert "title=\"of alice's 285 tokens of own code\"" in section
    assert [row["first_own"] for row in rows[2:3]] == ["285"]
    assert "Most similar pairs" not in summary.summary_html([Row("alice", "graded", 80.0, 100.0)])


def test_a_known_solution_copied_by_many_is_named(tmp_path: Path) -> None:
    # 5 of 8 students handed in the public solution: more than the common limit (3)
    files = {name: class_files()[name] for name in ("alice", "bob", "carol")}
    for number in range(5):
        files[f"copier{number}"] = shutil.copy(KNOWN / "public" / "minimax_blog.py",
                                               tmp_path / f"copier{number}.py")
    found = similarity.compare(files, similarity.known_solutions(KNOWN), known_folder="known")
    # their code is the class's common code now: not evidence, not listed...
    assert not any(pair.first.startswith("copier") for pair in found.listed)
    # ...so the known solution they copied is named instead
    assert [name for name, _ in found.widely_copied] == ["2023-fall/solution.py",
                                                         "public/minimax_blog.py"]
    assert all(share >= similarity.WIDELY_COPIED for _, share in found.widely_copied)
    section = "\n".join(summary.similarity_section(found))
    assert "of the known solution public/minimax_blog.py is code found in more than 3 " \
           "submissions: many may have copied it" in section
    # an ordinary class names none
    assert compare_class().widely_copied == ()


def test_the_summary_says_how_many_pairs_the_cap_left_out() -> None:
    pairs = tuple(Pair(f"s{index:02d}", f"t{index:02d}", 0.9, 0.8, 200, first_own=210,
                       second_own=230) for index in range(similarity.MAX_LISTED + 3))
    found = similarity.Similarity(pairs + (Pair("u", "v", 0.9, 0.9, 60),), 120, 0,
                                  common_limit=12, common=40)
    assert (len(found.listed), found.above, found.left_out) == (similarity.MAX_LISTED,
                                                                 similarity.MAX_LISTED + 3, 3)
    section = "\n".join(summary.similarity_section(found))
    assert f"{similarity.MAX_LISTED} of {similarity.MAX_LISTED + 3} pairs above the " \
           "threshold shown</b>: the other 3 are in" in section
    assert "nor code found in more than 12 of the 120 submissions" in section
    rows = list(csv.DictReader(similarity.similarity_csv(found).lstrip("\ufeff").splitlines()))
    assert [row["listed"] for row in rows].count("yes") == similarity.MAX_LISTED
    assert [row["listed"] for row in rows[-4:]] == ["over the cap"] * 3 + [""]


def test_a_class_with_nothing_similar_says_so() -> None:
    found = similarity.compare({name: class_files()[name] for name in ("alice", "carol")})
    assert found.listed == () and found.pages == ()
    section = "\n".join(summary.similarity_section(found))
    assert "No pair is that similar (the closest: alice and carol, 13%)" in section


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
    roster = tmp_path / "roster.csv"     # names for ann and ben; Canvas's fake student
    roster.write_text("id,name,email\nann,Ann Andrews,\nben,Ben Baker,\ncat,,\n"
                      "dora,Dora Diaz,\n777,Test Student,\n")
    done = run_cli(str(FAST), "--out", str(out), "--jobs", "2", f"--similarity={KNOWN}",
                   "--roster", str(roster))
    assert done.returncode == 0, done.stderr
    assert "similarity: 1 pair listed in the summary" in done.stderr

    _, rows = read_gradebook(out)
    # dora handed in nothing; the Test Student is nobody's missing hand-in
    assert sorted(rows) == ["ann", "ben", "cat", "dora"]
    assert all(rows[sid]["score"] for sid in ("ann", "ben", "cat"))
    assert rows["dora"]["status"] == "not graded: no submission"
    # each report names its student when the batch knows the name
    assert "Student: Ann Andrews (ann)\n" in (out / "reports" / "minimax" / "ann.txt").read_text()
    assert "Student: cat\n" in (out / "reports" / "minimax" / "cat.txt").read_text()
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert "Test Student" not in page
    section = page.split('<h2 id="similarity">Most similar pairs</h2>')[1].split("<h2>")[0]
    assert "3 submissions compared with each other and with 2 known solutions" in section
    assert "<td>Ann Andrews (ann)</td>" in section and "<td>Ben Baker (ben)</td>" in section
    links = re.findall(r'<a href="([^"]+)">view</a>', section)
    assert links == ["similarity/pair-001.html"]
    side_by_side = (out / links[0]).read_text(encoding="utf-8")
    assert "<h1>Ann Andrews (ann) and Ben Baker (ben)</h1>" in side_by_side
    assert "def ranking(b):" in side_by_side
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

    # a template that is not there: one line, nothing graded
    failed = run_cli(str(FAST), "--out", str(tmp_path / "out"), "--similarity",
                     "--similarity-template", str(WEEK1), str(tmp_path / "week2.py"))
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        f"python -m grader batch: error: --similarity-template {tmp_path / 'week2.py'}: "
        "no such file"]
    assert not (tmp_path / "out" / "results").exists()

    help_text = run_cli("--help").stdout
    assert "--similarity [FOLDER]" in help_text and "50%" in help_text


# ---------------------------------------------------------------- whose code, on the pages


def test_pairs_and_their_pages_name_both_students_by_name_and_id() -> None:
    names = {"alice": "Alice <A>", "bob": "Bob B", "frank": "Frank F"}
    found = similarity.compare(class_files(), similarity.known_solutions(KNOWN),
                               known_folder="known", names=names)
    copied = pair_of(found, "alice", "bob")
    assert copied is not None and (copied.first_label, copied.second_label) == (
        "Alice <A> (alice)", "Bob B (bob)")
    known = pair_of(found, "frank", "public/minimax_blog.py")
    assert known is not None and known.second_name == ""
    assert known.second_label == "known solution public/minimax_blog.py"
    pages = dict(found.pages)
    page = pages[copied.page]
    assert "<h1>Alice &lt;A&gt; (alice) and Bob B (bob)</h1>" in page     # escaped
    assert "<h2>Alice &lt;A&gt; (alice)</h2>" in page and "<h2>Bob B (bob)</h2>" in page
    assert "<h1>Frank F (frank) and known solution public/minimax_blog.py</h1>" in \
        pages[known.page]
    # The names change nothing but the labels.
    plain = compare_class()
    assert [dataclasses.replace(pair, first_name="", second_name="") for pair in found.pairs] \
        == list(plain.pairs)
    section = "".join(summary.similarity_section(found))
    assert "<td>Alice &lt;A&gt; (alice)</td>" in section and "<td>Bob B (bob)</td>" in section


def test_the_side_by_side_page_fits_a_1200_pixel_window() -> None:
    from grader.classroom.similarity_pages import PAGE_STYLE

    # Columns that may shrink below their longest line, and lines that wrap in their box:
    # the page itself never scrolls sideways (checked by eye in headless Chromium at 1200).
    style = " ".join(PAGE_STYLE.split())
    assert "grid-template-columns: minmax(0, 1fr) minmax(0, 1fr)" in style
    assert ".sides > section { min-width: 0; }" in style
    assert "white-space: pre-wrap; overflow-wrap: anywhere;" in style


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium here")
def test_the_side_by_side_page_does_not_scroll_sideways_in_chromium(tmp_path: Path) -> None:
    long_line = "VERY_LONG = " + repr("y" * 400) + "\n"
    files = {}
    for name in ("alice", "bob"):
        files[name] = tmp_path / f"{name}.py"
        files[name].write_text((CLASS / f"{name}.py").read_text() + long_line)
    found = similarity.compare(files, names={"alice": "Alice Ashworth-Longname " * 3})
    page = dict(found.pages)[found.listed[0].page]
    probe = ('<script>document.body.insertAdjacentHTML("beforeend", "<p id=probe>" + '
             'document.documentElement.scrollWidth + "/" + '
             'document.documentElement.clientWidth + "</p>")</script></body>')
    (tmp_path / "page.html").write_text(page.replace("</body>", probe), encoding="utf-8")
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=1200,900", "--dump-dom",
                          (tmp_path / "page.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    scroll, client = map(int, re.search(r'<p id="probe">(\d+)/(\d+)', dom).groups())
    assert scroll <= client
