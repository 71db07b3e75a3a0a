"""Celery tasks for feeds, thin as in Celery's Django example: options, retries, log lines."""

import base64
import os
import random
from typing import TYPE_CHECKING, Any

from celery import Task, shared_task, states
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.log import get_task_logger

from djangofeeds import conf
from djangofeeds.health import digest
from djangofeeds.importing import batch, dispatch, judging, records, refusals, retention, runner
from djangofeeds.importing.pushed import LockBusy, run_push
from djangofeeds.importing.records import ImportOrigin
from djangofeeds.locking.hosts import HostBusy
from djangofeeds.locking.locks import LockUnavailable
from djangofeeds.models import Subscription
from djangofeeds.push import publisher, subscriber
from djangofeeds.schedules import TICK_EXPIRES
from djangofeeds.search import indexing

if TYPE_CHECKING:
    from billiard.einfo import ExceptionInfo
    from celery.app.task import Context
    from celery.result import AsyncResult

logger = get_task_logger(__name__)

# Only an unreachable lock cache is retried (no fetch happened: a retry costs nothing);
# a feed that fails goes back to its schedule, which backs off.
MAX_RETRIES = 5
RETRY_BACKOFF_MAX = 600


def retry_countdown(retries: int, base: float) -> float:
    """Seconds before retry number ``retries + 1``: exponential, at least half of it fixed.

    Celery's ``retry_jitter`` draws the whole wait at random, down to 0 s, so five
    retries could all be spent within seconds of an outage that lasts ten. Here the
    waits add up to at least half of the backoff (77 s for the imports' five).
    """
    backoff = min(RETRY_BACKOFF_MAX, base * 2**retries)
    return backoff / 2 + random.uniform(0, backoff / 2)


# Celery looks at a running task's time limits about once a second: a hard limit
# closer than that behind the soft one can pass before the soft one is noticed, and
# the process is killed with nothing recorded. Two seconds also leave the stopped
# import time to record its stop.
SOFT_LIMIT_LEAD = 2


def in_callers_process(request: "Context") -> bool:
    """Whether the task runs in its caller's process (eager, or called as a function)."""
    return request.is_eager or request.called_directly


def origin_of(request: "Context", refresh_run: int | None = None) -> ImportOrigin:
    """Who asked for the task's import: its id, its worker and its refresh round."""
    return ImportOrigin(
        task_id=request.id or "", worker=request.hostname or "", refresh_run=refresh_run
    )


class TimeLimitedImport(Task):
    """``import_feed`` and ``import_feed_batch``: time limits under the lock's expiry."""

    # Read when a worker asks, not at import (a host's settings may not be ready then):
    # a stuck import is stopped (soft), then killed (hard), before its lock's lease ends.
    @property
    def soft_time_limit(self) -> float:
        soft = min(conf.DJANGOFEEDS_LOCK_EXPIRE * 0.8, self.time_limit - SOFT_LIMIT_LEAD)
        return round(soft, 3)  # as the worker's log prints it: 0.7s, not 0.7000000000000002s

    @property
    def time_limit(self) -> float:
        return round(conf.DJANGOFEEDS_LOCK_EXPIRE * 0.9, 3)

    def apply_async(
        self,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
        **options: Any,
    ) -> "AsyncResult":
        """Celery copies the sender's time limits into each message, and a worker
        applies a message's limits over its own: none are sent, so the worker's own
        lock lease sets them, unless the caller gives some."""
        options.setdefault("time_limit", None)
        options.setdefault("soft_time_limit", None)
        return super().apply_async(args, kwargs, **options)

    def soft_limit(self) -> float:
        """The soft limit this run stops at: its message's if it has one, else the worker's."""
        _, soft = self.request.timelimit or (None, None)
        return soft or self.soft_time_limit


class ImportFeedTask(TimeLimitedImport):
    """``import_feed``'s class: a crash outside the import recorded on the feed's run."""

    def on_failure(
        self,
        exc: BaseException,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: "ExceptionInfo",
    ) -> None:
        """An unexpected error outside the import (before its fence): record the run only."""
        url = args[0] if args else kwargs.get("feed_url")
        if url and not isinstance(exc, runner.ImportCrashed):
            origin = ImportOrigin(
                task_id=task_id or "",
                worker=self.request.hostname or "",
                refresh_run=kwargs.get("refresh_run"),
            )
            records.record_crash(url, records.crash_message(exc), origin=origin)


