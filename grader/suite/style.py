"""Style, as the course graded it: pylint on the submission with the course's configuration.

The optional rubric item ``style`` (off, 0 points, in the default rubric) runs pylint with
``style_pylintrc.ini`` (this folder, shipped with the package): a short list of checks the
course cared about, docstrings, names, line length, layout, unused imports and variables,
functions too complex. Each message pylint gives is one deduction (a badly named name once
per function, whatever lines it is on), told as the line, the message id and symbol,
pylint's message, and what to do.

pylint runs in a subprocess of its own, with a time limit, on a copy of the submission alone
in a fresh folder, from another empty folder, with no plugins and no extension modules: it
reads the file, it never runs it, and nothing of the submission's folder is loaded. The
grader's process never imports the submission either.

The scoring rule: each deduction costs ``1/ALLOWANCE`` of the item's points; ``ALLOWANCE``
deductions or more cost all of them.

>>> issue = StyleIssue(12, "C0103", "invalid-name",
...                    'Variable name "bestScore" doesn\\'t conform to snake_case naming style')
>>> print(issue)
line 12: C0103 invalid-name: Variable name "bestScore" doesn't conform to snake_case naming style
>>> StyleResult((issue, issue, issue)).fraction
0.7

    result = check_style(Path("submission.py"))    # pylint runs here (about a second)
    for issue in result.issues:
        print(issue, "--", issue.advice)
"""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Iterator

from grader.judge.results import Failure

RCFILE = "style_pylintrc.ini"   # in this package (grader.suite): the course's configuration
TIMEOUT = 60.0                  # seconds pylint may take; it needs about one
ALLOWANCE = 10                  # each deduction costs 1/ALLOWANCE of the item's points
# The course's own modules: its template imports them, so an unused one is not the student's.
COURSE_MODULES = frozenset({"provided", "poc_ttt_provided", "poc_ttt_gui", "codeskulptor",
                            "simplegui"})
# How the grader runs pylint (the style itself is the rcfile's): nothing loaded from anywhere
# but pylint, nothing cached, one process, only the messages.
SAFE_OPTIONS = ("--load-plugins=", "--unsafe-load-any-extension=n",
                "--extension-pkg-allow-list=", "--persistent=n", "--jobs=1",
                "--output-format=json", "--reports=n", "--score=n")
# pylint's exit status is a bit mask: 2 error, 4 warning, 8 refactor, 16 convention messages
# were given (all fine); 1 a fatal message, 32 a usage error (pylint could not do its job).
MESSAGE_BITS = 2 | 4 | 8 | 16
# What to do about each message, in the course's words.
ADVICE = {
    "missing-module-docstring":
        "start the file with a docstring: a line in triple quotes that says what it is",
    "missing-function-docstring":
        "add a docstring under the def line: what the function takes and what it returns",
    "missing-class-docstring":
        "add a docstring under the class line: what the class stands for",
    "invalid-name":
        "rename it: functions and variables in snake_case (best_score), constants in "
        "UPPER_CASE (SCORES), classes in PascalCase (GameTree)",
    "line-too-long":
        "split the line: break it inside brackets, or give a part of it a name",
    "bad-indentation": "indent with 4 spaces per level",
    "multiple-statements": "put each statement on a line of its own",
    "unnecessary-semicolon": "delete the semicolon: a line ends a statement in Python",
    "unused-import": "delete the import (the course's own imports are not counted)",
    "unused-variable": "delete it, or start its name with _ if it must be there",
    "too-many-branches":
        "split the function: move a part of it into a helper function with its own docstring",
    "too-many-statements":
        "split the function: move a part of it into a helper function with its own docstring",
    "too-many-locals":
        "split the function, or keep fewer names at once: a helper function can hold some",
    "too-many-nested-blocks":
        "nest less: return early, or move the inner loop into a helper function",
}
_INVALID_NAME = re.compile(r'(?P<kind>[\w ]+?) name "(?P<name>\w+)" doesn\'t conform to '
                           r'(?P<style>\w+) naming style')
