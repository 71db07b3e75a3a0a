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

Limits: a lease is time-based. A holder paused for longer than its lease (a
stopped VM, a long GC) may still be running when a second holder starts.
Fencing numbers (``Feed.objects.next_fence``) make the stale holder's writes
fail; the lock alone cannot. With several memcached servers, a server that is
marked dead moves its keys to another server. Other cache backends (LocMem,
Redis) fall back to a get-then-delete release, which is not atomic, and a
system check warns when the lock cache is not shared between processes.
"""

import base64
import contextlib
import logging
import pickle
import secrets
import threading
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.memcached import PyMemcacheCache
from django.db import DatabaseError, IntegrityError, connections, router, transaction
from pymemcache.exceptions import MemcacheError

logger = logging.getLogger(__name__)

# Stop trusting a lease this long before memcached would expire it: clocks and
# round trips are not free.
SAFETY_MARGIN_SECONDS = 1.0


class LockUnavailable(Exception):
    """The lock's backend cannot be reached: nobody can know whether the lock is held."""


class CacheLock:
    """A lease on ``key`` in the cache ``using``, good for ``expire`` seconds."""

    def __init__(self, key, *, expire, using="default"):
        self.key = key
        self.expire = int(expire)
        self.using = using
        self.token = secrets.token_hex(16)
        self.acquired = False
        self.lost = threading.Event()
        self._backend = backend_for(using)
        self._version = None  # the backend's proof of ownership (memcached: the CAS)
        self._lease_ends = 0.0

    def __repr__(self):
        return f"<CacheLock {self.key} {'held' if self.held else 'not held'}>"

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc_info):
        self.release()

    @property
    def held(self):
        """True while this owner holds an unexpired, unlost lease."""
        return self.acquired and not self.lost.is_set() and time.monotonic() < self._lease_ends

    def acquire(self):
        """Take the lock if it is free; return whether we got it."""
        started = time.monotonic()
        self._version = self._backend.add(self.key, self.token, self.expire)
        self.acquired = self._version is not None
        if self.acquired:
            self._lease_ends = started + self.expire - SAFETY_MARGIN_SECONDS
        return self.acquired

    def renew(self):
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

    def release(self):
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
    def keep_alive(self, interval=None):
        """Renew the lease from a background thread every ``interval`` seconds (expire/3)."""
        interval = interval or max(self.expire / 3, 0.1)
        stop = threading.Event()

        def renew_until_stopped():
            try:
                while not stop.wait(interval):
                    try:
                        renewed = self.renew()
                    except LockUnavailable:
                        renewed = False
                    if not renewed:
                        self.lost.set()
                        logger.warning("lost the lease on lock %s", self.key)
                        return
            finally:
                close_thread_connections()

        thread = threading.Thread(target=renew_until_stopped, name=f"lease {self.key}", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()


def close_thread_connections():
    """A thread's cache and database connections are its own: close them as it ends."""
    for cache in caches.all(initialized_only=True):
        cache.close()
    connections.close_all()


def backend_for(using):
    cache = caches[using]
    if isinstance(cache, PyMemcacheCache):
        return MemcachedMeta(using)
    if isinstance(cache, DatabaseCache):
        return DatabaseRows(using)
    return GenericCache(using)


class MemcachedMeta:
    """memcached >= 1.6 meta commands: add, renew and delete, each checked against the CAS.

    ``ms <key> <len> T<ttl> ME c`` adds and returns the item's CAS in one round
    trip; ``md <key> C<cas>`` deletes only that version. Owner-checked at the
    cost of the unsafe add + delete.
    """

    def __init__(self, using):
        self.using = using

    def _command(self, key, command):
        # The cache object is per thread (Django's cache handler), and so is its
        # pymemcache client: the renewal thread gets its own connection.
        cache = caches[self.using]
        key = cache.make_and_validate_key(key)
        try:
            # HashClient picks the server for the key, as it does for cache.add().
            client = cache._cache._get_client(key)
            if client is None:
                raise LockUnavailable("no memcached server is available")
            reply = client.raw_command(command(key.encode()))
        # socket.timeout is an OSError. Nothing broader: a Celery soft time
        # limit (an Exception) must reach the task, not pass for a dead server.
        except (OSError, MemcacheError) as exc:
            raise LockUnavailable(f"memcached: {type(exc).__name__}: {exc}") from exc
        return reply.split()

    def add(self, key, token, expire):
        value = token.encode()
        reply = self._command(
            key, lambda k: b"ms %s %d T%d ME c\r\n%s" % (k, len(value), expire, value)
        )
        return cas_of(reply) if reply[0] == b"HD" else None

    def renew(self, key, token, cas, expire):
        value = token.encode()
        reply = self._command(
            key, lambda k: b"ms %s %d T%d MS C%s c\r\n%s" % (k, len(value), expire, cas, value)
        )
        return cas_of(reply) if reply[0] == b"HD" else None

    def delete(self, key, token, cas):
        return self._command(key, lambda k: b"md %s C%s" % (k, cas))[0] == b"HD"


def cas_of(reply):
    """The CAS token from a meta reply such as ``HD c42``."""
    for flag in reply[1:]:
        if flag.startswith(b"c"):
            return flag[1:]
    raise LockUnavailable(f"memcached sent no CAS in {b' '.join(reply)!r}: is it older than 1.6?")


class DatabaseRows:
    """Django's ``DatabaseCache`` table, written with conditional SQL.

    The cache key is the table's primary key, so an INSERT is an atomic add; an
    expired row is taken over only by an UPDATE that still sees it expired.
    Values are stored as ``DatabaseCache`` stores them, so ``cache.get(key)``
    shows the owner's token.
    """

    def __init__(self, using):
        self.using = using

    def _run(self, key, work):
        cache = caches[self.using]
        key = cache.make_and_validate_key(key)
        db = router.db_for_write(cache.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(cache._table)
        try:
            with transaction.atomic(using=db), connection.cursor() as cursor:
                return work(cursor, connection, table, key)
        except DatabaseError as exc:
            raise LockUnavailable(f"cache table: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _encode(token):
        return base64.b64encode(pickle.dumps(token, pickle.HIGHEST_PROTOCOL)).decode("latin1")

    @staticmethod
    def _when(connection, seconds=0):
        moment = datetime.now(UTC if settings.USE_TZ else None) + timedelta(seconds=seconds)
        if not settings.USE_TZ:
            moment = moment.replace(tzinfo=None)
        return connection.ops.adapt_datetimefield_value(moment)

    def add(self, key, token, expire):
        value = self._encode(token)

        def add(cursor, connection, table, key):
            now, expires = self._when(connection), self._when(connection, expire)
            try:
                with transaction.atomic(using=connection.alias):
                    cursor.execute(
                        f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, %s, %s)",
                        [key, value, expires],
                    )
                return token
            except IntegrityError:
                cursor.execute(
                    f"UPDATE {table} SET value = %s, expires = %s"
                    " WHERE cache_key = %s AND expires < %s",
                    [value, expires, key, now],
                )
                return token if cursor.rowcount == 1 else None

        return self._run(key, add)

    def renew(self, key, token, version, expire):
        value = self._encode(token)

        def renew(cursor, connection, table, key):
            cursor.execute(
                f"UPDATE {table} SET expires = %s"
                " WHERE cache_key = %s AND value = %s AND expires >= %s",
                [self._when(connection, expire), key, value, self._when(connection)],
            )
            return token if cursor.rowcount == 1 else None

        return self._run(key, renew)

    def delete(self, key, token, version):
        value = self._encode(token)

        def delete(cursor, connection, table, key):
            cursor.execute(
                f"DELETE FROM {table} WHERE cache_key = %s AND value = %s AND expires >= %s",
                [key, value, self._when(connection)],
            )
            return cursor.rowcount == 1

        return self._run(key, delete)


class GenericCache:
    """Any other cache: atomic add where the backend's is; release and renew are get-then-act."""

    def __init__(self, using):
        self.using = using

    def add(self, key, token, expire):
        return token if caches[self.using].add(key, token, expire) else None

    def renew(self, key, token, version, expire):
        cache = caches[self.using]
        return token if cache.get(key) == token and cache.touch(key, expire) else None

    def delete(self, key, token, version):
        cache = caches[self.using]
        # Not atomic: the key may change hands between get and delete.
        return cache.get(key) == token and cache.delete(key)
