"""Python 2 in a Python 3 world: the fix for a Python 2 line, and hints for its errors.

Old submissions of the course are Python 2 (``print x``, ``xrange``, ``d.has_key(k)``). A
file that does not compile gets the Python 3 spelling of its first Python 2 line; an error
raised at run time that Python 2 habits cause (None compared with a number, ``map(...)[0]``,
``d.keys()[0]``, a float from ``/`` used as an index, ...) gets a hint that says what
changed in Python 3 and what to write instead. The grader and ``python -m student check``
both say these, in the same words.

>>> python2_fix('print "hi"')
'print("hi")'
"""

from __future__ import annotations

import re
import traceback


_PRINT = re.compile(r"^(?P<indent>\s*)print(?![\w(])\s*(?P<rest>.*?)\s*$")


_EXCEPT = re.compile(r"^(?P<head>\s*except\s+)(?P<types>.+?)\s*,\s*(?P<name>[A-Za-z_]\w*)\s*:")


_RAISE = re.compile(r"^(?P<indent>\s*)raise\s+(?P<type>[\w.]+)\s*,\s*(?P<args>.+?)\s*$")


_EXEC = re.compile(r"^(?P<indent>\s*)exec\s+(?![\s(])(?P<code>.+?)(?:\s+in\s+(?P<ns>.+?))?\s*$")


_BACKTICK = re.compile(r"`([^`]+)`")


_OCTAL = re.compile(r"(?<![\w.])0([0-7]+)(?![\w.])")


_LONG = re.compile(r"(?<![\w.])(\d+)[lL](?!\w)")


_RENAMED = {"xrange": "range", "raw_input": "input", "unicode": "str", "basestring": "str",
            "long": "int", "unichr": "chr", "file": "open", "intern": "sys.intern"}


_METHODS = {"iteritems": "items", "itervalues": "values", "iterkeys": "keys",
            "maxint": "maxsize", "letters": "ascii_letters", "lowercase": "ascii_lowercase",
            "uppercase": "ascii_uppercase"}


