"""What an assignment is: one frozen, validated value that names everything only it knows.

The grader's rooms (sandbox, timing, the suite's engine, classroom, service) know an
assignment only through this value: the functions a file must define, the names that
recognise a file as this assignment, the module constants the grader reads from the file,
the hidden checks (pytest files) and the rubric's defaults, the student's template, the
docs page, the known-answer submissions, and ``prepare``: how one grading run talks to the
student's code. An instructor's own assignment is found through the entry point group
``grader.assignments`` (see ``grader.assignments.registry``).

What students may run themselves (``python -m student check``) is declared here too:
``public_checks``, pytest files that are part of the suite (so every grade runs them, with
the same code), and ``student_speed``, the checks of speed a student runs after them (not
part of a grade: the grade judges time in its own checks). ``grader.suite.public``
runs them, in the sandbox, as a grade runs the suite.

>>> from grader.assignments import get
>>> get("montecarlo").functions
('mc_trial', 'mc_update_scores', 'get_best_move', 'mc_move')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from grader.timing.policy import TimePolicy

NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}\Z")


class AssignmentError(ValueError):
    """An assignment is not usable as declared; the message names it and what to fix."""


class Settings(Protocol):
    """What a session reads of the grading run's configuration: its time policy (the
    engine passes a ``grader.suite.config.Config``, which has it)."""

    @property
    def policy(self) -> TimePolicy: ...


class Session(Protocol):
    """One grading run's side of an assignment, made by ``Assignment.prepare``.

    ``plugin`` is a pytest plugin object whose fixtures the assignment's hidden tests take
    (``record`` comes from the engine); the engine asks it for the run's budget (seconds of
    wall time the suite may run) and, at the end, for the result's fields about the calls
    (``calls``, ``timeouts``, ``student_cpu_seconds``, ``timing``, ``not_run``,
    ``too_slow``)."""

    plugin: object
    interrupted: bool

    def budget_seconds(self) -> float: ...

    def result_fields(self) -> dict[str, Any]: ...


@dataclass(frozen=True, kw_only=True)
class Assignment:
    """One assignment, as the grader knows it.

    ``prepare(sandbox, config, exhaustive)`` is called while the sandbox starts (it must not
    call the student's code); the session it returns is used once the sandbox is ready.
    """

    name: str                         # on the command line: --assignment NAME
    title: str                        # for people: "Monte Carlo Tic-Tac-Toe"
    functions: tuple[str, ...]        # the student's functions; a file must define them all
    recognise: tuple[str, ...]        # a file defining any of these is for this assignment
    suite: tuple[Path, ...]           # the hidden checks: pytest files (rubric items)
    default_config: Path              # the rubric's weights and the time policy
    prepare: Callable[..., Session]
    template: Path | None = None      # the student's template in the handout
    constants: tuple[str, ...] = ()   # module values of the file the checks read
    docs: str = ""                    # the students' page, relative to the docs site
    known_answers: Path | None = None  # submissions/ with their expected scores (expected.json)
    # What students may run (python -m student check): pytest files of the suite whose
    # tests are the public checks (each test one check, named by its id or docstring),
    public_checks: tuple[Path, ...] = ()
    # a pytest file that judges speed as the grader does (run after them, not in a grade),
    student_speed: Path | None = None
    # and the session of such a run (None: prepare's), which must not need the hidden checks.
    prepare_public: Callable[..., Session] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME.match(self.name):
            raise AssignmentError(f"an assignment's name must be lowercase letters, digits, "
                                  f"'-' or '_' (at most 40), starting with a letter: "
                                  f"{self.name!r}")
        if not self.functions or not all(map(str.isidentifier, self.functions)):
            raise AssignmentError(f"assignment {self.name}: functions must be a non-empty "
                                  f"tuple of Python names, got {self.functions!r}")
        if not self.recognise:
            raise AssignmentError(f"assignment {self.name}: recognise names no function")
        # The hidden checks may be absent (a student handout holds only the public ones:
        # ``hidden_missing`` says which, and a grade refuses to run without them).
        if not Path(self.default_config).is_file():
            raise AssignmentError(f"assignment {self.name}: there is no file "
                                  f"{self.default_config}")
        if not self.suite:
            raise AssignmentError(f"assignment {self.name}: its suite names no test file")
        if not callable(self.prepare):
            raise AssignmentError(f"assignment {self.name}: prepare is not callable")
        self._check_public()

    def hidden_missing(self) -> tuple[Path, ...]:
        """The files of the suite that are not here: a student handout holds only the
        public checks, and cannot grade.

        >>> from grader.assignments import get
        >>> get("minimax").hidden_missing()
        ()
        """
        return tuple(Path(path) for path in self.suite if not Path(path).is_file())

    def _check_public(self) -> None:
        """Every public check is graded too: its file is in the suite. The speed checks
        are students' only: their file is not."""
        suite = {Path(path).resolve() for path in self.suite}
        for path in self.public_checks:
            if not Path(path).is_file():
                raise AssignmentError(f"assignment {self.name}: there is no file {path}")
            if Path(path).resolve() not in suite:
                raise AssignmentError(
                    f"assignment {self.name}: the public checks {path} are not in its suite: "
                    "list the file in suite too, so that every grade runs what students "
                    "check")
        speed = self.student_speed
        if speed is not None:
            if not Path(speed).is_file():
                raise AssignmentError(f"assignment {self.name}: there is no file {speed}")
            if Path(speed).resolve() in suite:
                raise AssignmentError(f"assignment {self.name}: student_speed {speed} is in "
                                      "its suite: it is for students only (a grade judges "
                                      "time in its own checks)")
            if not self.public_checks:
                raise AssignmentError(f"assignment {self.name}: student_speed needs "
                                      "public_checks")
        if self.prepare_public is not None and not callable(self.prepare_public):
            raise AssignmentError(f"assignment {self.name}: prepare_public is not callable")
