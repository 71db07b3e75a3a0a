"""The test settings' shared memcached: a test's cache.clear() leaves other processes' keys."""

import threading

from django.core.cache import caches
from pymemcache.client.base import Client

PREFIX = "a-session"


def test_clear_deletes_only_what_this_process_used(settings, memcached):
    settings.CACHES = {
        "default": {
            "BACKEND": "tests.support.shared_cache.ProcessScopedPyMemcacheCache",
            "LOCATION": memcached.location,
            "KEY_PREFIX": PREFIX,
        }
    }
    cache = caches["default"]
    cache.set("mine", 1)
    cache.set_many({"mine-too": 2, "and-mine": 3})
    in_a_thread = threading.Thread(target=lambda: caches["default"].add("a-thread's", 4))
    in_a_thread.start()
    in_a_thread.join()
    host, port = memcached.location.rsplit(":", 1)
    other_process = Client((host, int(port)))
    other_process.set(f"{PREFIX}:1:another-worker's", b"5")  # Django's key: prefix:version:key

    cache.clear()

    assert cache.get_many(["mine", "mine-too", "and-mine", "a-thread's"]) == {}
    assert other_process.get(f"{PREFIX}:1:another-worker's") == b"5"
