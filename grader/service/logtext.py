"""Text from outside (a form field, a header, a claim) made safe for one log line.

A log line is one line: a carriage return or a line feed in a value would let its sender
write a line of their own ("a forged log line": an LMS's ``error_description`` did), an
escape sequence would drive the terminal that reads the log, a right-to-left override would
reverse what follows. Every such character is written as its escape instead.

    log.info("LTI refused: %s", printable(message))
    logging.basicConfig(...); one_line_logs()      # every handler of the root logger

>>> printable("refused\\r\\n2026-11-26 ERROR forged")
'refused\\\\r\\\\n2026-11-26 ERROR forged'
>>> printable("Ada \\u202egnp.exe")
'Ada \\\\u202egnp.exe'
"""

from __future__ import annotations

import logging
import unicodedata

MAX_LOGGED = 2000         # characters of one value in a log line


def printable(text: object, limit: int = MAX_LOGGED) -> str:
    """``text`` with every control and format character (CR, LF, ESC, U+202E ...) escaped,
    cut to ``limit`` characters (said with "...").

    >>> printable("a\\tb" + "x" * 10, limit=5)
    'a\\\\tbxx...'
    """
    value = str(text)
    cut = len(value) > limit
    value = value[:limit]
    if value.isprintable():
        return value + ("..." if cut else "")
    shown = "".join(
        character if character.isprintable() or character == " " else
        character.encode("unicode_escape").decode("ascii")
        if unicodedata.category(character) == "Cc" else f"\\u{ord(character):04x}"
        for character in value)
    return shown + ("..." if cut else "")


class OneLineFormatter(logging.Formatter):
    """A formatter whose message part is always one line: the message (the format with its
    arguments) goes through :func:`printable`; a traceback, added after it, keeps its lines.

    >>> record = logging.LogRecord("x", logging.INFO, "", 0, "said %s", ("a\\nb",), None)
    >>> OneLineFormatter("%(message)s").format(record)
    'said a\\\\nb'
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = printable(record.message, limit=4 * MAX_LOGGED)
        return super().formatMessage(record)


def one_line_logs(logger: logging.Logger | None = None) -> None:
    """Give every handler of ``logger`` (default: the root) a :class:`OneLineFormatter` with
    the format it had."""
    for handler in (logger or logging.getLogger()).handlers:
        old = handler.formatter
        handler.setFormatter(OneLineFormatter(old._fmt if old else None,
                                              old.datefmt if old else None))
