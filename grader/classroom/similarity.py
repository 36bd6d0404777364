"""Academic integrity: how much code each pair of submissions shares, and each submission
with known solutions (earlier terms', public ones), measured by copydetect.

    python -m grader batch class.zip --out grades --similarity known-solutions/

copydetect (an optional extra: ``pip install 'ttt-minimax[similarity]'``) tokenizes each
file with pygments (names, strings and comments do not count: renaming variables changes
nothing; docstrings are read as the comments they are) and fingerprints every run of
``NOISE_TOKENS`` tokens, except the runs that reach from one function into the next (they
depend only on the order of the functions, which a copy changes at no cost). Two kinds of
code are not evidence, and their fingerprints are dropped before any pair is compared:

- the templates: the handout's (``student/mm_player.py``), the original course's
  (``templates/course_template.py.txt``, recognised without being given) and any file
  given with ``--similarity-template`` (earlier handouts): what every student got;
- common code: a fingerprint found in more than ``common_limit(n)`` of the ``n``
  submissions (``COMMON_SHARE`` of them, at least ``COMMON_FILES``), such as the
  clone-move-recurse loop every correct minimax has. Copying it proves nothing. (Nor can
  it show a solution copied by that many: a known solution at least ``WIDELY_COPIED`` of
  whose code is common is named in ``Similarity.widely_copied``, and on the summary.)

What is left of a file is its *own code*. A pair's two shares are the share of each file's
own code found in the other (copydetect's two similarities, on what remains). Submissions
are read as text, never imported or run.

A pair is *listed* (on the summary page, with a side-by-side page) when either share is at
least ``LISTED_SCORE`` and they share at least ``LISTED_TOKENS`` tokens of own code; the
most similar first (by the mean of the two shares), at most ``MAX_LISTED`` (the summary
says how many more were above this threshold). ``DIR/similarity.csv`` holds every pair
that shares own code, the listed ones first.
Known solutions are compared with every submission, never with each other. Nothing here
changes a grade, and the output depends only on the files (not on ``--jobs``, nor on
Python's hash seed: every fingerprint is kept, so winnowing chooses nothing).

The output folder::

    DIR/similarity.csv            every pair sharing own code, the listed ones first
    DIR/similarity/pair-001.html  the listed pairs side by side, shared code highlighted

>>> Pair("alice", "bob", 0.91, 0.62, 240).listed
True
>>> Pair("alice", "2023/solution.py", 0.2, 0.3, 150, known=True).listed
False
>>> common_limit(13), common_limit(300)
(3, 30)
"""

from __future__ import annotations

import importlib
import io
import os
import shutil
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from grader.classroom.discover import IGNORED_NAMES, MAX_SOURCE_BYTES
from grader.classroom.run import GRADER_HOME
from grader.classroom.similarity_pages import pair_page
from grader.classroom.similarity_pairs import (LISTED_SCORE, LISTED_TOKENS,  # noqa: F401
                                               MAX_LISTED, Pair, Similarity)
from grader.classroom.similarity_tokens import (across_definitions, docstrings_as_comments,
                                                hash_ints, keep_only_own, share_in)
from grader.suite import table, writers

INSTALL_HINT = "pip install 'ttt-minimax[similarity]'"
TEMPLATE = GRADER_HOME / "student" / "mm_player.py"   # the handout's file: boilerplate
# The original course's template (CodeSkulptor's poc_ttt_provided, SCORES, the mm_move stub,
# move_wrapper and its assert, the commented test lines): boilerplate too, never given.
COURSE_TEMPLATE = Path(__file__).resolve().parent / "templates" / "course_template.py.txt"
DEFAULT_TEMPLATES = (TEMPLATE, COURSE_TEMPLATE)
NOISE_TOKENS = 25        # shorter runs of shared tokens are noise (copydetect's noise_t)
COMMON_SHARE = 0.10      # code in more than this share of the submissions is common...
COMMON_FILES = 3         # ...or in more than this many, whichever is larger
WIDELY_COPIED = 0.9      # a known solution this much of whose code is common: copied?
CSV_NAME = "similarity.csv"
PAGES = "similarity"     # the side-by-side pages, in DIR/similarity/


class SimilarityError(Exception):
    """The comparison cannot run: copydetect is missing, the known solutions are not a
    folder of .py files, or a template cannot be read."""


