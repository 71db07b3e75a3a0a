"""Fixtures of the djangofeeds tests: the caches a lock can live in, and a clean one; a clock."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone

from djangofeeds.importing.batch_stragglers import stragglers
from tests.support.queues import purge_run_queues


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


@pytest.fixture
def clean_cache():
    """Locks and host slots live in the default cache, which outlives a transactional test;
    a batch's stragglers are waited for, so nothing of a test is left to a later one."""
    yield
    assert stragglers().drain(10)
    cache.clear()


@pytest.fixture(params=["memcached", "database"])
def lock_cache(request):
    """Each guarantee, on both backends a deployment can use."""
    return request.getfixturevalue(
        "memcached_cache" if request.param == "memcached" else "database_cache"
    )


@pytest.fixture
def hub():
    """A WebSub hub stand-in on loopback (localservers.websub_hub)."""
    from localservers.websub_hub import WebSubHub

    server = WebSubHub().start()
    yield server
    server.stop()


@pytest.fixture
def push_on(settings, live_server):
    """Push on: hubs reach this site at the live server's URL."""
    settings.DJANGOFEEDS_PUBLIC_URL = live_server.url
    return live_server


@pytest.fixture
def eager():
    """Tasks sent with ``delay`` run at once in this process (CELERY_TASK_ALWAYS_EAGER)."""
    from project.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def purge_queues():
    """Tasks published here are not for the workers of later tests."""
    yield
    purge_run_queues()


class Clock:
    """``django.utils.timezone.now`` as the test sets it: days pass without a sleep."""

    def __init__(self, start):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, **delta):
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock(monkeypatch):
    """A clock the test moves (``clock.advance(days=1)``), read by everything that asks
    Django for the time in this process. It starts a year back, so that a test's weeks
    stay in the past of the real clock, which the parser checks feeds' dates against."""
    clock = Clock(timezone.now() - timedelta(days=365))
    monkeypatch.setattr(timezone, "now", clock)
    return clock