@shared_task(
    bind=True,
    base=ImportFeedTask,
    # Acknowledged after the import, and requeued if the worker process dies,
    # so a crash never silently drops a feed (the lock makes a rerun safe).
    acks_late=True,
    reject_on_worker_lost=True,
    # STARTED is written by the task once the import begins (``started``): a skip
    # writes no STARTED row for its result to overwrite a moment later.
    track_started=False,
    max_retries=MAX_RETRIES,
)
def import_feed(
    self: ImportFeedTask,
    feed_url: str,
    claim: str | None = None,
    refresh_run: int | None = None,
    host_waits: int = 0,
) -> dict[str, Any]:
    """Import one feed unless another worker is importing it (``runner``); a JSON summary."""
    request = self.request
    origin = origin_of(request, refresh_run)

    def report(current: int, total: int) -> None:
        # Only for an import a person waits on: a scheduled one writes no state.
        if request.id and not request.ignore_result:
            meta = {"current": current, "total": total, "url": feed_url}
            self.update_state(state="PROGRESS", meta=meta)

    def started() -> None:
        # What the tracer writes with CELERY_TASK_TRACK_STARTED, for an import that runs.
        if request.id and not request.ignore_result and not request.is_eager:
            meta = {"pid": os.getpid(), "hostname": request.hostname}
            self.backend.store_result(request.id, meta, states.STARTED, request=request)

    options = {"task_name": self.name, "claim": claim, "time_limit": self.soft_limit()}
    options["started"] = started
    # In the caller's process, the caller may wait for a busy host.
    options["wait_for_host"] = in_callers_process(request)
    try:
        result = runner.run_import(feed_url, progress=report, origin=origin, **options)
    except HostBusy as busy:
        again = dispatch.requeue(self, busy, host_waits)
        logger.info("Feed %s: waits %.1fs, %s", feed_url, again.when, busy)
        raise again from None
    except LockUnavailable as exc:
        last_attempt = request.retries >= self.max_retries
        logger.error(refusals.refusal(feed_url, exc, giving_up=last_attempt))
        refusals.refused(feed_url, exc, origin=origin)
        if not last_attempt:
            raise self.retry(exc=exc, countdown=retry_countdown(request.retries, 5)) from None
        return records.failed_reply(feed_url, str(exc))
    except SoftTimeLimitExceeded:  # before the import began (the lock, the database)
        return records.stopped_reply(feed_url, options["time_limit"], origin=origin)
    except (runner.ImportCrashed, *records.DATABASE_ERRORS) as exc:
        if runner.database_error(exc) is None:
            raise  # a bug: its traceback is wanted
        return runner.database_failure_reply(feed_url, exc, origin)
    return records.logged_reply(result, logger)


@shared_task(
    bind=True,
    base=TimeLimitedImport,
    acks_late=True,  # a batch lost with its worker runs again: its done feeds skip (claims)
    reject_on_worker_lost=True,
    ignore_result=True,
)
def import_feed_batch(
    self: TimeLimitedImport,
    feed_urls: list[str],
    claim: str | None = None,
    refresh_run: int | None = None,
) -> dict[str, int]:
    """Scheduled imports of several feeds in one message (``DJANGOFEEDS_FEEDS_PER_MESSAGE``),
    each as ``import_feed`` imports it (``batch.run_batch``), Celery's work paid once."""
    request = self.request
    options = {"task_name": import_feed.name, "claim": claim, "time_limit": self.soft_limit()}
    # In a worker, a dead server's fetch does not hold the pool process (batch.PATIENCE).
    options["leave_stragglers"] = not in_callers_process(request)
    return batch.run_batch(feed_urls, origin=origin_of(request, refresh_run), **options)