def _split_comment(line: str) -> tuple[str, str]:
    """Split off a trailing # comment, minding quotes."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:i].rstrip(), "  " + line[i:]
    return line, ""


def python2_fix(line: str) -> str | None:
    """The Python 3 spelling of a Python 2 line, or None if the line is not Python 2.

    >>> python2_fix('print "hi"')
    'print("hi")'
    >>> python2_fix("    print >>sys.stderr, x, y,")
    '    print(x, y, end=" ", file=sys.stderr)'
    >>> python2_fix("except ValueError, e:")
    'except ValueError as e:'
    >>> python2_fix("print(x)") is None
    True
    """
    code, comment = _split_comment(line.rstrip("\r\n"))
    match = _PRINT.match(code)
    if match and match["rest"] and match["rest"][0] not in "=.[,()":
        rest, extra = match["rest"], []
        if rest.startswith(">>"):
            target, _, rest = rest[2:].partition(",")
            extra.append(f"file={target.strip()}")
            rest = rest.strip()
        if rest.endswith(","):
            rest = rest[:-1].rstrip()
            extra.insert(0, 'end=" "')
        args = ", ".join(([rest] if rest else []) + extra)
        return f"{match['indent']}print({args}){comment}"
    match = _EXCEPT.match(code)
    if match and match["types"].count("(") == match["types"].count(")"):
        return f"{match['head']}{match['types']} as {match['name']}:{code[match.end():]}{comment}"
    match = _RAISE.match(code)
    if match:
        return f"{match['indent']}raise {match['type']}({match['args']}){comment}"
    match = _EXEC.match(code)
    if match:
        ns = f", {match['ns']}" if match["ns"] else ""
        return f"{match['indent']}exec({match['code']}{ns}){comment}"
    fixed = _BACKTICK.sub(r"repr(\1)", code).replace("<>", "!=")
    fixed = _LONG.sub(r"\1", _OCTAL.sub(r"0o\1", fixed))
    if fixed != code:
        return fixed + comment
    return None


def python2_message(line: int, text: str, fix: str, lines: list[str]) -> str:
    others = [n for n, other in enumerate(lines, 1)
              if n != line and not other.lstrip().startswith("#") and python2_fix(other)]
    message = (f"line {line}: {text.strip()}  -> write {fix.strip()}\n"
               "This file is Python 2; the course runs Python 3.")
    if others:
        shown = ", ".join(map(str, others[:10])) + (", ..." if len(others) > 10 else "")
        message += f" Lines that look like Python 2 too: {shown}."
    return message


# Errors that Python 2 habits cause in Python 3, and what changed: (first line of the
# error, what changed, what to write). The first that matches is the one said.
_RUNTIME = [
    (r"TypeError: '[<>]=?' not supported between instances of '(\w+)' and '(\w+)'",
     "Python 2 ordered None below every number; Python 3 refuses to compare None",
     "start from a real score (for example best = -2 for X, 2 for O) or test "
     "`best is None or score > best`", "NoneType"),
    (r"TypeError: '(map|filter|zip)' object is not subscriptable",
     "in Python 3 {0}() returns an iterator, not a list", "write list({0}(...))", None),
    (r"TypeError: '(map|filter|zip)' object has no attribute '\w+'",
     "in Python 3 {0}() returns an iterator, not a list", "write list({0}(...))", None),
    (r"TypeError: 'dict_(keys|values|items)' object is not subscriptable",
     "in Python 3 .{0}() returns a view, not a list", "write list(d.{0}())[i]", None),
    (r"AttributeError: 'dict_(keys|values|items)' object has no attribute 'sort'",
     "in Python 3 .{0}() returns a view, not a list", "write sorted(d.{0}())", None),
    (r"TypeError: 'range' object does not support item assignment",
     "in Python 3 range() returns a range, not a list", "write list(range(...))", None),
    (r"AttributeError: 'range' object has no attribute '\w+'",
     "in Python 3 range() returns a range, not a list", "write list(range(...))", None),
    (r"TypeError: (list|tuple) indices must be integers or slices, not float",
     "in Python 3 / always gives a float (7 / 2 == 3.5)",
     "write // for a whole-number division (7 // 2 == 3)", None),
    (r"TypeError: 'float' object cannot be interpreted as an integer",
     "in Python 3 / always gives a float (7 / 2 == 3.5)",
     "write // for a whole-number division (7 // 2 == 3)", None),
    (r"TypeError: '?cmp'? is an invalid keyword argument",
     "Python 3's sort and sorted take no cmp argument",
     "write key=... (or key=functools.cmp_to_key(your_cmp))", None),
    (r"AttributeError: '\w+' object has no attribute 'next'",
     "Python 3 iterators have no .next() method", "write next(iterator)", None),
    (r"NameError: name 'cmp' is not defined",
     "Python 3 has no cmp()", "write (a > b) - (a < b)", None),
]


def python2_hint(error: str, text: str) -> str | None:
    """What changed in Python 3, and what to write, for an error Python 2 habits cause.

    ``error`` is the error's first line; ``text`` the line of code it came from (or "").

    >>> python2_hint("NameError: name 'xrange' is not defined", "for i in xrange(3):")
    'write for i in range(3):'
    >>> python2_hint("AttributeError: 'dict' object has no attribute 'has_key'", "")
    'write key in d instead of d.has_key(key)'
    >>> print(python2_hint("TypeError: '>' not supported between instances of 'int' and "
    ...                    "'NoneType'", "if score > best:"))
    Python 2 ordered None below every number; Python 3 refuses to compare None: in `if score > best:`, start from a real score (for example best = -2 for X, 2 for O) or test `best is None or score > best`
    >>> python2_hint("TypeError: 'map' object is not subscriptable", "")
    'in Python 3 map() returns an iterator, not a list: write list(map(...))'
    """
    match = re.match(r"NameError: name '(\w+)' is not defined", error)
    if match and match[1] in _RENAMED:
        old, new = match[1], _RENAMED[match[1]]
        if text:
            return "write " + re.sub(rf"\b{old}\b", new, text)
        return f"write {new} instead of {old}"
    if match and match[1] == "reduce":
        return "add `from functools import reduce` at the top of the file"
    match = re.match(r"AttributeError: .* has no attribute '(\w+)'", error)
    if match and match[1] == "has_key":
        return "write key in d instead of d.has_key(key)"
    if match and match[1] in _METHODS:
        return f"write .{_METHODS[match[1]]} instead of .{match[1]}"
    for pattern, changed, write, needs in _RUNTIME:
        match = re.match(pattern, error)
        if match is None or (needs is not None and needs not in match.groups()):
            continue
        words = match.groups()[:1]
        where = f"in `{text.strip()}`, " if text.strip() else ""
        return f"{changed.format(*words)}: {where}{write.format(*words)}"
    return None


def innermost_line(traceback_text: str) -> str:
    """The last line of code shown in a traceback (the line that raised), or "".

    >>> innermost_line('Traceback (last lines in s.py):\\n  File "s.py", line 3, in f\\n'
    ...                '    return x[0]')
    'return x[0]'
    """
    code = ""
    lines = traceback_text.splitlines()
    for before, line in zip(lines, lines[1:]):
        if before.lstrip().startswith("File ") and line.startswith("    "):
            code = line.strip()
    return code


def import_hint(detail: str) -> str | None:
    match = re.match(r"ModuleNotFoundError: No module named '([\w.]+)'", detail)
    if match:
        return (f"the module {match[1]} is not available to the grader (a CodeSkulptor "
                "module or a file that was not submitted?); remove that import")
    if detail.startswith("EOFError"):
        return "the grader types nothing: remove input() calls from the top level"
    return None


def compile_problem(exc: SyntaxError, source: str) -> str:
    """What to say about a file that does not compile: its Python 2 line and the Python 3
    spelling, or else Python's own message. The check and console play both say it.

    >>> try:
    ...     compile('x = 1\\nprint "hi"\\n', "f.py", "exec")
    ... except SyntaxError as exc:
    ...     print(compile_problem(exc, 'x = 1\\nprint "hi"\\n'))
    line 2: print "hi"  -> write print("hi")
    This file is Python 2; the course runs Python 3.
    """
    lines = source.splitlines()
    line = exc.lineno
    text = lines[line - 1] if line and 0 < line <= len(lines) else (exc.text or "")
    fix = python2_fix(text) if line else None
    if line and fix is not None:
        return python2_message(line, text, fix, lines)
    return "".join(traceback.format_exception_only(type(exc), exc)).rstrip()


def exception_hint(exc: BaseException, traceback_text: str) -> str | None:
    """The line to add under the traceback of ``exc`` when Python 2 habits cause it, or
    None. The check and console play both add it, in the same words.

    >>> try:
    ...     first = map(int, "12")[0]
    ... except TypeError as exc:
    ...     print(exception_hint(exc, '  File "p.py", line 9, in mm_move\\n    first = moves[0]'))
    This looks like Python 2: in Python 3 map() returns an iterator, not a list: in `first = moves[0]`, write list(map(...))
    """
    hint = python2_hint(f"{type(exc).__name__}: {exc}", innermost_line(traceback_text))
    return f"This looks like Python 2: {hint}" if hint else None
