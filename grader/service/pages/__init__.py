"""The pages and the JSON API of ``grader serve``: the routes and what they show. They read
and change the course through :mod:`grader.service.course` (never the other way), and
``grader.service.app`` mounts them.

    pages                what every page shares: rendering, ``path_for``, refusals, errors
    presentation         what a page and the JSON say of a submission (no requests here)
    report_parts         the terminal report of a grading run, read back into a page's parts
    signin               signing in with a personal link, and out
    student_routes       the student's pages and ``/api/submissions``
    instructor           the instructor's pages: the class, a student, the queue, regrades
    roster_routes        the roster and the links
    gradebook_routes     the gradebooks (plain, Canvas, Moodle) and the summary
    config_routes        the grading configuration
    records_routes       students' own deadlines, adjustments, a new instructor link
    course_dates_routes  the course's dates on the page and in the JSON API
    assignments_routes   the course's assignments on the page and in the JSON API
    similarity_routes    the instructor's similarity pages (copydetect in a process of its own)
"""
