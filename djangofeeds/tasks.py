"""Celery tasks for feeds: claim due feeds, take the feed's lock, call the importer, log.

The database is the scheduler's source of truth (``claims``): the tick claims
due feeds and sends one ``import_feed`` message per feed, carrying its claim.
The task owns what is Celery's: the lock around the importer, retries while
the lock cache is unreachable, its JSON reply, and the records of attempts the
importer never ran (``attempts``).
"""

import base64
import time
from datetime import timedelta
from hashlib import md5

from celery import Task, shared_task
from celery.exceptions import Retry, SoftTimeLimitExceeded
from celery.utils.log import get_task_logger
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from kombu.common import maybe_declare

from djangofeeds import conf, websub
from djangofeeds.attempts import crash_message, record_attempt, record_crash
from djangofeeds.claims import claim_feeds, holds_claim, release_claims, unfinished_claims
from djangofeeds.importer import fetch_and_store, new_run
from djangofeeds.locks import CacheLock, LockUnavailable
from djangofeeds.models import Feed, ImportRun, Outcome, RefreshRun, Subscription
from djangofeeds.politeness import HostBusy, busy_wait, deferred_until, heed, host_of, host_slot
from djangofeeds.schedules import TICK_EXPIRES
from djangofeeds.websub_store import LockBusy, run_push

logger = get_task_logger(__name__)

# Only an unreachable lock cache is retried in the task (no fetch happened, so
# a retry costs nothing); a feed that fails goes back to its schedule, which
# backs off, instead of holding a worker through retries.
MAX_RETRIES = 5
RETRY_BACKOFF_MAX = 600
# URLs per claim statement when a person queues feeds by URL.
URLS_PER_CLAIM = 500
# Messages published together (one Redis pipeline).
PUBLISH_CHUNK = 500


class ImportCrashed(Exception):
    """An import ended with an unexpected error, already recorded on the feed and its run."""


def lock_key(task_name, url):
    """The Cookbook's key: the task name and the MD5 of the URL (of its bytes)."""
    return f"{task_name}-lock-{md5(url.encode()).hexdigest()}"


def send_imports(feeds, claim, *, scheduled=False, refresh_run=None):
    """Send one ``import_feed`` per claimed ``(pk, url)``; return ``[(url, AsyncResult)]``.

    A broker failure releases the claims of the feeds not sent (they are due
    again) and re-raises; the ones already sent keep theirs, so nothing is
    sent twice (a message of a released claim imports nothing). A scheduled
    import writes no task result (``ImportRun`` is its record); one a person
    asked for keeps its state and result.
    """
    kwargs = {"claim": claim}
    if refresh_run is not None:
        kwargs["refresh_run"] = refresh_run
    # Celery writes a repr of the arguments into every message, for result
    # rows and logs; a scheduled import has no result row, and the repr costs
    # more than the rest of the message to build (the URL is in the args).
    reprs = {"argsrepr": "", "kwargsrepr": ""} if scheduled else {}
    sent = []
    try:
        with import_feed.app.producer_or_acquire() as producer:
            # The queue is declared once here, not with every message.
            options = {
                "producer": producer,
                "queue": declared_import_queue(producer),
                "declare": [],
                "ignore_result": scheduled,
                **reprs,
            }
            for start in range(0, len(feeds), PUBLISH_CHUNK):
                chunk = feeds[start : start + PUBLISH_CHUNK]
                # On Redis a chunk is one pipeline, one round trip (kombu's publish
                # batch); other brokers publish each message as it comes.
                with producer.batch(max_size=2 * len(chunk)):
                    results = [
                        (url, import_feed.apply_async((url,), kwargs, **options))
                        for _, url in chunk
                    ]
                sent.extend(results)
    except Exception:
        # A chunk that failed may have reached Redis in part: those messages
        # carry a claim that is released here, so they import nothing.
        release_claims([pk for pk, _ in feeds[len(sent) :]], claim)
        raise
    return sent


