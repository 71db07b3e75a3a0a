"""The system check on the lock's cache: a process-local cache gets a warning."""

import pytest

from djangofeeds.checks import check_lock_cache
from djangofeeds.lock_backends import GenericCache
from djangofeeds.locks import CacheLock

pytestmark = pytest.mark.django_db

KEY = "djangofeeds.tasks.import_feed-lock-0123456789abcdef0123456789abcdef"


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
