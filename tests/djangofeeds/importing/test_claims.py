"""importing.claims: a feed is claimed (queued) once, whoever claims at the same time."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from djangofeeds.importing.claims import (
    claim_feeds,
    holds_claim,
    release_claims,
    release_every_claim,
    unfinished_claims,
)
from djangofeeds.models import Feed
from tests.factories import make_feeds

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_concurrent_ticks_claim_disjoint_sets():
    """Two claims racing on two connections never take the same feed, and together take all."""
    make_feeds(600)
    barrier = threading.Barrier(2)
    claimed = [None, None]

    def tick(slot):
        try:
            barrier.wait()
            claimed[slot] = claim_feeds(Feed.objects.due(), limit=400)[1]
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=tick, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    first, second = ({pk for pk, _ in feeds} for feeds in claimed)
    assert not first & second
    assert len(first) + len(second) == 600
    assert len(first) <= 400 and len(second) <= 400
    assert Feed.objects.filter(claimed_at__isnull=True).count() == 0


@pytest.mark.skipif(
    connection.vendor not in ("postgresql", "mysql"),
    reason="row locks: PostgreSQL, MariaDB/MySQL (SQLite has one writer at a time, no row locks)",
)
def test_a_claim_skips_rows_another_transaction_holds():
    """FOR UPDATE SKIP LOCKED: a claim does not wait for, nor take, a row locked elsewhere."""
    make_feeds(5)
    held = Feed.objects.order_by("next_check_at").first()
    locked, release = threading.Event(), threading.Event()

    def hold_a_row():
        from django.db import transaction

        try:
            with transaction.atomic():
                Feed.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_a_row)
    holder.start()
    assert locked.wait(30)
    try:
        _, feeds = claim_feeds(Feed.objects.due())
    finally:
        release.set()
        holder.join(30)

    assert len(feeds) == 4 and held.pk not in {pk for pk, _ in feeds}


def test_a_claim_is_held_counted_and_released(settings):
    """A claimed feed holds its claim and counts as unfinished; released, it is due again."""
    settings.DJANGOFEEDS_CLAIM_TIMEOUT = 900
    make_feeds(3)
    claim, feeds = claim_feeds(Feed.objects.due())
    feed = Feed.objects.get(pk=feeds[0][0])

    assert holds_claim(feed, claim) and unfinished_claims() == 3
    assert feed.next_check_at > timezone.now() + timedelta(minutes=10)  # the claim's deadline
    assert claim_feeds(Feed.objects.due())[1] == []  # nothing claimed twice

    release_claims([feed.pk], claim)

    feed.refresh_from_db()
    assert not holds_claim(feed, claim) and unfinished_claims() == 2
    assert [pk for pk, _ in claim_feeds(Feed.objects.due())[1]] == [feed.pk]


def test_release_every_claim_makes_every_claimed_feed_due():
    """At a stack's start every claim is stale: all are released and their feeds are due."""
    make_feeds(4)
    claim_feeds(Feed.objects.due(), limit=3)

    assert release_every_claim() == 3
    assert unfinished_claims() == 0 and Feed.objects.due().count() == 4
