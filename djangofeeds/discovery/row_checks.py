"""An OPML file's rows checked side by side: which are feeds, which are none, which must wait.

``check_rows`` fetches each new URL once, as ``finder.discover`` does (its
address checks, deadline and size cap), in a bounded thread pool
(``DJANGOFEEDS_OPML_CONCURRENCY`` threads), and answers in the rows' order.
Only a row that is certainly no feed is refused (``certainly_no_feed``).
Whatever else the fetch meets (a name that does not resolve, a timeout, a
refused connection, a 5xx, a 403) leaves the row as written, with its error:
it is stored and the importer tries it on its schedule, as Miniflux and
FreshRSS do (``record_unchecked``).

A host is fetched as an import fetches it (``locking.hosts.HostVisit``): at
most ``DJANGOFEEDS_MAX_PER_HOST`` of its rows at once, the workers' imports
counted, and not while it asked to wait. A host is asked one row first: once
it answered, its other slots are used; once it did not, its other rows are
kept as written at once, rather than each waiting out a timeout of its own.
"""

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from datetime import timedelta

from django.db import connections
from django.utils import timezone

from djangofeeds import conf
from djangofeeds.discovery.finder import Discovery, DiscoveryError, discover
from djangofeeds.fetching.errors import FeedGone, FetchError, RefusedAddress, TransientFetchError
from djangofeeds.fetching.feed_urls import InvalidFeedURL, feed_url_problem
from djangofeeds.importing.records import record_failure, start_run
from djangofeeds.locking.backends import LockUnavailable
from djangofeeds.locking.fence import StaleFence
from djangofeeds.locking.hosts import (
    HOST_WIDE,
    HostBusy,
    HostDeferred,
    HostVisit,
    busy_wait,
    deferred_until,
    heed,
    host_of,
)

# The answers that say the URL is no feed, whenever it is asked again.
NO_FEED_STATUSES = {404, 410}


@dataclass(frozen=True)
class RowCheck:
    """What a row's URL turned out to be: ``found`` (unchecked, maybe), or why it is ``refused``."""

    found: Discovery | None = None
    refused: str = ""


def certainly_no_feed(exc):
    """Whether discovery's ``InvalidFeedURL`` holds for good: the row is refused, not kept.

    An invalid URL, an address that must not be fetched, 404, 410, a body that
    is no feed, a page that links no feed (no fetch error behind them).
    """
    cause = exc.__cause__ if isinstance(exc, DiscoveryError) else None
    if not isinstance(cause, FetchError):
        return True
    return isinstance(cause, (FeedGone, RefusedAddress)) or cause.status in NO_FEED_STATUSES


def silenced(error):
    """Whether ``error`` speaks for the whole host: no answer at all, or "wait" (Retry-After)."""
    no_answer = error.transient and error.status is None
    return no_answer or (error.status in HOST_WIDE and bool(error.retry_after))


class Host:
    """One host's rows, taken in turn by its runners: one until the host answered a row,
    then up to ``DJANGOFEEDS_MAX_PER_HOST``."""

    def __init__(self, pool, results):
        self.pool, self.results = pool, results
        self.rows = deque()  # (index, url)
        self.silence = None  # the error of a row the host did not answer: its other rows keep it

    def run(self, *, first=False):
        """Check rows until none is left, each result on its row's future; the ``first``
        runner starts the others once the host has answered (a silent host costs one wait)."""
        try:
            while self.check_next():
                if first and self.silence is None and self.rows:
                    for _ in range(min(conf.DJANGOFEEDS_MAX_PER_HOST, len(self.rows) + 1) - 1):
                        # Rows are left, so the caller still waits: the pool is not shut down.
                        self.pool.submit(self.run)
                first = False
        finally:
            connections.close_all()  # this thread's, opened by a lock cache in the database

    def check_next(self):
        """Check the next row; False when none is left."""
        try:
            index, url = self.rows.popleft()  # deque: atomic between the host's runners
        except IndexError:
            return False
        try:
            self.results[index].set_result(check_row(url, self))
        except BaseException as exc:  # the caller raises it when it reaches the row
            self.results[index].set_exception(exc)
        return True


def check_rows(urls):
    """A ``RowCheck`` for each of ``urls`` (distinct), yielded in their order as each is ready.

    The caller stores a row while later ones are still being fetched.
    """
    results = [Future() for _ in urls]
    threads = max(1, min(conf.DJANGOFEEDS_OPML_CONCURRENCY, len(urls)))
    with ThreadPoolExecutor(threads, thread_name_prefix="opml-check") as pool:
        hosts = {}
        for index, url in enumerate(urls):
            hosts.setdefault(host_of(url), Host(pool, results)).rows.append((index, url))
        for host in hosts.values():  # in the order of their first rows
            pool.submit(host.run, first=True)
        try:
            for result in results:
                yield result.result()
        finally:  # the caller stopped early: the runners stop after their current row
            for host in hosts.values():
                host.rows.clear()


def check_row(url, host):
    """The ``RowCheck`` of one URL of ``host``."""
    problem = feed_url_problem(url)
    if problem:  # refused before any slot is taken
        return RowCheck(refused=problem)
    if host.silence is not None:
        return RowCheck(Discovery.as_given(url, host.silence))
    try:
        found = visit(url)
    except DiscoveryError as exc:
        if certainly_no_feed(exc):
            return RowCheck(refused=str(exc))
        found = Discovery.as_given(url, exc.__cause__)
    except FetchError as exc:  # the host asked to wait: not fetched now
        found = Discovery.as_given(url, exc)
    except InvalidFeedURL as exc:  # the URL itself
        return RowCheck(refused=str(exc))
    error = found.unchecked_error
    if error is not None and silenced(error):
        host.silence = error
    return RowCheck(found)


def visit(url):
    """``discover(url)`` in one of its host's slots (``HostVisit``), waiting while none is free.

    Without the lock cache, the fetch goes ahead: this process holds to the
    host's limit on its own (``check_rows`` runs no more runners per host).
    """
    waits = 0
    while True:
        slot = HostVisit(url, not_before=read_deferral(url))
        try:
            slot.enter()  # only the entry may find the host busy or the cache down
        except HostBusy:
            time.sleep(busy_wait(waits))
            waits += 1
            continue
        except HostDeferred as deferred:
            seconds = max(1, round((deferred.until - timezone.now()).total_seconds()))
            raise TransientFetchError(str(deferred), retry_after=seconds) from deferred
        except LockUnavailable:
            return discover(url)
        try:
            return discover(url)
        finally:
            slot.leave()


def read_deferral(url):
    """The time ``url``'s host asked to wait until, or None (also when the cache is down:
    the slot's ``LockUnavailable`` tells then)."""
    try:
        return deferred_until(url)
    except Exception:  # whatever the cache backend raises, as ``hosts.defer_host`` says
        return None


def record_unchecked(feed, error):
    """Write why the new ``feed`` could not be checked, as a failed import writes its error.

    A run, the feed's last error, status and error count (``record_failure``);
    the feed stays active and due at once (after the host's Retry-After, if it
    sent one): its first import comes next, and backs off if it fails too.
    """
    run = start_run(feed)
    run.http_status = error.status
    due = run.started_at + timedelta(seconds=error.retry_after or 0)
    with suppress(StaleFence):  # a worker took the new feed already: its import writes
        record_failure(
            feed, run, feed.fence, error, next_check_at=due, last_http_status=error.status
        )
    if error.status in HOST_WIDE:
        heed(feed.url, error.status, error.retry_after)
