"""System checks: djangofeeds' settings, caught at start-up instead of at the first import.

- ``djangofeeds.E001``: a setting of the wrong type or out of range.
- ``djangofeeds.E002``: the poll interval's bounds are the wrong way round.
- ``djangofeeds.E003``: the lock expires before a fetch may end.
- ``djangofeeds.E004``: the lock cache names no cache in ``CACHES``.
- ``djangofeeds.W001``: the lock cache is not shared between processes.
- ``djangofeeds.W002`` (``check --deploy``): feeds on private addresses are allowed.
- ``djangofeeds.W003``: WebSub hubs to publish to, but no public URL to name the topics by.
"""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from djangofeeds import conf
from djangofeeds.fetching.transport import DEADLINE_TIMEOUTS, fetch_deadline
from djangofeeds.tasks import import_feed

PROCESS_LOCAL_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache": "keeps its data inside one process",
    "django.core.cache.backends.dummy.DummyCache": "stores nothing",
}

# Whole numbers, each with its smallest sensible value.
WHOLE_NUMBERS = {
    "DJANGOFEEDS_LOCK_EXPIRE": 1,
    "DJANGOFEEDS_FETCH_TIMEOUT": 1,
    "DJANGOFEEDS_MAX_BYTES": 1,
    "DJANGOFEEDS_REFRESH_INTERVAL": 1,
    "DJANGOFEEDS_MIN_POLL_INTERVAL": 1,
    "DJANGOFEEDS_MAX_POLL_INTERVAL": 1,
    "DJANGOFEEDS_TICK_BATCH": 1,
    "DJANGOFEEDS_QUEUE_DEPTH": 1,
    "DJANGOFEEDS_FEEDS_PER_MESSAGE": 1,
    "DJANGOFEEDS_CLAIM_TIMEOUT": 1,
    "DJANGOFEEDS_MAX_PER_HOST": 1,
    "DJANGOFEEDS_OPML_CONCURRENCY": 1,
    "DJANGOFEEDS_KEEP_POSTS": 0,
    "DJANGOFEEDS_KEEP_RUNS_DAYS": 0,
    "DJANGOFEEDS_KEEP_RUNS_PER_FEED": 0,
    "DJANGOFEEDS_DEAD_AFTER": 1,
    "DJANGOFEEDS_MOVE_AFTER": 1,
}


