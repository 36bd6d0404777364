"""Writing result files so that a reader never sees half of one (results, CSV, summary)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    Readers see the old file or the new one, never half of one; folders are created.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", newline="", dir=path.parent,
        prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)        # not the temporary file's 0600
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` so that a reader never sees half a file.

    Parent folders are created. NaN and infinity are refused (ValueError): JSON has neither.

    >>> import json, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_json_atomic(folder / "results" / "results.json", {"score": 1.0})
    >>> json.loads((folder / "results" / "results.json").read_text())
    {'score': 1.0}
    """
    write_text_atomic(Path(path), json.dumps(data, indent=2, allow_nan=False) + "\n")
