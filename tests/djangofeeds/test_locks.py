"""The lock against a real memcached (and the database cache): exclusion, ownership, leases."""

import itertools
import json
import os
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command

from djangofeeds.checks import check_lock_cache
from djangofeeds.lock_backends import DatabaseRows, GenericCache, MemcachedMeta
from djangofeeds.locks import CacheLock, LockUnavailable

pytestmark = pytest.mark.django_db

KEY = "djangofeeds.tasks.import_feed-lock-0123456789abcdef0123456789abcdef"


@pytest.fixture
def database_cache(settings):
    """The default cache in the database table, as on the embedded defaults."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
        }
    }
    call_command("createcachetable", verbosity=0)


@pytest.fixture(params=["memcached", "database"])
def lock_cache(request):
    """Each guarantee, on both backends a deployment can use."""
    return request.getfixturevalue(
        "memcached_cache" if request.param == "memcached" else "database_cache"
    )


def test_lock_uses_meta_commands_on_memcached_and_sql_on_the_database(memcached_cache):
    """On memcached the lock uses meta commands."""
    assert isinstance(CacheLock(KEY, expire=5)._backend, MemcachedMeta)


def test_lock_on_the_database_cache_uses_conditional_sql(database_cache):
    """On the database cache the lock uses conditional SQL on the cache's rows."""
    assert isinstance(CacheLock(KEY, expire=5)._backend, DatabaseRows)


def test_lock_excludes_other_processes(memcached_cache):
    """8 processes x 200 acquisitions of one key: no two hold intervals overlap."""
    start_ns = time.monotonic_ns() + 3_000_000_000  # time for the processes to set up Django
    env = {**os.environ, "MEMCACHED_LOCATION": memcached_cache.location}
    argv = [sys.executable, "-m", "tests.support.lock_contender", KEY, "200", str(start_ns)]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    processes = [subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, **pipes) for _ in range(8)]
    intervals = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        intervals += json.loads(out)

    assert len(intervals) == 1600
    intervals.sort()
    overlaps = [(a, b) for a, b in itertools.pairwise(intervals) if b[0] < a[1]]
    assert not overlaps, f"{len(overlaps)} overlapping holds, e.g. {overlaps[0]}"


def test_lock_busy_while_held_and_free_after_release(lock_cache):
    """A held lock cannot be taken again until its owner releases it."""
    first, second = CacheLock(KEY, expire=30), CacheLock(KEY, expire=30)

    assert first.acquire()
    assert not second.acquire()
    assert first.release()
    assert second.acquire()


def test_lock_non_owner_cannot_release(lock_cache):
    """Only the owner releases a lock: a wrong token or CAS deletes nothing."""
    owner, other = CacheLock(KEY, expire=30), CacheLock(KEY, expire=30)
    owner.acquire()

    assert not other.release()
    # Even forcing the delete with a wrong token or CAS leaves the owner's lock.
    assert not other._backend.delete(
        KEY, other.token, b"987654321" if isinstance(other._backend, MemcachedMeta) else None
    )
    assert not CacheLock(KEY, expire=30).acquire()
    assert owner.release()


def test_lock_expired_holder_does_not_delete_the_new_owners_lock(lock_cache):
    """A holder whose lease ran out cannot release the lock a new owner took."""
    stale = CacheLock(KEY, expire=1)
    stale.acquire()
    time.sleep(2.1)  # the lease runs out (the database cache stores whole seconds)
    fresh = CacheLock(KEY, expire=30)
    assert fresh.acquire()

    assert not stale.release()  # the lease ran out: it does not even try
    # and had it tried, its token/CAS no longer match:
    assert not stale._backend.delete(KEY, stale.token, stale._version)
    assert not CacheLock(KEY, expire=30).acquire()
    assert fresh.release()


def test_lock_value_is_the_owners_token(lock_cache):
    """The lock's cache value is its owner's token."""
    lock = CacheLock(KEY, expire=30)
    lock.acquire()

    value = cache.get(KEY)

    assert value in (lock.token, lock.token.encode())


@pytest.mark.django_db(transaction=True)  # the renewal thread has its own database connection
def test_lock_keep_alive_renews_a_long_lease(lock_cache):
    """keep_alive renews the lease, so work longer than it keeps the lock."""
    lock = CacheLock(KEY, expire=2)
    lock.acquire()

    with lock.keep_alive(interval=0.5):
        time.sleep(3.5)  # longer than the lease
        assert not CacheLock(KEY, expire=30).acquire()
        assert lock.held

    assert lock.release()


def test_lock_renew_notices_a_lost_lock(lock_cache):
    """Renewing a lock another owner took fails and marks the lock lost."""
    lock = CacheLock(KEY, expire=1)
    lock.acquire()
    time.sleep(2.1)
    assert CacheLock(KEY, expire=30).acquire()

    lock._lease_ends = time.monotonic() + 10  # pretend our clock lagged behind
    assert not lock.renew()
    assert lock.lost.is_set() and not lock.held


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


def test_lock_context_manager_releases(lock_cache):
    """The with form holds the lock inside the block and releases it after."""
    with CacheLock(KEY, expire=30) as lock:
        assert lock.acquired
        assert not CacheLock(KEY, expire=30).acquire()

    assert CacheLock(KEY, expire=30).acquire()


def test_lock_on_a_process_local_cache_falls_back_and_the_check_warns(settings):
    """On a process-local cache the lock still works and the system check warns."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    lock = CacheLock(KEY, expire=30)

    assert isinstance(lock._backend, GenericCache)
    assert lock.acquire() and not CacheLock(KEY, expire=30).acquire() and lock.release()
    assert [warning.id for warning in check_lock_cache(None)] == ["djangofeeds.W001"]


def test_lock_check_is_quiet_for_shared_caches(lock_cache):
    """The system check says nothing when the lock's cache is shared."""
    assert check_lock_cache(None) == []
