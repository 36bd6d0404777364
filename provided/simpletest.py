"""The course's ``poc_simpletest``: a small test suite that counts and prints.

Files written for the course test their functions with it (``import poc_simpletest``),
often at their top level; :mod:`provided.course` makes that name mean this module. Its
behaviour is the course's, word for word: ``run_test`` counts a test and, when
``computed != expected``, prints ``message`` with both values and counts a failure;
``report_results`` prints how many tests ran and how many failed. Printing is its job
(a student reads it), so it prints to stdout like the course's did.

>>> suite = TestSuite()
>>> suite.run_test(1 + 1, 2, "Test #1:")
>>> suite.run_test(max([3, 1]), 1, "Test #2:")
Test #2: Computed: 3 Expected: 1
>>> suite.report_results()
Ran 2 tests. 1 failures.
>>> suite.total_tests, suite.failures
(2, 1)
"""

from __future__ import annotations

TYPE_CHECKING = False  # imported by every process that runs student code: no typing there
if TYPE_CHECKING:
    from typing import Any


class TestSuite:
    """Create a suite of tests similar to unittest (the course's words).

    ``total_tests`` and ``failures`` are the counts, as course files read them.

    >>> suite = TestSuite()
    >>> suite.run_test((0, (1, 1)), (0, (1, 1)), "draw")
    >>> suite.total_tests, suite.failures
    (1, 0)
    """

    __test__ = False   # a class named Test... is not a pytest test class

    def __init__(self) -> None:
        self.total_tests = 0
        self.failures = 0

    def run_test(self, computed: Any, expected: Any, message: str = "") -> None:
        """Count a test; if ``computed != expected``, print ``message`` with both values.

        >>> TestSuite().run_test([1, 2], [2, 1], "sorted:")
        sorted: Computed: [1, 2] Expected: [2, 1]
        """
        self.total_tests += 1
        if computed != expected:
            # The course's concatenation, so the line reads exactly as it did there.
            print(message + " Computed: " + str(computed) + " Expected: " + str(expected))
            self.failures += 1

    def report_results(self) -> None:
        """Print how many tests ran and how many failed.

        >>> TestSuite().report_results()
        Ran 0 tests. 0 failures.
        """
        print("Ran " + str(self.total_tests) + " tests. " + str(self.failures) + " failures.")
