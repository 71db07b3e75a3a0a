"""A lease lock in Django's cache: one holder at a time, released only by its owner.

Celery's "Task Cookbook" lock (``cache.add`` then ``cache.delete``) lets
whoever finishes last delete a lock that someone else took after the first
lease ran out. This one fixes that::

    with CacheLock("import-feed-lock-<md5>", expire=600) as lock:
        if not lock.acquired:
            return "skipped"
        with lock.keep_alive():      # renews the lease while a long import runs
            ...

Guarantees:

- Acquisition is one atomic add with an expiry; the value is a random owner token.
- Release deletes the key only if it still holds this owner's token (memcached:
  ``md <key> C<cas>`` with the CAS the meta ``ms`` returned; database cache: a
  ``DELETE ... WHERE value = <token>``), and never after the lease ran out.
- ``renew()`` extends the lease only while this owner still holds it.
- A backend that cannot be reached raises ``LockUnavailable``; it is never taken
  for "busy". (pymemcache's ``HashClient`` answers ``add`` on a dead server
  with ``False``; the meta commands used here always answer with a status line,
  so a missing answer can only mean the server is down.)

``CacheSemaphore`` is ``size`` such leases under one name: at most ``size``
holders at once (a host's fetch slots).

Limits: a lease is time-based. A holder paused for longer than its lease (a
stopped VM, a long GC) may still be running when a second holder starts.
Fencing numbers (``locking.fence``) make the stale holder's writes
fail; the lock alone cannot. With several memcached servers, a server that is
marked dead moves its keys to another server. Other cache backends (LocMem,
Redis) fall back to a get-then-delete release, which is not atomic, and a
system check warns when the lock cache is not shared between processes.
"""

import contextlib
import logging
import secrets
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Self

from djangofeeds.locking import keeper
from djangofeeds.locking.backends import LockBackend, LockUnavailable, backend_for

__all__ = [
    "CacheLock",
    "CacheSemaphore",
    "LockUnavailable",
    "acquire_together",
    "check_lock_cache",
    "release_together",
]

logger = logging.getLogger(__name__)

# Stop trusting a lease this long before memcached would expire it: clocks and
# round trips are not free.
SAFETY_MARGIN_SECONDS = 1.0


class CacheLock:
    """A lease on ``key`` in the cache ``using``, good for ``expire`` seconds."""

    def __init__(self, key: str, *, expire: float, using: str = "default") -> None:
        self.key = key
        self.expire = int(expire)
        self.using = using
        self.token = secrets.token_hex(16)
        self.acquired = False
        self._lost: threading.Event | None = None  # the ``lost`` event, made when first asked for
        self._backend: LockBackend = backend_for(using)
        self._version: Any = None  # the backend's proof of ownership (memcached: the CAS)
        self._lease_ends = 0.0

    def __repr__(self) -> str:
        return f"<CacheLock {self.key} {'held' if self.held else 'not held'}>"

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    @property
    def lost(self) -> threading.Event:
        """A ``threading.Event``, set once a renewal found the lease gone.

        Made when first asked for (by ``keep_alive``, in the owner's thread,
        before the lease keeper can see the lock): a lock never kept alive (a
        skipped import's) needs none, and making one costs about a third of
        what a lock adds to its two round trips.
        """
        return self._lost_event()

    def _lost_event(self) -> threading.Event:
        if self._lost is None:
            self._lost = threading.Event()
        return self._lost

    @property
    def held(self) -> bool:
        """True while this owner holds an unexpired, unlost lease."""
        lost = self._lost is not None and self._lost.is_set()
        return self.acquired and not lost and time.monotonic() < self._lease_ends

    def acquire(self) -> bool:
        """Take the lock if it is free; return whether we got it."""
        started = time.monotonic()
        self._took(self._backend.add(self.key, self.token, self.expire), started)
        return self.acquired

    def _took(self, version: Any, started: float) -> None:
        """Record the backend's answer to this lock's add, sent at ``started``."""
        self._version = version
        self.acquired = version is not None
        if self.acquired:
            self._lease_ends = started + self.expire - SAFETY_MARGIN_SECONDS

    def renew(self) -> bool:
        """Extend the lease by ``expire`` seconds if we still own it; return whether we do."""
        if not self.held:
            return False
        started = time.monotonic()
        version = self._backend.renew(self.key, self.token, self._version, self.expire)
        if version is None:
            self.lost.set()
            return False
        self._version = version
        self._lease_ends = started + self.expire - SAFETY_MARGIN_SECONDS
        return True

    def release(self) -> bool:
        """Delete the lock if we still own it and the lease holds; return whether we did."""
        if not self.held:
            self.acquired = False
            return False
        self.acquired = False
        try:
            return self._backend.delete(self.key, self.token, self._version)
        except LockUnavailable:
            # The lease runs out on its own; a failed release must not hide
            # the outcome of the work it protected.
            logger.warning("could not release lock %s: lock backend unreachable", self.key)
            return False

    @contextlib.contextmanager
    def keep_alive(self, interval: float | None = None) -> Iterator[Self]:
        """Renew the lease every ``interval`` seconds (expire/3) while the block runs.

        The process's one lease keeper does the renewing (``keeper``); a
        renewal that fails sets ``lost``.
        """
        interval = interval or max(self.expire / 3, 0.1)
        self._lost_event()  # made here, in the owner's thread: the keeper's only sets it
        keeper.keeper.add(self, interval)
        try:
            yield self
        finally:
            keeper.keeper.remove(self)

    def renew_until(self, when: float) -> None:
        """No renewal (``keep_alive``) after the monotonic time ``when``: the lease runs out."""
        keeper.keeper.end_at(self, when)


