"""Fixtures of the fault matrix: many comments per test IP, and no refused key left behind."""

import pytest

from blog import spam


@pytest.fixture
def no_rate_limit(settings):
    """Many comments from one test IP: no per-IP limit."""
    settings.BLOG_COMMENTS_PER_MINUTE = 0


@pytest.fixture
def forget_refused_key():
    """A refused key is recorded in the shared cache (for /healthz): not for later tests."""
    yield
    spam.clear_misconfigured()
