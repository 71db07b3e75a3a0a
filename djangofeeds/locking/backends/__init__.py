"""Where a ``CacheLock`` keeps its lease: one class per kind of Django cache.

Each backend answers ``add``, ``renew`` and ``delete``, and each checks the
owner: ``add`` returns a proof of ownership (memcached's CAS, or the owner's
token), which ``renew`` and ``delete`` must present. ``together`` runs several
of them, and ``get``s of the cache's own values, in one round trip where the
backend can (memcached). A backend that cannot be reached raises
``LockUnavailable``.
"""

from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.memcached import PyMemcacheCache

from djangofeeds.locking.backends.base import GenericCache, LockBackend, LockUnavailable
from djangofeeds.locking.backends.database import DatabaseRows
from djangofeeds.locking.backends.memcached import MemcachedMeta

__all__ = ["LockBackend", "LockUnavailable", "backend_for"]


def backend_for(using: str) -> LockBackend:
    cache = caches[using]
    if isinstance(cache, PyMemcacheCache):
        return MemcachedMeta(using)
    if isinstance(cache, DatabaseCache):
        return DatabaseRows(using)
    return GenericCache(using)
