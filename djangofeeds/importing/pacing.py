"""When a feed is checked next: its publishing pace when healthy, a backoff when failing.

Pure functions of what the importer saw; ``next_check`` puts them together with
what the server asked for (``max-age``, ``Retry-After``, ``<ttl>``). The claim
stores the result (``claims.release_claim``).
"""

import random
from datetime import timedelta

from djangofeeds import conf

BACKOFF_BASE = timedelta(minutes=5)


BACKOFF_CAP = timedelta(hours=24)


# Feeds that failed together should not all be retried together: spread the
# backoff by ±20%, and capped backoffs over the cap's last 5%.
BACKOFF_JITTER = 0.2


CAPPED_JITTER = 0.05


# Adaptive polling looks at the entries of the last week (as Miniflux's
# entry-frequency scheduler does) and, for a feed gone quiet, waits at least
# half the time since its newest entry (as NewsBlur slows down stale feeds).
RATE_WINDOW = timedelta(days=7)


QUIET_DIVISOR = 2


# An entry dated further ahead than this is a bad clock, not a publishing rate.
FUTURE_SLACK = timedelta(days=1)


def entry_dates(entries, now):
    """The dates of a document's entries (published, else updated), bad clocks left out:
    a date more than a day ahead is not a publishing date."""
    return [
        moment
        for entry in entries
        if (moment := entry.published_at or entry.updated_at) and moment <= now + FUTURE_SLACK
    ]


def publishing_rate(entries, now):
    """``(seconds between recent entries or None, newest entry date or None)`` of a document.

    The gap is the average over the entries of the last week; one recent entry
    (or none) tells no rate. Entries without a date are left out; so are dates
    more than a day ahead (a bad clock).
    """
    dates = sorted(entry_dates(entries, now))
    if not dates:
        return None, None
    recent = [moment for moment in dates if moment >= now - RATE_WINDOW]
    if len(recent) < 2:
        return None, dates[-1]
    gap = (recent[-1] - recent[0]) / (len(recent) - 1)
    return max(1, int(gap.total_seconds())), dates[-1]


def usual_interval(entries, now):
    """Seconds between the document's dated entries on average, over all of them (None
    below two): a feed's usual pace, which its silence is measured against."""
    dates = entry_dates(entries, now)
    if len(dates) < 2:
        return None
    return max(1, int((max(dates) - min(dates)).total_seconds() / (len(dates) - 1)))


def poll_delay(poll_interval, newest_entry_at, *, now):
    """How long a healthy feed waits: its publishing gap, or longer while it is quiet, in bounds.

    A feed without dated entries waits ``DJANGOFEEDS_REFRESH_INTERVAL``. One
    with dates waits about one gap between its recent entries, at least half
    the time since its newest entry (a feed gone quiet slows down), and always
    between ``DJANGOFEEDS_MIN_POLL_INTERVAL`` and ``DJANGOFEEDS_MAX_POLL_INTERVAL``.
    """
    default = timedelta(seconds=conf.DJANGOFEEDS_REFRESH_INTERVAL)
    if poll_interval is None and newest_entry_at is None:
        return default
    delay = timedelta(seconds=poll_interval) if poll_interval else default
    if newest_entry_at is not None:
        delay = max(delay, (now - newest_entry_at) / QUIET_DIVISOR)
    shortest = timedelta(seconds=conf.DJANGOFEEDS_MIN_POLL_INTERVAL)
    return min(max(delay, shortest), max(longest_poll(), shortest))


def longest_poll():
    """``DJANGOFEEDS_MAX_POLL_INTERVAL``: a healthy feed's longest wait, and a dead feed's."""
    return timedelta(seconds=conf.DJANGOFEEDS_MAX_POLL_INTERVAL)


def backoff(errors):
    """How long a feed with ``errors`` consecutive failures waits: doubling, jittered, capped."""
    # The exponent is bounded: a feed failing for months must not overflow timedelta.
    delay = BACKOFF_BASE * 2 ** min(errors - 1, 20)
    return min(
        delay * random.uniform(1 - BACKOFF_JITTER, 1 + BACKOFF_JITTER),
        BACKOFF_CAP * random.uniform(1 - CAPPED_JITTER, 1),
    )


def next_check(
    now, *, errors=0, max_age=None, ttl_minutes=None, retry_after=None, rate=(None, None)
):
    """Next check: the feed's own pace or a backoff, pushed later (never earlier) by the server.

    ``rate`` is ``(poll_interval, newest_entry_at)``, see ``publishing_rate``.
    """
    delay = backoff(errors) if errors else poll_delay(*rate, now=now)
    for seconds in (max_age, retry_after, ttl_minutes and ttl_minutes * 60):
        if seconds:
            # Capped first: a server's 10**15 seconds must not overflow timedelta.
            delay = max(delay, timedelta(seconds=min(seconds, BACKOFF_CAP.total_seconds())))
    return now + min(delay, BACKOFF_CAP)
