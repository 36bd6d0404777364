"""The files ``grader serve`` reads and prints from the command line: a roster (``--roster``),
students' own deadlines (``--deadlines``) and the links (``--links``, CSV for a mail merge).

    import_roster(store, Path("roster.csv"))                 # (added, updated)
    import_deadlines(store, Path("extensions.csv"), zone)    # {"minimax": 2, ...}
    print_links(store, "https://grader.example.org")
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterable

from grader.service.course.deadline_csv import DeadlineError, read_deadlines_csv
from grader.service.course.storage import Store
from grader.suite import table

LINKS_COLUMNS = ["student_id", "name", "email", "link"]


def _entry(entry: Any) -> tuple[str, str, str]:
    """A roster entry as (id, name, email)."""
    if isinstance(entry, tuple):
        return entry
    student_id = getattr(entry, "student_id", None) or getattr(entry, "id")
    return str(student_id), str(getattr(entry, "name", "") or ""), \
        str(getattr(entry, "email", "") or "")


def import_roster(store: Store, path: Path) -> tuple[int, int]:
    """Read ``path`` with the instructor side's roster reader and update the students (a
    line without an id keeps the id the course gave its email); its notes are said."""
    from grader.classroom.roster import load_roster
    roster = load_roster(path, known_emails(store),
                         [student.id for student in store.students()])
    for note in roster.notes:
        print(f"python -m grader serve: note: {note}", file=sys.stderr)
    return store.upsert_students([_entry(entry) for entry in roster.entries],
                                 {entry.student_id: roster.identifiers(entry)
                                  for entry in roster.entries})


def known_emails(store: Store) -> dict[str, str]:
    """The course's students' ids by email in lower case (for a roster line without an id)."""
    return {student.email.casefold(): student.id for student in store.students()
            if student.email}


def print_links(store: Store, base_url: str, rows: Iterable[str] | None = None,
                bom: bool = True) -> None:
    """CSV student_id,name,email,link on stdout (only ``rows``' ids, when given), as the
    other CSVs are: cells safe from spreadsheets' formulas, and UTF-8 with a byte-order
    mark when ``bom`` (what Excel needs to read accents in ``--links > links.csv``; a
    terminal shows it as a stray character, so not there)."""
    wanted = None if rows is None else set(rows)
    lines = [{"student_id": link.student_id, "name": link.name, "email": link.email,
              "link": link.link}
             for link in store.student_links(base_url)
             if wanted is None or link.student_id in wanted]
    text = table.csv_text(LINKS_COLUMNS, lines)
    if not bom:
        text = text.removeprefix(table.BOM)
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def links_are_a_file() -> bool:
    """Whether ``--links`` writes to a file (or a pipe), which gets Excel's byte-order mark,
    rather than to a terminal, which would show it as garbage."""
    try:
        return not sys.stdout.isatty()
    except (AttributeError, ValueError):      # closed or replaced: not a terminal
        return True


def import_deadlines(store: Store | None, path: Path, zone: Any,
                     who: str = "command line") -> dict[str, int]:
    """Give students their own deadlines from the CSV at ``path``: all, or none. How many
    of each assignment. Without ``store``, only read the file (DeadlineError when it would
    be refused whatever the course holds), and store nothing."""
    from grader.service.pages.records_routes import store_deadlines
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DeadlineError(f"{path} is not UTF-8 text: save it as CSV UTF-8") from None
    entries = read_deadlines_csv(text, zone, str(path))
    return {} if store is None else store_deadlines(store, entries, who=who)
