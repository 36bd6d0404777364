"""One grading run as a CSV row: the scores of the run and of each item, status, times.

>>> csv_header(["scores", "moves"])
['student_id', 'score', 'max_score', 'scores', 'moves', 'status', 'cpu_seconds', 'wall_seconds']
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from grader.judge.results import GradeResult
from grader.suite.scoring import item_score, score_of
from grader.suite.writers import write_text_atomic

CSV_FIXED = ["student_id", "score", "max_score"]
CSV_TRAILING = ["status", "cpu_seconds", "wall_seconds"]


BOM = "\ufeff"   # UTF-8 with a byte-order mark: Excel then reads names like José right
# The bidirectional controls: embeddings, overrides, isolates and marks. A name with U+202E
# shows what follows it reversed ("Ada \u202egnp.exe" reads "Ada exe.png"), so one student
# can look like another; a name needs none of them to show right.
BIDI_CONTROLS = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                       "\u2066\u2067\u2068\u2069"))
FORMULA_STARTS = ("=", "+", "-", "@")


def without_bidi(text: str) -> str:
    """``text`` without its bidirectional controls, for a page or a spreadsheet to show.

    >>> without_bidi("Ada \u202egnp.exe")
    'Ada gnp.exe'
    """
    return text.translate(BIDI_CONTROLS)


def safe_cell(value: object) -> object:
    """A cell a spreadsheet shows as text: a string that starts like a formula (``=``,
    ``+``, ``-``, ``@``, their fullwidth and small forms such as ``＝``, which spreadsheets
    read as the same, or a tab or return) gets a leading ``'``; bidirectional controls are
    taken out (they could hide the formula's start); numbers are left alone.

    >>> safe_cell("=HYPERLINK(1)"), safe_cell("José"), safe_cell(-1.5)
    ("'=HYPERLINK(1)", 'José', -1.5)
    >>> safe_cell("\uff1dHYPERLINK(1)"), safe_cell("\u202e=1+1")
    ("'＝HYPERLINK(1)", "'=1+1")
    """
    if not isinstance(value, str):
        return value
    value = without_bidi(value)
    first = value[:1]
    if first in ("\t", "\r") or unicodedata.normalize("NFKC", first)[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def csv_text(fieldnames: list[str], rows: Iterable[dict]) -> str:
    """CSV text of ``rows`` (missing cells empty, every text cell safe), with a BOM."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fieldnames, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: safe_cell(value) for key, value in row.items()} for row in rows)
    return BOM + buffer.getvalue()


def csv_header(item_names: list[str]) -> list[str]:
    """The CSV columns: the fixed ones, one per rubric item, then status and times.

    >>> csv_header(["scores", "moves"])
    ['student_id', 'score', 'max_score', 'scores', 'moves', 'status', 'cpu_seconds', 'wall_seconds']
    """
    for name in item_names:
        _check_column(name)
    return CSV_FIXED + list(item_names) + CSV_TRAILING


def _check_column(item_name: str) -> None:
    if item_name in CSV_FIXED or item_name in CSV_TRAILING:
        raise ValueError(f"a rubric item cannot be called {item_name!r}: that is a CSV column")


def _status(result: GradeResult) -> str:
    if result.grader_error is not None:
        return "grader error"
    if result.load_error is not None:
        return f"not run: {result.load_kind or 'error'}"
    return "graded"


def csv_row(result: GradeResult) -> dict[str, str | float]:
    """One CSV row: the scores of the run and of each item, its status and its times.

    >>> from grader.judge.results import GradeResult, ItemResult
    >>> row = csv_row(GradeResult("s.py", "s", items=(ItemResult("scores", 20.0, 3, 4),)))
    >>> row["score"], row["scores"], row["status"]
    (15.0, 15.0, 'graded')
    """
    row: dict[str, str | float] = {
        "student_id": result.student_id,
        "score": score_of(result),
        "max_score": result.max_score,
    }
    for item in result.items:
        _check_column(item.name)
        row[item.name] = item_score(result, item)
    row["status"] = _status(result)
    row["cpu_seconds"] = round(result.student_cpu_seconds, 3)
    row["wall_seconds"] = round(result.wall_seconds, 3)
    return row


def write_csv(path: Path, results: Iterable[GradeResult]) -> None:
    """Write one row per result to ``path`` (atomically); item columns in first-seen order.

    A result without some item leaves that cell empty.
    """
    results = list(results)
    names: list[str] = []
    for result in results:
        for item in result.items:
            if item.name not in names:
                names.append(item.name)
    rows = [csv_row(result) for result in results]
    write_text_atomic(Path(path), csv_text(csv_header(names), rows))
