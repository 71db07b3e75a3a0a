"""Fixtures of the hostile-input matrix."""

import pytest

from djangofeeds import fetch


@pytest.fixture
def public_loopback(settings, monkeypatch):
    """Private addresses refused, except 127.0.0.1, which stands in for a public server."""
    settings.DJANGOFEEDS_ALLOW_PRIVATE_HOSTS = False
    monkeypatch.setattr(fetch, "is_public", lambda address: address == "127.0.0.1")
