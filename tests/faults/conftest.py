"""Fixtures of the fault matrix: many comments per test IP, and no refused key left behind."""

import pytest

from blog import akismet_client


@pytest.fixture
def forget_refused_key():
    """A refused key is recorded in the shared cache (for /healthz): not for later tests."""
    yield
    akismet_client.clear_misconfigured()
