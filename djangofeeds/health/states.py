"""The health states (SPEC "Feed health"): the state an import's answer leaves a feed in.

- ``ok``: the last import worked;
- ``failing``: the last one failed;
- ``dead``: ``DJANGOFEEDS_DEAD_AFTER`` failures in a row over at least ``DEAD_SPAN``
  (then polled at ``DJANGOFEEDS_MAX_POLL_INTERVAL``, see ``importing.records``);
- ``moved``: its URL was changed by a confirmed permanent redirect (shown for
  ``MOVED_SHOWN``), or it was deactivated because its redirect leads to another feed;
- ``gone``: the server answered 410 (deactivated);
- ``silent``: it works, but has had no new entry for ``SILENT_INTERVALS`` times its
  usual interval and at least ``SILENT_AFTER``.

Pure functions of the feed row and the answer; the import writes the state with its
last fenced write, and ``announce`` records each change.
"""

from datetime import timedelta

from djangofeeds import conf
from djangofeeds.models import Feed, Health, HealthChange
from djangofeeds.signals import feed_health_changed, send_on_commit

DEAD_SPAN = timedelta(days=7)
# A permanent redirect moves a feed only once seen this long: NewsBlur's guard
# against a hijacked or mistaken redirect, which a feed would otherwise follow for good.
MOVE_SPAN = timedelta(hours=24)
SILENT_AFTER = timedelta(days=30)
SILENT_INTERVALS = 4
# A week: a moved feed is on the health page (and in the weekly digest) before it is ok again.
MOVED_SHOWN = timedelta(days=7)

URL_MAX_LENGTH = Feed._meta.get_field("url").max_length
FORGET_REDIRECT = {"redirect_url": "", "redirect_count": 0, "redirect_since": None}


def after_failure(errors, failing_since, *, now):
    """``failing``, or ``dead`` once ``errors`` failures in a row span ``DEAD_SPAN``."""
    if errors >= conf.DJANGOFEEDS_DEAD_AFTER and now - failing_since >= DEAD_SPAN:
        return Health.DEAD
    return Health.FAILING


def after_success(feed, *, now, moved, newest_entry_at, entry_interval):
    """The state after an import that worked: ``moved``, ``silent`` or ``ok``."""
    if moved:
        return Health.MOVED
    if is_silent(newest_entry_at, entry_interval, now=now):
        return Health.SILENT
    recently_moved = feed.health == Health.MOVED and feed.health_changed_at is not None
    if recently_moved and now - feed.health_changed_at < MOVED_SHOWN:
        return Health.MOVED
    return Health.OK


def is_silent(newest_entry_at, entry_interval, *, now):
    """No entry for ``SILENT_INTERVALS`` usual intervals and ``SILENT_AFTER``. A feed whose
    entries carry no date cannot be told silent."""
    if newest_entry_at is None:
        return False
    usual = timedelta(seconds=SILENT_INTERVALS * (entry_interval or 0))
    return now - newest_entry_at >= max(SILENT_AFTER, usual)


def redirect(feed, permanent_url, *, now):
    """Count a fetch's permanent redirect: ``(URL to move to or None, columns to write)``.

    The URL moves once the same target came ``DJANGOFEEDS_MOVE_AFTER`` fetches in a
    row, the first at least ``MOVE_SPAN`` ago; until then the redirect is only
    followed. A fetch without one (or to a URL the column cannot hold) forgets it.
    """
    if not permanent_url or permanent_url == feed.url or len(permanent_url) > URL_MAX_LENGTH:
        return None, (FORGET_REDIRECT if feed.redirect_url else {})
    if permanent_url == feed.redirect_url and feed.redirect_since is not None:
        count, since = feed.redirect_count + 1, feed.redirect_since
    else:
        count, since = 1, now
    if count >= conf.DJANGOFEEDS_MOVE_AFTER and now - since >= MOVE_SPAN:
        return permanent_url, FORGET_REDIRECT
    return None, {"redirect_url": permanent_url, "redirect_count": count, "redirect_since": since}


def change(feed, state, *, now):
    """The columns that put ``feed`` in ``state`` (none when it is there already)."""
    return {} if state == feed.health else {"health": state, "health_changed_at": now}


def announce(feed, old, reason, *, now):
    """Record that ``feed`` went from ``old`` to its (written) state; ``feed_health_changed``
    is sent after commit."""
    new = feed.health
    HealthChange.objects.create(feed=feed, changed_at=now, old=old, new=new, reason=reason)
    send_on_commit(feed_health_changed, Feed, feed=feed, old=old, new=new, reason=reason)


def describe(state, *, feed, error="", moved_to=""):
    """Why a feed entered ``state``, in words for the admin and the digest."""
    if state == Health.MOVED and moved_to:
        return f"moved permanently to {moved_to}"
    if state == Health.SILENT:
        return f"no new entry since {feed.newest_entry_at:%Y-%m-%d}"
    if state == Health.DEAD:
        return (
            f"{feed.error_count} failures in a row since {feed.failing_since:%Y-%m-%d}; "
            f"checked once a day now: {error}"
        )
    if state == Health.OK:
        return "imports work again"
    return error
