"""Celery tasks for feeds: take the feed's lock, call the importer, log, retry."""

from hashlib import md5

from celery import Task, chord, group, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.log import get_task_logger
from django.conf import settings
from django.core.cache import caches
from django.utils import timezone

from djangofeeds.importer import failed_result, record_attempt, record_crash
from djangofeeds.importer import import_feed as run_importer
from djangofeeds.locks import CacheLock, LockUnavailable, backend_for
from djangofeeds.models import Feed, ImportRun, Outcome, RefreshRun

logger = get_task_logger(__name__)

# Read once at import: Celery needs the limits when the task is declared. The
# hard limit stays below the lock's expiry, so a stuck import is killed before
# its lease could run out under it.
LOCK_EXPIRE = settings.DJANGOFEEDS_LOCK_EXPIRE
MAX_RETRIES = 5
# A Retry-After longer than this is left to the feed's schedule
# (next_check_at honours it) instead of a task retry.
RETRY_BACKOFF_MAX = 600


class TransientImportError(Exception):
    """A fetch failed in a way that may succeed soon (network, 5xx, 429)."""


def lock_key(task_name, url):
    """The Cookbook's key: the task name and the MD5 of the URL (of its bytes)."""
    return f"{task_name}-lock-{md5(url.encode()).hexdigest()}"


def queued_key(url):
    return f"djangofeeds-queued-{md5(url.encode()).hexdigest()}"


def mark_queued(url):
    """Set the short-lived "queued" marker; False if the feed is already waiting in a queue.

    Raises ``LockUnavailable`` when the lock cache is down (a plain ``cache.add``
    would answer False, "already queued", for a dead memcached server).
    """
    backend = backend_for(settings.DJANGOFEEDS_LOCK_CACHE)
    return backend.add(queued_key(url), timezone.now().isoformat(), LOCK_EXPIRE) is not None


def clear_queued(url):
    try:
        caches[settings.DJANGOFEEDS_LOCK_CACHE].delete(queued_key(url))
    except Exception as exc:  # the marker only saves work; the lock decides
        logger.warning("could not clear the queued marker of %s: %r", url, exc)


def enqueue_imports(urls):
    """Queue ``import_feed`` for each URL not already queued.

    Returns ``(queued, waiting)``: ``(url, AsyncResult)`` pairs sent now, and
    the URLs that were already waiting in a queue.
    """
    queued, waiting = [], []
    for url in urls:
        if not mark_queued(url):
            waiting.append(url)
            continue
        try:
            queued.append((url, import_feed.delay(url)))
        except Exception:
            clear_queued(url)  # not sent: a later attempt must not be blocked
            raise
    return queued, waiting


def run_import(url, *, task_name, task_id="", worker="", progress=None, retry=False):
    """Import ``url`` under its lock; the path of the task and of ``import_feeds --sync``.

    Returns the importer's ``ImportResult`` (outcome ``skipped`` when another
    worker holds the lock). Raises ``LockUnavailable`` when the lock's cache
    cannot be reached: without a lock nothing is imported.
    """
    lock = CacheLock(
        lock_key(task_name, url), expire=LOCK_EXPIRE, using=settings.DJANGOFEEDS_LOCK_CACHE
    )
    if not lock.acquire():
        logger.info("Feed %s is already being imported by another worker", url)
        return record_attempt(url, Outcome.SKIPPED, task_id=task_id, worker=worker)
    try:
        with lock.keep_alive():
            feed = Feed.objects.next_fence(url)
            return run_importer(
                url, fenced=feed, task_id=task_id, worker=worker, progress=progress, retry=retry
            )
    finally:
        lock.release()


class ImportFeedTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        """An unexpected error (a bug, a lost database): say so on the feed."""
        url = args[0] if args else kwargs.get("feed_url")
        if url:
            record_crash(
                url, f"{type(exc).__name__}: {exc}", task_id=task_id, worker=self.request.hostname
            )


