"""The signed links the blog's mails carry: a moderator's publish and spam links, a commenter's
unsubscribe link.

A link is its own authority: whoever holds it may do what it says, so each one
names its comment and its action, is signed with the site's ``SECRET_KEY`` (a salt
per purpose: a moderation token is never an unsubscribe token), and is confirmed on
a page by a POST (mail scanners follow GET links). Moderation links expire after
``BLOG_MODERATION_LINK_DAYS``; unsubscribe links do not (RFC 8058 asks that they
keep working), and unsubscribing twice is harmless.
"""

from datetime import timedelta
from urllib.parse import urljoin

from django.core import signing
from django.urls import reverse

from blog import conf

MODERATION_SALT = "blog.mail_links.moderation"
UNSUBSCRIBE_SALT = "blog.mail_links.unsubscribe"
# What a moderation link may do: the action's name in the token and the URL.
PUBLISH, SPAM = "publish", "spam"
ACTIONS = (PUBLISH, SPAM)


class BadLink(Exception):
    """Not a link the site made (mistyped, cut by a mail client, forged)."""


class ExpiredLink(BadLink):
    """A moderation link older than BLOG_MODERATION_LINK_DAYS."""


def site_url(path):
    """``path`` on the site, as a mail needs it: BLOG_SITE_URL, else AKISMET_BLOG_URL."""
    return urljoin(conf.BLOG_SITE_URL or conf.AKISMET_BLOG_URL, path)


def moderation_url(comment_id, action):
    """The absolute URL of the page that publishes (or marks as spam) one comment."""
    if action not in ACTIONS:
        raise ValueError(f"no moderation action {action!r}")
    token = signing.dumps([comment_id, action], salt=MODERATION_SALT, compress=False)
    return site_url(reverse("blog:moderate_by_mail", kwargs={"token": token}))


def read_moderation(token):
    """``(comment_id, action)`` of a moderation token; raises BadLink or ExpiredLink."""
    max_age = timedelta(days=conf.BLOG_MODERATION_LINK_DAYS)
    try:
        comment_id, action = signing.loads(token, salt=MODERATION_SALT, max_age=max_age)
    except signing.SignatureExpired as exc:
        raise ExpiredLink(str(exc)) from exc
    except (signing.BadSignature, TypeError, ValueError) as exc:
        raise BadLink(str(exc)) from exc
    if not isinstance(comment_id, int) or action not in ACTIONS:
        raise BadLink(f"not a moderation token: {comment_id!r}, {action!r}")
    return comment_id, action


def unsubscribe_url(comment_id):
    """The absolute URL that stops reply notices for one comment's author on its entry."""
    token = signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(comment_id))
    return site_url(reverse("blog:unsubscribe", kwargs={"token": token}))


def read_unsubscribe(token):
    """The comment id of an unsubscribe token; raises BadLink."""
    try:
        value = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token)
    except signing.BadSignature as exc:
        raise BadLink(str(exc)) from exc
    if not value.isdigit():
        raise BadLink(f"not an unsubscribe token: {value!r}")
    return int(value)