def bad_whole_numbers(names, read, check_id):
    """An ``Error`` for each setting in ``names`` that is not a whole number >= its minimum."""
    errors = []
    for name, minimum in names.items():
        value = read(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            errors.append(
                Error(
                    f"{name} must be a whole number of at least {minimum}, not {value!r}.",
                    hint=f"Set {name} in your settings, or remove it to use the default.",
                    id=check_id,
                )
            )
    return errors


def bad_contact(contact):
    """An ``Error`` when the User-Agent's contact is not text that fits in a header line."""
    if contact is None or (
        isinstance(contact, str) and contact.isprintable() and contact.strip() == contact
    ):
        return []
    return [
        Error(
            f"DJANGOFEEDS_USER_AGENT_CONTACT must be None or one line of text, not {contact!r}.",
            hint="Set it to a URL or an e-mail address, e.g. 'https://example.org/contact'.",
            id="djangofeeds.E001",
        )
    ]


def bad_hubs(hubs):
    """An ``Error`` when the hubs to publish to are not a list of http(s) URLs."""
    if isinstance(hubs, list | tuple) and all(
        isinstance(hub, str) and hub.lower().startswith(("http://", "https://")) for hub in hubs
    ):
        return []
    return [
        Error(
            f"DJANGOFEEDS_PUBLISH_HUBS must be a list of http(s) URLs, not {hubs!r}.",
            hint="e.g. ['https://pubsubhubbub.appspot.com/'], or [] to publish to none.",
            id="djangofeeds.E001",
        )
    ]


def bad_digest_recipients(recipients):
    """An ``Error`` when the digest's recipients are not None or a list of e-mail addresses."""
    if recipients is None or (
        isinstance(recipients, list | tuple)
        and all(isinstance(address, str) and "@" in address for address in recipients)
    ):
        return []
    return [
        Error(
            f"DJANGOFEEDS_DIGEST_TO must be a list of e-mail addresses, not {recipients!r}.",
            hint="e.g. ['ops@example.org'], [] to send no digest, or None for the ADMINS.",
            id="djangofeeds.E001",
        )
    ]


@register()
def check_publishing(app_configs, **kwargs):
    if not conf.DJANGOFEEDS_PUBLISH_HUBS or conf.DJANGOFEEDS_PUBLIC_URL:
        return []
    return [
        Warning(
            "DJANGOFEEDS_PUBLISH_HUBS is set but DJANGOFEEDS_PUBLIC_URL is not: the output "
            "feeds name no hub and no hub is told of new posts.",
            hint="Set DJANGOFEEDS_PUBLIC_URL to the base URL at which hubs reach this site.",
            id="djangofeeds.W003",
        )
    ]


@register()
def check_settings(app_configs, **kwargs):
    errors = bad_whole_numbers(WHOLE_NUMBERS, lambda name: getattr(conf, name), "djangofeeds.E001")
    errors += bad_contact(conf.DJANGOFEEDS_USER_AGENT_CONTACT)
    errors += bad_hubs(conf.DJANGOFEEDS_PUBLISH_HUBS)
    errors += bad_digest_recipients(conf.DJANGOFEEDS_DIGEST_TO)
    if errors:
        return errors  # the checks below compare these numbers
    if conf.DJANGOFEEDS_MIN_POLL_INTERVAL > conf.DJANGOFEEDS_MAX_POLL_INTERVAL:
        errors.append(
            Error(
                "DJANGOFEEDS_MIN_POLL_INTERVAL is longer than DJANGOFEEDS_MAX_POLL_INTERVAL.",
                id="djangofeeds.E002",
            )
        )
    # The task is stopped by its soft time limit (80% of the lock's lease, or
    # less on a short lease): a fetch allowed to run longer would be cut short every time.
    whole_fetch = fetch_deadline()
    soft_limit = import_feed.soft_time_limit
    if soft_limit <= whole_fetch:
        errors.append(
            Error(
                f"DJANGOFEEDS_LOCK_EXPIRE ({conf.DJANGOFEEDS_LOCK_EXPIRE}s) is too short: an "
                f"import is stopped after {soft_limit:g}s, but one fetch may take "
                f"{whole_fetch}s ({DEADLINE_TIMEOUTS} x DJANGOFEEDS_FETCH_TIMEOUT).",
                hint="Raise DJANGOFEEDS_LOCK_EXPIRE or lower DJANGOFEEDS_FETCH_TIMEOUT.",
                id="djangofeeds.E003",
            )
        )
    return errors


@register()
def check_lock_cache(app_configs, **kwargs):
    alias = conf.DJANGOFEEDS_LOCK_CACHE
    if alias not in settings.CACHES:
        return [
            Error(
                f"DJANGOFEEDS_LOCK_CACHE is {alias!r}, which is not a cache in CACHES.",
                hint=f"Name one of: {', '.join(sorted(settings.CACHES))}.",
                id="djangofeeds.E004",
            )
        ]
    backend = settings.CACHES[alias].get("BACKEND", "")
    if backend not in PROCESS_LOCAL_CACHES:
        return []
    return [
        Warning(
            f"The cache {alias!r} used for feed import locks {PROCESS_LOCAL_CACHES[backend]}: "
            "two worker processes could import the same feed at once.",
            hint=(
                f"Point CACHES[{alias!r}] (or DJANGOFEEDS_LOCK_CACHE) at a cache every worker "
                "shares: memcached, Redis or the database; the README's "
                '"A cache for the locks" has a block of each to copy.'
            ),
            id="djangofeeds.W001",
        )
    ]


@register(Tags.security, deploy=True)
def check_private_hosts(app_configs, **kwargs):
    if not conf.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS:
        return []
    return [
        Warning(
            "DJANGOFEEDS_ALLOW_PRIVATE_HOSTS is on: anyone who can add a feed can make this "
            "server fetch loopback and private addresses (internal services, cloud metadata).",
            hint="Leave it off in production; it is for development against local servers.",
            id="djangofeeds.W002",
        )
    ]