def declared_import_queue(producer):
    """The queue ``import_feed`` is routed to, declared once on ``producer``'s connection.

    Celery declares a message's queue with every message it sends (a copy and
    a bind of the queue each time, a fifth of publishing's cost); the messages
    of a batch are sent with ``declare=[]`` after this one declaration.
    """
    queue = import_feed.app.amqp.router.route({}, import_feed.name)["queue"]
    maybe_declare(queue, producer.channel)
    return queue


def enqueue_imports(urls):
    """Claim and queue an import of each URL's feed unless it is queued already.

    "Import now" and ``import_feeds`` use the same claim as the scheduler, so
    a feed is never queued twice. A URL without a feed gets one. Returns
    ``(queued, waiting)``: ``(url, AsyncResult)`` pairs sent now, and the URLs
    that were already waiting in a queue.
    """
    urls = list(dict.fromkeys(urls))
    Feed.objects.bulk_create([Feed(url=url) for url in urls], ignore_conflicts=True)
    queued = {}
    for start in range(0, len(urls), URLS_PER_CLAIM):
        claim, feeds = claim_feeds(
            Feed.objects.filter(url__in=urls[start : start + URLS_PER_CLAIM])
        )
        queued.update(send_imports(feeds, claim))
    return (
        [(url, queued[url]) for url in urls if url in queued],
        [url for url in urls if url not in queued],
    )


def run_import(url, *, wait_for_host=True, **options):
    """Import ``url`` (see ``import_under_lock``), waiting here while its host is busy.

    The path of ``import_feeds --sync`` and of an eager task: the caller's own
    process waits. A worker passes ``wait_for_host=False`` and gets
    ``HostBusy``: it requeues the feed instead of sleeping in a pool process.
    """
    waits = 0
    while True:
        try:
            return import_under_lock(url, **options)
        except HostBusy:
            if not wait_for_host:
                raise
            time.sleep(busy_wait(waits))
            waits += 1


def import_under_lock(
    url, *, task_name, task_id="", worker="", progress=None, claim=None, refresh_run=None
):
    """Import ``url`` under its lock and one of its host's slots.

    Returns the importer's ``ImportResult``: outcome ``skipped`` when another
    worker holds the lock, when ``claim`` (the message's) is no longer the
    feed's (the feed was imported since it was queued), or when the feed's host
    asked to wait (``Retry-After``: the feed is due again then). Raises
    ``HostBusy`` when the host has ``DJANGOFEEDS_MAX_PER_HOST`` imports running,
    and ``LockUnavailable`` when the lock's cache cannot be reached: without a
    lock nothing is imported. An unexpected error is recorded on the feed under
    the import's fencing number, then raised as ``ImportCrashed``.
    """
    recorded = {"task_id": task_id, "worker": worker, "refresh_run": refresh_run}
    key = lock_key(task_name, url)
    expire, lock_cache = conf.DJANGOFEEDS_LOCK_EXPIRE, conf.DJANGOFEEDS_LOCK_CACHE
    with CacheLock(key, expire=expire, using=lock_cache) as lock:
        if not lock.acquired:
            error = "another worker is importing this feed"
            return record_attempt(url, Outcome.SKIPPED, error=error, **recorded)
        with lock.keep_alive():
            feed = Feed.objects.next_fence(url)
            if claim is not None and not holds_claim(feed, claim):
                error = "already imported since it was queued (its claim was replaced)"
                return record_attempt(url, Outcome.SKIPPED, error=error, **recorded)
            until = deferred_until(url)
            if until:
                # Back to the scheduler, due when the host said: no worker waits that long.
                Feed.objects.filter(pk=feed.pk, fence=feed.fence).update(
                    claimed_at=None, next_check_at=until
                )
                error = f"{host_of(url)} asked to wait until {until.isoformat(timespec='seconds')}"
                return record_attempt(
                    url, Outcome.SKIPPED, error=error + " (Retry-After)", **recorded
                )
            with host_slot(url):  # HostBusy if none is free (the feed lock is released)
                run = new_run(feed, **recorded)
                try:
                    result = fetch_and_store(feed, run, fence=feed.fence, progress=progress)
                except SoftTimeLimitExceeded:
                    error = (
                        f"import took longer than {import_feed.soft_time_limit:g}s and was stopped"
                    )
                    return record_crash(url, error, fence=feed.fence, **recorded)
                except Exception as exc:
                    error = crash_message(exc)
                    record_crash(url, error, fence=feed.fence, **recorded)
                    raise ImportCrashed(error) from exc
            heed(url, result.run.http_status, result.retry_after)
            subscribe_to = websub.after_poll(result, feed.fence)  # WebSub: pace, a new hub
            if subscribe_to:
                transaction.on_commit(lambda: subscribe_feed.delay(subscribe_to), robust=True)
            return result


