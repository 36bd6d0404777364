"""The class summary's charts as inline SVG: the score histogram and how often each rubric
item failed. Pure text from numbers; nothing here reads or writes.

>>> histogram([0, 49, 50, 100], 100, bins=2)
[2, 2]
"""

from __future__ import annotations

import html
from typing import Sequence


def histogram(scores: Sequence[float], max_score: float, bins: int = 10) -> list[int]:
    """How many scores fall in each of ``bins`` equal ranges of 0..max (the last one closed).

    >>> histogram([0, 49, 50, 100], 100, bins=2)
    [2, 2]
    """
    counts = [0] * bins
    if max_score <= 0:
        counts[-1] = len(scores)
        return counts
    for score in scores:
        index = min(bins - 1, max(0, int(score / max_score * bins)))
        counts[index] += 1
    return counts


def histogram_svg(scores: Sequence[float], max_score: float, bins: int = 10) -> str:
    """The score histogram as an inline SVG bar chart."""
    counts = histogram(scores, max_score, bins)
    width, height, left, bottom, top = 640, 230, 40, 36, 16
    plot_w, plot_h = width - left - 24, height - bottom - top
    tallest = max(counts) or 1
    bar_w = plot_w / bins
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" '
             f'aria-label="Histogram of {len(scores)} scores">']
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
                 f'y2="{top + plot_h}" class="axis"/>')
    for index, count in enumerate(counts):
        low = max_score * index / bins
        high = max_score * (index + 1) / bins
        bar_h = plot_h * count / tallest
        x = left + index * bar_w
        y = top + plot_h - bar_h
        label = f"{low:g}–{high:g}: {count}"
        parts.append(f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{bar_w - 4:.1f}" '
                     f'height="{bar_h:.1f}" class="bar"><title>{_e(label)}</title></rect>')
        if count:
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 3:.1f}" '
                         f'class="count">{count}</text>')
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" '
                     f'class="tick">{low:g}</text>')
    parts.append(f'<text x="{left + plot_w:.1f}" y="{top + plot_h + 14}" '
                 f'class="tick">{max_score:g}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" class="label">'
                 f'score (out of {max_score:g})</text>')
    parts.append(f'<text x="12" y="{top + plot_h / 2:.1f}" class="label" '
                 f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">submissions</text>')
    parts.append("</svg>")
    return "".join(parts)


def failure_rate_svg(failures: dict[str, tuple[int, int]]) -> str:
    """One horizontal bar per rubric item: the share of submissions that failed it."""
    row_h, label_w, bar_w = 26, 150, 330
    width, height = label_w + bar_w + 90, row_h * max(1, len(failures)) + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" '
             f'aria-label="Failure rate of each rubric item">']
    for index, (name, (failed, total)) in enumerate(failures.items()):
        rate = failed / total if total else 0.0
        y = 4 + index * row_h
        parts.append(f'<text x="{label_w - 8}" y="{y + 16}" class="name">{_e(name)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="{row_h - 8}" '
                     f'class="track"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w * rate:.1f}" '
                     f'height="{row_h - 8}" class="fail"><title>{_e(name)}: {failed} of '
                     f'{total} failed</title></rect>')
        parts.append(f'<text x="{label_w + bar_w + 8}" y="{y + 16}" class="rate">'
                     f'{rate:.0%} ({failed}/{total})</text>')
    parts.append("</svg>")
    return "".join(parts)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)
