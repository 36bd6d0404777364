"""Academic integrity: how much code each pair of submissions shares, and each submission
with known solutions (earlier terms', public ones), measured by copydetect.

    python -m grader batch class.zip --out grades --similarity known-solutions/

copydetect (an optional extra: ``pip install 'ttt-minimax[similarity]'``) tokenizes each
file with pygments (names, strings and comments do not count: renaming variables changes
nothing), fingerprints every run of ``NOISE_TOKENS`` tokens, and drops the fingerprints of
the handout's template (``student/mm_player.py``), so what every student got does not
count. A pair's two scores are the share of each file's fingerprinted code found in the
other. Submissions are read as text, never imported or run.

A pair is *listed* (on the summary page, with a side-by-side page) when either score is at
least ``LISTED_SCORE`` and they share at least ``LISTED_TOKENS`` tokens; the most similar
first, at most ``MAX_LISTED``. ``DIR/similarity.csv`` holds every pair that shares any code.
Known solutions are compared with every submission, never with each other. Nothing here
changes a grade, and the output depends only on the files (not on ``--jobs``, nor on
Python's hash seed: every fingerprint is kept, so winnowing chooses nothing).

The output folder::

    DIR/similarity.csv            every pair sharing code, the most similar first
    DIR/similarity/pair-001.html  the listed pairs side by side, shared code highlighted

>>> Pair("alice", "bob", 0.91, 0.62, 240).listed
True
>>> Pair("alice", "2023/solution.py", 0.2, 0.3, 150, known=True).listed
False
"""

from __future__ import annotations

import html
import importlib
import io
import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from grader.classroom.discover import IGNORED_NAMES, MAX_SOURCE_BYTES
from grader.classroom.run import GRADER_HOME
from grader.suite import table, writers

INSTALL_HINT = "pip install 'ttt-minimax[similarity]'"
TEMPLATE = GRADER_HOME / "student" / "mm_player.py"   # the handout's file: boilerplate
NOISE_TOKENS = 25        # shorter runs of shared tokens are noise (copydetect's noise_t)
LISTED_SCORE = 0.5       # a pair is listed when either score reaches this...
LISTED_TOKENS = 100      # ...and they share at least this many tokens
MAX_LISTED = 50          # at most this many pairs on the summary page (all in the CSV)
CSV_NAME = "similarity.csv"
PAGES = "similarity"     # the side-by-side pages, in DIR/similarity/


class SimilarityError(Exception):
    """The comparison cannot run: copydetect is missing, or the known solutions are not
    a folder of .py files."""


@dataclass(frozen=True)
class SimilarityOptions:
    """What a batch compares: the submissions with each other, and with the ``.py`` files
    of ``known`` (a folder, searched with its subfolders) when it is given.

    >>> SimilarityOptions().known is None
    True
    """

    known: Path | None = None
    template: Path | None = TEMPLATE     # shared code that does not count (None: nothing)


@dataclass(frozen=True)
class Pair:
    """Two files that share code: a submission and another one or a known solution.

    ``first_score`` is the share of ``first``'s code found in ``second``, and
    ``second_score`` the other way round (copydetect's two similarities); ``tokens`` is
    how many of ``first``'s tokens are shared. ``page`` is the side-by-side view,
    relative to the batch's output folder (listed pairs only).

    >>> pair = Pair("bob", "alice", 0.4, 0.8, 120)
    >>> pair.score, pair.listed
    (0.8, True)
    """

    first: str              # a student id
    second: str             # a student id, or a known solution's path in its folder
    first_score: float
    second_score: float
    tokens: int
    known: bool = False     # ``second`` is a known solution
    page: str = ""

    @property
    def score(self) -> float:
        """The larger of the two scores."""
        return max(self.first_score, self.second_score)

    @property
    def listed(self) -> bool:
        """Similar enough to be shown on the summary page (``LISTED_SCORE``, ``LISTED_TOKENS``)."""
        return self.score >= LISTED_SCORE and self.tokens >= LISTED_TOKENS


@dataclass(frozen=True)
class Similarity:
    """The pairs that share code, the most similar first, and what was compared.

    ``pages`` maps each listed pair's ``page`` to its HTML (see :func:`write_similarity`).

    >>> Similarity(pairs=(), submissions=3, known=0).listed
    ()
    """

    pairs: tuple[Pair, ...]
    submissions: int                 # submissions compared
    known: int                       # known solutions compared with them
    known_folder: str = ""
    unread: tuple[str, ...] = ()     # "name: why" of files that could not be read
    pages: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def listed(self) -> tuple[Pair, ...]:
        """The pairs the summary page lists (``Pair.listed``), at most ``MAX_LISTED``."""
        return tuple(pair for pair in self.pairs if pair.listed)[:MAX_LISTED]


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
    found: dict[str, Path] = {}
    for top, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders
                            if not name.startswith(".") and name not in IGNORED_NAMES)
        for name in sorted(files):
            if name.endswith(".py") and not name.startswith("."):
                path = Path(top) / name
                found[path.relative_to(folder).as_posix()] = path
    if not found:
        raise SimilarityError(f"--similarity {folder}: no .py file in the folder "
                              "(nor in its subfolders)")
    return found


