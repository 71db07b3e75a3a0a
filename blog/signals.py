"""The blog's signals: hooks for a host, each sent by the code named in its comment.

See docs (extension points) for the arguments and when each is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.dispatch import Signal

if TYPE_CHECKING:
    from django.http import HttpRequest

    from blog.models import Comment
    from blog.spam_backends import Verdict

# Sent by blog.views.add_comment before a valid comment is saved, sender the
# Comment class, with ``comment`` (unsaved, status pending) and ``request``. A
# receiver returning False vetoes it: nothing is saved, the visitor gets the
# form back (400) with a message.
comment_will_be_posted = Signal()


class CommentWillBePostedArguments(TypedDict):
    """What ``comment_will_be_posted`` sends besides ``signal`` and ``sender``."""

    comment: Comment
    request: HttpRequest


# Sent by blog.moderation.record_verdict (from the spam_filter task) once a
# backend's verdict is committed, sender the Comment class, with ``comment``
# (its new status set), ``verdict`` (a blog.spam_backends.Verdict) and
# ``backend`` (the backend's name). Not sent when a moderator's decision came
# first, nor for moderators' own decisions.
comment_judged = Signal()


class CommentJudgedArguments(TypedDict):
    """What ``comment_judged`` sends besides ``signal`` and ``sender``."""

    comment: Comment
    verdict: Verdict
    backend: str
