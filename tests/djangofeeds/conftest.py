"""Fixtures of the djangofeeds tests: the caches a lock can live in."""

import pytest
from django.core.management import call_command


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