def common_limit(submissions: int) -> int:
    """Code found in more than this many of ``submissions`` files is common, not evidence:
    ``COMMON_SHARE`` of them, at least ``COMMON_FILES`` (so a small class keeps it all).

    >>> common_limit(6), common_limit(45), common_limit(1000)
    (3, 4, 100)
    """
    return max(COMMON_FILES, int(submissions * COMMON_SHARE))


@dataclass(frozen=True)
class SimilarityOptions:
    """What a batch compares: the submissions with each other, and with the ``.py`` files
    of ``known`` (a folder, searched with its subfolders) when it is given; ``templates``
    are more files whose code does not count (``--similarity-template``), beside the
    handout's and the course's own.

    >>> SimilarityOptions().known is None, SimilarityOptions().templates
    (True, ())
    """

    known: Path | None = None
    templates: tuple[Path, ...] = ()     # given templates, beyond DEFAULT_TEMPLATES


def require_copydetect() -> None:
    """Raise SimilarityError, naming the extra to install, when copydetect is missing."""
    try:
        importlib.import_module("copydetect")
    except ImportError:
        raise SimilarityError(f"--similarity needs copydetect: {INSTALL_HINT}") from None


def known_solutions(folder: Path) -> dict[str, Path]:
    """The ``.py`` files in ``folder`` and its subfolders, by path relative to it.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "2023").mkdir(), (folder / "2023" / "fall.py").write_text("x = 1\\n")
    >>> known_solutions(folder)
    {'2023/fall.py': ...}
    >>> try:
    ...     known_solutions(folder / "nope")
    ... except SimilarityError as problem:
    ...     print(problem)
    --similarity .../nope: no such folder
    """
    folder = Path(folder)
    if not folder.exists():
        raise SimilarityError(f"--similarity {folder}: no such folder")
    if not folder.is_dir():
        raise SimilarityError(f"--similarity {folder}: not a folder (FOLDER holds known "
                              "solutions: .py files, in subfolders too)")
    found = _python_files(folder)
    if not found:
        raise SimilarityError(f"--similarity {folder}: no .py file in the folder "
                              "(nor in its subfolders)")
    return found


def template_files(given: Iterable[Path]) -> tuple[Path, ...]:
    """The files of ``--similarity-template FILE...``: each file as it is (any name: it is
    read as Python), each folder's ``.py`` files (subfolders too).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "week1.py").write_text("x = 1\\n")
    >>> [path.name for path in template_files([folder, folder / "week1.py"])]
    ['week1.py', 'week1.py']
    >>> try:
    ...     template_files([folder / "nope.py"])
    ... except SimilarityError as problem:
    ...     print(problem)
    --similarity-template .../nope.py: no such file
    """
    files: list[Path] = []
    for path in map(Path, given):
        if path.is_dir():
            found = _python_files(path)
            if not found:
                raise SimilarityError(f"--similarity-template {path}: no .py file in the "
                                      "folder (nor in its subfolders)")
            files += found.values()
        elif not path.exists():
            raise SimilarityError(f"--similarity-template {path}: no such file")
        elif _read(path) is None:
            raise SimilarityError(f"--similarity-template {path}: cannot be read, or "
                                  f"larger than {MAX_SOURCE_BYTES // 1024 // 1024} MB")
        else:
            files.append(path)
    return tuple(files)


def from_arguments(known: Path | bool | None,
                   templates: Sequence[Path] = ()) -> SimilarityOptions | None:
    """``--similarity [FOLDER]`` and ``--similarity-template FILE...`` checked: None when
    neither is given (a template alone turns the comparison on); SimilarityError when
    copydetect is missing, FOLDER is not a folder of .py files or a template is missing.

    >>> from_arguments(None) is None
    True
    """
    if known is None and not templates:
        return None
    require_copydetect()
    folder = known if isinstance(known, Path) else None
    if folder is not None:
        known_solutions(folder)
    return SimilarityOptions(known=folder, templates=template_files(templates))


def _python_files(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name not in IGNORED_NAMES)
        for name in sorted(files):
            if name.endswith(".py") and not name.startswith("."):
                path = Path(top) / name
                found[path.relative_to(folder).as_posix()] = path
    return found


