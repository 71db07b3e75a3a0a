"""Claims: the database's record of which feeds are queued, so none is queued twice.

A feed is *claimed* (queued) when ``Feed.claimed_at`` is set. The claim also
moves ``next_check_at`` to the claim's deadline, so a claim that is never
finished (a lost message, a killed worker) makes the feed due again by itself.
Each message carries its claim (the claim's time, ISO format); an import whose
claim was cleared or replaced meanwhile does nothing. An import that finishes
clears the claim as it writes the feed's next check (``release_claim``, the one
fenced write of a next check), whatever its outcome.
"""

from datetime import datetime, timedelta

from django.db import connections, transaction
from django.db.models import Q
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.locking.fence import write_fenced
from djangofeeds.models import Feed


def claim_feeds(rows, *, limit=None, now=None):
    """Claim the feeds in ``rows`` that are not queued already; return ``(claim, [(pk, url)])``.

    Two ticks (or two beats started by mistake) never claim the same feed. On
    PostgreSQL and SQLite one statement: ``UPDATE … WHERE id IN (SELECT … FOR
    UPDATE SKIP LOCKED LIMIT n) RETURNING``; a concurrent claim on PostgreSQL
    skips the rows another one holds, and SQLite runs one writer at a time
    (IMMEDIATE transactions, see settings), which needs no row locks. MariaDB
    and MySQL have no ``UPDATE … RETURNING``: ``SELECT … FOR UPDATE SKIP
    LOCKED``, then ``UPDATE``, in one transaction (see ``claim_locked``). A
    stale claim (older than ``DJANGOFEEDS_CLAIM_TIMEOUT``) may be claimed
    again. ``claim`` is the claim's time in ISO format: the token each message
    carries.
    """
    now = now or timezone.now()
    timeout = claim_timeout()
    picked = (
        rows.filter(Q(claimed_at__isnull=True) | Q(claimed_at__lte=now - timeout))
        .order_by("next_check_at")
        .select_for_update(skip_locked=True)
    )
    connection = connections[rows.db]
    if connection.vendor == "mysql":
        return now.isoformat(), claim_locked(picked[:limit], now, now + timeout)
    picked = picked.values("pk")[:limit]
    quote, adapt = connection.ops.quote_name, connection.ops.adapt_datetimefield_value
    column = {name: quote(Feed._meta.get_field(name).column) for name in ("id", "url")}
    with transaction.atomic(using=rows.db), connection.cursor() as cursor:
        sql, params = picked.query.get_compiler(using=rows.db).as_sql()
        cursor.execute(
            f"UPDATE {quote(Feed._meta.db_table)} SET "
            f"{quote(Feed._meta.get_field('claimed_at').column)} = %s, "
            f"{quote(Feed._meta.get_field('next_check_at').column)} = %s "
            f"WHERE {column['id']} IN ({sql}) RETURNING {column['id']}, {column['url']}",
            [adapt(now), adapt(now + timeout), *params],
        )
        claimed = cursor.fetchall()
    return now.isoformat(), claimed


def claim_locked(picked, now, deadline):
    """The MariaDB/MySQL claim: lock the batch (skipping rows others hold), then update it.

    Both statements run in one transaction, so the row locks taken by the
    ``SELECT … FOR UPDATE SKIP LOCKED`` keep every other claim off these feeds
    until the ``UPDATE`` has committed; a claim that comes after sees them
    claimed. (MySQL allows no ``LIMIT`` in an ``IN`` subquery, nor an
    ``UPDATE`` of the table its subquery reads.)
    """
    with transaction.atomic(using=picked.db):
        claimed = list(picked.values_list("pk", "url"))
        if claimed:
            Feed.objects.using(picked.db).filter(pk__in=[pk for pk, _ in claimed]).update(
                claimed_at=now, next_check_at=deadline
            )
    return claimed


def release_claims(pks, claim):
    """Make claimed feeds due again at once (their messages were never sent)."""
    Feed.objects.filter(pk__in=pks, claimed_at=datetime.fromisoformat(claim)).update(
        claimed_at=None, next_check_at=timezone.now()
    )


def release_claim(feed, fence, *, next_check_at, run=None, later=None, **changes):
    """The import of ``feed`` is over: clear its claim and store its next check, under ``fence``.

    Raises ``StaleFence`` when a newer import holds the feed (it writes them).
    ``run``, if given, is saved with the write, and ``later`` may take both
    (``write_fenced``): returns the run, as ``write_fenced`` does.
    """
    return write_fenced(
        feed, fence, run=run, later=later, claimed_at=None, next_check_at=next_check_at, **changes
    )


def holds_claim(feed, claim):
    return feed.claimed_at is not None and feed.claimed_at == datetime.fromisoformat(claim)


def claim_timeout():
    """How long a claim holds: past it, the feed is due again and its claim counts no more."""
    return timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT)


def unfinished_claims(now=None):
    """Claimed feeds whose import has not finished (queued or running), stale claims left out."""
    now = now or timezone.now()
    return Feed.objects.filter(claimed_at__gt=now - claim_timeout()).count()


def release_every_claim():
    """Make every claimed feed due now; return how many. Only when no import can be running
    (a stack that starts: its claims are all left over from the last stop)."""
    return Feed.objects.filter(claimed_at__isnull=False).update(
        claimed_at=None, next_check_at=timezone.now()
    )
