"""A batch's stragglers: imports whose fetch is still out when the rest of the batch is done.

A dead server holds its fetch until the fetch deadline. While the batch waited
for it, it held its pool process too, doing nothing: with 2% of the scheduled
feeds timing out, the healthy ones lost 17% to 30% of their throughput to the
processes held so (docs/dev/performance.md, ninth and tenth rounds). Instead,
``run_batch`` hands such imports over here and its task returns: the pool
process takes its next message while one thread of the process waits for
their answers and finishes each as the batch would have (store, finish,
close), on its own database connection. Each import keeps its lock (renewed
for a while: no time limit reaches this thread), its fence and its host's
slot until then. Before the process exits, it waits for them (``drain``, on
Celery's ``worker_process_shutdown``); a process killed meanwhile leaves its
feeds as a killed batch would: their locks expire and the scheduler claims
them again once their claim runs out.
"""

import logging
import os
import queue
import threading
import time

from celery.signals import worker_process_shutdown, worker_shutdown

from djangofeeds.fetching.transport import fetch_deadline
from djangofeeds.locking.keeper import close_thread_connections

logger = logging.getLogger("djangofeeds.tasks")  # the feeds' lines, as their batch logs them

# Imports left per process at once: each holds one of the process's fetch threads
# and transport connections (transport.FETCHES_AT_ONCE counts a batch's and these).
AT_ONCE = 10

_stragglers = None
_stragglers_pid = None


def stragglers():
    """The process's ``Stragglers`` (a forked pool process makes its own)."""
    global _stragglers, _stragglers_pid
    if _stragglers_pid != os.getpid():
        _stragglers, _stragglers_pid = Stragglers(), os.getpid()
    return _stragglers


class Stragglers:
    """Imports handed over by their batch, finished by one thread as their answers come in."""

    def __init__(self):
        self._answered = queue.SimpleQueue()  # imports whose fetch has ended
        self._count = 0  # imports taken and not finished yet
        self._changed = threading.Condition()
        self._thread = None

    def __len__(self):
        return self._count

    def take(self, feed_imports, finish):
        """``finish(feed_import)`` each of ``feed_imports`` (admitted, fetch started) once its
        fetch has ended, in this process's thread; False (nothing taken) when too many wait."""
        with self._changed:
            if self._count + len(feed_imports) > AT_ONCE:
                return False
            self._count += len(feed_imports)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._finish_each, name="djangofeeds stragglers", daemon=True
                )
                self._thread.start()
        ends = time.monotonic() + deadline()  # no time limit reaches this thread
        for feed_import in feed_imports:
            feed_import.renew_until(ends)
            feed_import.prefetch.future.add_done_callback(
                lambda _future, feed_import=feed_import: self._answered.put((finish, feed_import))
            )
        return True

    def drain(self, timeout):
        """Wait up to ``timeout`` seconds for every import taken to be finished; True if so."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout)

    def _finish_each(self):
        while True:
            finish, feed_import = self._answered.get()
            try:
                finish(feed_import)
            except Exception:  # the thread goes on: the next imports' locks are held
                logger.exception("Feed %s: its import could not be finished", feed_import.url)
            finally:
                if self._answered.empty():  # stragglers are rare: keep no connection idle
                    close_thread_connections()
                with self._changed:
                    self._count -= 1
                    self._changed.notify_all()


def deadline():
    """Seconds a straggler may still take: its fetch's whole deadline, then its store.
    Its lock and host slot are renewed no longer (and the process waits no longer)."""
    return fetch_deadline() + 30


@worker_process_shutdown.connect
@worker_shutdown.connect
def drain_before_exit(**_):
    """A pool process (or a threads or solo worker) finishes its stragglers before it exits."""
    if _stragglers is None or _stragglers_pid != os.getpid() or not len(_stragglers):
        return
    logger.info("Waiting for %d feeds whose fetch is still out before exiting", len(_stragglers))
    if not _stragglers.drain(deadline()):
        logger.warning("Exiting with %d feeds unfinished: their locks expire", len(_stragglers))
