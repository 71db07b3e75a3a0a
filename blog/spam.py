"""The one boundary to spam checking: the backend BLOG_SPAM_BACKEND names, and what it is sent.

Without BLOG_SPAM_BACKEND: Akismet when AKISMET_API_KEY is set, the local rules
otherwise. The interface is in ``blog.spam_backends``; callers see only its
``Verdict``, ``TemporaryFailure`` and ``Refused``. The akismet library is
imported only when the Akismet backend is loaded.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from blog import conf
from blog.spam_backends import is_backend

if TYPE_CHECKING:
    from blog.models import Comment
    from blog.spam_backends import SpamBackend, Verdict

AKISMET_BACKEND = "blog.akismet_client.AkismetBackend"
LOCAL_BACKEND = "blog.local_rules.LocalRulesBackend"
HONEYPOT_FIELD = "website"


def backend_path() -> str:
    """The dotted path of the backend in use."""
    if conf.BLOG_SPAM_BACKEND:
        return conf.BLOG_SPAM_BACKEND
    return AKISMET_BACKEND if conf.AKISMET_API_KEY else LOCAL_BACKEND


@lru_cache(maxsize=4)
def load_backend(path: str) -> type[SpamBackend]:
    """The backend class at ``path``; ImproperlyConfigured when it is none (see blog.E001)."""
    try:
        backend = import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(f"BLOG_SPAM_BACKEND {path!r} cannot be imported: {exc}") from exc
    if not is_backend(backend):
        raise ImproperlyConfigured(
            f"BLOG_SPAM_BACKEND {path!r} is not a blog.spam_backends.SpamBackend subclass "
            "with a name"
        )
    return backend


def get_backend() -> SpamBackend:
    """An instance of the backend in use."""
    return load_backend(backend_path())()


def backend_name() -> str:
    """The name of the backend in use ("akismet", "local", ...), as the history says it."""
    return load_backend(backend_path()).name


def build_payload(comment: Comment, remote_addr: str | None = None) -> dict[str, str]:
    """Everything Akismet uses about a comment (the local rules read it too)."""
    entry = comment.entry
    blog_url = conf.AKISMET_BLOG_URL.rstrip("/")
    return {
        "user_ip": comment.user_ip or remote_addr or "",
        "user_agent": comment.user_agent,
        "referrer": comment.referrer,
        "permalink": blog_url + entry.get_absolute_url(),
        "comment_type": "comment",
        "comment_author": comment.name,
        "comment_author_email": comment.email_address,
        "comment_author_url": comment.homepage,
        "comment_content": comment.comment,
        "comment_date_gmt": comment.pub_date.isoformat(),
        # Akismet's name for the post's publication time.
        "comment_post_modified_gmt": entry.pub_date.isoformat(),
        "blog_lang": settings.LANGUAGE_CODE.split("-")[0],
        "blog_charset": "UTF-8",
        "honeypot_field_name": HONEYPOT_FIELD,
    }


def check(comment: Comment, remote_addr: str | None = None) -> Verdict:
    """The backend's ``Verdict`` about a comment."""
    return get_backend().check(comment, remote_addr)


def submit_spam(comment: Comment) -> bool:
    """Tell the backend a moderator found the comment to be spam; False when nothing was sent."""
    return get_backend().submit_spam(comment)


def submit_ham(comment: Comment) -> bool:
    """Tell the backend a moderator found the comment not spam; False when nothing was sent."""
    return get_backend().submit_ham(comment)


def is_misconfigured() -> bool:
    """True while the backend's service is known to refuse this site's configuration."""
    return get_backend().is_misconfigured()
