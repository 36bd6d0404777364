"""The submission page (``python -m grader serve``): students hand in ``mm_player.py`` in a
browser or with ``python -m student submit`` and read their report within seconds; the
instructor runs the class from the same place.

    course/     the course's model and storage: the SQLite database (the only state), the
                roster, submissions, records, dates, assignments, sign-in tokens, intake
    pages/      the pages and the JSON API: the routes, and what they show
    lti/        the LTI 1.3 tool: registration, launch, roster and grades through an outbox
    queue       grading threads: claim the oldest queued submission, run ``python -m grader
                grade`` through the batch's runner (local or Dask), store the result
    settings    how a course is served: its folder, the limits, the grading options
    sessions    sessions the server can end (the cookie's id, its hash in the database)
    app         the Starlette application: the middleware, the routes of pages/ and lti/
    server      uvicorn on a socket already listening (Nagle off, a header deadline)
    logtext     text from outside made safe for one log line
    read_only   ``serve --read-only``: a private copy of the course served, every change refused
    command     ``python -m grader serve`` (the only part that prints), with serve_refusal
                (what it says when its options cannot be done) and serve_files (its
                roster, deadlines and links files)

Imports run one way: ``command`` and ``app`` above ``pages/`` and ``lti/``, those above
``queue``, ``settings`` and ``sessions``, and all of them above ``course/`` (whose one call
out, imported when it runs, tells ``lti`` that grades changed). The package sits above
``grader.classroom`` and grades through the same runner as ``batch``; nothing below it
imports it.

One vocabulary from the database to the templates: a ``storage.Student`` (the roster's
person) and a ``storage.Submission`` (a submission's row); the class page holds them, never
copies them: a ``class_queries.ClassSubmission`` is a Submission with what its result
recorded and its final score, a ``classbook.ClassStudent`` a Student with theirs. Every
route has a name (``Route(..., name="submission")``), and every link and redirect is built
from it: ``pages.path_for(request, "submission", number=7)`` in a handler,
``{{ path_for('submission', number=row.id) }}`` in a template.
"""
