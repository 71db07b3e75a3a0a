"""Fixtures of the fault matrix: the blog's Akismet stand-in and private broker, reused."""

import pytest

from blog import spam
from tests.blog.conftest import (  # noqa: F401  (fixtures, found by pytest by name)
    akismet,
    akismet_server,
    akismet_settings,
    private_broker,
)


@pytest.fixture
def no_rate_limit(settings):
    """Many comments from one test IP: no per-IP limit."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0


@pytest.fixture
def forget_refused_key():
    """A refused key is recorded in the shared cache (for /healthz): not for later tests."""
    yield
    spam.clear_misconfigured()
