"""djangofeeds' settings: each one's default, and the host's value read when used.

Read a setting as ``conf.DJANGOFEEDS_KEEP_POSTS`` after ``from djangofeeds import
conf``: the host's ``settings.DJANGOFEEDS_KEEP_POSTS`` if it sets one, else the
default below. Nothing is read at import, so a host that sets none of these runs
on the defaults, and ``override_settings`` works in tests. docs/configuration.md
explains each one.
"""

from django.conf import settings

DEFAULTS = {
    # Seconds an import's lock lease lasts; the task's time limits stay below it.
    "DJANGOFEEDS_LOCK_EXPIRE": 600,
    # The cache alias that holds import locks: it must be shared by all workers.
    "DJANGOFEEDS_LOCK_CACHE": "default",
    # Seconds to connect, and between two reads, when fetching a feed.
    "DJANGOFEEDS_FETCH_TIMEOUT": 10,
    # A feed's decompressed body is refused past this many bytes.
    "DJANGOFEEDS_MAX_BYTES": 10 * 1024 * 1024,
    # Fetch from loopback and private addresses (development and tests only).
    "DJANGOFEEDS_ALLOW_PRIVATE_HOSTS": False,
    # Seconds between two imports of a healthy feed with undated entries.
    "DJANGOFEEDS_REFRESH_INTERVAL": 1800,
    # Adaptive polling bounds, in seconds.
    "DJANGOFEEDS_MIN_POLL_INTERVAL": 900,
    "DJANGOFEEDS_MAX_POLL_INTERVAL": 86400,
    # Feeds claimed per refresh tick, and the most claims left unfinished.
    "DJANGOFEEDS_TICK_BATCH": 5000,
    "DJANGOFEEDS_QUEUE_DEPTH": 10000,
    # Scheduled feeds per message: 1 sends one import_feed each; more send
    # import_feed_batch messages, Celery's work per message paid once for several.
    "DJANGOFEEDS_FEEDS_PER_MESSAGE": 1,
    # Seconds after which a claim never run is due again.
    "DJANGOFEEDS_CLAIM_TIMEOUT": 900,
    # Posts kept per feed, newest first (0: no bound).
    "DJANGOFEEDS_KEEP_POSTS": 1000,
    # Import runs kept: this many days, and always the last N of each feed.
    "DJANGOFEEDS_KEEP_RUNS_DAYS": 14,
    "DJANGOFEEDS_KEEP_RUNS_PER_FEED": 10,
    # Imports of one host's feeds running at once, across all workers.
    "DJANGOFEEDS_MAX_PER_HOST": 2,
    # OPML rows checked at once by opml_import (each host still at most DJANGOFEEDS_MAX_PER_HOST).
    "DJANGOFEEDS_OPML_CONCURRENCY": 10,
    # A URL or address added to the User-Agent, so that a publisher can reach you.
    "DJANGOFEEDS_USER_AGENT_CONTACT": None,
    # Base URL at which WebSub hubs reach this site (e.g. "https://example.com");
    # None: push is off and every feed is polled.
    "DJANGOFEEDS_PUBLIC_URL": None,
    # Seconds of WebSub lease asked of a hub (it may grant another); renewed before it ends.
    "DJANGOFEEDS_WEBSUB_LEASE_SECONDS": 10 * 24 * 3600,
    # Posts in each output feed (RSS, Atom, JSON Feed), newest first.
    "DJANGOFEEDS_PUBLISH_ITEMS": 50,
    # WebSub hubs the output feeds name and imports ping (needs DJANGOFEEDS_PUBLIC_URL).
    "DJANGOFEEDS_PUBLISH_HUBS": (),
    # Feed health (docs/health.md): failures in a row (over at least 7 days) that make a
    # feed dead; identical permanent redirects in a row (over at least a day) that move it;
    # who gets the weekly digest of changes (None: the site's ADMINS).
    "DJANGOFEEDS_DEAD_AFTER": 10,
    "DJANGOFEEDS_MOVE_AFTER": 3,
    "DJANGOFEEDS_DIGEST_TO": None,
    # Celery's own setting: seconds a task result is kept (the cleanup prunes
    # this app's older results when django-celery-results is installed).
    "CELERY_RESULT_EXPIRES": 24 * 3600,
}

# Each setting's type, as ``conf.<NAME>`` reads it. Annotations only: the names are
# not defined here, so every read still goes through ``__getattr__``.
DJANGOFEEDS_LOCK_EXPIRE: int
DJANGOFEEDS_LOCK_CACHE: str
DJANGOFEEDS_FETCH_TIMEOUT: int
DJANGOFEEDS_MAX_BYTES: int
DJANGOFEEDS_ALLOW_PRIVATE_HOSTS: bool
DJANGOFEEDS_REFRESH_INTERVAL: int
DJANGOFEEDS_MIN_POLL_INTERVAL: int
DJANGOFEEDS_MAX_POLL_INTERVAL: int
DJANGOFEEDS_TICK_BATCH: int
DJANGOFEEDS_QUEUE_DEPTH: int
DJANGOFEEDS_FEEDS_PER_MESSAGE: int
DJANGOFEEDS_CLAIM_TIMEOUT: int
DJANGOFEEDS_KEEP_POSTS: int
DJANGOFEEDS_KEEP_RUNS_DAYS: int
DJANGOFEEDS_KEEP_RUNS_PER_FEED: int
DJANGOFEEDS_MAX_PER_HOST: int
DJANGOFEEDS_OPML_CONCURRENCY: int
DJANGOFEEDS_USER_AGENT_CONTACT: str | None
DJANGOFEEDS_PUBLIC_URL: str | None
DJANGOFEEDS_WEBSUB_LEASE_SECONDS: int
DJANGOFEEDS_PUBLISH_ITEMS: int
DJANGOFEEDS_PUBLISH_HUBS: list[str] | tuple[str, ...]
DJANGOFEEDS_DEAD_AFTER: int
DJANGOFEEDS_MOVE_AFTER: int
DJANGOFEEDS_DIGEST_TO: list[str] | tuple[str, ...] | None
CELERY_RESULT_EXPIRES: int | None


def public_url(path: str) -> str:
    """``path`` on this site as others reach it (``DJANGOFEEDS_PUBLIC_URL``, which must be
    set): WebSub callbacks and topics, the digest's links."""
    return str(__getattr__("DJANGOFEEDS_PUBLIC_URL")).rstrip("/") + path


def __getattr__(name: str) -> object:
    if name not in DEFAULTS:
        raise AttributeError(f"djangofeeds has no setting {name!r}")
    return getattr(settings, name, DEFAULTS[name])
