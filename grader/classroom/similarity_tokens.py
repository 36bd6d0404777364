"""The fingerprints' side of the similarity check: what copydetect's fingerprints of a
file are made to count (``grader.classroom.similarity`` compares them).

A docstring is read as the comment it is (:func:`docstrings_as_comments`); a run of tokens
that reaches from one function into the next is not evidence (:func:`across_definitions`);
what is left after the templates' and the class's common code are taken out is a file's
own code (:func:`keep_only_own`). copydetect is imported only where it is used: it is an
optional extra.

>>> print(docstrings_as_comments("'Doc.'\\nx = 1\\n"), end="")
#Doc.'
x = 1
"""

from __future__ import annotations

import io
import tokenize
from typing import Any, Iterable


def docstrings_as_comments(text: str) -> str:
    """``text`` with every string that stands alone as a statement (a docstring) turned
    into comments, character for character (the first of each of its lines becomes
    ``#``): adding, removing or rewording a docstring is like changing a comment, and
    copydetect ignores comments but counts a docstring as a string token. The text keeps
    its length and every character's place. A file Python's tokenizer cannot read is
    returned as it is.

    >>> print(docstrings_as_comments("def f():\\n    '''Two\\n    lines.'''\\n    return 'x'\\n"))
    def f():
        #''Two
        #ines.'''
        return 'x'
    <BLANKLINE>
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    lines = text.splitlines(keepends=True)
    starts = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
              tokenize.COMMENT)
    ends = (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER)
    for before, token, after in zip([None, *tokens], tokens, [*tokens[1:], None]):
        if token.type != tokenize.STRING or after is None or after.type not in ends:
            continue
        if before is not None and before.type not in starts:
            continue
        (first_row, first_col), (last_row, _) = token.start, token.end
        for row in range(first_row, last_row + 1):
            line = lines[row - 1]
            column = first_col if row == first_row else len(line) - len(line.lstrip())
            if column < len(line) and line[column] not in "\r\n":
                lines[row - 1] = line[:column] + "#" + line[column + 1:]
    return "".join(lines)


def hash_ints(hashes: Iterable[Any]) -> set[int]:
    """copydetect's hashes (numpy integers) as Python ints.

    >>> hash_ints([3, 3, 4])
    {3, 4}
    """
    return {int(hash_) for hash_ in hashes}


# copydetect's filtered code writes a definition's head as "defF(" (a class: "classO")
_DEFINITIONS = ("defF", "classO")


def across_definitions(fingerprint: Any) -> set[int]:
    """The fingerprints of ``fingerprint`` whose run of tokens reaches from one definition
    into the next (the end of a function and the head of another): they depend on the
    order of the functions, which a copy can change at no cost, so they are not evidence
    either way. The code on both sides is still covered by the runs within each function.

    >>> from copydetect import CodeFingerprint
    >>> code = "def f(a):\\n    return a + 1 + 2 + 3\\ndef g(b):\\n    return b * 2 * 3 * 4\\n"
    >>> one = CodeFingerprint("x.py", 10, 1, fp=io.StringIO(code), language="python")
    >>> one.filtered_code
    'defF(V):returnV+1+2+3defF(V):returnV*2*3*4'
    >>> across = across_definitions(one)
    >>> runs = sorted((i, one.filtered_code[i:i + 10]) for hash_, (i, *_) in
    ...               one.hash_idx.items() if int(hash_) in across)
    >>> runs[0][1], runs[-1][1], len(runs)
    ('rnV+1+2+3d', '3defF(V):r', 9)
    """
    code, k = fingerprint.filtered_code, fingerprint.k
    return {int(hash_) for hash_, (position, *_) in fingerprint.hash_idx.items()
            if any(code.find(head, position + 1, position + k - 1 + len(head)) != -1
                   for head in _DEFINITIONS)}


def share_in(fingerprint: Any, hashes: set[int]) -> float:
    """The share of ``fingerprint``'s code (its tokens covered) that ``hashes`` cover."""
    from copydetect.utils import get_token_coverage

    if not fingerprint.token_coverage:
        return 0.0
    inside = {hash_: positions for hash_, positions in fingerprint.hash_idx.items()
              if int(hash_) in hashes}
    return float(get_token_coverage(inside, fingerprint.k, len(fingerprint.filtered_code))
                 / fingerprint.token_coverage)


def keep_only_own(fingerprint: Any, drop: set[int]) -> None:
    """Leave out of ``fingerprint`` (copydetect's, built here) the fingerprints in ``drop``:
    what the pair's shares and highlights are computed on, its size recounted."""
    from copydetect.utils import get_token_coverage

    kept = {int(hash_): positions for hash_, positions in fingerprint.hash_idx.items()
            if int(hash_) not in drop}
    fingerprint.hash_idx = kept
    fingerprint.hashes = set(kept)
    fingerprint.token_coverage = get_token_coverage(kept, fingerprint.k,
                                                    len(fingerprint.filtered_code))
