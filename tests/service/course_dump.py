"""A whole course as data, to compare before and after a request that must change nothing:
every row of every table of its database (students, hand-ins with their bytes and results,
adjustments, own deadlines, settings, assignments and their settings, the change log, the
LMS's rows), and every file of its folder besides the database's own.

A session's ``seen_at`` is left out: it says when the browser was last seen, and a request
refreshes it whatever it asks (it is no part of the course); so is ``result_facts``, the
class page's cache of what each results.json says, filled by reading.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from grader.service.course.storage import Store

DATABASE_FILES = ("course.sqlite3", "course.sqlite3-wal", "course.sqlite3-shm")
CACHES = ("result_facts",)


def dump(store: Store) -> dict[str, Any]:
    """Every table's rows (sorted), and the folder's other files with their SHA-256."""
    tables = [row["name"] for row in store.database.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if row["name"] not in CACHES]
    rows: dict[str, Any] = {}
    for table in tables:
        found = [dict(row) for row in store.database.query(f"SELECT * FROM {table}")]
        if table == "sessions":
            for row in found:
                row.pop("seen_at", None)
        rows[table] = sorted(repr(sorted(row.items())) for row in found)
    folder = store.path.parent
    files = {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
             for path in sorted(folder.rglob("*"))
             if path.is_file() and path.name not in DATABASE_FILES}
    return {"tables": rows, "files": files}


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed between two dumps, table by table (for a readable failure)."""
    said = []
    for table in sorted(set(before["tables"]) | set(after["tables"])):
        old, new = set(before["tables"].get(table, [])), set(after["tables"].get(table, []))
        said += [f"{table}: - {row[:300]}" for row in sorted(old - new)]
        said += [f"{table}: + {row[:300]}" for row in sorted(new - old)]
    if before["files"] != after["files"]:
        said.append(f"files: {before['files']} -> {after['files']}")
    return said
