"""blog's settings: each one's default, and the host's value read when used.

Read a setting as ``conf.BLOG_COMMENTS_PER_MINUTE`` after ``from blog import
conf``: the host's setting if it sets one, else the default below. Nothing is
read at import. docs/configuration.md explains each one.
"""

from collections.abc import Sequence

from django.conf import settings

DEFAULTS = {
    # Comment POSTs accepted per visitor IP and minute (0: no limit).
    "BLOG_COMMENTS_PER_MINUTE": 5,
    # Proxies (IPs or CIDR networks) whose X-Forwarded-For is believed.
    "BLOG_TRUSTED_PROXIES": [],
    # The spam backend: a dotted path to a blog.spam_backends.SpamBackend subclass.
    # None: Akismet when AKISMET_API_KEY is set, else the local rules.
    "BLOG_SPAM_BACKEND": None,
    # Seconds one Akismet request may take; the visitor never waits for it.
    "BLOG_AKISMET_TIMEOUT": 5,
    # A worker that found the key invalid asks again only after this many seconds.
    "BLOG_AKISMET_KEY_RETRY_AFTER": 300,
    # spam_filter's retries: first backoff, cap (seconds) and count.
    "BLOG_SPAM_RETRY_BACKOFF": 30,
    "BLOG_SPAM_RETRY_BACKOFF_MAX": 600,
    "BLOG_SPAM_MAX_RETRIES": 5,
    # Comments pending this long after their last dispatch are sent again.
    "BLOG_SPAM_RECHECK_AFTER_MINUTES": 30,
    # Spam older than this many days is deleted by purge_spam.
    "BLOG_SPAM_PURGE_AFTER_DAYS": 15,
    # Akismet's "discard" (blatant spam): deleted at once, no moderation entry, only
    # counted (False: kept as spam flagged blatant until purge_spam).
    "BLOG_SPAM_DELETE_BLATANT": True,
    # Seconds the admin keeps Akismet's usage-limit answer.
    "BLOG_AKISMET_USAGE_CACHE_SECONDS": 300,
    # The local rules: more links than this, or any of these words, is spam.
    "BLOG_SPAM_MAX_LINKS": 3,
    "BLOG_SPAM_BLOCKED_WORDS": ["viagra", "cialis", "casino", "payday loan", "crypto giveaway"],
    # Replies nest at most this deep (1: no replies).
    "BLOG_MAX_THREAD_DEPTH": 3,
    # Who is mailed each comment held for moderation: (name, address) pairs or
    # addresses; None: the site's MANAGERS.
    "BLOG_MODERATORS": None,
    # Comments the spam check finds ham wait for a moderator (WordPress's "must be
    # manually approved"), but those of trusted commenters (BLOG_TRUST_APPROVED).
    "BLOG_HOLD_FOR_MODERATION": False,
    # A commenter whose earlier comment a moderator published is published at
    # once when the spam check says ham.
    "BLOG_TRUST_APPROVED": True,
    # An entry's comments close this many days after its publication (None: never).
    "BLOG_CLOSE_AFTER_DAYS": None,
    # The site's address, for the links in the blog's mails (None: AKISMET_BLOG_URL).
    "BLOG_SITE_URL": None,
    # A moderator's one-click links (publish, spam) in a mail work this many days.
    "BLOG_MODERATION_LINK_DAYS": 7,
    # The mail tasks' retries when the mail server fails: first backoff, cap
    # (seconds) and count (the defaults retry for about three hours; the cap stays
    # under Redis's one-hour visibility timeout); after the last, the comment's
    # history says so and the sweeper (recheck_pending_comments) queues it again.
    "BLOG_MAIL_RETRY_BACKOFF": 60,
    "BLOG_MAIL_RETRY_BACKOFF_MAX": 1800,
    "BLOG_MAIL_MAX_RETRIES": 10,
    # Akismet: the key (unset: local rules), the site it is for, and its API.
    "AKISMET_API_KEY": "",
    "AKISMET_BLOG_URL": "http://localhost:8000/",
    "AKISMET_API_URL": "https://rest.akismet.com",
}

# Each setting's type, as ``conf.<NAME>`` reads it. Annotations only: the names are
# not defined here, so every read still goes through ``__getattr__``.
BLOG_COMMENTS_PER_MINUTE: int
BLOG_TRUSTED_PROXIES: Sequence[str]
BLOG_SPAM_BACKEND: str | None
BLOG_AKISMET_TIMEOUT: int
BLOG_AKISMET_KEY_RETRY_AFTER: int
BLOG_SPAM_RETRY_BACKOFF: int
BLOG_SPAM_RETRY_BACKOFF_MAX: int
BLOG_SPAM_MAX_RETRIES: int
BLOG_SPAM_RECHECK_AFTER_MINUTES: int
BLOG_SPAM_PURGE_AFTER_DAYS: int
BLOG_SPAM_DELETE_BLATANT: bool
BLOG_AKISMET_USAGE_CACHE_SECONDS: int
BLOG_SPAM_MAX_LINKS: int
BLOG_SPAM_BLOCKED_WORDS: Sequence[str]
BLOG_MAX_THREAD_DEPTH: int
BLOG_MODERATORS: Sequence[str | tuple[str, str]] | None
BLOG_HOLD_FOR_MODERATION: bool
BLOG_TRUST_APPROVED: bool
BLOG_CLOSE_AFTER_DAYS: int | None
BLOG_SITE_URL: str | None
BLOG_MODERATION_LINK_DAYS: int
BLOG_MAIL_RETRY_BACKOFF: int
BLOG_MAIL_RETRY_BACKOFF_MAX: int
BLOG_MAIL_MAX_RETRIES: int
AKISMET_API_KEY: str
AKISMET_BLOG_URL: str
AKISMET_API_URL: str


def __getattr__(name: str) -> object:
    if name not in DEFAULTS:
        raise AttributeError(f"blog has no setting {name!r}")
    return getattr(settings, name, DEFAULTS[name])
