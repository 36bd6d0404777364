"""The course as ``grader serve`` keeps it: its model and its storage, in the course's folder.
Nothing here imports Starlette, a route or a template: the pages (:mod:`grader.service.pages`),
the grading queue, the sessions and the command import these modules, never the other way
(the LMS is told of changed grades by whoever changed them: the course is below ``lti``).

    database            the course's SQLite file: one writer connection, one reader a thread
    schema              the database's tables and the ordered migrations of an older file
    storage             the ``Store``: settings, students, sign-in tokens (hashed), submissions
    rows                the values the ``Store`` hands out (``Student``, ``Submission``) and its refusals
    class_queries       the instructor's queries: the class at a glance, regrades
    record_queries      students' own deadlines, adjustments and the log of every change
    records             the late policy and the final score computed from the records
    classbook           the class with its records: each student's submissions, the chosen one
    course_assignments  which of the grader's assignments the course holds, and their settings
    course_dates        the course's deadline, late deadline, late policy and counted hand-in
    course_config       the grading configuration that stays put
    deadline_csv        students' own deadlines as an instructor writes them (a form, a CSV)
    intake              what a submission must be, and the refusals when it is not
    checking            a hand-in's text read by a child process under limits (never here)
    hand_in_text        what that child runs: decode, compile, the names a file defines
    times               UTC in the database, the course's time zone for people
    auth                sign-in tokens derived from the course key, who is signed in, CSRF
    folder              the course folder made the instructor's alone (0700, files 0600)
    serving_lock        whether a ``grader serve`` is serving the course's folder

``auth`` is here, not beside the pages, because ``storage`` derives and hashes every sign-in
token with it; it imports nothing of the service and nothing of Starlette.
"""
