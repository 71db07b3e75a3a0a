"""The mail tests' parts: a real SMTP server on loopback, and one worker (its own package, so
that no other package's worker takes these tests' tasks) that holds every comment for the
moderator and mails through that server, with the live server as the site in its links.
Chromium comes from the browser tests' fixtures."""

import pytest

from localservers.smtp_server import SmtpServer
from localservers.workers import WorkerProcess
from tests.blog.helpers import worker_env
from tests.browser.conftest import browser, page  # noqa: F401  (chromium, as the browser tests')

MODERATOR = "mod@example.com"


@pytest.fixture(scope="package")
def smtp_server():
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def smtp(smtp_server):
    """The package's SMTP server, emptied, answering at once and failing nothing."""
    smtp_server.reset()
    yield smtp_server
    smtp_server.reset()


@pytest.fixture(scope="package")
def mail_worker(akismet_server, smtp_server, live_server, django_db_setup, django_db_blocker):
    env = worker_env(
        akismet_server,
        DJANGO_SETTINGS_MODULE="tests.mail.worker_settings",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST=smtp_server.host,
        EMAIL_PORT=str(smtp_server.port),
        BLOG_SITE_URL=live_server.url,
    )
    with django_db_blocker.unblock():
        worker = WorkerProcess(queues=["spam"], env=env).start()
    yield worker
    assert worker.stop() == 0, worker.log_tail()


@pytest.fixture(autouse=True)
def one_visitor_many_comments(no_rate_limit):
    """Every comment comes from one address: the per-IP limit is for other tests."""