def reply(result):
    """The task's return value (JSON) for an ``ImportResult``."""
    run = result.run
    summary = {
        "status": Outcome(run.outcome).value,
        "url": result.feed.url,
        "created": run.created,
        "updated": run.updated,
    }
    if run.error:
        summary["error"] = run.error
    return summary


def failed_reply(url, error):
    """The task's return value (JSON) for an import that ended without an ``ImportResult``."""
    return {"status": Outcome.FAILED, "url": url, "created": 0, "updated": 0, "error": error}


def describe(result):
    """One log line saying what happened to a feed, in plain words."""
    status, url = result["status"], result["url"]
    if status == Outcome.IMPORTED:
        return (
            f"Feed {url}: imported, {result['created']} new and {result['updated']} changed posts"
        )
    if status == Outcome.NOT_MODIFIED:
        return f"Feed {url}: not modified since the last import"
    if status == Outcome.SKIPPED:
        return f"Feed {url}: skipped, {result.get('error') or 'another worker is importing it'}"
    return f"Feed {url}: failed, {result.get('error', 'unknown error')}"


class ImportFeedTask(Task):
    """``import_feed``'s class: time limits under the lock's expiry, crashes recorded."""

    # Read when a worker asks, not at import (a host's settings may not be
    # ready then): the hard limit stays below the lock's expiry, so a stuck
    # import is killed before its lease could run out under it.
    @property
    def soft_time_limit(self):
        return conf.DJANGOFEEDS_LOCK_EXPIRE * 0.8

    @property
    def time_limit(self):
        return conf.DJANGOFEEDS_LOCK_EXPIRE * 0.9

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """An unexpected error outside the import (before its fence): record the run only."""
        url = args[0] if args else kwargs.get("feed_url")
        if url and not isinstance(exc, ImportCrashed):
            record_crash(
                url,
                crash_message(exc),
                task_id=task_id,
                worker=self.request.hostname,
                refresh_run=kwargs.get("refresh_run"),
            )


