"""The next check's pace: publishing rate, poll delay within bounds, backoff."""

from datetime import timedelta

from django.utils import timezone

from djangofeeds import conf
from djangofeeds.importing.pacing import (
    BACKOFF_CAP,
    backoff,
    next_check,
    poll_delay,
    publishing_rate,
)


def test_adaptive_interval_stays_within_its_bounds(settings):
    """Whatever the dates, the delay of a dated feed lies between the minimum and the maximum."""
    settings.DJANGOFEEDS_MIN_POLL_INTERVAL = 600
    settings.DJANGOFEEDS_MAX_POLL_INTERVAL = 7200
    now = timezone.now()
    shortest, longest = timedelta(seconds=600), timedelta(seconds=7200)
    for gap in (None, 1, 59, 600, 3600, 7200, 86400, 10**9):
        for age in (
            None,
            timedelta(0),
            timedelta(minutes=5),
            timedelta(days=3),
            timedelta(days=10**4),
        ):
            if gap is None and age is None:
                continue
            delay = poll_delay(gap, None if age is None else now - age, now=now)
            assert shortest <= delay <= longest, (gap, age, delay)
    # Without any date: the configured interval.
    assert poll_delay(None, None, now=now) == timedelta(seconds=conf.DJANGOFEEDS_REFRESH_INTERVAL)


def test_publishing_rate_ignores_undated_and_future_entries():
    """The publishing rate comes from dated past entries; one entry gives no rate."""
    now = timezone.now()

    class Entry:
        def __init__(self, published_at=None, updated_at=None):
            self.published_at, self.updated_at = published_at, updated_at

    hour = timedelta(hours=1)
    entries = [
        Entry(now - hour),
        Entry(updated_at=now - 3 * hour),
        Entry(),
        Entry(now + 30 * 24 * hour),
    ]
    assert publishing_rate(entries, now) == (7200, now - hour)
    assert publishing_rate([Entry()], now) == (None, None)
    assert publishing_rate([Entry(now - hour)], now) == (None, now - hour)  # one entry, no rate


def test_backoff_doubles_with_each_error_and_stays_under_the_cap():
    """Each consecutive error doubles the wait (±20%), and no wait passes the 24 h cap."""
    for errors in range(1, 8):
        assert (
            timedelta(minutes=4) * 2 ** (errors - 1)
            <= backoff(errors)
            <= timedelta(minutes=6) * 2 ** (errors - 1)
        )
    assert all(backoff(errors) <= BACKOFF_CAP for errors in (20, 100, 10**6))


def test_next_check_is_pushed_later_never_earlier_by_the_server_and_capped(settings):
    """max-age, Retry-After and ttl only delay the pace; a failing feed backs off; 24 h at most."""
    settings.DJANGOFEEDS_REFRESH_INTERVAL = 3600
    now = timezone.now()

    assert next_check(now) == now + timedelta(hours=1)
    assert next_check(now, max_age=60, retry_after=30, ttl_minutes=1) == now + timedelta(hours=1)
    assert next_check(now, retry_after=7200) == now + timedelta(hours=2)
    assert next_check(now, ttl_minutes=180) == now + timedelta(hours=3)
    assert next_check(now, max_age=10**15) == now + BACKOFF_CAP
    failing = next_check(now, errors=1) - now
    assert timedelta(minutes=4) <= failing <= timedelta(minutes=6)
