"""Where a lock keeps its lease: memcached meta commands, the database cache, and failures."""

import pytest
from django.core.cache import cache

from djangofeeds.lock_backends import DatabaseRows, MemcachedMeta
from djangofeeds.locks import CacheLock, LockUnavailable

pytestmark = pytest.mark.django_db

KEY = "djangofeeds.tasks.import_feed-lock-0123456789abcdef0123456789abcdef"


def test_lock_uses_meta_commands_on_memcached_and_sql_on_the_database(memcached_cache):
    """On memcached the lock uses meta commands."""
    assert isinstance(CacheLock(KEY, expire=5)._backend, MemcachedMeta)


def test_lock_on_the_database_cache_uses_conditional_sql(database_cache):
    """On the database cache the lock uses conditional SQL on the cache's rows."""
    assert isinstance(CacheLock(KEY, expire=5)._backend, DatabaseRows)


def test_lock_memcached_down_is_unavailable_not_busy(memcached_cache):
    """With memcached down, acquiring raises LockUnavailable rather than saying "busy"."""
    memcached_cache.stop()
    # Put pymemcache's HashClient into its "failed server" state first: there
    # cache.add() answers False, as if the key were taken.
    with pytest.raises(OSError):
        cache.add("warm-up", 1)
    assert cache.add("warm-up", 1) is False

    with pytest.raises(LockUnavailable):
        CacheLock(KEY, expire=30).acquire()


def test_lock_lets_a_time_limit_through_not_unavailable(memcached_cache, monkeypatch):
    """A Celery soft time limit (an Exception) raised mid-command is not "memcached is down"."""

    class Stop(Exception):
        """Stands in for celery.exceptions.SoftTimeLimitExceeded."""

    def raw_command(*args, **kwargs):
        raise Stop

    client = cache._cache._get_client(cache.make_and_validate_key(KEY))
    monkeypatch.setattr(client, "raw_command", raw_command)

    with pytest.raises(Stop):
        CacheLock(KEY, expire=30).acquire()


def test_lock_works_again_when_memcached_returns(memcached_cache):
    """Once memcached is back, the lock can be taken again."""
    memcached_cache.stop()
    with pytest.raises(LockUnavailable):
        CacheLock(KEY, expire=30).acquire()

    memcached_cache.start()

    assert CacheLock(KEY, expire=30).acquire()