@shared_task(
    bind=True,
    base=ImportFeedTask,
    # Acknowledged after the import, and requeued if the worker process dies,
    # so a crash never silently drops a feed (the lock makes a rerun safe).
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(LockUnavailable,),
    retry_backoff=5,
    retry_backoff_max=RETRY_BACKOFF_MAX,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
)
def import_feed(self, feed_url, claim=None, refresh_run=None, host_waits=0):
    """Import one feed unless another worker is importing it; return a JSON summary.

    ``claim`` and ``refresh_run`` come from the scheduler (``refresh_feeds``,
    ``enqueue_imports``). A failed fetch is not retried here: the feed's
    schedule backs off (``next_check_at``), so a dead feed costs one fetch
    timeout per check, not a worker held through retries. A feed whose host is
    busy is requeued with a countdown (``host_waits`` counts how often).
    """
    last_attempt = self.request.retries >= self.max_retries

    def report(current, total):
        # Only for an import a person waits on: a scheduled one writes no state.
        if self.request.id and not self.request.ignore_result:
            self.update_state(
                state="PROGRESS", meta={"current": current, "total": total, "url": feed_url}
            )

    try:
        result = run_import(
            feed_url,
            task_name=self.name,
            task_id=self.request.id,
            worker=self.request.hostname,
            progress=report,
            claim=claim,
            refresh_run=refresh_run,
            # Eager or called as a function: the caller's process may wait.
            wait_for_host=self.request.is_eager or self.request.called_directly,
        )
    except HostBusy as busy:
        raise requeue(self, feed_url, busy, host_waits) from None
    except LockUnavailable as exc:
        logger.error(
            "Feed %s: not imported, the lock cache is unreachable (%s); %s",
            feed_url,
            exc,
            "giving up" if last_attempt else "will retry",
        )
        record_attempt(
            feed_url,
            Outcome.FAILED,
            error=f"not imported: the lock cache is unreachable ({exc})",
            task_id=self.request.id,
            worker=self.request.hostname,
            refresh_run=refresh_run,
        )
        if last_attempt:
            return failed_reply(feed_url, str(exc))
        raise
    except SoftTimeLimitExceeded:  # before the import began (the lock, the database)
        error = f"import took longer than {self.soft_time_limit:g}s and was stopped"
        record_crash(
            feed_url,
            error,
            task_id=self.request.id,
            worker=self.request.hostname,
            refresh_run=refresh_run,
        )
        return failed_reply(feed_url, error)
    summary = reply(result)
    log = logger.warning if result.outcome == Outcome.FAILED else logger.info
    log(describe(summary))
    return summary


def requeue(task, feed_url, busy, host_waits):
    """Send the running import again in a few seconds; return the ``Retry`` to raise.

    Celery's ``retry()`` without its count: the same task id (a person waiting
    on the result gets the import's), queue, claim and options; the retries
    left for an unreachable lock cache are untouched. The message is
    acknowledged, so no pool process is held while the feed waits.
    """
    wait = busy_wait(host_waits)
    again = task.signature_from_request(
        task.request,
        kwargs={**task.request.kwargs, "host_waits": host_waits + 1},
        countdown=wait,
    )
    again.apply_async()
    logger.info("Feed %s: waits %.1fs, %s", feed_url, wait, busy)
    return Retry(exc=busy, when=wait, sig=again)


# Beat sends the tick every TICK_SECONDS (djangofeeds.schedules); a copy that
# waited longer than TICK_EXPIRES is dropped, so ticks never pile up.
@shared_task(ignore_result=True, expires=TICK_EXPIRES)
def refresh_feeds():
    """The scheduler's tick: claim a batch of due feeds and queue one import each.

    Adds work only while fewer than ``DJANGOFEEDS_QUEUE_DEPTH`` claimed feeds
    are unfinished, at most ``DJANGOFEEDS_TICK_BATCH`` per tick: a tick costs
    O(batch), whatever the number of feeds. Each tick that queues anything is
    a refresh round (``RefreshRun``), counted from its ``ImportRun`` rows.
    """
    now = timezone.now()
    close_rounds(now)
    unfinished = unfinished_claims(now)
    room = min(conf.DJANGOFEEDS_TICK_BATCH, conf.DJANGOFEEDS_QUEUE_DEPTH - unfinished)
    if room <= 0:
        logger.info(
            "Not queueing feeds: %d queued imports are unfinished (the depth is %d)",
            unfinished,
            conf.DJANGOFEEDS_QUEUE_DEPTH,
        )
        return {"queued": 0, "unfinished": unfinished}
    claim, feeds = claim_feeds(Feed.objects.due(now), limit=room, now=now)
    if not feeds:
        return {"queued": 0, "unfinished": unfinished}
    summary = RefreshRun.objects.create(started_at=now, feeds=len(feeds))
    try:
        send_imports(feeds, claim, scheduled=True, refresh_run=summary.pk)
    except Exception as exc:
        # send_imports released the claims of the feeds it did not send.
        sent = Feed.objects.filter(pk__in=[pk for pk, _ in feeds], claimed_at=now).count()
        if sent:
            RefreshRun.objects.filter(pk=summary.pk).update(feeds=sent)
        else:
            summary.delete()
        logger.error(
            "Refresh round %d: the broker failed after %d of %d feeds (%s: %s); "
            "the other %d are due again",
            summary.pk,
            sent,
            len(feeds),
            type(exc).__name__,
            exc,
            len(feeds) - sent,
        )
        error = f"{type(exc).__name__}: {exc}"
        return {"queued": sent, "refresh_run": summary.pk if sent else None, "error": error}
    logger.info(
        "Refresh round %d: queued %d due feeds (%d were unfinished)",
        summary.pk,
        len(feeds),
        unfinished,
    )
    return {"queued": len(feeds), "refresh_run": summary.pk}