def _template_label(path: Path) -> str:
    if Path(path) == TEMPLATE:
        return "the handout's template"
    if Path(path) == COURSE_TEMPLATE:
        return "the course's template"
    return str(path)


def compare(submissions: Mapping[str, Path], known: Mapping[str, Path] | None = None,
            templates: Sequence[Path] = DEFAULT_TEMPLATES, known_folder: str = "",
            common: bool = True, names: Mapping[str, str] | None = None) -> Similarity:
    """Compare every pair of ``submissions`` (student id -> file), and each of them with
    every ``known`` solution (name -> file), on their own code: the ``templates``' code
    does not count, nor (with ``common``) code found in more than
    :func:`common_limit` submissions. ``names`` (student id -> name, when known) name the
    students on the pairs and their pages; they change nothing else.

    Returns the pairs that share own code, the listed ones first, then the most similar
    (by the mean of the two shares, then by shared tokens, then by name); the listed ones come with their side-by-side
    page. Raises SimilarityError when copydetect is not installed or a template cannot
    be read.

        found = compare({"alice": Path("alice.py"), "bob": Path("bob.py")},
                        known_solutions(Path("known")))
        [(pair.first, pair.second, pair.score) for pair in found.listed]
    """
    require_copydetect()
    import numpy
    from copydetect import CodeFingerprint

    known = known or {}
    boilerplate: set[int] = set()
    for template in templates:
        text = _read(Path(template))
        if text is None:
            raise SimilarityError(f"the template {template} cannot be read: its code is "
                                  "what does not count")
        boilerplate |= hash_ints(CodeFingerprint(str(template), NOISE_TOKENS, 1,
                                             fp=io.StringIO(docstrings_as_comments(text)),
                                             language="python").hashes)
    boilerplate_array = numpy.array(sorted(boilerplate), dtype=numpy.int64)
    unread: list[str] = []

    def fingerprints(files: Mapping[str, Path]) -> dict[str, Any]:
        prints = {}
        for name in sorted(files):
            text = _read(Path(files[name]))
            if text is None:
                unread.append(f"{name}: cannot be read, or larger than "
                              f"{MAX_SOURCE_BYTES // 1024 // 1024} MB")
                continue
            # window 1: every fingerprint kept (copydetect's guarantee_t == noise_t)
            fingerprint = CodeFingerprint(str(files[name]), NOISE_TOKENS, 1,
                                          boilerplate_array,
                                          fp=io.StringIO(docstrings_as_comments(text)),
                                          language="python")
            fingerprint.raw_code = text     # shown as handed in: same length, same places
            prints[name] = fingerprint
        return prints

    students, solutions = fingerprints(submissions), fingerprints(known)
    for fingerprint in (*students.values(), *solutions.values()):
        keep_only_own(fingerprint, across_definitions(fingerprint))
    # how many submissions hold each fingerprint (known solutions are not the class)
    holders = Counter(hash_ for fingerprint in students.values()
                      for hash_ in hash_ints(fingerprint.hashes))
    limit = common_limit(len(students)) if common else 0
    shared_by_many = {hash_ for hash_, count in holders.items() if count > limit} \
        if common else set()
    # a known solution most of whose code is common may be what many students copied:
    # leaving common code out hides those copies, so the summary says so
    widely = tuple((name, round(share, 4)) for name, share in
                   ((name, share_in(solutions[name], shared_by_many)) for name in solutions)
                   if share >= WIDELY_COPIED)
    for fingerprint in (*students.values(), *solutions.values()):
        keep_only_own(fingerprint, shared_by_many)

    pairs = []
    ids = list(students)
    for index, first in enumerate(ids):
        others = [(second, students[second], False) for second in ids[index + 1:]]
        others += [(name, solutions[name], True) for name in solutions]
        for second, other, is_known in others:
            if students[first].hashes.isdisjoint(other.hashes):
                continue        # nothing of their own in common: the usual case, quickly
            pair = _pair(students[first], other, first, second, is_known)
            if pair is not None:
                names = names or {}
                pairs.append(replace(pair, first_name=names.get(first, ""),
                                     second_name="" if is_known else names.get(second, "")))
    pairs.sort(key=lambda pair: (not pair.listed, -pair.share, -pair.tokens, pair.first,
                                 pair.known, pair.second))
    pages = []
    for index, pair in enumerate(pairs):
        if pair.listed and len(pages) < MAX_LISTED:
            page = f"{PAGES}/pair-{len(pages) + 1:03d}.html"
            other = solutions[pair.second] if pair.known else students[pair.second]
            pages.append((page, _side_by_side(pair, students[pair.first], other)))
            pairs[index] = replace(pair, page=page)
    return Similarity(tuple(pairs), len(students), len(solutions), known_folder,
                      tuple(unread), tuple(pages),
                      templates=tuple(_template_label(path) for path in templates),
                      common_limit=limit, common=len(shared_by_many), widely_copied=widely)


