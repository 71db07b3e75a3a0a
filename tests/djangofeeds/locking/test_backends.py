"""Where a lock keeps its lease: memcached meta commands, the database cache, and failures."""

import pytest
from django.core.cache import cache
from pymemcache.client.murmur3 import murmur3_32
from pymemcache.client.rendezvous import RendezvousHash

from djangofeeds.locking.backends.database import DatabaseRows
from djangofeeds.locking.backends.memcached import MemcachedMeta, one_server_first
from djangofeeds.locking.locks import CacheLock, LockUnavailable, acquire_together, release_together
from tests.support.memcached import memcached_writes

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


def test_a_time_limit_amid_several_commands_closes_their_connection(memcached_cache, monkeypatch):
    """A time limit while the replies of several commands are read passes through, and the
    connection is closed, so no unread reply answers the next command."""

    class Stop(Exception):
        """Stands in for celery.exceptions.SoftTimeLimitExceeded."""

    locks = [CacheLock(KEY, expire=30), CacheLock(KEY + "-2", expire=30)]  # loads the readers
    client = cache._cache._get_client(cache.make_and_validate_key(KEY))
    cache.set("warm-up", 1)  # the client's connection is open
    assert client.sock is not None

    def read_line(sock, buffer):
        raise Stop

    monkeypatch.setattr(MemcachedMeta, "read_line", staticmethod(read_line))
    with pytest.raises(Stop):
        acquire_together(locks)
    assert client.sock is None

    monkeypatch.undo()
    again = [CacheLock(KEY + "-3", expire=30), CacheLock(KEY + "-4", expire=30)]
    acquire_together(again)  # on a new connection, answered in step
    assert all(lock.acquired for lock in again) and release_together(again) == [True, True]


def test_lock_works_again_when_memcached_returns(memcached_cache):
    """Once memcached is back, the lock can be taken again."""
    memcached_cache.stop()
    with pytest.raises(LockUnavailable):
        CacheLock(KEY, expire=30).acquire()

    memcached_cache.start()

    assert CacheLock(KEY, expire=30).acquire()


def test_one_memcached_server_is_picked_without_scoring_the_key():
    """With one server, the lock's hasher answers it unscored; with two, as rendezvous does."""
    scored = []

    def counted_murmur3(key, seed):
        scored.append(key)
        return murmur3_32(key, seed)

    hasher = RendezvousHash(nodes=["one:11211"], hash_function=counted_murmur3)
    one_server_first(hasher)
    keys = [f"djangofeeds-host-{n}" for n in range(50)]

    assert {hasher.get_node(key) for key in keys} == {"one:11211"} and scored == []

    hasher.add_node("two:11211")
    plain = RendezvousHash(nodes=["one:11211", "two:11211"])
    assert [hasher.get_node(key) for key in keys] == [plain.get_node(key) for key in keys]
    assert len(scored) == 100  # both servers scored for each key

    hasher.remove_node("two:11211")
    assert hasher.get_node("x") == "one:11211" and len(scored) == 100
    hasher.remove_node("one:11211")  # the last server marked dead: no server at all
    assert hasher.get_node("x") is None


def test_the_lock_cache_skips_the_scores_and_still_picks_its_server(memcached_cache):
    """After a lock on the one memcached, the cache's own calls reach the same server."""
    lock = CacheLock(KEY, expire=30)
    assert lock.acquire()

    assert "get_node" in vars(cache._cache.hasher)  # the lock made the hasher skip scoring
    cache.set("after-the-lock", 7)
    assert cache.get("after-the-lock") == 7 and lock.release()


def test_memcached_sends_several_commands_and_reads_in_one_round_trip(memcached_cache, monkeypatch):
    """Two lock adds and two reads of the cache's own values go in one write."""
    first, second = CacheLock(KEY, expire=30), CacheLock(KEY + "-2", expire=30)
    cache.set("deferral", {"until": 42}, 30)
    client = cache._cache._get_client(cache.make_and_validate_key(KEY))
    written = memcached_writes(client, monkeypatch)

    read = acquire_together([first, second], reads=["deferral", "never-set"])

    assert read == [{"until": 42}, None]  # decoded as cache.get decodes it
    assert first.acquired and second.acquired and len(written) == 1
    assert CacheLock(KEY, expire=30).acquire() is False  # really held in memcached
    assert release_together([first, second]) == [True, True] and len(written) == 3
    assert CacheLock(KEY + "-2", expire=30).acquire()


def test_release_together_sends_only_the_locks_still_held(lock_cache):
    """A lock never taken, or already released, is not sent; the held one is released."""
    held, taken_by_other = CacheLock(KEY, expire=30), CacheLock(KEY + "-2", expire=30)
    other = CacheLock(KEY + "-2", expire=30)
    assert held.acquire() and other.acquire() and not taken_by_other.acquire()

    assert release_together([held, taken_by_other]) == [True, False]
    assert not held.held and other.held  # the other owner's lock is untouched
    assert release_together([held]) == [False]  # twice: nothing sent, nothing released


def test_locks_of_one_round_trip_share_their_cache(settings, memcached_cache):
    settings.CACHES = {**settings.CACHES, "other": settings.CACHES["default"]}
    one, another = CacheLock(KEY, expire=30), CacheLock(KEY, expire=30, using="other")
    with pytest.raises(ValueError, match="share one cache"):
        acquire_together([one, another])


def test_several_memcached_servers_get_one_round_trip_each(settings, memcached, monkeypatch):
    """Keys on two servers: each server gets its commands in one write, answers in order."""
    from localservers.services import Memcached

    second = Memcached().start()
    try:
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
                "LOCATION": [memcached.location, second.location],
            }
        }
        locks = [CacheLock(f"{KEY}-{n}", expire=30) for n in range(20)]
        acquire_together(locks)
        servers = {
            cache._cache._get_client(cache.make_and_validate_key(lock.key)).server for lock in locks
        }
        assert all(lock.acquired for lock in locks) and len(servers) == 2
        assert not any(CacheLock(lock.key, expire=30).acquire() for lock in locks)
        assert release_together(locks) == [True] * 20
        assert all(CacheLock(lock.key, expire=30).acquire() for lock in locks)
    finally:
        second.stop()
