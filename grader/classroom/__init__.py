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

from grader.classroom.batch import BatchOptions, BatchOutcome, Finished, run_batch
from grader.classroom.command import register
from grader.classroom.discover import Submission, find_submissions, student_id_of
from grader.classroom.run import Attempt, GradingOptions, Job, LocalRunner, grade_argv
from grader.classroom.state import BatchLockedError, OutputFolder, plan_batch
from grader.classroom.unpack import ArchiveError, SubmissionsError, extract_zip

__all__ = ["BatchOptions", "BatchOutcome", "Finished", "run_batch", "register", "Submission",
           "find_submissions", "student_id_of", "Attempt", "GradingOptions", "Job",
           "LocalRunner", "grade_argv", "BatchLockedError", "OutputFolder", "plan_batch",
           "ArchiveError", "SubmissionsError", "extract_zip"]
