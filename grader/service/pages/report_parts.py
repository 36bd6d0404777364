"""The terminal report of a grading run, read back into the parts a page shows.

``python -m grader grade`` writes one text report (``grader.suite.report.text_report``) and
the submission page shows the same report, in the same order: the lead (the likely cause of
many failures, a file that cannot run, a game the file starts at import), the lines to paste,
the rubric, then each item's failures with the item that is the cause first, then the time
limits. This module parses that text; it needs nothing but the text, and a text it does not
recognise gives None (the page then shows the text as it is).

    parts = parse_report(row.report_text)
    parts.lead[0].kind, [section.name for section in parts.sections]

The report's prose is wrapped at ``grader.suite.causes.WIDTH`` for a terminal; a paragraph of
prose is joined back into lines a browser wraps itself (see :func:`reflow`), while calls,
boards and code keep their lines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from grader.suite.causes import WIDTH

# An item's line in the overview: "[ok] scores (15.0 / 15.0)" or "[-5.0 pts] scores: ...".
_SUMMARY = re.compile(r"^\[(?:ok|-[<\d.]+ pts)\] ")
# An item's title in the details: "--- scores (8.92 / 15.0) -----...".
_TITLE = re.compile(r"^--- (?P<name>.+) \((?P<score>[<\d.]+) / (?P<max>[\d.]+)\) -{3,}$")
# Where a report points at the item that decided its failures: "see 'time'".
_SEE = re.compile(r"""\b[Ss]ee (['"])(?P<name>.+?)\1""")
# How a failure's line starts: a call of a student's function (any assignment's, see
# _call_starts), or the lines a check pastes before it (a seed, the scores grid, the board).
_FUNCTIONS = ("mm_move(", "move_wrapper(", "play_game(", "random.seed(", "scores = ",
              "board = ")


@functools.lru_cache(maxsize=1)
def _call_starts() -> tuple[str, ...]:
    """_FUNCTIONS and a call of every installed assignment's functions."""
    from grader.assignments import available
    return _FUNCTIONS + tuple(f"{name}(" for assignment in available()
                              for name in assignment.functions)
_FOOTER = "student code: "
_PASTE = "To try a call below"
CODE_INDENT = 4              # lines indented this much are code or boards, never prose


@dataclass(frozen=True)
class Line:
    """A line of a paragraph: prose (``code`` False; ``indent`` > 0 is a sub-line of the
    one above) or a line of code, a board or a program's output, kept as it is.

    >>> Line("from provided import *", code=True).code
    True
    """

    text: str
    code: bool = False
    indent: int = 0


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of the report. ``kind``: "cause" (the likely cause of many failures),
    "cannot-run", "grader-error", "no-answer", "note", "paste" or "text".

    >>> Paragraph("note", (Line("note: ..."),)).headline
    'note: ...'
    """

    kind: str
    lines: tuple[Line, ...]

    @property
    def headline(self) -> str:
        """Its first line (a file that cannot run: what the page says first)."""
        return self.lines[0].text if self.lines else ""

    @property
    def chunks(self) -> tuple[Line, ...]:
        """Its lines with consecutive lines of code as one (a page's ``<pre>``).

        >>> Paragraph("paste", (Line("Paste:"), Line("a", True), Line("b", True))).chunks[1]
        Line(text='a\\nb', code=True, indent=0)
        """
        found: list[Line] = []
        for line in self.lines:
            if line.code and found and found[-1].code:
                found[-1] = Line(found[-1].text + "\n" + line.text, code=True)
            else:
                found.append(line)
        return tuple(found)


@dataclass(frozen=True)
class Board:
    """A board a failure shows: "board", "board before the call" or "board after the call"."""

    label: str
    text: str


@dataclass(frozen=True)
class Block:
    """A paragraph of an item's details: a failure in full (``call`` to paste, ``verdict``
    "expected ... but received ...", boards, why, the game's moves) or, with no call, a
    line of the report as it is (``other``).

    >>> parse_block("mm_move(b, PLAYERX) expected score 0 but received (1, (0, 0))").verdict
    'expected score 0 but received (1, (0, 0))'
    """

    call: str = ""
    verdict: str = ""
    boards: tuple[Board, ...] = ()
    why: str = ""
    moves: str = ""
    other: str = ""            # lines the page shows as they are (notes, counts, a deduction)


@dataclass(frozen=True)
class Section:
    """One rubric item's details, as the report orders them (the cause's item first)."""

    name: str
    score: str
    max_score: str
    blocks: tuple[Block, ...]
    is_cause: bool = False


@dataclass(frozen=True)
class ReportParts:
    """The report split as the page shows it. ``summary``: the overview's item lines;
    ``footer``: the cost of the student's code and the time limits, said once."""

    lead: tuple[Paragraph, ...]
    summary: tuple[str, ...]
    paste: Paragraph | None
    sections: tuple[Section, ...]
    footer: tuple[Paragraph, ...]

    @property
    def cannot_run(self) -> Paragraph | None:
        """The paragraph saying the file could not be run (None when it ran)."""
        return next((paragraph for paragraph in self.lead if paragraph.kind == "cannot-run"),
                    None)

    @property
    def causes(self) -> tuple[Paragraph, ...]:
        return tuple(paragraph for paragraph in self.lead if paragraph.kind == "cause")


def paragraphs(lines: list[str]) -> list[list[str]]:
    """``lines`` split at blank lines, each paragraph's lines as they are.

    >>> paragraphs(["a", "b", "", "", "c"])
    [['a', 'b'], ['c']]
    """
    found: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def reflow(lines: list[str], width: int = WIDTH) -> tuple[Line, ...]:
    """A paragraph's lines with the terminal's wrapping undone: a line joins the one above
    when both are prose at the same indent and the report's wrapping (``textwrap`` at
    ``width``) would have put its first word there, had it fitted. Lines indented 4 or
    more are code or boards and keep their lines.

    >>> [line.text for line in reflow(["one two three", "four", "five"], width=15)]
    ['one two three four', 'five']
    >>> [line.text for line in reflow(["short line", "another", "    code()"])]
    ['short line', 'another', 'code()']
    """
    found: list[Line] = []
    previous = ""
    for raw in lines:
        indent = _indent(raw)
        text = raw.strip()
        if indent >= CODE_INDENT:
            found.append(Line(raw[CODE_INDENT:], code=True))
            previous = ""
            continue
        first_word = text.split()[0] if text else ""
        wrapped_here = (previous and _indent(previous) == indent and len(previous) <= width
                        and len(previous) + 1 + len(first_word) > width)
        if wrapped_here:
            last = found[-1]
            found[-1] = Line(f"{last.text} {text}", indent=last.indent)
            previous = raw         # the next line is tested against this one, as wrapped
        else:
            found.append(Line(text, indent=indent))
            previous = raw
    return tuple(found)


def _verbatim(lines: list[str]) -> tuple[Line, ...]:
    """A paragraph whose lines are not wrapped prose (an error message): line by line."""
    return tuple(Line(raw[CODE_INDENT:], code=True) if _indent(raw) >= CODE_INDENT
                 else Line(raw.strip(), indent=_indent(raw)) for raw in lines)


def lead_paragraph(lines: list[str]) -> Paragraph:
    """A paragraph of the report's lead, with its kind.

    >>> lead_paragraph(["Your submission could not be run (syntax), so nothing was graded "
    ...                 "(score 0).", "line 7: SyntaxError: expected ':'",
    ...                 "    def mm_move(board, player)"]).lines[2]
    Line(text='def mm_move(board, player)', code=True, indent=0)
    """
    first = lines[0]
    if first.startswith("Your submission could not be run"):
        return Paragraph("cannot-run", _verbatim(lines))
    if first.startswith("GRADER ERROR"):
        return Paragraph("grader-error", _verbatim(lines))
    if first.startswith("No call gave an answer"):
        return Paragraph("no-answer", _verbatim(lines))
    if first.startswith("note:"):
        return Paragraph("note", reflow(lines))
    return Paragraph("cause", reflow(lines))


def parse_block(text: str) -> Block:
    """A paragraph of an item's details: a failure in full, or other lines as they are."""
    lines = text.splitlines()
    first = lines[0] if lines else ""
    call = verdict = ""
    if first.startswith(_call_starts()):
        for word in (" expected ", " received "):
            if word in first:
                call, _, rest = first.partition(word)
                verdict = word.strip() + " " + rest
                break
    if not call:
        return Block(other=text)
    boards: list[Board] = []
    why: list[str] = []
    moves = ""
    other: list[str] = []
    label = ""
    board: list[str] = []

    def close_board() -> None:
        nonlocal label, board
        if label:
            boards.append(Board(label, "\n".join(board)))
        label, board = "", []

    for line in lines[1:]:
        stripped = line.strip()
        if label and _indent(line) >= CODE_INDENT:
            board.append(line[CODE_INDENT:])
            continue
        close_board()
        if stripped in ("board:", "board before the call:", "board after the call:"):
            label = stripped[:-1]
        elif stripped.startswith("why: "):
            why.append(stripped[len("why: "):])
        elif why and not other and _indent(line) >= 7 and not moves:
            why.append(stripped)          # the why's own further lines (a line of best play)
        elif stripped.startswith("moves: "):
            moves = stripped[len("moves: "):]
        else:
            other.append(stripped)
    close_board()
    return Block(call, verdict, tuple(boards), "\n".join(why), moves, "\n".join(other))


def _section(title: re.Match[str], body: list[str]) -> Section:
    return Section(title["name"], title["score"], title["max"],
                   tuple(parse_block("\n".join(lines)) for lines in paragraphs(body)))


def parse_report(text: str | None) -> ReportParts | None:
    """The parts of a report as ``grader grade`` writes it; None when ``text`` is not one
    (no "Submission:" header, or no line per rubric item).

    >>> parts = parse_report("Submission: s.py\\nStudent: s\\nScore: 20 / 20\\n\\n"
    ...                      "[ok] scores (20.0 / 20.0)\\n\\nstudent code: 0.10 s CPU\\n")
    >>> parts.summary, parts.lead, parts.sections, parts.footer[0].headline
    (('[ok] scores (20.0 / 20.0)',), (), (), 'student code: 0.10 s CPU')
    """
    if not text or not text.startswith("Submission: "):
        return None
    lines = text.splitlines()
    start = next((index for index, line in enumerate(lines) if _SUMMARY.match(line)), None)
    if start is None:
        return None
    header_end = next((index for index, line in enumerate(lines) if not line.strip()), start)
    lead = tuple(lead_paragraph(paragraph)
                 for paragraph in paragraphs(lines[header_end:start]))
    end = start
    while end < len(lines) and _SUMMARY.match(lines[end]):
        end += 1
    summary = tuple(lines[start:end])
    paste: Paragraph | None = None
    sections: list[Section] = []
    footer: list[Paragraph] = []
    title: re.Match[str] | None = None
    body: list[str] = []
    rest = lines[end:]
    index = 0
    while index < len(rest):
        line = rest[index]
        found = _TITLE.match(line)
        if found:
            if title is not None:
                sections.append(_section(title, body))
            title, body = found, []
        elif line.startswith(_FOOTER) and (index == 0 or not rest[index - 1].strip()):
            footer = [Paragraph("text", reflow(paragraph))
                      for paragraph in paragraphs(rest[index:])]
            break
        elif title is not None:
            body.append(line)
        elif line.startswith(_PASTE):
            lines_of = paragraphs(rest[index:])[0]
            paste = Paragraph("paste", reflow(lines_of))
            index += len(lines_of)
            continue
        index += 1
    if title is not None:
        sections.append(_section(title, body))
    return ReportParts(lead, summary, paste, _mark_causes(lead, tuple(sections)), tuple(footer))


def _mark_causes(lead: tuple[Paragraph, ...], sections: tuple[Section, ...]
                 ) -> tuple[Section, ...]:
    """The sections of the items the report names as the cause: those its lead or its other
    items point to ("see 'time'"), and the first when the lead names a cause (the report
    puts the cause's item first)."""
    texts = [line.text for paragraph in lead for line in paragraph.lines]
    texts += [block.other for section in sections for block in section.blocks]
    named = {found["name"] for text in texts for found in _SEE.finditer(text)}
    has_cause = any(paragraph.kind == "cause" for paragraph in lead)
    return tuple(Section(section.name, section.score, section.max_score, section.blocks,
                         section.name in named or (has_cause and index == 0))
                 for index, section in enumerate(sections))
