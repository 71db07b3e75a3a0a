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

from djangofeeds.locking.backends.memcached import MemcachedMeta
from djangofeeds.locking.locks import CacheLock, CacheSemaphore

pytestmark = pytest.mark.django_db

KEY = "djangofeeds.tasks.import_feed-lock-0123456789abcdef0123456789abcdef"


@pytest.mark.project_wiring
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
    # A 4 s lease renewed every 0.5 s: its last 1 s is the safety margin, so a
    # renewal may come 2.5 s late (a loaded machine) before the lease counts as lost.
    lock = CacheLock(KEY, expire=4)
    lock.acquire()

    with lock.keep_alive(interval=0.5):
        time.sleep(5)  # longer than the lease
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


def test_lock_context_manager_releases(lock_cache):
    """The with form holds the lock inside the block and releases it after."""
    with CacheLock(KEY, expire=30) as lock:
        assert lock.acquired
        assert not CacheLock(KEY, expire=30).acquire()

    assert CacheLock(KEY, expire=30).acquire()


def test_semaphore_admits_size_holders_and_takes_back_a_released_lease(lock_cache):
    """Two leases: two holders, the third refused until one releases; keys ``<key>-<i>``."""
    holders = [CacheSemaphore(KEY, 2, expire=30) for _ in range(3)]

    assert [holder.acquire() for holder in holders] == [True, True, False]
    assert [holder.lease.key for holder in holders[:2]] == [f"{KEY}-0", f"{KEY}-1"]
    assert holders[0].release() and not holders[0].acquired
    assert holders[2].acquire() and holders[2].lease.key == f"{KEY}-0"
    assert not holders[0].release()  # nothing held: nothing to give back
    for holder in holders[1:]:
        assert holder.release()
