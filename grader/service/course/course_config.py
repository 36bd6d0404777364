"""The course's grading configuration, which stays put: what the instructor chose (on the
configuration page, or with the first ``--config``) grades every hand-in until the
instructor changes it, whatever the server is started with.

Every configuration the course ever used is kept as DATA/configs/NNN-name.cfg, so each
result's configuration can still be read; the course's setting ``config_file`` names the
one in use. A start with a ``--config`` that grades differently is refused with what
differs, unless ``--adopt-config`` says to make it the course's (as ``batch`` refuses a
class graded under another configuration unless ``--regrade-changed``).

    grading = course_grading(store, Path("ttt-course"), GradingOptions(config=None))
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from grader.classroom.run import GradingOptions
from grader.classroom.state import graded_under
from grader.service.course.folder import FILE_MODE, private_folder
from grader.service.course.storage import Store
from grader.suite import writers

CONFIGS = "configs"              # DATA/configs/NNN-name.cfg: every configuration used
CONFIG_SETTING = "config_file"   # the store's setting: the configuration in use now
ADOPT_FLAG = "--adopt-config"


class ConfigChanged(Exception):
    """A start's ``--config`` grades differently from the course's configuration; the
    message names what differs and the flag that adopts it."""


def save_config(data: Path, text: str, name: str) -> Path:
    """Keep ``text`` as DATA/configs/NNN-NAME.cfg (every configuration ever used stays,
    so that each result's configuration can still be read).

    >>> import tempfile
    >>> save_config(Path(tempfile.mkdtemp()), "[rubric]\\n", "my rubric.cfg").name
    '001-my_rubric.cfg'
    """
    folder = private_folder(Path(data) / CONFIGS)          # 0700 from the start
    stem = re.sub(r"^\d{3}-", "", Path(name).stem)      # a saved one, edited again
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem)[:40].strip("._-") or "config"
    number = 1 + max((int(path.name[:3]) for path in folder.glob("[0-9][0-9][0-9]-*.cfg")),
                     default=0)
    path = folder / f"{number:03d}-{stem}.cfg"
    writers.write_text_atomic(path, text)
    path.chmod(FILE_MODE)                  # write_text_atomic makes it 0644: the course's alone
    return path


def adopt(store: Store, data: Path, source: Path) -> Path:
    """Make the configuration file ``source`` the course's (a kept copy of it)."""
    path = save_config(data, Path(source).read_text(encoding="utf-8"), Path(source).name)
    store.set_setting(CONFIG_SETTING, str(path.resolve()))
    return path


def course_config(store: Store) -> Path | None:
    """The course's configuration file (None: the default configuration)."""
    chosen = store.get_setting(CONFIG_SETTING)
    return Path(chosen) if chosen else None


def course_assignment(store: Store, given: str | None, who: str = "command line",
                      new_course: bool = False) -> str:
    """``serve --assignment NAME``: the course holds NAME from now on (added, open, when it
    did not), beside every assignment it held, the minimax it lists before it holds any
    included, unless this start made the course (``new_course``: the options then say
    what it holds); what it says. ConfigChanged when the grader knows no such assignment."""
    from grader.service.course import course_assignments
    if not given:
        return ""
    if store.database.one("SELECT 1 FROM assignments WHERE name = ?", (given,)):
        return ""
    try:
        added = course_assignments.add(store, given, who=who, keep_default=not new_course)
    except course_assignments.AssignmentRefused as problem:
        raise ConfigChanged(str(problem)) from None
    return f"the course now holds the assignment {added.title} ({added.name})"


def course_grading(store: Store, data: Path, grading: GradingOptions,
                   adopt_given: bool = False) -> tuple[GradingOptions, str]:
    """The grading options to serve with, and a sentence on what was decided.

    No ``--config``: the course's configuration (the default until one is chosen). A
    ``--config`` when the course has none yet, or with ``adopt_given``: it becomes the
    course's. A ``--config`` that grades as the course's does: the course's is kept.
    Otherwise ConfigChanged, naming what differs.
    """
    course_assignment(store, grading.assignment)
    grading = dataclasses.replace(grading, assignment=None)   # each hand-in's own
    chosen = course_config(store)
    if chosen is not None and not chosen.is_file():
        raise ConfigChanged(f"the course's configuration {chosen} is missing (it was kept in "
                            f"{Path(data) / CONFIGS}): restore the folder from its backup, "
                            f"or give --config FILE {ADOPT_FLAG} to choose one again")
    if grading.config is None:
        if chosen is None:
            return grading, "the default configuration (none chosen yet)"
        return (dataclasses.replace(grading, config=chosen.resolve()),
                f"the course's configuration {chosen.name}")
    given = Path(grading.config)
    if chosen is None or adopt_given:
        path = adopt(store, data, given)
        return (dataclasses.replace(grading, config=path.resolve()),
                f"{given} is now the course's configuration (kept as {path.name})")
    ours = dataclasses.replace(grading, config=chosen.resolve())
    differences = graded_under(grading).differences(graded_under(ours).to_json())
    if differences:
        raise ConfigChanged(
            f"--config {given} grades differently from the course's configuration "
            f"{chosen.name} ({'; '.join(differences)}). The course keeps its own: start "
            f"without --config, or add {ADOPT_FLAG} to make {given.name} the course's from "
            "now on (earlier results keep the one they were graded under; regrade everyone "
            "on the configuration page to grade them all under it)")
    return ours, f"the course's configuration {chosen.name} (the same as {given})"


def grading_described(store: Store, course: Path | None) -> str:
    """What each of the course's assignments is graded under, for the start line: its own
    configuration, the course's (``course``, when it is one for its rubric), or its
    defaults.

    >>> import tempfile
    >>> from grader.service.course import auth
    >>> folder = Path(tempfile.mkdtemp())
    >>> grading_described(Store(folder / "c.sqlite3", auth.load_secret(folder)), None)
    'grading minimax under its default configuration'
    """
    from grader.service.course import course_assignments
    parts = []
    for one in course_assignments.listing(store):
        own = course_assignments.own_settings(store, one.name).get(CONFIG_SETTING)
        used = course_assignments.config_of(store, one.name, course)
        parts.append(f"{one.name} under " + (
            f"its own configuration {Path(own).name}" if own
            else f"the course's configuration {used.name}" if used is not None
            else "its default configuration"))
    return "grading " + "; ".join(parts)
