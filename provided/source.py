"""What the grader refuses before it runs a line of a file, in the grader's words.

The grader (``grader.sandbox.submission.read_submission``) and ``python -m student check``
both read a file through :func:`read_source`, so the check refuses what the grader
refuses (too large, empty, binary, not UTF-8) with the same message. The modules a file
can import where it is graded are said once too, by :func:`grader_can_import`: the
sandbox runs ``python -I -S`` with only the ``provided`` package beside the file
(``grader/sandbox/layers.py``), so the standard library, ``provided`` and the course's
modules (``provided.course``) are there, and nothing installed with pip (numpy) or
lying next to the file where the student works.

>>> grader_can_import("math"), grader_can_import("poc_ttt_provided"), grader_can_import("numpy")
(True, True, False)
"""

from __future__ import annotations

import io
import stat
import sys
import tokenize
from pathlib import Path

from provided.course import PORT_PACKAGE, course_module

MAX_SOURCE = 4 << 20            # bytes; a bigger "submission" is not source code


class SourceError(Exception):
    """The file cannot be read as the Python source of a submission; ``message`` says why
    and what to do. ``kind``: "missing", "not_a_file", "too_large", "empty", "binary" or
    "encoding" (``grader.sandbox.submission.LOAD_ERROR_KINDS``); ``line`` where it points.

    >>> str(SourceError("empty", "the file is empty"))
    'the file is empty'
    """

    def __init__(self, kind: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line


def read_source(path: Path) -> tuple[bytes, str]:
    """Read a submission's bytes and decode them, or raise SourceError. Runs nothing.

    >>> read_source(Path("/nonexistent/mm.py"))
    Traceback (most recent call last):
    ...
    provided.source.SourceError: there is no file /nonexistent/mm.py
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SourceError("missing", f"there is no file {path}") from None
    except OSError as exc:
        raise SourceError("missing", f"{path} cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        try:
            inside = sorted(p.name for p in path.glob("*.py"))[:5]
        except OSError:
            inside = []
        hint = f" (it holds {', '.join(inside)})" if inside else ""
        raise SourceError("not_a_file", f"{path} is a folder, not a Python file: give the "
                          f"path of the .py file inside it{hint}")
    if not stat.S_ISREG(info.st_mode):
        raise SourceError("not_a_file", f"{path} is not a regular file")
    if info.st_size > MAX_SOURCE:
        raise SourceError("too_large", f"{path} is {info.st_size:,} bytes, too large to be "
                          "the Python source of one assignment")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError("not_a_file", f"{path} cannot be read: {exc.strerror}") from None
    if not data.strip():
        raise SourceError("empty", f"{path} is empty: submit the file in which you wrote "
                          "mm_move")
    return data, decode_source(data, str(path))


def decode_source(data: bytes, name: str) -> str:
    """The text of a submission's bytes ``data`` (a file called ``name``), as Python reads
    it (a PEP 263 coding line honoured, a UTF-8 byte-order mark dropped), or SourceError:
    "binary" (a NUL byte) or "encoding". The submission page asks it of a hand-in before
    storing it, as the grader asks it of a file before running it.

    >>> decode_source(b"x = 1\\n", "mm_player.py")
    'x = 1\\n'
    >>> decode_source(b"x = '\\xe9'\\n", "mm_player.py")
    Traceback (most recent call last):
    ...
    provided.source.SourceError: line 1, column 6: byte 0xe9 (offset 5) is not valid utf-8; save the file as UTF-8
    """
    nul = data.find(b"\0")
    if nul >= 0:
        raise SourceError("binary", f"{name} is not a text file (it holds a NUL byte at "
                          f"offset {nul}): submit the .py source file, not a .pyc, a zip or "
                          "a document", data.count(b"\n", 0, nul) + 1)
    try:  # honours a PEP 263 coding line, as Python would
        encoding, problem = tokenize.detect_encoding(io.BytesIO(data).readline)[0], ""
    except SyntaxError as exc:  # a bad coding line, or bad bytes in the first two lines
        encoding, problem = "utf-8", str(exc)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError("encoding", f"line {line}, column {column}: byte "
                          f"0x{data[exc.start]:02x} (offset {exc.start}) is not valid "
                          f"{encoding}; save the file as UTF-8", line) from None
    if problem:
        raise SourceError("encoding", f"{name}: {problem}; save the file as UTF-8 and "
                          "remove the coding line")
    return text.lstrip("\ufeff")


def grader_can_import(name: str) -> bool:
    """Whether the module ``name`` can be imported where the grader runs the file.

    >>> grader_can_import("collections.abc"), grader_can_import("provided.board")
    (True, True)
    >>> grader_can_import("SimpleGUICS2Pygame"), grader_can_import("student")
    (True, False)
    """
    top = name.partition(".")[0]
    return (top in sys.stdlib_module_names or top in ("provided", PORT_PACKAGE)
            or course_module(name) is not None)
