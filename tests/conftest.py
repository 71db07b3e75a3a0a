"""Fixtures shared by the whole suite: real servers and real Celery workers."""

import shutil
import tempfile
from pathlib import Path

import pytest
import redis
from django.conf import settings

from project.celery import app as celery_app
from tests.support.feed_server import FeedServer
from tests.support.services import Memcached, Redis
from tests.support.workers import WorkerProcess


def pytest_sessionfinish(session, exitstatus):
    """Remove this session's scratch folder and its keys on a shared Redis broker."""
    prefix = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("global_keyprefix")
    if prefix:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
    var_dir = Path(settings.VAR_DIR)
    if var_dir.parent == Path(tempfile.gettempdir()) and var_dir.name.startswith("project-tests-"):
        shutil.rmtree(var_dir, ignore_errors=True)


@pytest.fixture
def memcached():
    """A private memcached that the test may stop and start."""
    server = Memcached().start()
    yield server
    server.stop()


@pytest.fixture
def memcached_cache(settings, memcached):
    """The default cache on a private, real memcached."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
            "LOCATION": memcached.location,
            "OPTIONS": settings.MEMCACHED_OPTIONS,
        }
    }
    return memcached


@pytest.fixture
def feed_server():
    """A local HTTP server that serves the feeds a test sets up."""
    server = FeedServer().start()
    yield server
    server.stop()


@pytest.fixture
def redis_server():
    """A private Redis that the test may stop and start."""
    server = Redis().start()
    yield server
    server.stop()


def stop_cleanly(worker):
    code = worker.stop()
    assert code == 0, f"worker exited with {code}:\n{worker.log_tail()}"


@pytest.fixture
def worker_factory(django_db_setup, django_db_blocker):
    """Start real worker processes on the test database; stop them cleanly afterwards."""
    workers = []

    def start(**kwargs):
        with django_db_blocker.unblock():  # the worker's env names the test database
            workers.append(WorkerProcess(**kwargs).start())
        return workers[-1]

    yield start
    for worker in workers:
        if not worker.killed:  # a test that kills a worker has seen how it ended
            stop_cleanly(worker)


@pytest.fixture(scope="module")
def celery_worker(django_db_setup, django_db_blocker):
    """One worker on every queue, shared by a test module."""
    with django_db_blocker.unblock():
        worker = WorkerProcess().start()
    yield worker
    stop_cleanly(worker)


@pytest.fixture
def use_broker():
    """Point the app's new broker connections at another URL for one test."""
    # broker_write_url, not broker_url: Celery reads CELERY_BROKER_URL from the
    # environment before its own setting, so only this one can be overridden.
    original = celery_app.conf.get("broker_write_url")

    def use(url):
        celery_app.conf.broker_write_url = url
        forget_connections()

    def forget_connections():
        # .delay() publishes through pools made for the old URL (kombu keeps
        # one pool per URL, so the old ones stay usable for later tests).
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    yield use
    celery_app.conf.broker_write_url = original
    forget_connections()