def _read(path: Path) -> str | None:
    """The text of ``path`` (undecodable bytes replaced), None when it cannot be read."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None


def _pair(first: Any, second: Any, first_name: str, second_name: str,
          known: bool) -> Pair | None:
    from copydetect import compare_files

    tokens, (first_score, second_score), _ = compare_files(first, second)
    if not tokens:
        return None
    return Pair(first_name, second_name, round(float(first_score), 4),
                round(float(second_score), 4), int(tokens), known,
                first_own=int(first.token_coverage), second_own=int(second.token_coverage))


def _side_by_side(pair: Pair, first: Any, second: Any) -> str:
    """The page of one pair: both files, their shared code highlighted (``similarity_pages``)."""
    from copydetect import compare_files
    from copydetect.utils import highlight_overlap

    _, _, (first_slices, second_slices) = compare_files(first, second)
    codes = [highlight_overlap(fingerprint.raw_code, slices, "<mark>", "</mark>",
                               escape_html=True)[0]
             for fingerprint, slices in ((first, first_slices), (second, second_slices))]
    return pair_page(pair, (codes[0], codes[1]), NOISE_TOKENS)


def similarity_csv(similarity: Similarity) -> str:
    """Every pair that shares own code as CSV text, the listed ones first, then the most
    similar. ``first_score`` and ``second_score`` are the shares of each file's own code
    (``first_own`` and ``second_own`` tokens) found in the other; ``listed`` is "yes" for
    the pairs on the summary page, "over the cap" for those above the threshold it had no room
    for.

    >>> similarity_csv(Similarity((Pair("alice", "bob", 0.9, 0.8, 300, first_own=333,
    ...                                 second_own=375),), 2, 0)).splitlines()[1]
    '1,alice,bob,,0.9,0.8,300,333,375,yes,'
    """
    columns = ["rank", "first", "second", "second_is_known", "first_score", "second_score",
               "tokens", "first_own", "second_own", "listed", "page"]
    listed = set(similarity.listed)
    rows = [{"rank": rank, "first": pair.first, "second": pair.second,
             "second_is_known": "known" if pair.known else "",
             "first_score": f"{pair.first_score:g}", "second_score": f"{pair.second_score:g}",
             "tokens": pair.tokens, "first_own": pair.first_own,
             "second_own": pair.second_own,
             "listed": "yes" if pair in listed else "over the cap" if pair.listed else "",
             "page": pair.page}
            for rank, pair in enumerate(similarity.pairs, start=1)]
    return table.csv_text(columns, rows)


def write_similarity(out: Path, similarity: Similarity) -> None:
    """Write ``out/similarity.csv`` and the side-by-side pages into ``out/similarity/``
    (the pages of an earlier run are removed first)."""
    out = Path(out)
    shutil.rmtree(out / PAGES, ignore_errors=True)
    for page, text in similarity.pages:
        writers.write_text_atomic(out / page, text)
    writers.write_text_atomic(out / CSV_NAME, similarity_csv(similarity))


def compare_and_write(out: Path, submissions: Mapping[str, Path],
                      options: SimilarityOptions,
                      names: Mapping[str, str] | None = None) -> Similarity:
    """Compare as ``options`` say and write the results into ``out`` (a batch's folder);
    ``names``: the students' names by id, when known (see :func:`compare`).

        found = compare_and_write(Path("grades"), {"alice": Path("a.py"), "bob": Path("b.py")},
                                  SimilarityOptions(known=Path("known")))
    """
    known = known_solutions(options.known) if options.known is not None else {}
    found = compare(submissions, known, DEFAULT_TEMPLATES + tuple(options.templates),
                    known_folder=str(options.known) if options.known is not None else "",
                    names=names)
    write_similarity(out, found)
    return found

