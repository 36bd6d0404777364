"""The side-by-side page of one similar pair (``DIR/similarity/pair-NNN.html``).

Pure HTML from what the comparison found (``grader.classroom.similarity``): both files'
code, the shared runs already marked, and each side named by the student's name and id.
The page works offline and fits a window 1200 pixels wide: the two sides share it, and a
long line wraps inside its own code box, so the page itself never scrolls sideways.

>>> from grader.classroom.similarity_pairs import Pair
>>> page = pair_page(Pair("ada42", "bob7", 0.9, 0.8, 300, first_name="Ada Lovelace"),
...                  ("a = 1", "b = 1"), noise_tokens=25)
>>> "<h1>Ada Lovelace (ada42) and bob7</h1>" in page
True
"""

from __future__ import annotations

import html

from grader.classroom.similarity_pairs import Pair

PAGE_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em;
       color: #1d2433; }
h1 { font-size: 1.4em; overflow-wrap: anywhere; }
h2 { font-size: 1.05em; margin: .3em 0; overflow-wrap: anywhere; } .muted { color: #667; }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.sides > section { min-width: 0; }
pre { border: 1px solid #d8dce6; border-radius: 6px; padding: .6em; font-size: 13px;
      line-height: 1.35; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere;
      overflow-x: auto; }
mark { background: #fde2a8; }
@media (max-width: 800px) { .sides { grid-template-columns: minmax(0, 1fr); } }
"""
# The grid's columns are minmax(0, 1fr), not 1fr, and a section's min-width is 0: otherwise
# the longest line of code sets a column's width and the page scrolls sideways.


def pair_page(pair: Pair, codes: tuple[str, str], noise_tokens: int) -> str:
    """The page of ``pair``: ``codes`` are both files as HTML (escaped, the shared runs in
    ``<mark>``), ``noise_tokens`` the shortest run that counts."""
    first, second = pair.first_label, pair.second_label
    title = f"{first} and {second}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_e(title)}</title>", f"<style>{PAGE_STYLE}</style></head><body>",
           '<p><a href="../summary.html#similarity">Class summary</a></p>',
           f"<h1>{_e(title)}</h1>",
           f"<p>{pair.first_score:.0%} of {_e(first)}'s own code is in "
           f"{_e(second)}, {pair.second_score:.0%} of {_e(second)}'s in "
           f"{_e(first)}'s; {pair.tokens} tokens in common.</p>",
           '<p class="muted">Highlighted: the own code they share, as copydetect finds it '
           f"(runs of {noise_tokens} or more tokens; names, strings and comments do not "
           "count, nor the templates' code, nor code that many submissions share, though "
           "a highlighted run may reach into such lines next to it).</p>",
           '<div class="sides">']
    for label, code in ((first, codes[0]), (second, codes[1])):
        out.append(f"<section><h2>{_e(label)}</h2><pre><code>{code}</code></pre></section>")
    out += ["</div>", "</body></html>"]
    return "\n".join(out) + "\n"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)
