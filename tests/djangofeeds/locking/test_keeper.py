"""The process's lease keeper: one thread renews every held lock, and stops when told."""

import multiprocessing
import threading
import time

from django.core.cache import caches

from djangofeeds.locking import keeper
from djangofeeds.locking.keeper import LeaseKeeper
from djangofeeds.locking.locks import CacheLock

KEY = "djangofeeds.tasks.import_feed-lock-keeper"


def keeper_threads():
    return [thread for thread in threading.enumerate() if thread.name == "lease keeper"]


def test_one_thread_keeps_every_lease_of_the_process_alive(memcached_cache):
    """Three locks held at once outlive their 3 s leases, renewed by one keeper thread."""
    # Not 2 s: memcached counts expiry in whole seconds, which leaves a 2 s lease
    # about a second of margin; once in CI, under load, one lapsed between renewals.
    locks = [CacheLock(f"{KEY}-{n}", expire=3) for n in range(3)]
    assert all(lock.acquire() for lock in locks)
    threads_before = len(keeper_threads())

    with locks[0].keep_alive(0.2), locks[1].keep_alive(0.2), locks[2].keep_alive(0.2):
        time.sleep(4.5)  # one and a half leases
        assert all(lock.held for lock in locks)
        assert not any(CacheLock(lock.key, expire=30).acquire() for lock in locks)
        assert len(keeper_threads()) <= max(threads_before, 1)

    assert all(lock.release() for lock in locks)


def test_a_lease_renewed_until_a_time_runs_out_after_it(memcached_cache):
    """Two 3 s leases renewed every 0.2 s; one renewed only until 1 s from now (a holder no
    time limit stops may be stuck): it runs out about 3 s after that, the other is held."""
    ended, kept = CacheLock(f"{KEY}-ended", expire=3), CacheLock(f"{KEY}-kept", expire=3)
    assert ended.acquire() and kept.acquire()

    with ended.keep_alive(0.2), kept.keep_alive(0.2):
        ended.renew_until(time.monotonic() + 1)
        time.sleep(2)
        assert not CacheLock(ended.key, expire=30).acquire()  # its last renewal still holds
        time.sleep(3.5)
        assert CacheLock(ended.key, expire=30).acquire()  # ran out: another takes it
        assert not CacheLock(kept.key, expire=30).acquire()

    assert not ended.release() and kept.release()


def test_a_lease_taken_over_is_marked_lost(memcached_cache):
    """When another owner holds the key, the keeper's renewal fails and sets ``lost``."""
    lock = CacheLock(KEY, expire=2)
    assert lock.acquire()

    with lock.keep_alive(0.2):
        caches["default"].delete(KEY)  # as if the lease had run out
        assert CacheLock(KEY, expire=30).acquire()
        assert lock.lost.wait(3)

    assert not lock.held and not lock.release()


class SlowLease:
    """A lease whose renewal takes a while: stands in for a slow lock server."""

    key = "slow"

    def __init__(self):
        self.lost = threading.Event()
        self.renewing = threading.Event()
        self.renewals_after_removal = 0
        self.removed = False

    def renew(self):
        self.renewing.set()
        time.sleep(0.3)
        if self.removed:
            self.renewals_after_removal += 1
        return True


def test_remove_waits_for_a_renewal_under_way():
    """``remove()`` returns only after the running renewal ends; none starts after it."""
    keeper, lease = LeaseKeeper(), SlowLease()
    keeper.add(lease, 0.05)
    assert lease.renewing.wait(2)

    keeper.remove(lease)
    lease.removed = True
    time.sleep(0.3)

    assert lease.renewals_after_removal == 0
    assert not lease.lost.is_set()


def test_a_removed_lock_is_not_marked_lost():
    """A lock removed while its renewal fails was released by its owner: it is not lost."""

    class Released(SlowLease):
        def renew(self):
            super().renew()
            return False

    keeper, lease = LeaseKeeper(), Released()
    keeper.add(lease, 0.05)
    assert lease.renewing.wait(2)
    keeper.remove(lease)

    assert not lease.lost.is_set()


def hold_a_lease_in_a_child(ready):
    lock = CacheLock(f"{KEY}-child", expire=2)
    lock.acquire()
    with lock.keep_alive(0.2):
        time.sleep(2.5)
        ready.put(lock.held and not lock.lost.is_set())
    lock.release()


def test_a_forked_process_gets_a_keeper_of_its_own(memcached_cache):
    """A prefork pool process renews its leases: the parent's keeper thread is not copied."""
    parent_lock = CacheLock(f"{KEY}-parent", expire=30)
    with parent_lock, parent_lock.keep_alive():  # the parent's keeper runs before the fork
        parent_keeper = keeper.keeper
        context = multiprocessing.get_context("fork")
        ready = context.Queue()
        child = context.Process(target=hold_a_lease_in_a_child, args=(ready,))
        child.start()
        held = ready.get(timeout=10)
        child.join(10)

    assert held is True
    assert child.exitcode == 0
    assert keeper.keeper is parent_keeper