def close_rounds(now):
    """Write the counts of the rounds that are over: every feed has a run, or its claim ran out."""
    stale = now - timedelta(seconds=conf.DJANGOFEEDS_CLAIM_TIMEOUT)
    for summary in RefreshRun.objects.filter(finished_at__isnull=True).order_by("started_at"):
        done, counts = summary.progress()
        if done < summary.feeds and summary.started_at > stale:
            continue
        finished = ImportRun.objects.filter(refresh_run=summary).aggregate(last=Max("finished_at"))
        RefreshRun.objects.filter(pk=summary.pk).update(
            finished_at=finished["last"] or now, **counts
        )


@shared_task
def cleanup():
    """Hourly (beat): prune old posts, import runs and this app's task results, in batches."""
    from djangofeeds.retention import cleanup as run_cleanup  # the pure part, like the importer

    return run_cleanup()


# --- WebSub (djangofeeds.websub): thin tasks around its functions -------------


@shared_task(autoretry_for=(websub.HubError,), retry_backoff=60, retry_jitter=True, max_retries=5)
def subscribe_feed(subscription_id, mode="subscribe"):
    """Ask the subscription's hub to (un)subscribe; the hub then verifies on the callback."""
    subscription = Subscription.objects.filter(pk=subscription_id).first()
    if subscription is None or not websub.enabled():
        return {"status": "skipped", "subscription": subscription_id}
    if mode == "unsubscribe":
        websub.unsubscribe(subscription)
    else:
        websub.request(subscription, "subscribe")
    logger.info("WebSub: asked %s to %s %s", subscription.hub, mode, subscription.topic)
    return {"status": "requested", "subscription": subscription_id, "mode": mode}


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=(LockBusy, LockUnavailable),
    retry_backoff=2,
    retry_backoff_max=RETRY_BACKOFF_MAX,
    retry_jitter=True,
    max_retries=10,
)
def store_push(self, subscription_id, body_b64, content_type=""):
    """Store content a hub pushed (checked by the callback) under the feed's lock; no fetch."""
    result = run_push(
        subscription_id,
        base64.b64decode(body_b64),
        content_type,
        task_name=import_feed.name,  # the same lock as the feed's imports
        task_id=self.request.id or "",
        worker=self.request.hostname or "",
    )
    if result is None:
        return {"status": "skipped", "subscription": subscription_id}
    summary = reply(result)
    logger.info("%s (pushed)", describe(summary))
    return summary


@shared_task(ignore_result=True)
def renew_subscriptions():
    """Hourly (beat, djangofeeds.schedules): renew ending leases, unsubscribe dropped feeds."""
    lapsed = websub.lapse()
    renew = [*lapsed, *websub.to_renew().exclude(pk__in=lapsed).values_list("pk", flat=True)]
    drop = list(websub.to_unsubscribe().values_list("pk", flat=True))
    for pk in renew:
        subscribe_feed.delay(pk)
    for pk in drop:
        subscribe_feed.delay(pk, "unsubscribe")
    return {"renewed": len(renew), "unsubscribed": len(drop)}