def acquire_together(locks: Sequence[CacheLock], reads: Iterable[str] = ()) -> list[Any]:
    """``acquire()`` each of ``locks`` and read the keys ``reads``, in one round trip.

    The locks share one cache; ``reads`` are keys of that cache, read as
    ``cache.get`` reads them (their values are returned). One round trip where
    the backend pipelines (memcached), one per operation elsewhere.
    """
    backend = one_backend(locks)
    started = time.monotonic()
    operations = [("add", lock.key, lock.token, lock.expire) for lock in locks]
    answers = backend.together(operations + [("get", key) for key in reads])
    for lock, version in zip(locks, answers, strict=False):
        lock._took(version, started)
    return answers[len(locks) :]


def release_together(locks: Sequence[CacheLock]) -> list[bool]:
    """``release()`` each of ``locks``, in order, in one round trip; whether each was released.

    A lock no longer held (never taken, lease run out, lost) is not sent. An
    unreachable backend is logged, not raised: the leases run out on their
    own, and a failed release must not hide the outcome of the work it
    protected.
    """
    held = [index for index, lock in enumerate(locks) if lock.held]
    if len(held) <= 1:  # at most one round trip anyway: the single lock's own path
        return [lock.release() for lock in locks]
    released = [False] * len(locks)
    for lock in locks:
        lock.acquired = False
    operations = [("delete", locks[i].key, locks[i].token, locks[i]._version) for i in held]
    try:
        answers = one_backend(locks).together(operations)
    except LockUnavailable:
        keys = ", ".join(locks[i].key for i in held)
        logger.warning("could not release lock %s: lock backend unreachable", keys)
        return released
    for index, answer in zip(held, answers, strict=True):
        released[index] = answer
    return released


def one_backend(locks: Sequence[CacheLock]) -> LockBackend:
    """The backend the ``locks`` share (they must share their cache)."""
    using = {lock.using for lock in locks}
    if len(using) != 1:
        raise ValueError(f"locks of one round trip must share one cache, not {sorted(using)}")
    return locks[0]._backend


class CacheSemaphore:
    """``size`` leases on ``<key>-0`` to ``<key>-<size - 1>``: at most ``size`` holders at once.

    Each lease is a ``CacheLock``, with its guarantees and its limits: taken
    with an atomic add, released only by its owner, renewed by ``keep_alive``.
    """

    def __init__(self, key: str, size: int, *, expire: float, using: str = "default") -> None:
        self.key = key
        self.size = size
        self.expire = expire
        self.using = using
        self.lease: CacheLock | None = None  # the CacheLock held, once acquired

    def __repr__(self) -> str:
        return f"<CacheSemaphore {self.key} {'held' if self.acquired else 'not held'}>"

    @property
    def acquired(self) -> bool:
        return self.lease is not None

    def acquire(self) -> bool:
        """Take the first free lease; return whether one was free."""
        for index in range(self.size):
            lease = self.lease_at(index)
            if lease.acquire():
                self.lease = lease
                return True
        return False

    def lease_at(self, index: int) -> CacheLock:
        """Lease ``index``, not taken: a caller may take it with others (``acquire_together``)
        and have the semaphore hold it (``adopt``)."""
        return CacheLock(f"{self.key}-{index}", expire=self.expire, using=self.using)

    def adopt(self, lease: CacheLock) -> None:
        """Hold ``lease``, one of ours the caller took (``lease_at``), as ``acquire`` would."""
        self.lease = lease

    # Called while a lease is held: ``lease`` is a CacheLock then.
    def keep_alive(
        self, interval: float | None = None
    ) -> contextlib.AbstractContextManager[CacheLock]:
        """Renew the lease held while the block runs (``CacheLock.keep_alive``)."""
        return self.lease.keep_alive(interval)  # type: ignore[union-attr]

    def renew_until(self, when: float) -> None:
        """No renewal of the lease held (``keep_alive``) after the monotonic time ``when``."""
        self.lease.renew_until(when)  # type: ignore[union-attr]

    def release(self) -> bool:
        """Give the lease back if we still own it; return whether we did."""
        lease = self.detach()
        return lease is not None and lease.release()

    def detach(self) -> CacheLock | None:
        """The lease held, now the caller's to release (``release_together``); None if none."""
        lease, self.lease = self.lease, None
        return lease


def check_lock_cache(using: str) -> None:
    """Raise ``LockUnavailable`` unless the lock cache ``using`` answers as the imports use
    it: a lease of its own, taken and given back (a worker's readiness, its healthcheck)."""
    probe = CacheLock(f"djangofeeds-probe-{secrets.token_hex(8)}", expire=10, using=using)
    if probe.acquire():
        probe.release()
