"""Store a document a WebSub hub pushed: the importer's parse and store, under the feed's lock.

No fetch: the hub sent the content. The feed's lock and fencing number are the
ones ``import_feed`` takes, so a push and a poll of one feed never write at
once, and a stale holder is refused as in any import.
"""

import logging
import time

from django.utils import timezone

from djangofeeds.importing.importer import Importer, elapsed_ms, one_commit
from djangofeeds.importing.records import BY_HAND, finish_run, start_run
from djangofeeds.importing.runner import feed_lock
from djangofeeds.locking.fence import StaleFence, next_fence
from djangofeeds.models import Outcome, Subscription
from djangofeeds.parsing.readers import NotAFeed, parse
from djangofeeds.push import subscriber

logger = logging.getLogger(__name__)


class LockBusy(Exception):
    """Another worker imports the feed: the push is stored when it is done (a retry)."""


class PushImporter(Importer):
    """The importer's store path for pushed bytes; the feed's validators and pace stay as polled.

    A pushed document may hold only the new entries: it says nothing of the
    feed's publishing rate, and its hash is not the feed's body.
    """

    def __init__(self, feed, run, fence, body, content_type):
        super().__init__(feed, run, fence)
        self.body, self.content_type = body, content_type

    def execute(self):
        feed, run = self.feed, self.run
        run.bytes_received = len(self.body)
        started = time.perf_counter()
        try:
            parsed = parse(self.body, url=feed.url, content_type=self.content_type)
        except NotAFeed as exc:
            # The hub's mistake, not the feed's: recorded on the run, the feed's health unchanged.
            run.parse_ms, run.error = elapsed_ms(started), f"pushed content: {exc}"
            return finish_run(feed, run, Outcome.FAILED)
        run.parse_ms = elapsed_ms(started)
        run.warning = parsed.warning
        started = time.perf_counter()

        def finish(created, updated, pruned):
            # In the last batch's transaction when nothing was to be pruned.
            run.created, run.updated = created, updated
            with one_commit():
                self.write(last_success_at=self.now)
                run.store_ms = elapsed_ms(started)
                return self.imported()

        return self.posts.store(parsed.entries, parsed.categories, finish=finish)


def run_push(subscription_id, body, content_type, *, task_name, origin=BY_HAND):
    """Store ``body`` pushed for a subscription's feed under the feed's lock; an ``ImportResult``.

    None when the subscription or its feed is gone or inactive (nothing is
    stored). Raises ``LockBusy`` while another worker imports the feed, and
    ``LockUnavailable`` when the lock cache is unreachable: the caller retries.
    ``origin`` (who asked, ``records.ImportOrigin``) goes on the run.
    """
    subscription = Subscription.objects.select_related("feed").filter(pk=subscription_id).first()
    if subscription is None or subscription.feed is None or not subscription.feed.is_active:
        logger.info("push for subscription %s ignored: no active feed", subscription_id)
        return None
    url = subscription.feed.url
    with feed_lock(task_name, url) as lock:
        if not lock.acquired:
            raise LockBusy(url)
        with lock.keep_alive():
            feed = next_fence(url)
            run = start_run(feed, origin, pushed=True)
            importer = PushImporter(feed, run, feed.fence, body, content_type)
            try:
                result = importer.execute()
            except StaleFence:
                return importer.refused()
            subscription.last_push_at = timezone.now()
            subscription.save(update_fields=["last_push_at"])
            if subscription.pushing():  # a lapsed lease's late push does not slow polling
                subscriber.slow_down(feed, feed.fence, subscription.last_push_at)
            return result
