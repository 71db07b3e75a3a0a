"""Sending djangofeeds' tasks to the broker, by name: imports and refresh rounds.

Tasks are named, not imported (as ``blog.dispatch`` does): ``djangofeeds.tasks``
calls into this module, and the names are the contract the routes and the
workers agree on. Claims (``claims``) keep a feed from being queued twice; a
refresh round (``RefreshRun``) is the record of one tick's batch.
"""

import logging

from celery import current_app
from celery.exceptions import Retry
from django.db.models import Max
from django.utils import timezone
from kombu.common import maybe_declare

from djangofeeds import conf
from djangofeeds.importing.claims import (
    claim_feeds,
    claim_timeout,
    release_claims,
    unfinished_claims,
)
from djangofeeds.locking.hosts import busy_wait
from djangofeeds.models import Feed, ImportRun, RefreshRun

logger = logging.getLogger("djangofeeds.tasks")  # the tick's lines, as the task logs them

IMPORT_FEED = "djangofeeds.tasks.import_feed"
IMPORT_FEED_BATCH = "djangofeeds.tasks.import_feed_batch"
# URLs per claim statement when a person queues feeds by URL.
URLS_PER_CLAIM = 500
# Messages published together (one Redis pipeline).
PUBLISH_CHUNK = 500


def requeue(task, busy, host_waits):
    """Send the running import again in a few seconds; return the ``Retry`` to raise.

    Celery's ``retry()`` without its count: the same task id (a person waiting
    on the result gets the import's), queue, claim and options; the retries
    left for an unreachable lock cache are untouched. The message is
    acknowledged, so no pool process is held while the feed waits.
    """
    wait = busy_wait(host_waits)
    kwargs = {**task.request.kwargs, "host_waits": host_waits + 1}
    again = task.signature_from_request(task.request, kwargs=kwargs, countdown=wait)
    again.apply_async()
    return Retry(exc=busy, when=wait, sig=again)


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


def send_imports(feeds, claim, *, scheduled=False, refresh_run=None):
    """Send the imports of the claimed ``(pk, url)``s; return ``[(url, AsyncResult)]``.

    One ``import_feed`` per feed; a scheduled round sends
    ``DJANGOFEEDS_FEEDS_PER_MESSAGE`` feeds per ``import_feed_batch`` message
    instead when that is above 1 (Celery's work per message paid once for
    several). A broker failure releases the claims of the feeds not sent (they
    are due again) and re-raises; the ones already sent keep theirs, so nothing
    is sent twice (a message of a released claim imports nothing). A scheduled
    import writes no task result (``ImportRun`` is its record); one a person
    asked for keeps its state and result.
    """
    kwargs = {"claim": claim}
    if refresh_run is not None:
        kwargs["refresh_run"] = refresh_run
    per_message = conf.DJANGOFEEDS_FEEDS_PER_MESSAGE if scheduled else 1
    task = current_app.tasks[IMPORT_FEED if per_message == 1 else IMPORT_FEED_BATCH]
    sent = []
    try:
        with current_app.producer_or_acquire() as producer:
            options = scheduled_options(producer) if scheduled else queue_options(producer)
            for start in range(0, len(feeds), PUBLISH_CHUNK):
                chunk = [url for _, url in feeds[start : start + PUBLISH_CHUNK]]
                groups = [chunk[n : n + per_message] for n in range(0, len(chunk), per_message)]
                # On Redis a chunk is one pipeline, one round trip (kombu's publish
                # batch); other brokers publish each message as it comes.
                with producer.batch(max_size=2 * len(groups)):
                    results = [
                        task.apply_async(message_args(urls, per_message), kwargs, **options)
                        for urls in groups
                    ]
                # Counted once the chunk reached the broker: a failed flush sent none of it.
                for urls, result in zip(groups, results, strict=True):
                    sent.extend((url, result) for url in urls)
    except Exception:
        # A chunk that failed may have reached Redis in part: those messages
        # carry a claim that is released here, so they import nothing.
        release_claims([pk for pk, _ in feeds[len(sent) :]], claim)
        raise
    return sent


def message_args(urls, per_message):
    """An import message's arguments: ``import_feed``'s URL, or ``import_feed_batch``'s URLs."""
    return (urls[0],) if per_message == 1 else (urls,)


def send_back(urls, claim, refresh_run=None, *, countdown, host_waits=0):
    """Send each of ``urls`` again as an ``import_feed`` of its own, in ``countdown`` seconds.

    What a batch does with a feed whose host is busy, and with the feeds it
    could not import (its time ran out, the lock cache is unreachable): each
    keeps the batch's claim and round, and then waits, retries and reports as
    any scheduled import does.
    """
    kwargs = {"claim": claim, "refresh_run": refresh_run, "host_waits": host_waits}
    with current_app.producer_or_acquire() as producer:
        options = scheduled_options(producer)
        import_feed = current_app.tasks[IMPORT_FEED]
        for url in urls:
            import_feed.apply_async((url,), kwargs, countdown=countdown, **options)


def queue_options(producer):
    """``apply_async`` options of imports sent on ``producer``: the queue declared once.

    An import a person asked for keeps its result (its progress is shown),
    whatever the site's ``CELERY_TASK_IGNORE_RESULT``.
    """
    queue = declared_import_queue(producer)
    return {"producer": producer, "queue": queue, "declare": [], "ignore_result": False}


def scheduled_options(producer):
    """``queue_options`` of a scheduled import: no result, and no repr of its arguments.

    Celery writes a repr of the arguments into every message, for result rows
    and logs; a scheduled import has no result row, and the repr costs more
    than the rest of the message to build (the URL is in the args).
    """
    return {**queue_options(producer), "ignore_result": True, "argsrepr": "", "kwargsrepr": ""}


def declared_import_queue(producer):
    """The queue ``import_feed`` is routed to, declared once on ``producer``'s connection.

    Celery declares a message's queue with every message it sends (a copy and
    a bind of the queue each time, a fifth of publishing's cost); the messages
    of a batch are sent with ``declare=[]`` after this one declaration.
    """
    queue = current_app.amqp.router.route({}, IMPORT_FEED)["queue"]
    maybe_declare(queue, producer.channel)
    return queue


def refresh_round():
    """Claim a batch of due feeds and queue one import each: a refresh round; its summary.

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
    stale = now - claim_timeout()
    for summary in RefreshRun.objects.filter(finished_at__isnull=True).order_by("started_at"):
        done, counts = summary.progress()
        if done < summary.feeds and summary.started_at > stale:
            continue
        finished = ImportRun.objects.filter(refresh_run=summary).aggregate(last=Max("finished_at"))
        RefreshRun.objects.filter(pk=summary.pk).update(
            finished_at=finished["last"] or now, **counts
        )
