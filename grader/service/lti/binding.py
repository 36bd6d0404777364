"""The one LMS course (platform, deployment, context id) this course is bound to.

The first launch by an instructor (a context Instructor or an Administrator) binds it; the
instructor's LTI page shows the binding and can change it; a change ends the sessions of
the TAs of any other LMS course (:mod:`grader.service.lti.staff`). A launch from any other LMS
course, by anyone, is refused with a page that says which course this one is bound to; a
learner's launch before any binding is refused too (a learner cannot choose the course: the
instructor opens the tool from the LMS course first). The binding is a setting (JSON under
``lti_binding``): one row, read on every launch.

    bound = current(store)                    # None before the first instructor launch
    bind(store, Binding(platform.id, "d1", "course-7", "CS 101"), who="the instructor")
    check(store, launch)                      # LaunchRefused unless the launch is from it
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from grader.service.course.storage import LTI_BINDING_SETTING, Store
from grader.service.course.times import utc_now
from grader.service.lti import staff
from grader.service.lti.errors import LaunchRefused
from grader.service.lti.launch import INSTRUCTOR_ACCESS, Launch
from grader.service.lti.platforms import platform_by_id

SETTING = LTI_BINDING_SETTING      # Store.identify_hash reads it too (a TA's course)


@dataclass(frozen=True)
class Binding:
    """The LMS course the course is bound to, and when and by whom.

    >>> Binding(1, "d1", "c7", "CS 101").same_as(1, "d1", "c7")
    True
    """

    platform: int
    deployment_id: str
    context_id: str
    title: str = ""
    bound_at: str = ""
    bound_by: str = ""

    def same_as(self, platform: int, deployment_id: str, context_id: str) -> bool:
        return (self.platform, self.deployment_id, self.context_id) == (
            platform, deployment_id, context_id)

    def describe(self, store: Store) -> str:
        """How a page names it: "CS 101 (context c7, deployment d1 of Canvas)"."""
        platform = platform_by_id(store, self.platform)
        where = platform.label if platform is not None else f"platform {self.platform}"
        return (f"{self.title or self.context_id} (context {self.context_id}, deployment "
                f"{self.deployment_id} of {where})")


def current(store: Store) -> Binding | None:
    """The course's binding, or None before the first instructor launch."""
    text = store.get_setting(SETTING)
    if not text:
        return None
    data = json.loads(text)
    return Binding(int(data["platform"]), str(data["deployment_id"]), str(data["context_id"]),
                   str(data.get("title", "")), str(data.get("bound_at", "")),
                   str(data.get("bound_by", "")))


def bind(store: Store, binding: Binding, who: str) -> Binding:
    """Bind the course to ``binding``'s LMS course (replacing any binding): the stored one.
    The sessions of the TAs of any other LMS course end (they grade only while the course is
    bound to theirs). ValueError when its platform is not registered or a field is empty."""
    if platform_by_id(store, binding.platform) is None:
        raise ValueError("choose a registered platform")
    if not binding.deployment_id.strip() or not binding.context_id.strip():
        raise ValueError("give the LMS course's deployment id and context id (the LTI page "
                         "shows those of each LMS course that launched the tool)")
    stored = Binding(binding.platform, binding.deployment_id.strip(),
                     binding.context_id.strip(), binding.title, utc_now(), who)
    with store.database.transaction():
        store.set_setting(SETTING, json.dumps(asdict(stored)))
        staff.end_sessions_outside(store, stored.platform, stored.deployment_id,
                                   stored.context_id)
    return stored


def unbind(store: Store) -> None:
    """Forget the binding: the next instructor launch binds the course again. Every TA's
    sessions end (a TA grades only while the course is bound to their LMS course)."""
    with store.database.transaction():
        store.set_setting(SETTING, None)
        staff.end_sessions_outside(store)


def check(store: Store, launch: Launch) -> Binding:
    """The binding the launch is allowed under (made now by a first instructor launch);
    LaunchRefused, with a page that says why, for a launch from another LMS course, or a
    learner's or TA's before the instructor's first launch."""
    bound = current(store)
    if bound is None:
        if launch.access != INSTRUCTOR_ACCESS:
            raise LaunchRefused("this course's page is not connected to an LMS course yet: "
                                "the instructor must open the tool from the LMS course first. "
                                "Try again after they have")
        return bind(store, Binding(launch.platform.id, launch.deployment_id, launch.context_id,
                                   launch.context_title),
                    who=f"the first instructor launch (LMS user {launch.sub})")
    if bound.same_as(launch.platform.id, launch.deployment_id, launch.context_id):
        return bound
    here = (f"{launch.context_title or launch.context_id} (context {launch.context_id}, "
            f"deployment {launch.deployment_id} of {launch.platform.label})")
    if launch.access == INSTRUCTOR_ACCESS:
        raise LaunchRefused(f"this course's page is bound to the LMS course "
                            f"{bound.describe(store)}, and this launch came from another one, "
                            f"{here}. Open the tool from the bound course; to move the course, "
                            "change the binding on the instructor's LTI page (/instructor/lti)")
    raise LaunchRefused(f"this page belongs to another LMS course than {here}: open the "
                        "assignment from your course's page in the LMS, or ask your "
                        "instructor")