def compare(submissions: Mapping[str, Path], known: Mapping[str, Path] | None = None,
            template: Path | None = TEMPLATE, known_folder: str = "") -> Similarity:
    """Compare every pair of ``submissions`` (student id -> file), and each of them with
    every ``known`` solution (name -> file), the ``template``'s code not counting.

    Returns the pairs that share code, the most similar first (then by shared tokens,
    then by name); the listed ones come with their side-by-side page. Raises
    SimilarityError when copydetect is not installed.

        found = compare({"alice": Path("alice.py"), "bob": Path("bob.py")},
                        known_solutions(Path("known")))
        [(pair.first, pair.second, pair.score) for pair in found.listed]
    """
    require_copydetect()
    import numpy
    from copydetect import CodeFingerprint

    known = known or {}
    boilerplate = numpy.array([], dtype=numpy.int64)
    if template is not None:
        text = _read(Path(template))
        if text is None:
            raise SimilarityError(f"the handout's template {template} cannot be read: "
                                  "its code is what does not count")
        hashes = CodeFingerprint(str(template), NOISE_TOKENS, 1, fp=io.StringIO(text),
                                 language="python").hashes
        boilerplate = numpy.unique(numpy.fromiter(hashes, dtype=numpy.int64, count=len(hashes)))
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
            prints[name] = CodeFingerprint(str(files[name]), NOISE_TOKENS, 1, boilerplate,
                                           fp=io.StringIO(text), language="python")
        return prints

    students, solutions = fingerprints(submissions), fingerprints(known)
    pairs = []
    ids = list(students)
    for index, first in enumerate(ids):
        others = [(second, students[second], False) for second in ids[index + 1:]]
        others += [(name, solutions[name], True) for name in solutions]
        for second, other, is_known in others:
            pair = _pair(students[first], other, first, second, is_known)
            if pair is not None:
                pairs.append(pair)
    pairs.sort(key=lambda pair: (-pair.score, -pair.tokens, pair.first, pair.known,
                                 pair.second))
    pages = []
    for index, pair in enumerate(pairs):
        if pair.listed and len(pages) < MAX_LISTED:
            page = f"{PAGES}/pair-{len(pages) + 1:03d}.html"
            other = solutions[pair.second] if pair.known else students[pair.second]
            pages.append((page, _side_by_side(pair, students[pair.first], other)))
            pairs[index] = replace(pair, page=page)
    return Similarity(tuple(pairs), len(students), len(solutions), known_folder,
                      tuple(unread), tuple(pages))


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
                round(float(second_score), 4), int(tokens), known)


_PAGE_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em;
       color: #1d2433; }
h1 { font-size: 1.4em; } h2 { font-size: 1.05em; margin: .3em 0; } .muted { color: #667; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
pre { border: 1px solid #d8dce6; border-radius: 6px; padding: .6em; overflow-x: auto;
      font-size: 13px; line-height: 1.35; margin: 0; }
mark { background: #fde2a8; }
"""


def _side_by_side(pair: Pair, first: Any, second: Any) -> str:
    """The page of one pair: both files, their shared code highlighted."""
    from copydetect import compare_files
    from copydetect.utils import highlight_overlap

    _, _, (first_slices, second_slices) = compare_files(first, second)
    codes = [highlight_overlap(fingerprint.raw_code, slices, "<mark>", "</mark>",
                               escape_html=True)[0]
             for fingerprint, slices in ((first, first_slices), (second, second_slices))]
    second_label = f"known solution {pair.second}" if pair.known else pair.second
    title = f"{pair.first} and {second_label}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title>", f"<style>{_PAGE_STYLE}</style></head><body>",
           '<p><a href="../summary.html#similarity">Class summary</a></p>',
           f"<h1>{_e(title)}</h1>",
           f"<p>{pair.first_score:.0%} of {_e(pair.first)}'s code is in {_e(second_label)}, "
           f"{pair.second_score:.0%} of {_e(second_label)}'s in {_e(pair.first)}'s; "
           f"{pair.tokens} tokens in common.</p>",
           '<p class="muted">Highlighted: the code they share, as copydetect finds it '
           f"(runs of {NOISE_TOKENS} or more tokens; names, strings and comments do not "
           "count, nor the handout's template, though a highlighted run may reach into "
           "the template's lines next to it).</p>",
           '<div class="sides">']
    for label, code in ((pair.first, codes[0]), (second_label, codes[1])):
        out.append(f"<section><h2>{_e(label)}</h2><pre><code>{code}</code></pre></section>")
    out += ["</div>", "</body></html>"]
    return "\n".join(out) + "\n"


def similarity_csv(similarity: Similarity) -> str:
    """Every pair that shares code as CSV text, the most similar first.

    >>> similarity_csv(Similarity((Pair("alice", "bob", 0.9, 0.8, 300),), 2, 0)).splitlines()[1]
    '1,alice,bob,,0.9,0.8,300,yes,'
    """
    columns = ["rank", "first", "second", "second_is_known", "first_score", "second_score",
               "tokens", "listed", "page"]
    listed = set(similarity.listed)
    rows = [{"rank": rank, "first": pair.first, "second": pair.second,
             "second_is_known": "known" if pair.known else "",
             "first_score": f"{pair.first_score:g}", "second_score": f"{pair.second_score:g}",
             "tokens": pair.tokens, "listed": "yes" if pair in listed else "",
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
                      options: SimilarityOptions) -> Similarity:
    """Compare as ``options`` say and write the results into ``out`` (a batch's folder).

        found = compare_and_write(Path("grades"), {"alice": Path("a.py"), "bob": Path("b.py")},
                                  SimilarityOptions(known=Path("known")))
    """
    known = known_solutions(options.known) if options.known is not None else {}
    found = compare(submissions, known, options.template,
                    known_folder=str(options.known) if options.known is not None else "")
    write_similarity(out, found)
    return found


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)