_UNUSED_VARIABLE = re.compile(r"Unused variable '(?P<name>\w+)'")
_UNUSED_IMPORT = re.compile(
    r"Unused (?:import (?P<plain>[\w.]+)|(?P<aliased>[\w.]+) imported as \w+"
    r"|[\w.]+ imported from (?P<source>[\w.]+)(?: as \w+)?)$")


class StyleError(RuntimeError):
    """pylint could not judge the submission's style; the message says why (the grader's
    fault, never the student's: the item is then not scored)."""


@dataclass(frozen=True)
class StyleIssue:
    """One message of pylint: a deduction on one line of the submission."""

    line: int
    message_id: str    # "C0103"
    symbol: str        # "invalid-name"
    message: str       # pylint's own words
    obj: str = ""      # the function or class it is in ("" at the top of the file)
    also: tuple[int, ...] = ()   # the other lines of the same name (it counts once)

    def __str__(self) -> str:
        """The deduction's line, as the report shows it.

        >>> print(StyleIssue(3, "W0612", "unused-variable", "Unused variable 'x'", also=(9,)))
        line 3: W0612 unused-variable: Unused variable 'x' (also line 9)
        """
        text = f"line {self.line}: {self.message_id} {self.symbol}: {self.message}"
        if self.also:
            text += f" (also line{'s' if len(self.also) > 1 else ''} "
            text += ", ".join(map(str, self.also)) + ")"
        return text

    @property
    def advice(self) -> str:
        """What to do about it, in a sentence (for a name, the name it should have).

        >>> StyleIssue(3, "W0611", "unused-import", "Unused import math").advice
        "delete the import (the course's own imports are not counted)"
        >>> StyleIssue(9, "C0103", "invalid-name", 'Variable name "bestScore" doesn\\'t '
        ...            'conform to snake_case naming style').advice
        'rename it best_score: the course names variables in snake_case'
        """
        name = _INVALID_NAME.match(self.message) if self.symbol == "invalid-name" else None
        if name is not None:
            kind, style = name["kind"].lower(), name["style"]
            kinds = kind + ("es" if kind.endswith("s") else "s")
            advice = (f"rename it {renamed(name['name'], style)}: the course names {kinds} "
                      f"in {style}")
            if kind == "constant":
                advice += " (a name given its value once, at the top of the file, is a constant)"
            return advice
        unused = _UNUSED_VARIABLE.match(self.message) if self.symbol == "unused-variable" else None
        if unused is not None:
            return (f"delete it, or rename it _{unused['name'].lstrip('_')} if it must be there "
                    "(a name that starts with _ says it is not used)")
        return ADVICE.get(self.symbol, "")

    def failure(self) -> Failure:
        """This deduction as the report shows it: the line, and what to do (as ``why``); no
        call and no answer (``grader.suite.report`` calls such a failure a deduction).

        >>> StyleIssue(1, "C0114", "missing-module-docstring", "Missing module docstring"
        ...            ).failure().call
        'line 1: C0114 missing-module-docstring: Missing module docstring'
        """
        return Failure(category=self.symbol, call=str(self), expected="", received="",
                       why=self.advice)


@dataclass(frozen=True)
class StyleResult:
    """What pylint found, in the order of the file's lines, and the share of the item kept."""

    issues: tuple[StyleIssue, ...] = ()

    @property
    def fraction(self) -> float:
        """The share of the item's points kept: 1 without deductions, 0 with ALLOWANCE or more.

        >>> StyleResult().fraction
        1.0
        """
        return self.kept / ALLOWANCE

    @property
    def kept(self) -> int:
        """How many of the ALLOWANCE deductions are left (the checks a recorder counts passed).

        >>> StyleResult().kept
        10
        """
        return max(0, ALLOWANCE - len(self.issues))


def renamed(name: str, style: str) -> str:
    """``name`` written in pylint's naming ``style`` (snake_case, UPPER_CASE, PascalCase).

    >>> renamed("bestScore", "snake_case"), renamed("memo", "UPPER_CASE")
    ('best_score', 'MEMO')
    >>> renamed("game_tree", "PascalCase")
    'GameTree'
    """
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    if style == "UPPER_CASE":
        return snake.upper()
    if style == "PascalCase":
        return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    return snake


