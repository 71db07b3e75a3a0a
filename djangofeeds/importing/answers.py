"""What a fetch that answered tells about its feed: validators, its health, a new URL, a feed
it duplicates.

Written with the import's end (``claims.release_claim``): under the fence, the
claim cleared, the next check stored.
"""

import logging

from django.db import IntegrityError, transaction

from djangofeeds.health import states
from djangofeeds.importing.claims import release_claim
from djangofeeds.models import Feed

logger = logging.getLogger(__name__)


def save_fetched(feed, fence, fetched, *, now, next_check_at, run=None, later=None, **changes):
    """Store what a successful fetch says of ``feed``, with ``changes``: its health, a
    permanent redirect counted, its new URL once that redirect is confirmed.

    ``run``, if given, is saved with the feed's write (``write_fenced``), which
    ``later`` may take to send with others' (not for a feed that moves or whose
    health changes: the change is recorded in the same transaction). Returns the
    run as ``write_fenced`` does (None without one).
    """
    changes.update(
        last_checked_at=now,
        last_success_at=now,
        last_error="",
        error_count=0,
        **validators(fetched),
    )
    if feed.failing_since is not None:
        changes["failing_since"] = None
    new_url, redirect = states.redirect(feed, fetched.permanent_url, now=now)
    changes.update(redirect)
    old = feed.health
    state = states.after_success(
        feed,
        now=now,
        moved=bool(new_url),
        newest_entry_at=changes.get("newest_entry_at", feed.newest_entry_at),
        entry_interval=changes.get("entry_interval", feed.entry_interval),
    )
    changes.update(states.change(feed, state, now=now))
    if not new_url and state == old:
        return release_claim(
            feed, fence, next_check_at=next_check_at, run=run, later=later, **changes
        )
    with transaction.atomic():
        if new_url:
            move(feed, fence, new_url, next_check_at=next_check_at, **changes)
        else:
            release_claim(feed, fence, next_check_at=next_check_at, **changes)
        if feed.health != old:
            reason = states.describe(feed.health, feed=feed, moved_to=new_url)
            states.announce(feed, old, reason, now=now)
        if run is not None:  # after the move's savepoint: a URL refused must not take the run
            run.save(force_insert=True)
    return run


def move(feed, fence, new_url, *, next_check_at, **changes):
    """Write ``feed`` with its new URL; without it (and its ``moved`` state) if another feed
    took that URL since ``moved_to_another_feed`` looked."""
    old_url = feed.url
    try:
        with transaction.atomic():
            release_claim(feed, fence, next_check_at=next_check_at, url=new_url, **changes)
    except IntegrityError:
        logger.warning("feed %s moved permanently to %s, already a feed", old_url, new_url)
        kept = {name: value for name, value in changes.items() if not name.startswith("health")}
        release_claim(feed, fence, next_check_at=next_check_at, **kept)
    else:
        logger.info("feed %s moved permanently to %s", old_url, new_url)


def moved_to_another_feed(feed, new_url):
    """The other feed a permanent redirect leads to, if there is one (``feed`` duplicates it).

    Happens when a task or a command still names a feed's old URL after the
    feed moved: importing it again would create a second copy.
    """
    if not new_url or new_url == feed.url:
        return None
    return Feed.objects.filter(url=new_url).exclude(pk=feed.pk).first()


def validators(fetched):
    """The conditional-GET validators to keep.

    A 200 replaces them (a server that stopped sending an ETag must not be
    asked with the old one); a 304 may update them, and keeps the others.
    """
    names = {"etag": ("etag", 500), "last_modified": ("last-modified", 100)}
    if fetched.not_modified:
        return {
            field: fetched.headers[header][:limit]
            for field, (header, limit) in names.items()
            if header in fetched.headers
        }
    return {
        field: fetched.headers.get(header, "")[:limit] for field, (header, limit) in names.items()
    }
