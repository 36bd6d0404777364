"""The lines of an instructor's CSV file (a roster, students' own deadlines), each with its line
number, read strictly: a file with a malformed line is refused whole, never half read.

A line is malformed when a quote is left open (the cell would run to a later line, or to the
end of the file: a name would swallow the lines after it), when a cell runs over lines, when
a quote sits inside an unquoted cell, or when the line has another number of cells than the
first line names (a comma in an unquoted name shifts every cell after it: the email would
become the name's second half). Cells after the last named column may be empty (some
programs end every line with a separator); blank lines are left out.

>>> lines = read_lines("id,name,email\\nada,\\"Lovelace, Ada\\",ada@x.org\\n\\n")
>>> [(line.number, line.cells) for line in lines]
[(1, ['id', 'name', 'email']), (2, ['ada', 'Lovelace, Ada', 'ada@x.org'])]
>>> try:
...     read_lines('id,name,email\\ns1,"Student 1,s1@example.edu\\ns2,Bob,b@x.org\\n')
... except MalformedLines as problem:
...     print(problem.problems[0])
line 2: a quote opened on this line is never closed, so the rest of the file would be one cell: close the quote, or remove it
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

MAX_PROBLEMS = 10          # a message lists at most this many lines (and says how many more)
SEPARATORS = (",", ";", "\t")


@dataclass(frozen=True)
class Line:
    """One line of the file: its number (1 for the first) and its cells."""

    number: int
    cells: list[str]


class MalformedLines(ValueError):
    """Lines that cannot be read as the first line says; ``problems`` names each ("line 3:
    ...")."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def separator(text: str) -> str:
    """The separator of the first line that holds any: comma, semicolon or tab (the most
    frequent; Excel writes semicolons where a comma is the decimal mark).

    >>> separator("id;name;email\\n"), separator("student_id,deadline\\n")
    (';', ',')
    """
    first = next((line for line in text.splitlines() if line.strip(" \t,;")), "")
    return max(SEPARATORS, key=first.count)


def read_lines(text: str, delimiter: str | None = None) -> list[Line]:
    """Every line of ``text`` that holds something, with its number; the first is the
    header. MalformedLines naming every malformed line (it stops at the first quote that is
    never closed: what follows it cannot be read)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter or separator(text),
                        strict=True)
    lines: list[Line] = []
    problems: list[tuple[int, str]] = []
    end = 0
    while True:
        start = end + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as problem:
            problems.append(_unreadable(start, reader.line_num, str(problem)))
            if "end of data" in str(problem):
                break
            end = reader.line_num
            continue
        end = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if end > start:
            problems.append((start, f"line {start}: a quoted cell runs over lines {start} to "
                                    f"{end}: a cell must end on its line (a quote left open? "
                                    "close it)"))
            continue
        lines.append(Line(start, cells))
    if lines:
        problems.extend(_widths(lines))
    if problems:
        raise MalformedLines([text for _, text in sorted(problems)])
    return lines


def _unreadable(start: int, end: int, problem: str) -> tuple[int, str]:
    if "end of data" in problem:
        return start, (f"line {start}: a quote opened on this line is never closed, so the "
                       "rest of the file would be one cell: close the quote, or remove it")
    return end, (f"line {end}: a quote inside a cell ({problem}): quote the whole cell, and "
                 'double a quote inside it ("Ada ""the Countess"" Lovelace")')


def _widths(lines: list[Line]) -> list[tuple[int, str]]:
    """Each line whose number of cells is not the header's (empty cells after the last named
    column aside)."""
    header = lines[0].cells
    width = max((index + 1 for index, cell in enumerate(header) if cell.strip()), default=0)
    problems = []
    for line in lines[1:]:
        filled = max((index + 1 for index, cell in enumerate(line.cells) if cell.strip()),
                     default=0)
        if len(line.cells) < width or filled > width:
            count = len(line.cells) if len(line.cells) < width else filled
            problems.append((line.number, f"line {line.number} has {count} cells, the first "
                                          f"line names {width} (quote a cell that holds the "
                                          "separator: \"Lovelace, Ada\"; leave a cell empty "
                                          "where there is nothing)"))
    return problems


def problems_message(source: str, problems: list[str],
                     nothing: str = "nothing was imported") -> str:
    """One sentence naming the malformed lines of ``source`` (at most MAX_PROBLEMS).

    >>> problems_message("r.csv", ["line 2: x", "line 5: y"])
    'r.csv: nothing was imported: 2 malformed lines: line 2: x; line 5: y'
    """
    shown = problems[:MAX_PROBLEMS]
    more = f"; and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    counted = "a malformed line" if len(problems) == 1 else f"{len(problems)} malformed lines"
    return f"{source}: {nothing}: {counted}: " + "; ".join(shown) + more
