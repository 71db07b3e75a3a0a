"""The one boundary to spam checking: the backend BLOG_SPAM_BACKEND names, and what it is sent.

Without BLOG_SPAM_BACKEND: Akismet when AKISMET_API_KEY is set, the local rules
otherwise. The interface is in ``blog.spam_backends``; callers see only its
``Verdict``, ``TemporaryFailure`` and ``Refused``. The akismet library is
imported only when the Akismet backend is loaded.
"""

from __future__ import annotations

from datetime import UTC
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


def blog_languages() -> str:
    """The blog's languages as Akismet reads them: "en", or "en, fr" for a site that sets
    LANGUAGES (Django's default LANGUAGES lists every language: only LANGUAGE_CODE then)."""
    codes = [settings.LANGUAGE_CODE]
    if settings.is_overridden("LANGUAGES"):  # type: ignore[misc]  # missing from django-stubs
        codes = [code for code, _name in settings.LANGUAGES]
    primary = [code.split("-")[0].lower() for code in codes]
    return ", ".join(dict.fromkeys(primary))


def build_payload(
    comment: Comment, remote_addr: str | None = None, recheck_reason: str = ""
) -> dict[str, str]:
    """Everything Akismet reads about a comment (the local rules read it too).

    ``recheck_reason`` (e.g. "recheck_queue") says why a comment is checked again;
    ``check`` takes it from ``comment.recheck_reason``, set by the task.
    """
    entry = comment.entry
    blog_url = conf.AKISMET_BLOG_URL.rstrip("/")
    payload = {
        "user_ip": comment.user_ip or remote_addr or "",
        "user_agent": comment.user_agent,
        "referrer": comment.referrer,
        "permalink": blog_url + entry.get_absolute_url(),
        "comment_type": "reply" if comment.parent_id else "comment",
        "comment_author": comment.name,
        "comment_author_email": comment.email_address,
        "comment_author_url": comment.homepage,
        "comment_content": comment.comment,
        "comment_date_gmt": comment.pub_date.astimezone(UTC).isoformat(),
        # Entry keeps no time of its last change: its publication time is the
        # nearest truth (Akismet reads this to spot comments on old posts).
        "comment_post_modified_gmt": entry.pub_date.astimezone(UTC).isoformat(),
        "blog_lang": blog_languages(),
        "blog_charset": settings.DEFAULT_CHARSET,
        # Comments are posted anonymously (the form knows no user): a guest.
        "user_role": "guest",
        # The honeypot's name, and its value: a filled honeypot is refused before
        # anything is stored, so a stored comment's was empty.
        "honeypot_field_name": HONEYPOT_FIELD,
        HONEYPOT_FIELD: "",
    }
    if recheck_reason:
        payload["recheck_reason"] = recheck_reason
    return payload


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
