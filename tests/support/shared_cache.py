"""The default cache on a memcached that other test sessions and xdist workers share.

Django's ``clear()`` on memcached is ``flush_all``: it would wipe the other
processes' locks and rate-limit counts mid-test (a replayed-honeypot test once saw
no 429: a batch test on the other xdist worker had cleared "its" cache). Here
``clear()`` deletes only the keys this process used, through the cache or through
the lock backends' raw commands (both name keys with ``make_key``); the rest expire.
"""

import threading

from django.core.cache.backends.memcached import PyMemcacheCache

# Per process, not per cache object: Django gives each thread its own (a batch's threads).
used_keys: set[tuple[str, int | None]] = set()
used_keys_lock = threading.Lock()


class ProcessScopedPyMemcacheCache(PyMemcacheCache):
    def make_key(self, key, version=None):
        with used_keys_lock:
            used_keys.add((key, version))
        return super().make_key(key, version)

    def clear(self):
        global used_keys
        with used_keys_lock:
            keys, used_keys = used_keys, set()
        make_key = super().make_key  # not in the comprehension: its own scope before 3.12
        self._cache.delete_many([make_key(key, version) for key, version in keys])
