"""System checks: the lock only works in a cache that every worker process shares."""

from django.conf import settings
from django.core.checks import Warning, register

from djangofeeds import conf

PROCESS_LOCAL_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache": "keeps its data inside one process",
    "django.core.cache.backends.dummy.DummyCache": "stores nothing",
}


@register()
def check_lock_cache(app_configs, **kwargs):
    alias = conf.DJANGOFEEDS_LOCK_CACHE
    backend = settings.CACHES.get(alias, {}).get("BACKEND", "")
    if backend not in PROCESS_LOCAL_CACHES:
        return []
    return [
        Warning(
            f"The cache {alias!r} used for feed import locks {PROCESS_LOCAL_CACHES[backend]}: "
            "two worker processes could import the same feed at once.",
            hint="Set MEMCACHED_LOCATION, or keep the DatabaseCache default, for the lock cache.",
            id="djangofeeds.W001",
        )
    ]