def rule() -> str:
    """The scoring rule and what is checked, for the report (a student reads it).

    >>> "costs 1/10 of this item's points" in rule()
    True
    """
    return (f"style is checked by pylint, as the course did: docstrings; names (functions "
            f"and variables in snake_case, constants in UPPER_CASE, classes in PascalCase); "
            f"lines of at most {max_line_length()} characters; 4 spaces per level and one "
            f"statement per line; unused imports and variables; functions too long, too "
            f"branchy or too deeply nested. Each message costs 1/{ALLOWANCE} of this item's "
            f"points ({ALLOWANCE} or more cost all of them; a name counts once per function, "
            f"whatever lines it is on). The course's own imports are not counted, and "
            f"`# pylint:` comments in your file are not obeyed.")


@contextmanager
def pylintrc() -> Iterator[Path]:
    """The course's pylint configuration as a file on disk, from the installed package
    (``importlib.resources``: it works from a wheel or a zip too).

    >>> with pylintrc() as path:
    ...     path.name
    'style_pylintrc.ini'
    """
    with resources.as_file(resources.files("grader.suite") / RCFILE) as path:
        if not path.is_file():
            raise StyleError(f"the course's pylint configuration {RCFILE} is missing from the "
                             "installed grader (grader/suite): reinstall it")
        yield path


def _rcfile() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
    with pylintrc() as path:
        parser.read(path, encoding="utf-8")
    return parser


def course_checks() -> tuple[str, ...]:
    """The checks the course's configuration enables (pylint's symbols), in its order.

    >>> course_checks()[:2]
    ('missing-module-docstring', 'missing-function-docstring')
    """
    text = _rcfile().get("MESSAGES CONTROL", "enable", fallback="")
    return tuple(name.strip() for name in text.replace("\n", ",").split(",") if name.strip())


def max_line_length() -> int:
    """The longest line the course's configuration accepts.

    >>> max_line_length()
    90
    """
    return _rcfile().getint("FORMAT", "max-line-length", fallback=100)


def is_course_import(issue: StyleIssue) -> bool:
    """An unused import of one of the course's own modules: its template's, not counted.

    >>> is_course_import(StyleIssue(1, "W0611", "unused-import", "Unused import poc_ttt_gui"))
    True
    >>> is_course_import(StyleIssue(2, "W0611", "unused-import",
    ...                             "Unused DRAW imported from poc_ttt_provided as D"))
    True
    >>> is_course_import(StyleIssue(3, "W0611", "unused-import", "Unused import math"))
    False
    """
    if issue.symbol != "unused-import":
        return False
    match = _UNUSED_IMPORT.match(issue.message)
    if match is None:
        return False
    module = match["plain"] or match["aliased"] or match["source"]
    return module.split(".")[0] in COURSE_MODULES


def parse_messages(text: str) -> tuple[StyleIssue, ...]:
    """pylint's JSON output (``--output-format=json``) as issues, in the file's order.

    >>> parse_messages('[{"line": 4, "message-id": "C0116", '
    ...                '"symbol": "missing-function-docstring", '
    ...                '"message": "Missing function or method docstring"}]')[0].line
    4
    """
    try:
        messages = json.loads(text)
        issues = [StyleIssue(int(message["line"]), str(message["message-id"]),
                             str(message["symbol"]), str(message["message"]),
                             str(message.get("obj") or ""))
                  for message in messages]
    except (ValueError, TypeError, KeyError) as problem:
        start = text.strip()[:200] or "nothing"
        raise StyleError(f"pylint's output is not the JSON list of messages expected "
                         f"({type(problem).__name__}: {problem}); it began: {start}") from None
    return tuple(sorted(issues, key=lambda issue: (issue.line, issue.message_id)))


