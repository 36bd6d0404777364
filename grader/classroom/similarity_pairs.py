"""What a comparison of code found: each pair of files that share own code, and the whole
comparison (its pairs, what was compared, what was left out). Values only: the comparison
itself is :mod:`grader.classroom.similarity`, the pages :mod:`grader.classroom.similarity_pages`.

>>> Pair("bob", "alice", 0.4, 0.8, 120).score
0.8
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.suite.report import student_label

LISTED_SCORE = 0.5       # a pair is listed when either share reaches this...
LISTED_TOKENS = 100      # ...and they share at least this many tokens of own code
MAX_LISTED = 50          # at most this many pairs on the summary page (all in the CSV)

@dataclass(frozen=True)
class Pair:
    """Two files that share own code: a submission and another one or a known solution.

    ``first_score`` is the share of ``first``'s own code found in ``second``, and
    ``second_score`` the other way round (copydetect's two similarities, the templates'
    and the class's common code left out); ``tokens`` is how many of ``first``'s tokens
    of own code are shared; ``first_own`` and ``second_own`` how many tokens of own code
    each file has. ``page`` is the side-by-side view, relative to the batch's output
    folder (listed pairs only). ``first_name`` and ``second_name`` are the students'
    names, when the batch knows them (a known solution has none).

    >>> pair = Pair("bob", "alice", 0.4, 0.8, 120, second_name="Alice A")
    >>> pair.score, pair.listed, pair.second_label
    (0.8, True, 'Alice A (alice)')
    """

    first: str              # a student id
    second: str             # a student id, or a known solution's path in its folder
    first_score: float
    second_score: float
    tokens: int
    known: bool = False     # ``second`` is a known solution
    page: str = ""
    first_own: int = 0      # tokens of own code (0: not measured, an earlier version's pair)
    second_own: int = 0
    first_name: str = ""    # the students' names, "" when not known
    second_name: str = ""

    @property
    def first_label(self) -> str:
        """The first student as pages name them: "Ada Lovelace (ada42)", or the id."""
        return student_label(self.first, self.first_name)

    @property
    def second_label(self) -> str:
        """The second student likewise, or "known solution PATH"."""
        if self.known:
            return f"known solution {self.second}"
        return student_label(self.second, self.second_name)

    @property
    def score(self) -> float:
        """The larger of the two shares (whether the pair is listed)."""
        return max(self.first_score, self.second_score)

    @property
    def share(self) -> float:
        """The mean of the two shares (the order of the list): a small file found whole in
        a large one ranks below two files that are both mostly the same code.

        >>> Pair("bob", "alice", 0.4, 0.8, 120).share
        0.6
        """
        return round((self.first_score + self.second_score) / 2, 4)

    @property
    def listed(self) -> bool:
        """Similar enough to be shown on the summary page (``LISTED_SCORE``, ``LISTED_TOKENS``)."""
        return self.score >= LISTED_SCORE and self.tokens >= LISTED_TOKENS


@dataclass(frozen=True)
class Similarity:
    """The pairs that share own code, the listed ones first, then the most similar first,
    and what was compared and left out.

    ``pages`` maps each listed pair's ``page`` to its HTML (see :func:`write_similarity`).
    ``templates`` names the files whose code did not count; a fingerprint found in more
    than ``common_limit`` submissions did not count either (``common`` of them; 0: the
    filter was off).

    >>> found = Similarity(pairs=(), submissions=3, known=0)
    >>> found.listed, found.above, found.left_out
    ((), 0, 0)
    """

    pairs: tuple[Pair, ...]
    submissions: int                 # submissions compared
    known: int                       # known solutions compared with them
    known_folder: str = ""
    unread: tuple[str, ...] = ()     # "name: why" of files that could not be read
    pages: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    templates: tuple[str, ...] = ()  # the templates left out, in words
    common_limit: int = 0            # code in more than this many submissions is common
    common: int = 0                  # fingerprints left out as common
    # known solutions with at least WIDELY_COPIED of their code common: (name, share)
    widely_copied: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        # read back from JSON (the submission page keeps its last comparison): lists
        for name in ("unread", "templates"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "widely_copied",
                           tuple((name, share) for name, share in self.widely_copied))

    @property
    def listed(self) -> tuple[Pair, ...]:
        """The pairs the summary page lists (``Pair.listed``), at most ``MAX_LISTED``."""
        return tuple(pair for pair in self.pairs if pair.listed)[:MAX_LISTED]

    @property
    def above(self) -> int:
        """How many pairs are similar enough to be listed, the cap aside."""
        return sum(pair.listed for pair in self.pairs)

    @property
    def left_out(self) -> int:
        """How many pairs above the threshold the cap (``MAX_LISTED``) left off the summary."""
        return self.above - len(self.listed)
