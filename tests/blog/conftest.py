"""The blog's fixtures: no rate limit by default, and a worker that asks the Akismet stand-in."""

import pytest

from blog import akismet_client
from localservers.workers import WorkerProcess
from tests.blog.helpers import worker_env


@pytest.fixture(autouse=True)
def isolated_blog_state(settings):
    """No rate limit unless a test sets one (the counters live in the shared cache), and
    no test sees another's recorded Akismet misconfiguration (also in the cache)."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0
    yield
    akismet_client.clear_misconfigured()


@pytest.fixture
def local_rules(settings):
    """No Akismet key: the local rules judge."""
    settings.AKISMET_API_KEY = ""
    return settings


@pytest.fixture(scope="package")
def spam_worker(akismet_server, django_db_setup, django_db_blocker):
    """One worker on the spam queue, using the stand-in, shared by the blog's tests."""
    with django_db_blocker.unblock():
        worker = WorkerProcess(queues=["spam"], env=worker_env(akismet_server)).start()
    yield worker
    assert worker.stop() == 0, worker.log_tail()