def deductions(issues: tuple[StyleIssue, ...],
               checks: tuple[str, ...] | None = None) -> StyleResult:
    """The issues that count: every message of the course's checks but the course's own
    imports, and a badly named name once per function (pylint flags it wherever it is
    given a value; renaming it is one fix). A message of any other kind means pylint did
    not run as configured (an option it does not know, a crash): the grader's problem, a
    StyleError.

    >>> docstring = StyleIssue(1, "C0114", "missing-module-docstring", "Missing module docstring")
    >>> gui = StyleIssue(2, "W0611", "unused-import", "Unused import poc_ttt_gui")
    >>> deductions((docstring, gui)).issues == (docstring,)
    True
    >>> name = 'Variable name "X" does not conform to snake_case'
    >>> twice = (StyleIssue(4, "C0103", "invalid-name", name, "f"),
    ...          StyleIssue(7, "C0103", "invalid-name", name, "f"))
    >>> for issue in deductions(twice).issues:
    ...     print(issue)
    line 4: C0103 invalid-name: Variable name "X" does not conform to snake_case (also line 7)
    """
    checks = course_checks() if checks is None else checks
    for issue in issues:
        if issue.symbol not in checks:
            raise StyleError(f"pylint gave {issue.message_id} {issue.symbol} ({issue.message}), "
                             f"which is none of the course's checks in {RCFILE}: pylint did "
                             f"not run with the grader's configuration as it should")
    kept: dict[tuple[str, ...], StyleIssue] = {}
    for number, issue in enumerate(issues):
        if is_course_import(issue):
            continue
        key = (issue.symbol, issue.message, issue.obj) if issue.symbol == "invalid-name" \
            else (str(number),)
        first = kept.get(key)
        kept[key] = issue if first is None else replace(first, also=first.also + (issue.line,))
    return StyleResult(tuple(kept.values()))


def check_style(submission: Path, timeout: float = TIMEOUT) -> StyleResult:
    """Run pylint with the course's configuration on ``submission``; its deductions.

    Raises StyleError when the file cannot be read, or pylint is missing, fails or takes
    more than ``timeout`` seconds (it is stopped then).
    """
    try:
        source = Path(submission).read_bytes()
    except OSError as problem:
        raise StyleError(f"cannot read the submission {submission} for the style check: "
                         f"{problem.strerror or problem}") from None
    with tempfile.TemporaryDirectory(prefix="grader-style-") as temp, pylintrc() as rcfile:
        folder, cwd = Path(temp, "submission"), Path(temp, "cwd")
        folder.mkdir()
        cwd.mkdir()
        # A fixed name: nothing pylint imports may be shadowed by the student's file name.
        target = folder / "submission.py"
        # Same length, so line lengths do not change; "pylint;" is no pragma to pylint.
        target.write_bytes(source.replace(b"pylint:", b"pylint;"))
        command = [sys.executable, "-m", "pylint", f"--rcfile={rcfile}", *SAFE_OPTIONS,
                   str(target)]
        env = {**os.environ, "PYLINTHOME": temp}
        env.pop("PYLINTRC", None)
        try:
            done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=timeout, start_new_session=True, check=False)
        except subprocess.TimeoutExpired:
            raise StyleError(f"pylint took more than {timeout:g} s on {submission} and was "
                             "stopped: the style item is not scored") from None
        except OSError as problem:
            raise StyleError(f"cannot start pylint ({sys.executable} -m pylint): "
                             f"{problem.strerror or problem}") from None
    if done.returncode < 0 or done.returncode & ~MESSAGE_BITS:
        raise StyleError(_failure_text(done))
    return deductions(parse_messages(done.stdout))


def _failure_text(done: subprocess.CompletedProcess) -> str:
    """Why pylint failed, in one line, from what it said."""
    lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
    if any("No module named pylint" in line for line in lines):
        return (f"pylint is not installed for {sys.executable}: install the grader's "
                "dependencies (python3 -m pip install -e .)")
    try:
        fatal = [message for message in json.loads(done.stdout)
                 if message.get("type") == "fatal"]
    except (ValueError, AttributeError, TypeError):
        fatal = []
    if fatal:
        said = f"{fatal[0].get('message-id')} {fatal[0].get('symbol')}: {fatal[0].get('message')}"
    else:
        said = lines[-1] if lines else "it said nothing"
    return f"pylint failed on the submission (exit status {done.returncode}): {said}"
