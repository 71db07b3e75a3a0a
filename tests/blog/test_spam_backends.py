"""blog/spam_backends.py and BLOG_SPAM_BACKEND: a host's own backend, blog.E001, lazy akismet."""

import pytest
from django.core.checks import run_checks

from blog import spam
from blog.akismet_client import AkismetBackend
from blog.local_rules import LocalRulesBackend
from blog.models import Comment
from blog.spam_backends import Refused, SpamBackend, Verdict
from blog.tasks import spam_filter, submit_spam
from tests.factories import CommentFactory
from tests.support.comments import kinds
from tests.support.settings_env import run_python

pytestmark = pytest.mark.django_db

HERE = "tests.blog.test_spam_backends"


class ShoutingBackend(SpamBackend):
    """A host's backend: a comment in capitals is spam; moderators' decisions are counted."""

    name = "shouting"
    reports = []

    def check(self, comment, remote_addr=None):
        if comment.comment.isupper():
            return Verdict(Verdict.SPAM, "all capitals", {"text": comment.comment})
        return Verdict(Verdict.HAM)

    def submit_spam(self, comment):
        self.reports.append(("spam", comment.pk))
        return True


class RefusingBackend(SpamBackend):
    """A service that refuses the site's key."""

    name = "refusing"

    def check(self, comment, remote_addr=None):
        raise Refused("refusing: the key was revoked")


class NotABackend:
    """Has no interface at all."""


def blog_errors():
    return [message for message in run_checks() if message.id == "blog.E001"]


def test_blog_spam_backend_names_the_backend_the_spam_task_uses(settings):
    """With BLOG_SPAM_BACKEND set, spam_filter asks that class: its verdict, reason and data are
    stored, the history names it, and submit_spam sends the moderator's decision to it."""
    settings.BLOG_SPAM_BACKEND = f"{HERE}.ShoutingBackend"
    spam_comment, ham = CommentFactory(comment="BUY NOW"), CommentFactory(comment="Nice post")

    assert spam_filter.apply(kwargs={"comment_id": spam_comment.pk}).get() is True
    assert spam_filter.apply(kwargs={"comment_id": ham.pk}).get() is False

    spam_comment.refresh_from_db()
    assert (spam_comment.status, spam_comment.akismet_payload) == ("spam", {"text": "BUY NOW"})
    assert spam_comment.events.get().detail == "shouting: spam (all capitals)"
    assert Comment.objects.get(pk=ham.pk).status == "published"
    assert submit_spam.apply(kwargs={"comment_id": ham.pk}).get() is True
    assert ShoutingBackend.reports[-1] == ("spam", ham.pk)


def test_a_backend_refusing_the_configuration_leaves_the_comment_pending(settings):
    """Refused is recorded in the history with the backend's words, not retried."""
    settings.BLOG_SPAM_BACKEND = f"{HERE}.RefusingBackend"
    comment = CommentFactory()
    assert spam_filter.apply(kwargs={"comment_id": comment.pk}).get() is None
    comment.refresh_from_db()
    assert comment.status == "pending" and kinds(comment) == ["check_failed"]
    assert comment.events.get().detail == "refusing: the key was revoked"


def test_default_backend_is_akismet_with_a_key_else_the_local_rules(settings):
    """Unset BLOG_SPAM_BACKEND: Akismet when AKISMET_API_KEY is set, the local rules otherwise."""
    settings.BLOG_SPAM_BACKEND = None
    settings.AKISMET_API_KEY = "some-key"
    assert isinstance(spam.get_backend(), AkismetBackend)
    settings.AKISMET_API_KEY = ""
    assert isinstance(spam.get_backend(), LocalRulesBackend)
    assert spam.backend_name() == "local"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("no_such_module.Backend", "cannot be imported"),
        (f"{HERE}.NoSuchClass", "cannot be imported"),
        (f"{HERE}.NotABackend", "is not a blog.spam_backends.SpamBackend"),
        ("blog.spam_backends.SpamBackend", "with a name"),  # the interface itself
    ],
)
def test_blog_spam_backend_that_does_not_load_is_blog_e001(settings, path, words):
    """A path that cannot be imported, or names no backend, is a blog.E001 error naming it."""
    settings.BLOG_SPAM_BACKEND = path
    [error] = blog_errors()
    assert path in error.msg and words in error.msg
    assert "BLOG_SPAM_BACKEND" in error.hint


def test_a_good_blog_spam_backend_passes_the_check(settings):
    """A backend class, and the defaults, raise no blog.E001."""
    settings.BLOG_SPAM_BACKEND = f"{HERE}.ShoutingBackend"
    assert blog_errors() == []
    settings.BLOG_SPAM_BACKEND = None
    assert blog_errors() == []


def test_akismet_is_imported_only_with_the_akismet_backend():
    """With the local rules, a process that loads the blog and checks a comment never imports
    the akismet library; with a key, the backend brings it in."""
    script = (
        "import sys, django; django.setup(); "
        "import blog.admin, blog.tasks, blog.views, blog.moderation, project.health; "
        "from blog import spam; from django.core.checks import run_checks; run_checks(); "
        "print(spam.backend_name(), 'akismet' in sys.modules)"
    )
    local = run_python(["-c", script], DJANGO_DEBUG="1", AKISMET_API_KEY="")
    assert local.stdout.split() == ["local", "False"], local.stderr
    akismet = run_python(["-c", script], DJANGO_DEBUG="1", AKISMET_API_KEY="some-key")
    assert akismet.stdout.split() == ["akismet", "True"], akismet.stderr
