"""A whole class: find the submissions, grade each in its own process, keep the results.

Data flows one way: ``discover`` (LMS names, and ``unpack`` for zips; ``people`` reads a
Gradescope export's metadata; ``meant``: which assignment each file is for) -> ``records``
(checked against a ``roster``) -> ``run`` (one grading process per submission;
``distributed`` runs them on a Dask cluster) -> ``batch`` (the loop, resumable) -> ``state``
(the output folder, by student and assignment) -> ``books``: ``gradebook``, ``lms`` (the
gradebooks Canvas and Moodle import) and ``summary``.
``command`` is ``python -m grader batch``; ``gradescope`` and ``handout`` build the
autograder zip and the students' handout.

    found, problems = find_submissions(Path("class.zip"), work=Path("grades/.work"))
    outcome = run_batch(found, BatchOptions(out=Path("grades")), LocalRunner(jobs=2))
"""

import importlib
from typing import Any

# Imported when first asked for (PEP 562): a process that needs one module of the room (the
# warm grader, ``python -m grader.classroom.warm``, a Dask worker) does not import the
# batch, its books and the similarity with it (half a second of every warm grader's start).
_WHERE = {"BatchOptions": "batch", "BatchOutcome": "batch", "Finished": "batch",
          "run_batch": "batch", "register": "command", "Submission": "discover",
          "find_submissions": "discover", "student_id_of": "discover", "Attempt": "run",
          "GradingOptions": "run", "Job": "run", "LocalRunner": "run", "grade_argv": "run",
          "BatchLockedError": "state", "OutputFolder": "state", "plan_batch": "state",
          "ArchiveError": "unpack", "SubmissionsError": "unpack", "extract_zip": "unpack"}
__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
