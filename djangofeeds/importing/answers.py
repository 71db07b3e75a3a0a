"""What a fetch that answered tells about its feed: validators, a new URL, a feed it duplicates.

Written with the import's end (``claims.release_claim``): under the fence, the
claim cleared, the next check stored.
"""

import logging

from django.db import IntegrityError, transaction

from djangofeeds.importing.claims import release_claim
from djangofeeds.models import Feed

logger = logging.getLogger(__name__)

URL_MAX_LENGTH = Feed._meta.get_field("url").max_length


def save_fetched(feed, fence, fetched, *, now, next_check_at, run=None, later=None, **changes):
    """Store what a successful fetch says of ``feed``, with ``changes``; its new URL if it moved.

    ``run``, if given, is saved with the feed's write (``write_fenced``), which
    ``later`` may take to send with others' (not for a feed that moves); returns
    the run as ``write_fenced`` does (None without one).
    """
    changes.update(
        last_checked_at=now,
        last_success_at=now,
        last_error="",
        error_count=0,
        **validators(fetched),
    )
    new_url = moves_to(feed, fetched)
    if not new_url:
        return release_claim(
            feed, fence, next_check_at=next_check_at, run=run, later=later, **changes
        )
    old_url = feed.url
    try:
        with transaction.atomic():
            release_claim(feed, fence, next_check_at=next_check_at, url=new_url, **changes)
    except IntegrityError:  # another feed took the URL since moved_to_another_feed looked
        logger.warning("feed %s moved permanently to %s, already a feed", old_url, new_url)
        release_claim(feed, fence, next_check_at=next_check_at, **changes)
    else:
        logger.info("feed %s moved permanently to %s", old_url, new_url)
    if run is not None:  # after the savepoint: a URL refused must not take the run with it
        run.save(force_insert=True)
    return run


def moves_to(feed, fetched):
    """The URL ``feed`` moved to for good, per this fetch (one that fits the column), or None."""
    new_url = fetched.permanent_url
    if not new_url or new_url == feed.url or len(new_url) > URL_MAX_LENGTH:
        return None
    return new_url


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