@shared_task(ignore_result=True, expires=TICK_EXPIRES)  # a late tick is dropped: none pile up
def refresh_feeds() -> dict[str, Any]:
    """The tick (beat, every TICK_SECONDS): claim a batch of due feeds and queue their imports."""
    return dispatch.refresh_round()


@shared_task
def cleanup() -> dict[str, int]:
    """Hourly (beat): prune old posts, import runs and task results; index what a lost task left."""
    # The pure part, like the importer; then posts whose index_posts never ran (PostgreSQL).
    return {**retention.cleanup(), "search_indexed": indexing.index_posts()}


@shared_task(ignore_result=True)
def index_posts(feed_id: int | None = None) -> int:
    """After an import (PostgreSQL): compute the search vectors it left out; how many."""
    indexed = indexing.index_posts(feed_id)
    logger.info("search indexed %d posts of feed %s", indexed, feed_id)
    return indexed


@shared_task(
    autoretry_for=(subscriber.HubError,), retry_backoff=60, retry_jitter=True, max_retries=5
)
def subscribe_feed(subscription_id: int, mode: str = "subscribe") -> dict[str, Any]:
    """Ask the subscription's hub to (un)subscribe; the hub then verifies on the callback."""
    subscription = Subscription.objects.filter(pk=subscription_id).first()
    if subscription is None or not subscriber.enabled():
        return {"status": "skipped", "subscription": subscription_id}
    if mode == "unsubscribe":
        subscriber.unsubscribe(subscription)
    else:
        subscriber.request(subscription, "subscribe")
    logger.info("WebSub: asked %s to %s %s", subscription.hub, mode, subscription.topic)
    return {"status": "requested", "subscription": subscription_id, "mode": mode}


@shared_task(bind=True, ignore_result=True, max_retries=5)
def publish_to_hubs(self: Task, urls: list[str], hubs: list[str] | None = None) -> list[str]:
    """Tell the WebSub hubs that the output feeds ``urls`` changed (``republishing.hubs``);
    a hub that failed is asked again, alone, later. The hubs told."""
    hubs = list(conf.DJANGOFEEDS_PUBLISH_HUBS) if hubs is None else hubs
    failed = publisher.publish(urls, hubs)
    if failed:
        raise self.retry(args=(urls, failed), countdown=retry_countdown(self.request.retries, 30))
    return hubs


@shared_task(bind=True, acks_late=True, max_retries=10)
def store_push(
    self: Task, subscription_id: int, body_b64: str, content_type: str = ""
) -> dict[str, Any]:
    """Store content a hub pushed (checked by the callback) under the feed's lock; no fetch."""
    origin = origin_of(self.request)
    body = base64.b64decode(body_b64)  # under the lock of the feed's imports:
    try:
        result = run_push(
            subscription_id, body, content_type, task_name=import_feed.name, origin=origin
        )
    except (LockBusy, LockUnavailable) as exc:
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries, 2)) from None
    if result is None:
        return {"status": "skipped", "subscription": subscription_id}
    summary = records.reply(result)
    logger.info("%s (pushed)", records.describe(summary))
    return summary


@shared_task(ignore_result=True)
def renew_subscriptions() -> dict[str, int]:
    """Hourly (beat, djangofeeds.schedules): renew ending leases, unsubscribe dropped feeds."""
    lapsed = subscriber.lapse()
    renew = [*lapsed, *subscriber.to_renew().exclude(pk__in=lapsed).values_list("pk", flat=True)]
    drop = list(subscriber.to_unsubscribe().values_list("pk", flat=True))
    return subscriber.subscribe_all(renew, drop)


@shared_task(bind=True, max_retries=5)
def send_health_digest(self: Task) -> int:
    """Weekly (beat): mail the week's feed health changes; a mail server down is tried again."""
    try:
        return digest.send_digest()
    except OSError as exc:  # smtplib's errors, a refused connection
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries, 60)) from None


@shared_task
def apply_rules(feed_ids: list[int] | None = None) -> dict[str, int]:
    """Judge the stored posts of ``feed_ids`` (None: every feed) by the rules as they are now
    (the admin's "Apply the rules to stored posts")."""
    return judging.apply_rules(feed_ids)