@shared_task(
    bind=True,
    base=ImportFeedTask,
    # Acknowledged after the import, and requeued if the worker process dies,
    # so a crash never silently drops a feed (the lock makes a rerun safe).
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=LOCK_EXPIRE * 0.8,
    time_limit=LOCK_EXPIRE * 0.9,
    autoretry_for=(TransientImportError, LockUnavailable),
    retry_backoff=5,
    retry_backoff_max=RETRY_BACKOFF_MAX,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
)
def import_feed(self, feed_url):
    """Import one feed unless another worker is importing it; return a JSON summary."""
    last_attempt = self.request.retries >= self.max_retries

    def report(current, total):
        if self.request.id:
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
            retry=self.request.retries > 0,
        )
    except LockUnavailable as exc:
        logger.error("Cannot import %s: the lock cache is unreachable (%s); %s", feed_url, exc,
                     "giving up" if last_attempt else "will retry")  # fmt: skip
        record_attempt(
            feed_url,
            Outcome.FAILED,
            error=f"not imported: the lock cache is unreachable ({exc})",
            task_id=self.request.id,
            worker=self.request.hostname,
        )
        if last_attempt:
            return failed_result(feed_url, str(exc))
        raise
    except SoftTimeLimitExceeded:
        error = f"import took longer than {self.soft_time_limit}s and was stopped"
        record_crash(feed_url, error, task_id=self.request.id, worker=self.request.hostname)
        return failed_result(feed_url, error)
    finally:
        # Cleared when the import is over, not when it starts: a running feed
        # is still due, and refresh_feeds must not queue it again meanwhile.
        clear_queued(feed_url)

    if result.outcome == Outcome.FAILED and result.transient and not last_attempt:
        if result.retry_after and result.retry_after > RETRY_BACKOFF_MAX:
            logger.info("%s asks to wait %ss: left to the schedule", feed_url, result.retry_after)
        elif result.retry_after:
            raise self.retry(
                countdown=result.retry_after, exc=TransientImportError(result.run.error)
            )
        else:
            raise TransientImportError(result.run.error)
    logger.info("Imported %s: %s", feed_url, result.as_dict())
    return result.as_dict()


@shared_task
def refresh_feeds():
    """Queue every due feed as one chord; its callback writes a ``RefreshRun`` summary."""
    due = Feed.objects.due().order_by("next_check_at").values_list("pk", "url")
    try:
        feeds = [(pk, url) for pk, url in due if mark_queued(url)]
    except LockUnavailable as exc:
        # Without the lock cache no import could run: leave the feeds due.
        logger.error("Not refreshing feeds: the lock cache is unreachable (%s)", exc)
        return {"queued": 0, "error": str(exc)}
    if not feeds:
        return {"queued": 0}
    urls = [url for _, url in feeds]
    summary = RefreshRun.objects.create(feeds=len(urls))
    # A task that crashes stops the chord before its callback: the errback
    # then writes the summary from the import runs.
    callback = summarize_refresh.s(summary.pk).on_error(
        summarize_failed_refresh.s(summary.pk, [pk for pk, _ in feeds])
    )
    try:
        chord(group(import_feed.s(url) for url in urls), callback).delay()
    except Exception:
        for url in urls:
            clear_queued(url)
        raise
    logger.info("Refreshing %d due feeds", len(urls))
    return {"queued": len(urls), "refresh_run": summary.pk}


@shared_task
def summarize_refresh(results, refresh_run_id):
    """Chord callback: count the outcomes of one refresh round."""
    counts = dict.fromkeys(Outcome.values, 0)
    for result in results:
        status = (result or {}).get("status", Outcome.FAILED)
        counts[status if status in counts else Outcome.FAILED] += 1
    RefreshRun.objects.filter(pk=refresh_run_id).update(finished_at=timezone.now(), **counts)
    return counts


@shared_task
def summarize_failed_refresh(request, exc, traceback, refresh_run_id, feed_ids):
    """Chord errback: count the round from each feed's latest import run since it started."""
    summary = RefreshRun.objects.get(pk=refresh_run_id)
    latest = {}
    runs = ImportRun.objects.filter(feed_id__in=feed_ids, started_at__gte=summary.started_at)
    for feed_id, outcome in runs.order_by("started_at", "pk").values_list("feed_id", "outcome"):
        latest[feed_id] = outcome
    counts = dict.fromkeys(Outcome.values, 0)
    for feed_id in feed_ids:
        counts[latest.get(feed_id, Outcome.FAILED)] += 1
    logger.warning("Refresh %s ended with a crashed import: %r", refresh_run_id, exc)
    RefreshRun.objects.filter(pk=refresh_run_id).update(finished_at=timezone.now(), **counts)
    return counts


@shared_task
def cleanup():
    """Hourly (beat): prune old posts, import runs and task results, in bounded batches."""
    from djangofeeds.retention import cleanup as run_cleanup  # the pure part, like the importer

    return run_cleanup()
