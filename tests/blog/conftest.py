"""The blog's fixtures: the Akismet stand-in, a worker that uses it, and a private broker."""

import pytest
from django.conf import settings as django_settings

from blog import spam
from project.celery import app as celery_app
from tests.blog.helpers import FAST_RETRIES, KEY, worker_env
from tests.support.akismet_server import AkismetStandIn
from tests.support.workers import WorkerProcess


@pytest.fixture(scope="package")
def akismet_server():
    server = AkismetStandIn(keys=[KEY]).start()
    yield server
    server.stop()


@pytest.fixture
def akismet(akismet_server):
    """The package's stand-in, with its log cleared and every fault off."""
    akismet_server.reset()
    if akismet_server._server is None:  # a test stopped it and failed before restarting it
        akismet_server.start()
    yield akismet_server
    akismet_server.reset()


@pytest.fixture
def akismet_settings(settings, akismet):
    """This process's settings pointed at the stand-in, as the workers' are."""
    settings.AKISMET_API_KEY = KEY
    settings.AKISMET_API_URL = akismet.url
    for name, value in FAST_RETRIES.items():
        setattr(settings, name, value)
    spam.reset_client()
    yield settings
    spam.reset_client()


@pytest.fixture(autouse=True)
def isolated_blog_state(settings):
    """No rate limit unless a test sets one (the counters live in the shared cache), and
    no test sees another's recorded Akismet misconfiguration (also in the cache)."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0
    yield
    spam.clear_misconfigured()


@pytest.fixture(scope="package")
def spam_worker(akismet_server, django_db_setup, django_db_blocker):
    """One worker on the spam queue, using the stand-in, shared by the blog's tests."""
    with django_db_blocker.unblock():
        worker = WorkerProcess(queues=["spam"], env=worker_env(akismet_server)).start()
    yield worker
    assert worker.stop() == 0, worker.log_tail()


def switch_broker(url, transport_options):
    celery_app.conf.broker_write_url = url
    celery_app.conf.broker_transport_options = transport_options
    # Drop the cached connection and producer pools: the next publish connects anew.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def private_broker(redis_server):
    """A Redis of this test's own, that it may stop: this process publishes there."""
    original = (celery_app.conf.get("broker_write_url"), celery_app.conf.broker_transport_options)
    # The same key prefix as tests/settings.py gives a worker on a Redis broker.
    options = {
        "socket_connect_timeout": 1,
        "socket_timeout": 5,
        "global_keyprefix": f"{django_settings.VAR_DIR.name}:",
    }
    switch_broker(redis_server.url, options)
    yield redis_server
    switch_broker(*original)
