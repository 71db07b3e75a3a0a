"""One thread per process that renews the leases of every lock held in it.

``CacheLock.keep_alive()`` registers its lock here instead of starting a
thread of its own: starting and joining a thread per import cost more CPU than
the lock's two memcached round trips. The keeper sleeps until the earliest
renewal is due, so a short import (most of them: a 304 takes milliseconds,
a lease lasts minutes) never wakes it. ``remove()`` waits for a renewal of its
lock that is under way, so no renewal runs after the caller released the lock.
"""

import logging
import os
import threading
import time

from django.core.cache import caches
from django.db import connections

from djangofeeds.locking.backends import LockUnavailable

logger = logging.getLogger(__name__)

# How long the keeper sleeps with nothing to renew: a lock added meanwhile
# wakes it only when its first renewal is due sooner than that.
IDLE_WAIT = 60.0


class LeaseKeeper:
    def __init__(self):
        self._changed = threading.Condition()
        self._due = {}  # lock -> (monotonic time of its next renewal, interval)
        self._ends = {}  # lock -> monotonic time after which it is renewed no more
        self._renewing = None  # the lock being renewed, outside the condition
        self._wakes_at = float("inf")  # when the keeper's sleep ends
        self._thread = None

    def add(self, lock, interval):
        """Renew ``lock`` every ``interval`` seconds until ``remove(lock)``."""
        with self._changed:
            due = time.monotonic() + interval
            self._due[lock] = (due, interval)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lease keeper", daemon=True)
                self._thread.start()
            elif due < self._wakes_at:
                self._changed.notify()

    def end_at(self, lock, when):
        """Renew ``lock`` no more once the monotonic time ``when`` has passed: its lease
        then runs out. For a holder no time limit stops (``importing.batch_stragglers``)."""
        with self._changed:
            self._ends[lock] = when

    def remove(self, lock):
        """Stop renewing ``lock``; returns once no renewal of it is running."""
        with self._changed:
            self._due.pop(lock, None)
            self._ends.pop(lock, None)
            while self._renewing is lock:
                self._changed.wait()

    def _run(self):
        while True:
            lock = self._next_due()
            try:
                renewed = lock.renew()
            except LockUnavailable:
                renewed = False
            except Exception:  # the keeper must outlive any one lock's failure
                logger.exception("renewing lock %s failed", lock.key)
                renewed = False
            finally:
                # Renewals are rare: the thread keeps no connection between them.
                close_thread_connections()
            with self._changed:
                self._renewing = None
                if not renewed and self._due.pop(lock, None) is not None:
                    lock.lost.set()
                    logger.warning("lost the lease on lock %s", lock.key)
                self._changed.notify_all()

    def _next_due(self):
        """Sleep until a lock's renewal is due; mark it as being renewed and return it."""
        with self._changed:
            while True:
                now = time.monotonic()
                lock, (due, interval) = min(
                    self._due.items(), key=lambda item: item[1][0], default=(None, (None, None))
                )
                if lock is not None and due <= now and now > self._ends.get(lock, now):
                    del self._due[lock], self._ends[lock]
                    logger.warning("lock %s: renewed no more, its holder took too long", lock.key)
                    continue
                if lock is not None and due <= now:
                    self._due[lock] = (now + interval, interval)
                    self._renewing = lock
                    self._wakes_at = now
                    return lock
                self._wakes_at = due if lock is not None else now + IDLE_WAIT
                self._changed.wait(self._wakes_at - now)


def close_thread_connections():
    """A thread's cache and database connections are its own: close them."""
    for cache in caches.all(initialized_only=True):
        cache.close()
    connections.close_all()


keeper = LeaseKeeper()


def _new_keeper_after_fork():
    # A forked child (a prefork pool process) has no keeper thread, and may
    # have copied the condition's lock while another thread held it.
    global keeper
    keeper = LeaseKeeper()


os.register_at_fork(after_in_child=_new_keeper_after_fork)
